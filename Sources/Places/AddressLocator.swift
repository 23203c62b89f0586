import Foundation
import Geo

/// How much an address answer knows.
public enum AddressPrecision: String, Sendable {
    /// Placed along the named road by its building number (by the 기초번호 rule, (N − 1) × 10 m
    /// from the road's start, or by the road's calibrated numbering, `RoadNumbering`).
    case interpolated
    /// The road is known but the number cannot be placed (beyond the road's length as the network
    /// knows it, malformed, or a branch road the network lacks): a point on the road.
    case road
    /// Only the 동 is known (a lot address, 지번, or an unknown road in a named 동): a point inside it.
    case dong
}

/// An address read from text and placed.
public struct AddressMatch: Sendable, Hashable {
    /// The address as recognised, written out ("서울특별시 강남구 테헤란로 152").
    public let text: String
    /// The short form shown as a result name ("테헤란로 152", "역삼동 737").
    public let name: String
    public let coordinate: Coordinate
    public let precision: AddressPrecision
    /// The road the number was placed on (its index in the locator) and the building's main
    /// number, for calibration; nil for answers not placed by number.
    package var road: Int?
    package var number: Int?

    init(text: String, name: String, coordinate: Coordinate, precision: AddressPrecision, road: Int? = nil, number: Int? = nil) {
        self.text = text
        self.name = name
        self.coordinate = coordinate
        self.precision = precision
        self.road = road
        self.number = number
    }
}

/// Reads road-name addresses (도로명주소) and lot addresses (지번) and places them: along the
/// node-link network's named roads (`NamedRoad`), or at the 동 (`Division`).
///
/// Forms read: with or without 시도 and 시군구 (서울, 서울시, 서울특별시; 강남구), any spacing
/// (`테헤란로 7길 21`, `테헤란로7길21`), `지하`, sub-numbers (`12-3`), `번지`/`번`, a trailing
/// `(역삼동)`, and keys typed in English mode (`xpgpfksfh 152`).
struct AddressLocator: Sendable {
    let roads: [NamedRoad]
    /// Each road's numbering: the rule, or its calibration (`AddressCalibration`).
    private(set) var numberings: [RoadNumbering]
    let roadsByName: [String: [Int]]
    let roadBoxes: [BoundingBox]
    let longestName: Int
    /// Seoul's 시군구 by name ("강남구" → code).
    let districtByName: [String: String]
    /// 읍면동 by name, all of Korea.
    let dongsByName: [String: [Division]]
    let divisionsByCode: [String: Division]
    /// Names the 시군구 a placed address lies in.
    let admin: AdminLocator
    /// Province names other than Seoul's (an address naming one is not on our roads).
    let otherProvinceNames: [String]

    /// A building lies off the road's centre line, on the side its parity says.
    static let sideOffset = 15.0
    /// A number this far past the road's known end is still placed (at the end) as interpolated.
    static let endTolerance = 50.0
    /// Numbers above this are malformed (the longest Seoul roads stop below 5,000).
    static let largestNumber = 99_999

    init(roads: [NamedRoad], divisions: [Division], admin: AdminLocator, calibration: [String: RoadNumbering] = [:]) {
        self.roads = roads
        numberings = roads.map { calibration[AddressCalibration.key($0)] ?? .rule }
        self.admin = admin
        var byName: [String: [Int]] = [:]
        for (i, r) in roads.enumerated() { byName[r.name, default: []].append(i) }
        roadsByName = byName
        roadBoxes = roads.map { r in
            BoundingBox(west: r.points.map(\.lon).min()!, south: r.points.map(\.lat).min()!,
                        east: r.points.map(\.lon).max()!, north: r.points.map(\.lat).max()!)
        }
        longestName = roads.map(\.name.count).max() ?? 0
        var districts: [String: String] = [:], dongs: [String: [Division]] = [:], codes: [String: Division] = [:]
        for d in divisions {
            codes[d.code] = d
            if d.level == PlaceCategory.sigungu && d.code.hasPrefix(PlaceSources.seoulCode) { districts[d.name] = d.code }
            if d.level == PlaceCategory.emd { dongs[d.name, default: []].append(d) }
        }
        districtByName = districts
        dongsByName = dongs
        divisionsByCode = codes
        otherProvinceNames = KoreanProvinces.all.filter { $0.code != PlaceSources.seoulCode }
            .flatMap { [$0.name] + $0.shortNames }
    }

    /// This locator with the roads of `table` numbered as it says and every other road by the rule.
    func calibrated(_ table: [String: RoadNumbering]) -> AddressLocator {
        var copy = self
        copy.numberings = roads.map { table[AddressCalibration.key($0)] ?? .rule }
        return copy
    }

    /// The address `text` names, placed; nil when it does not read as an address (the caller
    /// then searches places as usual).
    func locate(_ text: String) -> AddressMatch? {
        if let m = locateTyped(text) ?? locateTyped(Self.withoutTrailingRemark(text)) { return m }
        if let withDong = Self.bracketedDongFirst(text), let m = locateTyped(withDong), m.precision == .dong { return m }
        if KeyboardLayout.hasLatinLetter(text) { return locateTyped(KeyboardLayout.hangul(fromKeys: text)) }
        return nil
    }

    /// An address whose road is unknown may still name its 동 in brackets, as official
    /// addresses do (`고려대로 지하89 (안암동5가)`): the 동 moved before the road, where a 동 is read.
    static func bracketedDongFirst(_ text: String) -> String? {
        guard let open = text.firstIndex(of: "(") else { return nil }
        let inside = text[text.index(after: open)...].prefix { $0 != ")" && $0 != "," && !$0.isWhitespace }
        var words = text[..<open].split(whereSeparator: \.isWhitespace).map(String.init)
        guard !inside.isEmpty, let road = words.lastIndex(where: { $0.hasSuffix("로") || $0.hasSuffix("길") }) else { return nil }
        words.insert(String(inside), at: road)
        return words.joined(separator: " ")
    }

    /// An address with a remark after its number (`낙성대로 77 낙성대공원내`, `…로 12, 3층`): the
    /// text up to the last word holding a digit.
    static func withoutTrailingRemark(_ text: String) -> String {
        let words = text.split(whereSeparator: { $0.isWhitespace || $0 == "," })
        guard words.count >= 2, let last = words.lastIndex(where: { $0.contains(where: \.isNumber) }), last < words.count - 1,
              last >= 1 else { return text }
        return words[...last].joined(separator: " ")
    }

    /// The parts of an address: what precedes the number, the number, and its flags.
    struct Parsed {
        var prefix: [Character]
        var main: Int?
        var sub: Int?
        /// The number is there but not a building number (`-1`, eleven digits, `0`).
        var malformed = false
        var underground = false
        var mountain = false
        /// No number at all.
        var bare = false
    }

    static func parse(_ text: String) -> Parsed? {
        var chars: [Character] = []
        for c in text {
            if c == "(" || c == "," { break }
            if c.isWhitespace || c == "." { continue }
            chars.append(c)
        }
        for suffix in ["번지", "번"] where chars.count > suffix.count && String(chars.suffix(suffix.count)) == suffix {
            chars.removeLast(suffix.count); break
        }
        func digitsBefore(_ end: Int) -> Int {
            var i = end
            while i > 0 && chars[i - 1].isASCII && chars[i - 1].isNumber { i -= 1 }
            return i
        }
        // Stray dashes around the number (`1-`, `--3`) make it malformed, not another text.
        var dangling = false
        while chars.last == "-" { chars.removeLast(); dangling = true }
        var p = Parsed(prefix: chars)
        let end = chars.count
        let j = digitsBefore(end)
        // No number: only a bare road name reads as an address (at road precision).
        guard j < end else { return chars.count >= 2 ? Parsed(prefix: chars, bare: true) : nil }
        func number(_ s: ArraySlice<Character>) -> Int? {
            guard s.count <= 6, let n = Int(String(s)), n > 0, n <= largestNumber else { return nil }
            return n
        }
        if j > 0 && chars[j - 1] == "-" {
            let i = digitsBefore(j - 1)
            if i < j - 1 {
                p.main = number(chars[i..<(j - 1)]); p.sub = number(chars[j..<end])
                p.malformed = p.main == nil || p.sub == nil
                p.prefix = Array(chars[..<i])
            } else {
                p.malformed = true
                p.prefix = Array(chars[..<(j - 1)])
            }
        } else {
            p.main = number(chars[j..<end])
            p.malformed = p.main == nil
            p.prefix = Array(chars[..<j])
        }
        while p.prefix.last == "-" { p.prefix.removeLast(); p.malformed = true }
        p.malformed = p.malformed || dangling
        if p.prefix.count > 2 && String(p.prefix.suffix(2)) == "지하" { p.underground = true; p.prefix.removeLast(2) }
        if p.prefix.count > 1 && p.prefix.last == "산" { p.mountain = true }
        return p.prefix.isEmpty ? nil : p
    }

    func locateTyped(_ text: String) -> AddressMatch? {
        guard var p = AddressLocator.parse(text) else { return nil }
        // The longest known road name the text ends with.
        let limit = min(longestName, p.prefix.count)
        if limit >= 2 {
            for k in stride(from: limit, through: 2, by: -1) {
                let name = String(p.prefix.suffix(k))
                guard let candidates = roadsByName[name] else { continue }
                let context = String(p.prefix.dropLast(k))
                if names(otherProvinceNames, in: context) { return nil }
                // A bare name is a road only as the whole text, bar the divisions before it.
                if p.bare && !context.isEmpty && district(in: context) == nil && !names(["서울"], in: context) { return nil }
                // A road of this name elsewhere is another road: the named 시군구's is unknown.
                if let wanted = district(in: context), !candidates.contains(where: { roads[$0].districts.contains(wanted) }) { break }
                return onRoad(candidates, context: context, p)
            }
        }
        if p.bare { return nil }
        if p.mountain { p.prefix.removeLast() }
        let prefix = String(p.prefix)
        if names(otherProvinceNames, in: prefix) && !(prefix.hasSuffix("동") || prefix.hasSuffix("가") || prefix.hasSuffix("리")) { return nil }
        if let branch = branchRoad(prefix) { return branch(p) }
        return lotAddress(prefix, p)
    }

    func names(_ list: [String], in context: String) -> Bool {
        !context.isEmpty && list.contains { AddressLocator.text(context, contains: $0) }
    }

    /// Whether `needle` occurs in `text`, byte-wise (Foundation's `contains` costs about a
    /// microsecond a call, and an address is checked against some 50 names).
    static func text(_ text: String, contains needle: String) -> Bool {
        var t = text, n = needle
        return t.withUTF8 { tb in
            n.withUTF8 { nb in
                guard nb.count <= tb.count, !nb.isEmpty else { return nb.isEmpty }
                for i in 0...(tb.count - nb.count) where tb[i] == nb[0] {
                    var j = 1
                    while j < nb.count && tb[i + j] == nb[j] { j += 1 }
                    if j == nb.count { return true }
                }
                return false
            }
        }
    }

    /// The Seoul 시군구 a context names (the longest name found in it).
    func district(in context: String) -> String? {
        guard !context.isEmpty else { return nil }
        return districtByName.filter { AddressLocator.text(context, contains: $0.key) }.max { $0.key.count < $1.key.count }?.value
    }

    /// The address written out: its 시군구 is the one named (when the road runs there), else
    /// the one holding the point (when the road runs there), else the road's first.
    func fullText(_ road: NamedRoad, district: String?, number: String, at point: Coordinate? = nil) -> String {
        // The polygon test only when it can change the answer (a road in several 시군구).
        let located = district != nil || road.districts.count < 2 ? nil
            : point.flatMap { admin.locate($0)?.sigungu?.code }.flatMap { road.districts.contains($0) ? $0 : nil }
        let code = district ?? located ?? road.districts.first
        let sigungu = code.flatMap { divisionsByCode[$0]?.name }
        return (["서울특별시"] + (sigungu.map { [$0] } ?? []) + [road.name, number]).joined(separator: " ")
    }

    func onRoad(_ candidates: [Int], context: String, _ p: Parsed) -> AddressMatch {
        let wanted = district(in: context)
        // The road in the named district; else the longest of the name.
        let i = candidates.max { a, b in
            let ia = wanted.map { roads[a].districts.contains($0) } ?? false
            let ib = wanted.map { roads[b].districts.contains($0) } ?? false
            return ia != ib ? !ia : roads[a].length < roads[b].length
        }!
        let road = roads[i]
        let district = wanted.flatMap { road.districts.contains($0) ? $0 : nil }
        guard let main = p.main, !p.malformed else {
            let mid = road.point(at: road.length / 2).point
            return AddressMatch(text: fullText(road, district: district, number: "", at: mid).trimmingCharacters(in: .whitespaces),
                                name: road.name, coordinate: mid, precision: .road)
        }
        let number = (p.underground ? "지하 " : "") + "\(main)" + (p.sub.map { "-\($0)" } ?? "")
        let numbering = numberings[i]
        let d = numbering.along(ofNumber: main, on: road)
        let text = fullText(road, district: district, number: number, at: road.point(at: d).point)
        guard d <= road.length + AddressLocator.endTolerance, d >= -AddressLocator.endTolerance else {
            // Past the end the network knows: that end, and only the road is claimed.
            return AddressMatch(text: text, name: "\(road.name) \(number)", coordinate: d < 0 ? road.points[0] : road.points.last!,
                                precision: .road, road: i, number: main)
        }
        let at = road.point(at: d)
        // Left of the direction of travel is (−north, east); odd numbers are on the left looking
        // from the numbering start.
        let left = (main % 2 == 1) == numbering.oddOnLeft
        let side = left ? AddressLocator.sideOffset : -AddressLocator.sideOffset
        let projection = LocalProjection(referenceLatitude: at.point.lat)
        let (x, y) = projection.project(at.point)
        let placed = projection.unproject(x: x - at.north * side, y: y + at.east * side)
        return AddressMatch(text: text, name: "\(road.name) \(number)", coordinate: placed, precision: .interpolated, road: i, number: main)
    }

    /// A numbered branch road the network lacks (`테헤란로7길`): its main road is known and,
    /// under the 기초번호 naming, the branch leaves it at that basic number; only the road is claimed.
    func branchRoad(_ prefix: String) -> ((Parsed) -> AddressMatch)? {
        var chars = Array(prefix)
        guard chars.last == "길" else { return nil }
        chars.removeLast()
        if chars.count >= 2, let s = chars.last!.unicodeScalars.first, HangulJamo.isSyllable(s),
           chars[chars.count - 2].isASCII && chars[chars.count - 2].isNumber
        {
            chars.removeLast()  // 150다길 → 150
        }
        var i = chars.count
        while i > 0 && chars[i - 1].isASCII && chars[i - 1].isNumber { i -= 1 }
        guard i < chars.count, i > 0, let at = Int(String(chars[i...].prefix(5))) else { return nil }
        let base = Array(chars[..<i])
        for k in stride(from: min(longestName, base.count), through: 2, by: -1) {
            let name = String(base.suffix(k))
            guard let candidates = roadsByName[name] else { continue }
            let context = String(base.dropLast(k))
            if names(otherProvinceNames, in: context) { return nil }
            return { p in
                var q = p
                q.main = at; q.sub = nil; q.malformed = false; q.underground = false
                let m = onRoad(candidates, context: context, q)
                let number = (p.underground ? "지하 " : "") + (p.main.map { "\($0)" } ?? "") + (p.sub.map { "-\($0)" } ?? "")
                let branch = String(prefix.suffix(prefix.count - context.count))
                let text = m.text.replacingOccurrences(of: " \(name) \(at)", with: " \(branch) \(number)")
                return AddressMatch(text: text, name: "\(branch) \(number)", coordinate: m.coordinate, precision: .road)
            }
        }
        return nil
    }

    /// A lot address (`역삼동 737`, `서초동 1303-22`, `종로1가 1`) or an unknown road inside a
    /// named 동: the 동, nothing finer.
    func lotAddress(_ prefix: String, _ p: Parsed) -> AddressMatch? {
        let chars = Array(prefix)
        var found: (name: String, context: String)?
        for k in stride(from: min(8, chars.count), through: 2, by: -1) {
            let name = String(chars.suffix(k))
            if dongsByName[name] != nil { found = (name, String(chars.dropLast(k))); break }
        }
        if found == nil, prefix.hasSuffix("로") || prefix.hasSuffix("길") {
            // An unknown road: the last 동 named before it.
            search: for end in stride(from: chars.count, through: 2, by: -1) where "동가리".contains(chars[end - 1]) {
                for k in stride(from: min(8, end), through: 2, by: -1) {
                    let name = String(chars[(end - k)..<end])
                    if dongsByName[name] != nil { found = (name, String(chars[..<(end - k)])); break search }
                }
            }
        }
        guard let found, let main = p.main else { return nil }
        let candidates = dongsByName[found.name]!
        let wanted = district(in: found.context)
        let province = KoreanProvinces.all.first { pr in
            ([pr.name] + pr.shortNames).contains { AddressLocator.text(found.context, contains: $0) }
        }?.code
        // In the named 시군구, else the named 시도, else Seoul, else the first.
        func rank(_ d: Division) -> Int {
            if let wanted, d.code.hasPrefix(wanted) { return 3 }
            if let province, d.code.hasPrefix(province) { return 2 }
            return d.code.hasPrefix(PlaceSources.seoulCode) ? 1 : 0
        }
        let dong = candidates.max { rank($0) != rank($1) ? rank($0) < rank($1) : $0.code > $1.code }!
        let isLot = prefix.hasSuffix(found.name) || (p.mountain && prefix.hasSuffix(found.name + "산"))
        let number = (p.mountain ? "산" : "") + (p.underground && !isLot ? "지하 " : "") + "\(main)" + (p.sub.map { "-\($0)" } ?? "")
        let road = isLot ? "" : String(prefix.dropFirst(found.context.count + found.name.count)) + " "
        return AddressMatch(text: "\(dong.fullName) \(road)\(number)", name: "\(found.name) \(road)\(number)",
                            coordinate: dong.inner, precision: .dong)
    }

    /// The road-name address estimate nearest `point` within `radius` metres: the nearest named
    /// road and the basic number of the point's projection on it, on the side it lies.
    func nearest(to point: Coordinate, radius: Double) -> (road: NamedRoad, number: Int, at: Coordinate, distance: Double)? {
        let dLat = radius / 111_320, dLon = radius / (111_320 * max(0.2, cos(point.lat * .pi / 180)))
        var best: (road: Int, along: Double, away: Double, left: Bool)?
        for (i, box) in roadBoxes.enumerated()
        where point.lon >= box.west - dLon && point.lon <= box.east + dLon && point.lat >= box.south - dLat && point.lat <= box.north + dLat {
            let pr = roads[i].project(point)
            if pr.away <= radius && pr.away < (best?.away ?? .infinity) { best = (i, pr.along, pr.away, pr.left) }
        }
        guard let best else { return nil }
        let road = roads[best.road], numbering = numberings[best.road]
        guard let base = numbering.basic(atAlong: best.along, on: road) else { return nil }
        let number = best.left == numbering.oddOnLeft ? 2 * base + 1 : 2 * base + 2
        return (road, number, road.point(at: best.along).point, best.away)
    }
}

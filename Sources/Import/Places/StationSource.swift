import CSV
import Geo
import Places

/// Urban rail stations from the national station table and the Seoul station master, merged
/// into one place per station: same name within 500 m is one station whatever its lines.
enum StationSource {
    /// One line's record of a station, from either file.
    struct LineStop {
        let code: String
        /// The name without its parenthesised part ("왕십리").
        let base: String
        /// The parenthesised parts ("성동구청").
        let subNames: [String]
        let line: String
        let coordinate: Coordinate
        let englishName: String?
        let roadAddress: String?
        let fromNationalTable: Bool
    }

    /// Two records of the same name this close are one station (transfer stations' platforms
    /// lie up to a few hundred metres apart).
    static let sameStationDistance = 600.0
    /// Records of the same name and line are one station even this far apart (the sources
    /// disagree on some positions by a few hundred metres up to 2 km).
    static let sameLineDistance = 3_000.0

    /// The short line label: "서울 도시철도 2호선" → "2호선", "부산도시철도 1호선" → "부산 1호선",
    /// "9호선(연장)" → "9호선", "공항철도1호선" → "공항철도".
    static func lineLabel(_ raw: String) -> String {
        var s = SearchText.splitParentheses(raw).base
        let renames = ["중앙선": "경의중앙선", "공항철도1호선": "공항철도", "의정부선": "의정부경전철", "에버라인선": "에버라인",
                       "수도권 광역급행철도": "GTX-A", "지하철하남선": "5호선"]
        if let r = renames[s] { return r }
        for (prefix, city) in [("서울 도시철도 ", ""), ("부산도시철도 ", "부산 "), ("대구 도시철도 ", "대구 "),
                               ("인천지하철 ", "인천 "), ("대전도시철도 ", "대전 "), ("광주도시철도 ", "광주 ")]
        where s.hasPrefix(prefix) {
            return city + s.dropFirst(prefix.count)
        }
        if s.hasPrefix("인천"), s.hasSuffix("호선"), let d = s.dropFirst(2).first, d.isNumber { s = "인천 " + s.dropFirst(2) }
        return s
    }

    static func readNational(path: String, warnings: inout [String]) throws(CSVTable.ReadError) -> [LineStop] {
        let t = try CSVTable(path: path)
        let cCode = try t.column("station_code"), cName = try t.column("name"), cLine = try t.column("line_name")
        let cEn = try t.column("name_en"), cLat = try t.column("lat"), cLon = try t.column("lon")
        let cRoad = try t.column("road_address"), cFlag = t.optionalColumn("coord_flag")
        var out: [LineStop] = []
        for row in t.rows {
            if let cFlag, !row[cFlag].isEmpty {
                warnings.append("\(path):\(row.line): skipped \(row[cName]) (\(row[cLine])): coord_flag '\(row[cFlag])'")
                continue
            }
            guard let lat = NumberParsing.finiteDouble(row[cLat]), let lon = NumberParsing.finiteDouble(row[cLon]),
                  Coordinate(lon: lon, lat: lat).isValid, !row[cName].isEmpty
            else {
                warnings.append("\(path):\(row.line): skipped: no name or valid lat/lon")
                continue
            }
            let (base, inner) = SearchText.splitParentheses(row[cName].replacingOccurrences(of: " ", with: ""))
            out.append(LineStop(code: row[cCode], base: base, subNames: inner, line: lineLabel(row[cLine]),
                                coordinate: Coordinate(lon: lon, lat: lat), englishName: row[cEn].isEmpty ? nil : row[cEn],
                                roadAddress: row[cRoad].isEmpty ? nil : row[cRoad], fromNationalTable: true))
        }
        return out
    }

    static func readSeoulMaster(path: String, warnings: inout [String]) throws(CSVTable.ReadError) -> [LineStop] {
        let t = try CSVTable(path: path)
        let cCode = try t.column("역사_ID"), cName = try t.column("역사명"), cLine = try t.column("호선")
        let cLat = try t.column("위도"), cLon = try t.column("경도")
        var seen = Set<String>()
        var out: [LineStop] = []
        // 4-digit ids first: the 3-digit duplicates of the source repeat them with older positions.
        let ordered = t.rows.sorted { a, b in
            a[cCode].count != b[cCode].count ? a[cCode].count > b[cCode].count : a.line < b.line
        }
        for row in ordered {
            guard let lat = NumberParsing.finiteDouble(row[cLat]), let lon = NumberParsing.finiteDouble(row[cLon]),
                  Coordinate(lon: lon, lat: lat).isValid, !row[cName].isEmpty
            else {
                warnings.append("\(path):\(row.line): skipped: no name or valid 위도/경도")
                continue
            }
            let key = row[cName] + "|" + row[cLine]
            guard seen.insert(key).inserted else { continue }
            let (base, inner) = SearchText.splitParentheses(row[cName])
            out.append(LineStop(code: row[cCode], base: base, subNames: inner, line: lineLabel(row[cLine]),
                                coordinate: Coordinate(lon: lon, lat: lat), englishName: nil, roadAddress: nil,
                                fromNationalTable: false))
        }
        return out
    }

    /// The merged stations.
    static func stations(nationalPath: String, masterPath: String, locator: AdminLocator,
                         warnings: inout [String]) throws(CSVTable.ReadError) -> [PlaceRecord] {
        var stops = try readNational(path: nationalPath, warnings: &warnings) + readSeoulMaster(path: masterPath, warnings: &warnings)
        stops.removeAll { stop in
            guard let why = positionContradictsAddress(stop, locator) else { return false }
            warnings.append("\(nationalPath): skipped \(stop.base) (\(stop.line)): \(why)")
            return true
        }
        var byName: [String: [Int]] = [:]
        for (i, s) in stops.enumerated() { byName[PlaceMerger.stationKey(s.base), default: []].append(i) }
        var out: [PlaceRecord] = []
        var usedIDs = Set<String>()
        for key in byName.keys.sorted() {
            let members = byName[key] ?? []
            let linked = clusters(members.count) { i, j in
                let a = stops[members[i]], b = stops[members[j]]
                let d = a.coordinate.distance(to: b.coordinate)
                return d <= sameStationDistance || (a.line == b.line && d <= sameLineDistance)
            }
            for cluster in linked {
                let group = cluster.map { stops[members[$0]] }
                out.append(record(group, usedIDs: &usedIDs))
            }
        }
        return out
    }

    /// Why a station's position cannot be right, or nil: it lies outside the bounding box
    /// (plus 1 km) of the 시도, or of the 시/군/구, that its road address names. Catches source
    /// rows carrying another station's coordinates (동해선 송정 with 광주 송정's position).
    static func positionContradictsAddress(_ stop: LineStop, _ locator: AdminLocator) -> String? {
        guard let address = stop.roadAddress else { return nil }
        let words = address.split(separator: " ").map(String.init)
        guard let first = words.first,
              let province = KoreanProvinces.all.first(where: { $0.name == first || $0.shortNames.contains(first) }),
              let sido = locator.divisionsByCode[province.code]
        else { return nil }
        let margin = 0.01  // about 1 km
        func near(_ box: BoundingBox) -> Bool {
            BoundingBox(west: box.west - margin, south: box.south - margin, east: box.east + margin, north: box.north + margin)
                .contains(stop.coordinate)
        }
        if !near(sido.bbox) { return "its position \(stop.coordinate) is outside \(province.name), which its address names ('\(address)')" }
        guard words.count > 1 else { return nil }
        let sigungus = locator.sigunguByCity[province.code + words[1]] ?? []
        if !sigungus.isEmpty && !sigungus.contains(where: { near($0.bbox) }) {
            return "its position \(stop.coordinate) is outside \(words[1]), which its address names ('\(address)')"
        }
        return nil
    }

    /// Groups of points linked by steps of at most `within` metres (single linkage).
    static func clusters(_ points: [Coordinate], within: Double) -> [[Int]] {
        clusters(points.count) { points[$0].distance(to: points[$1]) <= within }
    }

    /// Groups of items 0..<count linked by `linked` (single linkage: transitively).
    static func clusters(_ count: Int, linked: (Int, Int) -> Bool) -> [[Int]] {
        var parent = Array(0..<count)
        func find(_ i: Int) -> Int {
            var i = i
            while parent[i] != i { parent[i] = parent[parent[i]]; i = parent[i] }
            return i
        }
        for i in 0..<count {
            for j in (i + 1)..<count where linked(i, j) {
                parent[find(i)] = find(j)
            }
        }
        var groups: [Int: [Int]] = [:]
        for i in 0..<count { groups[find(i), default: []].append(i) }
        return groups.values.map { $0.sorted() }.sorted { $0[0] < $1[0] }
    }

    static func record(_ group: [LineStop], usedIDs: inout Set<String>) -> PlaceRecord {
        let national = group.filter(\.fromNationalTable)
        let primary = national.first ?? group[0]
        var lines: [String] = []
        for s in group where !lines.contains(s.line) { lines.append(s.line) }
        // One position per line, then their mean: a transfer station sits between its platforms.
        var perLine: [String: Coordinate] = [:]
        for s in group where perLine[s.line] == nil { perLine[s.line] = s.coordinate }
        let lon = perLine.values.map(\.lon).reduce(0, +) / Double(perLine.count)
        let lat = perLine.values.map(\.lat).reduce(0, +) / Double(perLine.count)
        let key = PlaceMerger.stationKey(primary.base)
        var id = "station:" + (group.map(\.code).filter { !$0.isEmpty }.min() ?? PlaceSources.stableHash(key))
        if usedIDs.contains(id) { id += "-" + PlaceSources.stableHash(key + "\(lon),\(lat)").prefix(6) }
        usedIDs.insert(id)
        // "서울역" is the station's name itself; "미사역" (as one table writes it) is 미사 + 역.
        let nameEndsInYeok = group.contains { !$0.fromNationalTable && $0.base.hasSuffix("역") }
        let stem = primary.base.count > 1 && primary.base.hasSuffix("역") ? String(primary.base.dropLast()) : primary.base
        let name = stem + "역"
        var aliases: [String] = []
        if !nameEndsInYeok { aliases.append(stem) }
        // The sub-name stays in parentheses, so the search weighs it as a sub-name
        // ("잠실(송파구청)" should not outrank 송파구청 itself).
        for s in group {
            for sub in s.subNames where sub.count >= 2 {
                let alias = "\(stem)(\(sub))"
                if !aliases.contains(alias) { aliases.append(alias) }
            }
        }
        let importance = PlaceSources.defaultImportance(PlaceCategory.station) + 0.03 * Double(min(lines.count - 1, 4))
        return PlaceRecord(id: id, name: name, category: PlaceCategory.station,
                           address: national.compactMap(\.roadAddress).first ?? "", lon: lon, lat: lat,
                           importance: importance, englishName: national.compactMap(\.englishName).first,
                           aliases: aliases, detail: lines.joined(separator: ", "),
                           source: national.isEmpty ? PlaceSources.seoulStationMasterFile : PlaceSources.railStationsFile)
    }
}

import Geo
import PartyModel

/// A settlement as the party stores keep it (SQLite and PostgreSQL): the `settled_key` column
/// holds its key, the `settlement` column its record as text.
///
/// This build writes a `SettledRide` as values, one line each (fields split by tabs):
///
///     settled-ride 1
///     read      fix count, first time, last time, key from, members, outlier fixes
///     ride      distance m, duration s, region, split, meter total, difference
///     fare      schedule id, total, base, distance, time, night, out of city, rounding (won), legs
///     rider     id, seats, stop, fix, lon, lat, metered, settled            (one per rider)
///     matching  distance m, duration s, confidence, fixes, legs (m:s), geometry (lon:lat)
///     fix       lon, lat, distance m, matching, waypoint                    (one per fix, or:)
///     unmatched reason
///
/// Numbers are written so they read back exactly; `-` is an absent number or an empty list;
/// list items are split by commas; in text, `%`, tab, newline, `,` and `:` (and a lone `-`)
/// are written `%XX`. A row of an earlier build holds the answer's JSON text (it starts with
/// `{`): it is read as `PartySettlement.Record.earlierAnswer` and written back unchanged, so
/// its checksum still holds.
enum SettlementColumn {
    static let header = "settled-ride 1"

    /// The column text of `s` (empty for the listing's copy, which has no record).
    static func text(_ s: PartySettlement) -> String {
        switch s.record {
        case nil: ""
        case .earlierAnswer(let answer): answer
        case .ride(let ride): encode(ride)
        }
    }

    /// The settlement under `key` whose column text is `text`; nil when the text is neither
    /// this build's record nor an earlier build's answer.
    static func settlement(key: String, text: String) -> PartySettlement? {
        if text.hasPrefix("{") { return PartySettlement(key: key, record: .earlierAnswer(text)) }
        return decode(text).map { PartySettlement(key: key, record: .ride($0)) }
    }

    // MARK: Writing

    static func encode(_ r: SettledRide) -> String {
        var lines = [header]
        func line(_ tag: String, _ fields: [String]) { lines.append(([tag] + fields).joined(separator: "\t")) }
        let read = r.reading
        line("read", [String(read.fixCount), number(read.firstTime), number(read.lastTime), escape(read.keyFrom),
                      list(read.members.map(escape)), list(read.outlierFixes.map(String.init))])
        line("ride", [number(r.distanceMeters), number(r.durationSeconds), escape(r.region), escape(r.split),
                      number(r.meterTotalKrw), number(r.differenceKrw)])
        let f = r.fare
        line("fare", [escape(f.scheduleID)] + [f.totalKrw, f.baseKrw, f.distanceKrw, f.timeKrw, f.nightKrw, f.outOfCityKrw, f.roundingKrw].map(String.init)
             + [list(f.legKrw.map(String.init))])
        for x in r.riders {
            line("rider", [escape(x.id), String(x.seats), String(x.stop), String(x.fix), number(x.dropOff.lon), number(x.dropOff.lat),
                           String(x.meteredKrw), String(x.settledKrw)])
        }
        for m in r.matchings {
            line("matching", [number(m.distanceMeters), number(m.durationSeconds), number(m.confidence), list(m.fixes.map(String.init)),
                              list(m.legs.map { number($0.distanceMeters) + ":" + number($0.durationSeconds) }),
                              list(m.geometry.map { number($0.lon) + ":" + number($0.lat) })])
        }
        for t in r.tracepoints {
            switch t {
            case let .matched(location, distance, matching, waypoint):
                line("fix", [number(location.lon), number(location.lat), number(distance), String(matching), number(waypoint)])
            case .unmatched(let reason):
                line("unmatched", [escape(reason)])
            }
        }
        return lines.joined(separator: "\n")
    }

    static func number(_ v: Double?) -> String { v.map { "\($0)" } ?? "-" }
    static func number(_ v: Int?) -> String { v.map(String.init) ?? "-" }
    static func list(_ items: [String]) -> String { items.isEmpty ? "-" : items.joined(separator: ",") }

    static func escape(_ s: String) -> String {
        if s == "-" { return "%2D" }
        var out = ""
        for u in s.unicodeScalars {
            switch u {
            case "%", "\t", "\n", "\r", ",", ":": out += "%" + String(u.value, radix: 16, uppercase: true).leftPadded(to: 2)
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }

    // MARK: Reading

    /// The ride `encode` wrote; nil when `text` is not one.
    static func decode(_ text: String) -> SettledRide? {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        guard lines.popFirst() == Substring(header) else { return nil }
        var reading: SettledRide.Reading?
        var ride: (Double, Double, String, String, Int?, Int?)?
        var fare: SettledRide.Fare?
        var riders: [SettledRide.Rider] = []
        var matchings: [SettledRide.Matching] = []
        var tracepoints: [SettledRide.Tracepoint] = []
        for line in lines {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            switch (f[0], f.count) {
            case ("read", 7) where reading == nil:
                guard let n = Int(f[1]), let first = optional(f[2], { Double($0) }), let last = optional(f[3], { Double($0) }),
                      let keyFrom = unescape(f[4]), let members = items(f[5], unescape), let outliers = items(f[6], { Int($0) })
                else { return nil }
                reading = .init(fixCount: n, firstTime: first, lastTime: last, members: members, keyFrom: keyFrom, outlierFixes: outliers)
            case ("ride", 7) where ride == nil:
                guard let d = Double(f[1]), let t = Double(f[2]), let region = unescape(f[3]), let split = unescape(f[4]),
                      let meter = optional(f[5], { Int($0) }), let difference = optional(f[6], { Int($0) }) else { return nil }
                ride = (d, t, region, split, meter, difference)
            case ("fare", 10) where fare == nil:
                let k = f[2...8].compactMap { Int($0) }
                guard let id = unescape(f[1]), k.count == 7, let legs = items(f[9], { Int($0) }) else { return nil }
                fare = .init(scheduleID: id, totalKrw: k[0], baseKrw: k[1], distanceKrw: k[2], timeKrw: k[3], nightKrw: k[4],
                             outOfCityKrw: k[5], roundingKrw: k[6], legKrw: legs)
            case ("rider", 9):
                let k = [f[2], f[3], f[4], f[7], f[8]].compactMap { Int($0) }
                guard let id = unescape(f[1]), k.count == 5, let lon = Double(f[5]), let lat = Double(f[6]) else { return nil }
                riders.append(.init(id: id, seats: k[0], stop: k[1], fix: k[2], dropOff: Coordinate(lon: lon, lat: lat), meteredKrw: k[3], settledKrw: k[4]))
            case ("matching", 7):
                guard let d = Double(f[1]), let t = Double(f[2]), let c = Double(f[3]), let fixes = items(f[4], { Int($0) }),
                      let legs = items(f[5], { pair($0).map { SettledRide.Matching.Leg(distanceMeters: $0.0, durationSeconds: $0.1) } }),
                      let geometry = items(f[6], { pair($0).map { Coordinate(lon: $0.0, lat: $0.1) } }) else { return nil }
                matchings.append(.init(distanceMeters: d, durationSeconds: t, confidence: c, fixes: fixes, geometry: geometry, legs: legs))
            case ("fix", 6):
                guard let lon = Double(f[1]), let lat = Double(f[2]), let d = Double(f[3]), let m = Int(f[4]),
                      let w = optional(f[5], { Int($0) }) else { return nil }
                tracepoints.append(.matched(location: Coordinate(lon: lon, lat: lat), distanceMeters: d, matching: m, waypoint: w))
            case ("unmatched", 2):
                guard let reason = unescape(f[1]) else { return nil }
                tracepoints.append(.unmatched(reason: reason))
            default:
                return nil
            }
        }
        guard let reading, let ride, let fare else { return nil }
        return SettledRide(reading: reading, distanceMeters: ride.0, durationSeconds: ride.1, region: ride.2, split: ride.3, fare: fare,
                           riders: riders, meterTotalKrw: ride.4, differenceKrw: ride.5, matchings: matchings, tracepoints: tracepoints)
    }

    /// `-` as nil (`.some(nil)`), else the value `read` makes of the text (nil when it cannot).
    static func optional<T>(_ text: String, _ read: (String) -> T?) -> T?? {
        if text == "-" { return .some(nil) }
        return read(text).map { .some($0) }
    }

    /// A list field: `-` is empty; nil when an item cannot be read.
    static func items<T>(_ text: String, _ read: (String) -> T?) -> [T]? {
        guard text != "-" else { return [] }
        var out: [T] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let v = read(String(item)) else { return nil }
            out.append(v)
        }
        return out
    }

    static func pair(_ text: String) -> (Double, Double)? {
        let p = text.split(separator: ":", omittingEmptySubsequences: false)
        guard p.count == 2, let a = Double(p[0]), let b = Double(p[1]) else { return nil }
        return (a, b)
    }

    static func unescape(_ text: String) -> String? {
        guard text.contains("%") else { return text }
        var out = String.UnicodeScalarView()
        var scalars = text.unicodeScalars[...]
        while let u = scalars.popFirst() {
            guard u == "%" else { out.append(u); continue }
            guard scalars.count >= 2, let v = UInt32(String(String.UnicodeScalarView(scalars.prefix(2))), radix: 16),
                  let escaped = Unicode.Scalar(v) else { return nil }
            out.append(escaped)
            scalars = scalars.dropFirst(2)
        }
        return String(out)
    }
}

private extension String {
    func leftPadded(to n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}

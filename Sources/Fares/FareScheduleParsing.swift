import Geo
import JSON

/// Why a fare schedule file was refused: the file, the field at fault and what was expected.
public struct FareScheduleError: Error, Sendable, CustomStringConvertible {
    public let file: String
    /// The field at fault (`night_bands[1].percent`), or nil for the whole file.
    public let field: String?
    public let message: String

    public init(file: String, field: String?, message: String) {
        self.file = file
        self.field = field
        self.message = message
    }

    public var description: String {
        if let field { return "\(file): field '\(field)': \(message)" }
        return "\(file): \(message)"
    }
}

extension FareSchedule {
    /// Every field a schedule file may carry (anything else is refused, to catch typos).
    public static let fileFields: Set<String> = [
        "region", "region_name", "taxi_class", "effective_from", "base_fare_krw", "base_distance_m",
        "distance_unit_m", "distance_unit_krw", "time_unit_s", "time_unit_krw", "speed_threshold_kmh",
        "night_bands", "out_of_city_percent", "combined_percent_cap", "surcharged_base_rounding_krw",
        "rounding_krw", "charging", "source",
    ]

    /// Parses and validates one schedule file's JSON text. `id` is the schedule id (the file
    /// name without `.json`); `file` names the file in errors.
    public static func parse(_ text: String, id: String, file: String) throws(FareScheduleError) -> FareSchedule {
        func fail(_ field: String?, _ message: String) -> FareScheduleError {
            FareScheduleError(file: file, field: field, message: message)
        }
        let root: JSONValue
        do {
            root = try JSONParser.parse(text)
        } catch {
            throw fail(nil, "not valid JSON: \(error.description)")
        }
        guard let members = root.objectValue else { throw fail(nil, "must hold one JSON object") }
        for (key, _) in members where !fileFields.contains(key) {
            throw fail(key, "unknown field (allowed: \(fileFields.sorted().joined(separator: ", ")))")
        }

        func has(_ key: String) -> Bool { members.contains { $0.0 == key } }
        func string(_ key: String) throws(FareScheduleError) -> String {
            guard let v = root[key] else { throw fail(key, "is required") }
            guard let s = v.stringValue, !s.isEmpty else { throw fail(key, "must be a non-empty string") }
            return s
        }
        func identifier(_ key: String) throws(FareScheduleError) -> String {
            let s = try string(key)
            guard s.utf8.allSatisfy({ (97...122).contains($0) || (48...57).contains($0) || $0 == 45 || $0 == 95 }) else {
                throw fail(key, "must be lower-case letters, digits, '-' or '_', got '\(s.prefix(40))'")
            }
            return s
        }
        func int(_ key: String, _ range: ClosedRange<Int>) throws(FareScheduleError) -> Int {
            guard let v = root[key] else { throw fail(key, "is required") }
            guard let i = v.intValue, range.contains(i) else {
                throw fail(key, "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return i
        }
        func number(_ key: String, above low: Double, upTo high: Double) throws(FareScheduleError) -> Double {
            guard let v = root[key] else { throw fail(key, "is required") }
            guard let d = v.doubleValue, d.isFinite, d > low, d <= high else {
                throw fail(key, "must be a number above \(low) and at most \(high)")
            }
            return d
        }

        let region = try identifier("region")
        let regionName = has("region_name") ? try string("region_name") : region
        let taxiClass = try identifier("taxi_class")
        let effectiveText = try string("effective_from")
        guard let effectiveFrom = SeoulTime.parse(effectiveText) else {
            throw fail("effective_from", "must be an ISO 8601 date-time such as 2023-02-01T04:00:00+09:00, got '\(effectiveText.prefix(40))'")
        }
        let base = try int("base_fare_krw", 1...1_000_000)
        let baseDistance = try number("base_distance_m", above: -1, upTo: 100_000)
        let distanceUnitM = try number("distance_unit_m", above: 0, upTo: 100_000)
        let distanceUnitKrw = try int("distance_unit_krw", 1...100_000)
        let timeUnitS = try number("time_unit_s", above: 0, upTo: 3_600)
        let timeUnitKrw = try int("time_unit_krw", 1...100_000)
        let threshold = try number("speed_threshold_kmh", above: 0, upTo: 200)
        let outOfCity = try int("out_of_city_percent", 0...500)
        let cap: Int? = has("combined_percent_cap") ? try int("combined_percent_cap", 0...1_000) : nil
        let baseRounding = try int("surcharged_base_rounding_krw", 1...10_000)
        let rounding = try int("rounding_krw", 1...10_000)
        let chargingText = try string("charging")
        guard let charging = ChargingRule(rawValue: chargingText) else {
            throw fail("charging", "must be one of \(ChargingRule.allCases.map(\.rawValue).joined(separator: ", ")), got '\(chargingText.prefix(40))'")
        }
        let source = try string("source")

        guard let bandValues = root["night_bands"]?.arrayValue else {
            throw fail("night_bands", "is required: a list of {\"from\":\"HH:MM\",\"to\":\"HH:MM\",\"percent\":n} (may be empty)")
        }
        var bands = [NightBand]()
        for (k, v) in bandValues.enumerated() {
            let name = "night_bands[\(k)]"
            guard let obj = v.objectValue else { throw fail(name, "must be an object with from, to and percent") }
            for (key, _) in obj where !["from", "to", "percent"].contains(key) {
                throw fail("\(name).\(key)", "unknown field (allowed: from, to, percent)")
            }
            guard let fromText = v["from"]?.stringValue, let from = ClockTime(fromText) else {
                throw fail("\(name).from", "must be a clock time HH:MM")
            }
            guard let toText = v["to"]?.stringValue, let to = ClockTime(toText) else {
                throw fail("\(name).to", "must be a clock time HH:MM")
            }
            guard let pct = v["percent"]?.intValue, (1...500).contains(pct) else {
                throw fail("\(name).percent", "must be a whole number from 1 to 500")
            }
            let band = NightBand(from: from, to: to, percent: pct)
            for (j, other) in bands.enumerated() where overlaps(band, other) {
                throw fail(name, "\(from)–\(to) overlaps night_bands[\(j)] \(other.from)–\(other.to)")
            }
            bands.append(band)
        }

        let schedule = FareSchedule(
            id: id, region: region, regionName: regionName, taxiClass: taxiClass, effectiveFrom: effectiveFrom,
            baseFareKrw: base, baseDistanceM: baseDistance, distanceUnitM: distanceUnitM, distanceUnitKrw: distanceUnitKrw,
            timeUnitS: timeUnitS, timeUnitKrw: timeUnitKrw, speedThresholdKmh: threshold, nightBands: bands,
            outOfCityPercent: outOfCity, combinedPercentCap: cap, surchargedBaseRoundingKrw: baseRounding,
            roundingKrw: rounding, charging: charging, source: source)
        // Surcharged unit prices must stay whole won, so that every part of a fare is exact.
        for night in [0] + bands.map(\.percent) {
            for outside in [false, true] {
                let p = schedule.surchargePercent(night: night, outOfCity: outside)
                for q in [p.night, p.outOfCity] {
                    for (key, price) in [("distance_unit_krw", distanceUnitKrw), ("time_unit_krw", timeUnitKrw)]
                    where price * q % 100 != 0 {
                        throw fail(key, "\(price) won raised by \(q)% is not a whole number of won")
                    }
                }
            }
        }
        return schedule
    }

    /// True when two bands share any minute of the day.
    static func overlaps(_ a: NightBand, _ b: NightBand) -> Bool {
        // Bands are made of whole minutes, so testing each band's minutes is exact.
        var s = a.from.secondOfDay
        for _ in 0..<(a.lengthSeconds / 60) {
            if b.contains(secondOfDay: s) { return true }
            s = (s + 60) % 86_400
        }
        return false
    }
}

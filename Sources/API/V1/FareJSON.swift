import Quoting
import FareEstimation
import Fares
import Geo
import HTTPServer
import JSON

/// Request parsing and answer rendering shared by `POST /v1/fare`, `POST /v1/quote` and the
/// `taxipot fare` / `taxipot quote` commands, so that every face gives the same JSON.
public enum FareJSON {
    /// A metered fare: `{"total_krw","base_krw","distance_krw","time_krw","night_krw",
    /// "out_of_city_krw","rounding_krw","toll_krw","schedule","region","taxi_class",
    /// "distance_units","time_units"}`; the parts add up to `total_krw`.
    public static func fare(_ f: FareBreakdown, schedule: FareSchedule) -> JSONValue {
        [
            "total_krw": JSONValue(f.totalKrw), "base_krw": JSONValue(f.baseKrw), "distance_krw": JSONValue(f.distanceKrw),
            "time_krw": JSONValue(f.timeKrw), "night_krw": JSONValue(f.nightKrw), "out_of_city_krw": JSONValue(f.outOfCityKrw),
            "rounding_krw": JSONValue(f.roundingKrw), "toll_krw": JSONValue(f.tollKrw), "schedule": .string(f.scheduleID),
            "region": .string(schedule.region), "taxi_class": .string(schedule.taxiClass),
            "distance_units": JSONValue(f.distanceUnits), "time_units": JSONValue(f.timeUnits),
        ]
    }

    /// Shares: `[{"rider":i,"krw":n}]` plus `drop_off` (the drop-off index, or null for the
    /// destination) when `dropOffs` gives one per rider.
    public static func split(_ shares: [Int], dropOffs: [Int?]? = nil) -> JSONValue {
        .array(shares.enumerated().map { i, krw in
            var m: [(String, JSONValue)] = [("rider", JSONValue(i))]
            if let d = dropOffs, i < d.count { m.append(("drop_off", d[i].map { JSONValue($0) } ?? .null)) }
            m.append(("krw", JSONValue(krw)))
            return .object(m)
        })
    }

    /// The answer of `POST /v1/fare` and `taxipot fare`.
    public static func estimate(_ e: MeteredFare) -> JSONValue {
        [
            "trip": [
                "distance_m": .number((e.distanceM * 10).rounded() / 10),
                "duration_s": .number((e.durationS * 10).rounded() / 10),
                "slow_s": .number((e.slowS * 10).rounded() / 10),
                "depart_at": .string(SeoulTime.format(e.departure)),
                "timing": .string(e.timing),
            ],
            "fare": fare(e.fare, schedule: e.schedule),
            "split": split(e.split),
            "per_person_krw": JSONValue(e.perPersonKrw),
        ]
    }

    /// A JSON request body's fields, read strictly: wrong types and unknown fields are 400
    /// errors naming the field.
    public struct Body {
        public let value: JSONValue

        /// Checks that `value` is an object holding only the fields `schema` (the operation's
        /// request body schema in the OpenAPI document) declares.
        public init(_ value: JSONValue, schema: JSONValue) throws(HTTPError) {
            try self.init(value, allowed: schema["properties"]?.objectValue?.map(\.0) ?? [])
        }

        /// Checks that `value` is an object holding only `allowed` fields.
        public init(_ value: JSONValue, allowed: [String]) throws(HTTPError) {
            guard let members = value.objectValue else {
                throw .badRequest("invalid_json", "the request body must be a JSON object")
            }
            for (key, _) in members where !allowed.contains(key) {
                throw .badRequest("unknown_field", "unknown field '\(key.prefix(40))'; fields: \(allowed.joined(separator: ", "))")
            }
            self.value = value
        }

        /// The field's value, or nil when absent or null.
        public func present(_ key: String) -> JSONValue? {
            guard let v = value[key], !v.isNull else { return nil }
            return v
        }

        /// A finite number, or nil when absent or null.
        public func number(_ key: String) throws(HTTPError) -> Double? {
            guard let v = present(key) else { return nil }
            guard let d = v.doubleValue, d.isFinite else { throw .badRequest("invalid_parameter", "\(key) must be a number") }
            return d
        }

        public func requiredNumber(_ key: String) throws(HTTPError) -> Double {
            guard let d = try number(key) else { throw .badRequest("missing_parameter", "\(key) is required") }
            return d
        }

        /// A whole number, or `defaultValue` when absent or null.
        public func int(_ key: String, default defaultValue: Int) throws(HTTPError) -> Int {
            guard let v = present(key) else { return defaultValue }
            guard let i = v.intValue else { throw .badRequest("invalid_parameter", "\(key) must be a whole number") }
            return i
        }

        /// A string, or nil when absent or null.
        public func string(_ key: String) throws(HTTPError) -> String? {
            guard let v = present(key) else { return nil }
            guard let s = v.stringValue else { throw .badRequest("invalid_parameter", "\(key) must be a string") }
            return s
        }

        /// `depart_at` parsed as ISO 8601 (nil when absent).
        public func departure(_ key: String = "depart_at") throws(HTTPError) -> Double? {
            guard let text = try string(key) else { return nil }
            guard let t = SeoulTime.parse(text) else {
                throw .badRequest("invalid_parameter", "\(key) must be an ISO 8601 date-time such as 2024-05-01T22:30:00+09:00, got '\(text.prefix(40))'")
            }
            return t
        }

        /// The split policy (default `equal`).
        public func splitPolicy(_ key: String = "split") throws(HTTPError) -> SplitPolicy {
            guard let text = try string(key) else { return .equal }
            guard let p = SplitPolicy(rawValue: text) else {
                throw .badRequest("invalid_parameter", "\(key) must be one of \(SplitPolicy.allCases.map(\.rawValue).joined(separator: ", ")), got '\(text.prefix(40))'")
            }
            return p
        }

        /// A `{"lon","lat"}` object, or nil when absent.
        public func coordinate(_ key: String) throws(HTTPError) -> Coordinate? {
            guard let v = present(key) else { return nil }
            return try Self.coordinate(v, name: key)
        }

        /// A `{"lon","lat"}` object read from `v` (members besides those and `extra` are refused,
        /// as the document's `additionalProperties: false` says); `name` names it in errors.
        public static func coordinate(_ v: JSONValue, name: String, extra: [String] = []) throws(HTTPError) -> Coordinate {
            if let unknown = v.objectValue?.first(where: { $0.0 != "lon" && $0.0 != "lat" && !extra.contains($0.0) }) {
                throw .badRequest("unknown_field", "unknown field '\(name).\(unknown.0.prefix(40))'; fields: \((["lon", "lat"] + extra).joined(separator: ", "))")
            }
            guard let lon = v["lon"]?.doubleValue, let lat = v["lat"]?.doubleValue else {
                throw .badRequest("invalid_parameter", "\(name) must be an object {\"lon\": number, \"lat\": number}")
            }
            let c = Coordinate(lon: lon, lat: lat)
            guard c.isValid else { throw .badRequest("invalid_parameter", "\(name) is outside ±180 / ±90 degrees") }
            return c
        }
    }

    /// Parses a `POST /v1/fare` body into a request (the estimator checks the ranges).
    /// `schema` is the body schema of `POST /v1/fare`: its properties are the accepted fields.
    public static func fareRequest(_ json: JSONValue, schema: JSONValue) throws(HTTPError) -> FareRequest {
        let b = try Body(json, schema: schema)
        guard let departure = try b.departure() else { throw .badRequest("missing_parameter", "depart_at is required") }
        return FareRequest(
            distanceM: try b.requiredNumber("distance_m"), durationS: try b.number("duration_s"), slowS: try b.number("slow_s"),
            departure: departure, region: try b.string("region") ?? FareRequest.defaultRegion,
            taxiClass: try b.string("taxi_class") ?? FareRequest.defaultTaxiClass, riders: try b.int("riders", default: 1),
            split: try b.splitPolicy(), roundingKrw: try b.int("rounding", default: 10), tollKrw: try b.int("toll_krw", default: 0))
    }
}

extension FareJSON {
    /// The answer of `POST /v1/quote` and `taxipot quote`:
    /// `{"route":{"distance_m","duration_s","slow_s","out_of_city_m","geometry","legs"},"fare":{…},
    /// "split":[{"rider","drop_off","krw"}],"per_person_krw","region","depart_at"}`, and for an
    /// estimated quote its label, whose `reason` is `estimateReason` (the edge's wording of
    /// `q.estimate.reason`: `ErrorMapping.estimateReason(of:)`).
    public static func quote(_ q: Quote, estimateReason: (code: String, message: String)?) -> JSONValue {
        func round(_ v: Double) -> JSONValue { .number((v * 10).rounded() / 10) }
        var split = split(q.split, dropOffs: q.riderDropOffs)
        if let solos = q.soloFaresKrw, case .array(let items) = split {
            split = .array(zip(items, solos).map { item, solo in
                guard case .object(var m) = item else { return item }
                m.append(("solo_krw", JSONValue(solo)))
                return .object(m)
            })
        }
        let answer: JSONValue = [
            "route": [
                "distance_m": round(q.route.distanceMeters),
                "duration_s": round(q.route.durationSeconds),
                "slow_s": round(q.slowS),
                "out_of_city_m": round(q.outOfCityM),
                "geometry": .string(Polyline.encode(q.route.geometry, precision: 6)),
                "legs": .array(q.route.legs.map { ["distance_m": round($0.distanceMeters), "duration_s": round($0.durationSeconds)] }),
            ],
            "fare": fare(q.fare, schedule: q.schedule),
            "split": split,
            "per_person_krw": JSONValue(q.perPersonKrw),
            "region": .string(q.region),
            "depart_at": .string(SeoulTime.format(q.departure)),
        ]
        return answer.adding(q.estimate.map { ("estimated", estimated($0, reason: estimateReason)) })
    }

    /// The label of an estimated quote: `{"method":"straight_line","circuity":1.37,
    /// "fare_range_krw":[9800,12400],"straight_line_m":…,"reason":{"code","message"}}`, with
    /// `reason` as the caller words it (`ErrorMapping.estimateReason(of:)`; left out when nil).
    public static func estimated(_ e: QuoteEstimate, reason: (code: String, message: String)?) -> JSONValue {
        let label: JSONValue = [
            "method": .string(e.method),
            "circuity": .number((e.circuity * 100).rounded() / 100),
            "fare_range_krw": [JSONValue(e.fareLowKrw), JSONValue(e.fareHighKrw)],
            "straight_line_m": .number((e.straightMeters * 10).rounded() / 10),
        ]
        return label.adding(reason.map { ("reason", ["code": .string($0.code), "message": .string($0.message)]) })
    }

    /// Reads an `estimate` option ("allow" or "deny"; JSON body or query).
    public static func estimateOption(_ value: String?) throws(HTTPError) -> Bool? {
        guard let value else { return nil }
        switch value {
        case "allow": return true
        case "deny": return false
        default: throw invalidEstimate(value)
        }
    }

    /// The refusal of an `estimate` option that is neither "allow" nor "deny".
    static func invalidEstimate(_ value: String) -> HTTPError {
        .badRequest("invalid_parameter", "estimate must be \"allow\" or \"deny\", got '\(value.prefix(40))'")
    }

    /// Parses a `POST /v1/quote` body; `now` is the departure when `depart_at` is absent.
    /// `schema` is the body schema of `POST /v1/quote`: its properties are the accepted fields.
    /// Throws an `HTTPError` for a malformed body, or the engine's `FareRequestError` for a
    /// drop-off list longer than it takes (for the endpoint to map).
    public static func quoteRequest(_ json: JSONValue, schema: JSONValue, now: Double) throws -> QuoteRequest {
        let b = try Body(json, schema: schema)
        guard let origin = try b.coordinate("origin") else { throw HTTPError.badRequest("missing_parameter", "origin is required") }
        guard let destination = try b.coordinate("destination") else {
            throw HTTPError.badRequest("missing_parameter", "destination is required")
        }
        var dropOffs = [DropOff]()
        if let v = b.present("drop_offs") {
            guard let items = v.arrayValue else { throw HTTPError.badRequest("invalid_parameter", "drop_offs must be a list of {\"lon\",\"lat\",\"riders\"}") }
            // The engine's check, made here so the first fault of the body is the one answered.
            try QuoteRequest.checkDropOffCount(items.count)
            for (i, item) in items.enumerated() {
                let name = "drop_offs[\(i)]"
                let c = try Body.coordinate(item, name: name, extra: ["riders"])
                var riders = 1
                if let r = item["riders"], !r.isNull {
                    guard let n = r.intValue else { throw HTTPError.badRequest("invalid_parameter", "\(name).riders must be a whole number") }
                    riders = n
                }
                dropOffs.append(DropOff(coordinate: c, riders: riders))
            }
        }
        var riders: Int?
        if case .some = b.present("riders") { riders = try b.int("riders", default: 1) }
        return QuoteRequest(origin: origin, destination: destination, dropOffs: dropOffs, riders: riders,
                            departure: try b.departure() ?? now, taxiClass: try b.string("taxi_class") ?? FareRequest.defaultTaxiClass,
                            split: try b.splitPolicy(), roundingKrw: try b.int("rounding", default: 10),
                            tollKrw: try b.int("toll_krw", default: 0), allowEstimate: try estimateOption(try b.string("estimate")) ?? false)
    }
}

extension JSONValue {
    /// This object with one more member when `member` is given.
    func adding(_ member: (String, JSONValue)?) -> JSONValue {
        guard let member, case .object(var m) = self else { return self }
        m.append(member)
        return .object(m)
    }
}

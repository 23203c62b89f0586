import Fares
import Foundation
import Geo
import HTTPServer
import JSON
import MapMatching
import PartyModel
import Pooling

/// `POST /v1/parties/{id}/settle`: the fare settled from the ride's GPS trace (issue 38).
enum SettleJSON {
    static func trace(_ v: JSONValue?) throws(HTTPError) -> [TraceFix] {
        guard let items = v?.arrayValue else { throw HTTPError.badRequest("missing_field", "'trace' must be an array of fixes {lon,lat,time?,accuracy?} or [lon,lat,time?]") }
        var out: [TraceFix] = []
        for (i, item) in items.enumerated() {
            func number(_ x: JSONValue?) -> Double? { x?.doubleValue }
            let lon: Double?, lat: Double?, time: Double?, accuracy: Double?
            if let a = item.arrayValue {
                guard (2...3).contains(a.count) else { throw HTTPError.badRequest("invalid_trace", "trace[\(i)] must be [lon,lat] or [lon,lat,time]") }
                (lon, lat, time, accuracy) = (number(a[0]), number(a[1]), a.count > 2 ? number(a[2]) : nil, nil)
            } else {
                if let extra = item.objectValue?.first(where: { !["lon", "lat", "time", "accuracy"].contains($0.0) }) {
                    throw HTTPError.badRequest("unknown_field", "unknown field 'trace[\(i)].\(extra.0.prefix(40))' (known: lon, lat, time, accuracy)")
                }
                (lon, lat, time, accuracy) = (number(item["lon"]), number(item["lat"]), number(item["time"]), number(item["accuracy"]))
                if item["time"] != nil && time == nil { throw HTTPError.badRequest("invalid_trace", "trace[\(i)].time must be Unix seconds") }
            }
            guard let lon, let lat else { throw HTTPError.badRequest("invalid_trace", "trace[\(i)] needs numeric lon and lat") }
            out.append(TraceFix(Coordinate(lon: lon, lat: lat), time: time, accuracyMeters: accuracy))
        }
        return out
    }

    /// The key of a settlement without a client key: a 128-bit digest of its trace's JSON (the
    /// listing keeps the key in memory, so not the trace itself); and the trace key of an
    /// earlier build (the trace's whole JSON), still answered.
    static func traceKeys(_ trace: JSONValue?) -> (key: String, earlier: String?) {
        var text = JSONWriter.string(trace ?? .null)
        var c = Checksum()
        var fnv: UInt64 = 0xcbf2_9ce4_8422_2325
        text.withUTF8 { c.add(UnsafeRawBufferPointer($0)) }
        for b in text.utf8 { fnv = (fnv ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return ("trace:" + String(c.value, radix: 16) + String(fnv, radix: 16), "trace:" + text)
    }

    /// The members a settle request may have.
    static let members = ["trace", "drop_offs", "meter_total_krw", "split", "idempotency_key"]

    static func input(_ body: JSONValue) throws(HTTPError) -> SettleInput {
        if let extra = body.objectValue?.first(where: { !members.contains($0.0) }) {
            throw HTTPError.badRequest("unknown_field", "unknown field '\(extra.0.prefix(60))' (known: \(members.joined(separator: ", ")))")
        }
        var input = SettleInput(trace: try trace(body["trace"]))
        if let d = body["drop_offs"], d != .null {
            guard let members = d.objectValue else { throw HTTPError.badRequest("invalid_field", "'drop_offs' must be an object of rider id → {point}|{time}|null") }
            for (id, v) in members {
                if v == .null { input.dropOffs[id] = .detect; continue }
                if let extra = v.objectValue?.first(where: { $0.0 != "point" && $0.0 != "time" }) {
                    throw HTTPError.badRequest("unknown_field", "unknown field 'drop_offs.\(id.prefix(64)).\(extra.0.prefix(40))' (known: point or time)")
                }
                let one = v.objectValue?.count == 1  // {point} or {time} alone, as the document says
                if one, let p = v["point"]?.arrayValue, p.count == 2, let lon = p[0].doubleValue, let lat = p[1].doubleValue {
                    input.dropOffs[id] = .point(Coordinate(lon: lon, lat: lat))
                } else if one, let t = v["time"]?.doubleValue {
                    input.dropOffs[id] = .time(t)
                } else {
                    throw HTTPError.badRequest("invalid_field", "drop_offs.\(id.prefix(64)) must be {\"point\":[lon,lat]}, {\"time\":unix seconds} or null")
                }
            }
        }
        if let m = body["meter_total_krw"], m != .null {
            guard let v = m.doubleValue, v == v.rounded(), v >= 0, v <= 100_000_000 else {
                throw HTTPError.badRequest("invalid_field", "'meter_total_krw' must be a whole number of won from 0 to 100,000,000")
            }
            input.meterTotalKrw = Int(v)
        }
        if let s = body["split"]?.stringValue {
            guard let p = SplitPolicy(rawValue: s) else { throw HTTPError.badRequest("invalid_field", "'split' must be equal, by_leg or proportional") }
            input.split = p
        }
        return input
    }

    /// The answer of a settlement: written from the settled ride's values, or an earlier
    /// build's stored answer as it was.
    static func answer(_ result: SettleResult) -> [UInt8] {
        switch result.record {
        case .ride(let ride): Array(JSONWriter.string(answer(result.partyID, ride)).utf8)
        case .earlierAnswer(let text): Array(text.utf8)
        }
    }

    static func answer(_ partyID: String, _ s: SettledRide) -> JSONValue {
        func round(_ v: Double) -> JSONValue { .number((v * 10).rounded() / 10) }
        let r = s.reading
        let read: JSONValue = [
            "fix_count": .number(Double(r.fixCount)),
            "first_time": r.firstTime.map { .number($0) } ?? .null, "last_time": r.lastTime.map { .number($0) } ?? .null,
            "members": .array(r.members.map { .string($0) }), "idempotency_key_from": .string(r.keyFrom),
            "outlier_fixes": .array(r.outlierFixes.map { .number(Double($0)) })]
        let fare: JSONValue = [
            "total_krw": .number(Double(s.fare.totalKrw)), "schedule_id": .string(s.fare.scheduleID),
            "base_krw": .number(Double(s.fare.baseKrw)), "distance_krw": .number(Double(s.fare.distanceKrw)),
            "time_krw": .number(Double(s.fare.timeKrw)), "night_krw": .number(Double(s.fare.nightKrw)),
            "out_of_city_krw": .number(Double(s.fare.outOfCityKrw)), "rounding_krw": .number(Double(s.fare.roundingKrw))]
        let riders: [JSONValue] = s.riders.map { r in
            .object([("rider_id", .string(r.id)), ("seats", .number(Double(r.seats))), ("stop", .number(Double(r.stop))),
                     ("drop_off_fix", .number(Double(r.fix))),
                     ("drop_off", .array([.number((r.dropOff.lon * 1e6).rounded() / 1e6), .number((r.dropOff.lat * 1e6).rounded() / 1e6)])),
                     ("metered_krw", .number(Double(r.meteredKrw))), ("krw", .number(Double(r.settledKrw)))])
        }
        let members: [(String, JSONValue)] = [
            ("read", read),
            ("party_id", .string(partyID)), ("distance_m", round(s.distanceMeters)), ("duration_s", round(s.durationSeconds)),
            ("region", .string(s.region)), ("split", .string(s.split)),
            ("fare", fare), ("legs_krw", .array(s.fare.legKrw.map { .number(Double($0)) })), ("riders", .array(riders)),
            ("meter_total_krw", s.meterTotalKrw.map { .number(Double($0)) } ?? .null),
            ("difference_krw", s.differenceKrw.map { .number(Double($0)) } ?? .null),
            ("route", MatchJSON.encode(s)),
        ]
        return .object(members)
    }
}

func registerSettleEndpoint(_ router: Router, _ context: ServiceContext) {
    let auth = WriteAuthorization(token: context.configuration.writeToken)
    let settler = PartySettler(parties: context.parties, pricer: context.pooling.pricer)

    // Map matching a long trace is bulk work: admitted against the server's budget by its fixes,
    // settled on the bulk pool (the request is read and checked on a worker first).
    router.addBulk("POST", "/v1/parties/{id}/settle", OperationDoc(
        "Settle a party's fare from its GPS trace: the driven route (map matching), the fare metered from it, each leg's meter "
            + "increment and each rider's share; with meter_total_krw the shares are that total split the same way. Closes the party to joins (durably). "
            + "Idempotent by idempotency_key (or the Idempotency-Key header; without one, by the trace itself): the same key answers the stored settlement. "
            + "When: an unsettled party can be settled until its departure plus the settle window (12 h by default), a settled one replays its "
            + "settlement until its departure plus the settled retention (7 days by default; docs/OPERATIONS.md); after that 404 party_not_found. "
            + "What a trace must be (docs/FARES.md): every fix time within departure − 1 h … departure + the settle window, never going back; "
            + "between fixes at most 200 km/h after a noise allowance of 3σ per fix (a lone fix jumping from both neighbours is tolerated "
            + "and listed in read.outlier_fixes); some fix at least 50 m from the first; every fix within 200 km of the party's origin. "
            + "Otherwise 422 implausible_trace naming the fix and the reason. Members other than those listed are refused (400 unknown_field). "
            + "The answer's read says what was read: fix count, first and last time, the members used, where the key came from.",
        parameters: [ParameterDoc("id", in: "path", required: true, "party id", schema: APISchemas.partyID)],
        requestBody: ["type": "object", "required": ["trace"], "additionalProperties": false, "properties": [
            "trace": ["type": "array", "minItems": 2, "maxItems": .number(Double(MatchOptions.maxFixes)),
                      "description": "fixes {lon,lat,time?,accuracy?} or [lon,lat,time?] in order (times all or none, never going back)",
                      "items": ["oneOf": [
                          ["type": "object", "required": ["lon", "lat"], "additionalProperties": false, "properties": [
                              "lon": ["type": "number", "minimum": -180, "maximum": 180], "lat": ["type": "number", "minimum": -90, "maximum": 90],
                              "time": ["type": "number", "minimum": 0], "accuracy": ["type": "number", "exclusiveMinimum": 0],
                          ]],
                          ["type": "array", "minItems": 2, "maxItems": 3, "prefixItems": [
                              ["type": "number", "minimum": -180, "maximum": 180], ["type": "number", "minimum": -90, "maximum": 90],
                              ["type": "number", "minimum": 0],
                          ], "items": ["type": "number"]],
                      ]]],
            "drop_offs": ["type": "object", "description": "rider id → {\"point\":[lon,lat]}, {\"time\":unix seconds} or null (detected)",
                          "additionalProperties": ["oneOf": [
                              ["type": "null"],
                              ["type": "object", "required": ["point"], "additionalProperties": false, "properties": [
                                  "point": ["type": "array", "minItems": 2, "maxItems": 2, "prefixItems": [
                                      ["type": "number", "minimum": -180, "maximum": 180], ["type": "number", "minimum": -90, "maximum": 90]]]]],
                              ["type": "object", "required": ["time"], "additionalProperties": false, "properties": ["time": ["type": "number"]]],
                          ]]],
            "meter_total_krw": ["type": "integer", "minimum": 0, "maximum": 100_000_000],
            "split": APISchemas.oneOf(SplitPolicy.allCases.map(\.rawValue)),
            "idempotency_key": ["type": "string", "minLength": 1, "maxLength": 200],
        ]],
        responses: [(200, "the settlement"), (400, "invalid_json, missing_field, invalid_trace (naming the fix), unknown_field (naming the member)"),
                    (404, "party_not_found"), (409, "already_settled: settled before under another idempotency key; party_changing: the party kept changing while being settled (retry); party_quarantined: the party's stored row was refused at load (damaged); writes wait for taxipot parties recover"),
                    (422, "no_match: no two fixes of the trace can be joined by road; implausible_trace: times, speeds or extent that cannot be a taxi ride (naming the fix and the reason); invalid_trace: times for some fixes only, or going back; invalid_field: a rider the party does not list, a drop-off time with a trace without times, meter_total_krw out of range"), (503, "storage_unavailable; overloaded: the bulk work in flight is at the server's budget (a trace fix counts \(OSRMFace.cellsPerFix) table cells against serve --table-cell-budget), Retry-After says when to retry"),
                    (401, "unauthorized: missing or wrong 'Authorization: Bearer <token>'"),
                    (403, "writes_disabled: the server has no TAXIPOT_WRITE_TOKEN")],
        responseSchema: ["type": "object", "required": ["party_id", "distance_m", "duration_s", "fare", "legs_krw", "riders", "route"], "properties": [
            "party_id": ["type": "string"], "distance_m": ["type": "number"], "duration_s": ["type": "number"],
            "read": ["type": "object", "description": "what the settlement read", "properties": [
                "fix_count": ["type": "integer"], "first_time": ["type": ["number", "null"]], "last_time": ["type": ["number", "null"]],
                "members": ["type": "array", "items": ["type": "string"]],
                "idempotency_key_from": APISchemas.oneOf(["body", "header", "trace"]),
                "outlier_fixes": ["type": "array", "items": ["type": "integer"]]]],
            "region": ["type": "string"], "split": ["type": "string"],
            "fare": ["type": "object", "properties": ["total_krw": ["type": "integer"], "schedule_id": ["type": "string"]]],
            "legs_krw": ["type": "array", "items": ["type": "integer"]],
            "riders": ["type": "array", "items": ["type": "object", "properties": [
                "rider_id": ["type": "string"], "seats": ["type": "integer"], "stop": ["type": "integer"], "drop_off_fix": ["type": "integer"],
                "drop_off": ResponseSchemas.position, "metered_krw": ["type": "integer"], "krw": ["type": "integer"]]]],
            "meter_total_krw": ["type": ["integer", "null"]], "difference_krw": ["type": ["integer", "null"]],
            "route": ["type": "object", "properties": [
                "matchings": ["type": "array", "items": ["type": "object", "properties": [
                    "distance_m": ["type": "number"], "duration_s": ["type": "number"], "confidence": ["type": "number"],
                    "fixes": ["type": "array", "items": ["type": "integer"]], "geometry": ["type": "string", "description": "encoded polyline, precision 6"],
                    "legs": ["type": "array", "items": ["type": "object", "properties": ["distance_m": ["type": "number"], "duration_s": ["type": "number"]]]],
                ]]],
                "tracepoints": ["type": "array", "description": "per fix: where it was matched, or why it was not ({\"unmatched\": reason})",
                                "items": ["type": "object", "properties": [
                                    "location": ResponseSchemas.position, "distance_m": ["type": "number"], "matching": ["type": "integer"],
                                    "waypoint": ["type": ["integer", "null"]], "unmatched": ["type": "string"],
                                ]]],
            ]],
        ]],
        requestExample: ["trace": [[126.978, 37.5665, 1_764_637_200], [126.9785, 37.5668, 1_764_637_210]], "meter_total_krw": 4800,
                         "drop_offs": ["minji": ["time": 1_764_637_210]], "idempotency_key": "ride-2025-05-01-1"]
    )) { req in
        try auth.check(req)
        let id = try partyID(req)
        let body = try req.jsonBody()
        // The client's key (body or header), or else the trace itself: the same trace settles once.
        let given = body["idempotency_key"].map { $0.stringValue } ?? req.header("idempotency-key")
        if let v = body["idempotency_key"], v.stringValue == nil { throw HTTPError.badRequest("invalid_field", "'idempotency_key' must be a string") }
        guard given.map({ (1...PartySettlement.maxKeyLength).contains($0.unicodeScalars.count) }) ?? true else {
            throw HTTPError.badRequest("invalid_field", "'idempotency_key' (or the Idempotency-Key header) must be 1–200 characters")
        }
        var input = try SettleJSON.input(body)
        input.latestAfterDepartureSeconds = context.parties.options.keptSeconds(settled: false)
        let (key, earlierKey) = given.map { ($0, nil) } ?? SettleJSON.traceKeys(body["trace"])
        let request = SettleRequest(partyID: id, key: key, earlierKey: earlierKey, input: input,
                                    members: (body.objectValue ?? []).map(\.0),
                                    keyFrom: body["idempotency_key"] != nil ? "body" : given != nil ? "header" : "trace")
        return BulkWork(cost: min(input.trace.count, MatchOptions.maxFixes) * OSRMFace.cellsPerFix, unit: "table cells (a trace fix counts \(OSRMFace.cellsPerFix))") { [request] in
            do throws(PartySettleError) { return .json(bytes: SettleJSON.answer(try settler.settle(request))) } catch { throw ErrorMapping.http(error) }
        }
    }
}

import Quoting
import FareEstimation
import Fares
import HTTPServer
import Geo
import JSON

/// `POST /v1/fare` (a fare without routing, for callers who bring their own distances) and
/// `POST /v1/quote` (route + fare + split).
func registerFaresEndpoints(_ router: Router, _ context: ServiceContext) {
    registerFareEndpoint(router, fares: context.fares)
    registerQuoteEndpoint(router, quotes: context.quotes)
}

/// Adds `POST /v1/fare` served by `fares` (separate so tests can serve a bare estimator).
public func registerFareEndpoint(_ router: Router, fares: FareEstimator) {
    let regions = fares.book.regions.joined(separator: "|")
    let classes = fares.book.taxiClasses().joined(separator: "|")
    let schema: JSONValue = APISchemas.optionalsNullable([
        "type": "object",
        "required": ["distance_m", "depart_at"],
        "additionalProperties": false,
        "properties": [
            "distance_m": ["type": "number", "minimum": 0, "maximum": 1_000_000, "description": "trip distance in metres"],
            "duration_s": ["type": "number", "minimum": 0, "maximum": .number(FareRequest.maxDurationS), "description": "trip duration; default: from the traffic profile (primary roads)"],
            "slow_s": ["type": "number", "minimum": 0, "description": "seconds below the meter's speed threshold; default: from the traffic profile"],
            "depart_at": ["type": "string", "pattern": .string("^" + APISchemas.dateTimeText + "$"), "description": "ISO 8601; no offset means Asia/Seoul"],
            "region": ["type": "string", "enum": .array(fares.book.regions.map { .string($0) }), "description": .string("\(regions) (default seoul)")],
            "taxi_class": ["type": "string", "enum": .array(fares.book.taxiClasses().map { .string($0) }), "description": .string("\(classes) (default mid)")],
            "riders": ["type": "integer", "minimum": 1, "maximum": 10, "description": "persons sharing the taxi (default 1)"],
            "split": ["type": "string", "enum": ["equal", "by_leg", "proportional"], "description": "split policy (default equal)"],
            "rounding": ["type": "integer", "enum": [10, 100], "description": "share rounding unit in won (default 10)"],
            "toll_krw": ["type": "integer", "minimum": 0, "maximum": .number(Double(FareRequest.maxTollKrw)), "description": "tolls, passed through (default 0)"],
        ],
    ])
    let doc = OperationDoc(
        "Taxi fare for a distance (no routing): meter breakdown and per-person split",
        requestBody: schema,
        responses: [(200, "trip timing, fare breakdown (parts add up to total_krw), split and per_person_krw"),
                    (400, "bad input; unknown region or taxi_class lists the allowed values"),
                    (422, "no fare schedule covers depart_at (the message lists the covered dates)")],
        responseSchema: ResponseSchemas.fareAnswer, responseExample: ResponseSchemas.fareExample,
        requestExample: ["distance_m": 5000, "depart_at": "2026-12-24T22:30:00+09:00", "riders": 2])
    router.add("POST", "/v1/fare", doc, cost: .light) { req in
        let request = try FareJSON.fareRequest(try req.jsonBody(), schema: schema)
        do {
            return .json(FareJSON.estimate(try fares.estimate(request)))
        } catch let e as FareRequestError {
            throw ErrorMapping.http(e, points: .quote)
        }
    }
}

/// Adds `POST /v1/quote` served by `quotes`.
public func registerQuoteEndpoint(_ router: Router, quotes: RideQuoter) {
    let schema: JSONValue = APISchemas.optionalsNullable([
        "type": "object",
        "required": ["origin", "destination"],
        "additionalProperties": false,
        "properties": [
            "origin": APISchemas.lonLat,
            "destination": APISchemas.lonLat,
            "drop_offs": ["type": "array", "maxItems": .number(Double(QuoteRequest.maxDropOffs)), "description": "stops before the destination, in order",
                          "items": APISchemas.dropOffInput],
            "riders": ["type": "integer", "minimum": 1, "maximum": 10, "description": "persons in the taxi (default 1 + drop-off riders)"],
            "depart_at": ["type": "string", "pattern": .string("^" + APISchemas.dateTimeText + "$"), "description": "ISO 8601; default now; no offset means Asia/Seoul"],
            "taxi_class": ["type": "string", "enum": .array(quotes.fares.book.taxiClasses().map { .string($0) }), "description": "mid (default) or deluxe"],
            "split": ["type": "string", "enum": ["equal", "by_leg", "proportional"], "description": "split policy (default equal)"],
            "rounding": ["type": "integer", "enum": [10, 100], "description": "share rounding unit in won (default 10)"],
            "toll_krw": ["type": "integer", "minimum": 0, "maximum": .number(Double(FareRequest.maxTollKrw)), "description": "tolls, passed through (default 0)"],
            "estimate": ["type": "string", "enum": ["allow", "deny"],
                         "description": "allow: a point outside the served roads gets a straight-line estimate labelled \"estimated\" instead of a 422, within South Korea and up to 1,000 km (beyond: 422 outside_estimate_range) (default deny; also ?estimate=allow)"],
        ],
        "description": "A ride to quote: origin, the pick-up point (WGS84; its region picks the fare schedule); destination, where the host (rider 0) gets off; drop_offs, stops before it in order.",
    ])
    let doc = OperationDoc(
        "Quote a pooled taxi ride: route through the drop-offs, metered fare, per-person split",
        parameters: [ParameterDoc("estimate", "allow: as the body's \"estimate\":\"allow\" (either one allows; default deny)", schema: APISchemas.oneOf(["allow", "deny"]))],
        requestBody: schema,
        responses: [(200, "route, fare breakdown (parts add up to total_krw), one share per rider, per_person_krw"),
                    (400, "bad input (names the field); unknown taxi_class lists the allowed values"),
                    (404, "no road route between the points"),
                    (422, "outside_coverage (a point outside the served roads, unless estimate=allow), outside_estimate_range (estimate=allow for a point outside South Korea, 124.5–132.0°E 33.0–38.7°N, or an estimated route over 1,000 km), an origin outside the fare regions, no schedule for depart_at, or riders left out whose default (1 + the drop-offs' riders) is over \(FareRequest.riderRange.upperBound)")],
        responseSchema: ResponseSchemas.quoteAnswer, responseExample: ResponseSchemas.quoteExample,
        requestExample: ["origin": ["lon": 126.97, "lat": 37.56], "destination": ["lon": 126.99, "lat": 37.57],
                         "drop_offs": [["lon": 126.98, "lat": 37.565]], "riders": 2])
    router.operation("POST", "/v1/quote", doc, cost: .light) { req, query in
        let body = try req.jsonBody()
        do {
            var request = try FareJSON.quoteRequest(body, schema: schema, now: SeoulTime.now())
            if let allow = try FareJSON.estimateOption(try query.choice("estimate", invalid: FareJSON.invalidEstimate)) {
                request.allowEstimate = allow || request.allowEstimate
            }
            let quote = try quotes.quote(request)
            return .json(FareJSON.quote(quote, estimateReason: ErrorMapping.estimateReason(of: quote.estimate)))
        } catch let e as FareRequestError {
            throw ErrorMapping.http(quote: e, ridersGiven: body["riders"].map { !$0.isNull } ?? false)
        }
    }
}

import Coordinates
import Parties
import PartyModel
import PartyStores
import Quoting
import FareEstimation
import Fares
import HTTPServer
import Places
import Pooling
import Routing

/// The one place that turns the engine's domain errors into HTTP answers: each error type's
/// status, snake_case code and message, and the names the API gives the request fields and
/// route points those errors carry as values.
///
/// The domain modules (Routing, Places, Fares, Parties, Pooling, Engine, Batch, Coordinates)
/// throw enums saying what went wrong and with which input; nothing below the API decides a
/// status or an error code. Errors the API finds itself while reading a request (a malformed
/// query parameter, an unknown JSON field) are built where the request is read.
public enum ErrorMapping {
    /// How an endpoint names the points of the route it asks for.
    public enum PointNames: Sendable {
        /// `from`, `via[i]`, `to` (`/v1/route`, and the party endpoints that route a party).
        case route
        /// `origin`, `drop_offs[i]`, `destination` (`/v1/quote`: the route runs from the origin
        /// through the drop-offs to the destination).
        case quote
    }

    // MARK: Names

    /// The request field's name in the API's JSON bodies and queries.
    public static func name(_ f: RequestField) -> String {
        switch f {
        case .distance: "distance_m"
        case .duration: "duration_s"
        case .slowTime: "slow_s"
        case .departure: "depart_at"
        case .region: "region"
        case .taxiClass: "taxi_class"
        case .riders: "riders"
        case .split: "split"
        case .rounding: "rounding"
        case .toll: "toll_krw"
        case .origin: "origin"
        case .destination: "destination"
        case .dropOffs: "drop_offs"
        case .dropOff(let i): "drop_offs[\(i)]"
        case .dropOffRiders(let i): "drop_offs[\(i)].riders"
        case .source(let i): "sources[\(i)]"
        case .table: "table"
        }
    }

    /// The match field's name in `GET /v1/match`'s query.
    public static func name(_ f: OfferField) -> String {
        switch f {
        case .origin: "origin"
        case .destination: "destination"
        case .departure: "depart_at"
        case .window: "window_min"
        case .walk: "walk_m"
        case .seats: "seats"
        case .maxDetour: "max_detour_pct"
        case .limit: "limit"
        case .riderID: "rider_id"
        }
    }

    /// The route point's name as the endpoint's parameters call it.
    public static func name(_ p: RoutePoint, _ names: PointNames) -> String {
        switch (p, names) {
        case (.origin, .route): "from"
        case (.origin, .quote): "origin"
        case (.via(let i), .route): "via[\(i)]"
        case (.via(let i), .quote): "drop_offs[\(i)]"
        case (.destination, .route): "to"
        case (.destination, .quote): "destination"
        case (.source(let i), _): "sources[\(i)]"
        case (.tableDestination(let j), _): "destinations[\(j)]"
        }
    }

    /// The route option's query parameter.
    public static func name(_ o: RouteOption) -> String {
        switch o {
        case .maxSnapMeters: "max_snap_m"
        case .departure: "depart_at"
        case .sources: "sources"
        case .destinations: "destinations"
        }
    }

    // MARK: Routing

    /// The code of a routing error (also the `reason.code` of an estimated quote).
    public static func code(_ e: RoutingError) -> String {
        switch e {
        case .invalidCoordinate: "invalid_coordinate"
        case .noRoute: "no_route"
        case .tooManyViaPoints: "too_many_via_points"
        case .invalidOption: "invalid_parameter"
        case .outsideCoverage: "outside_coverage"
        }
    }

    /// `max_snap_m` refused (not a number, or outside the engine's limit, whose number this
    /// sentence quotes): as query text `text`, or as a body field when nil.
    public static func invalidSnapLimit(query text: String?) -> HTTPError {
        let rule = "must be a number of metres above 0 and at most \(Int(RouteEngine.maxSnapLimitMeters))"
        let field = name(RouteOption.maxSnapMeters)
        guard let text else { return .badRequest("invalid_parameter", "\(field) \(rule)") }
        return .badRequest("invalid_parameter", "query parameter '\(field)' \(rule), got '\(text.prefix(40))'")
    }

    /// The message of a routing error: the engine's sentence with the endpoint's names, and for
    /// a point outside the served roads where to look and what to ask instead.
    public static func message(_ e: RoutingError, points: PointNames) -> String {
        if case .invalidOption(.maxSnapMeters, _) = e { return invalidSnapLimit(query: nil).message }
        let sentence = e.message(naming: { name($0, points) }, option: { name($0) })
        guard case .outsideCoverage(_, _, _, _, let other) = e else { return sentence }
        return sentence + (other == nil ? " (see GET /v1/coverage; an estimate is available with estimate=allow where offered)"
            : " (an estimate is available with estimate=allow where offered)")
    }

    /// 400 for bad input, 422 for a point outside the served roads, 404 when no road connects the points.
    public static func http(_ e: RoutingError, points: PointNames = .route) -> HTTPError {
        let status = switch e {
        case .invalidCoordinate, .tooManyViaPoints, .invalidOption: 400
        case .outsideCoverage: 422
        case .noRoute: 404
        }
        return HTTPError(status: status, code: code(e), message: message(e, points: points))
    }

    /// A routing error about the query parameter whose text was `text` (the engine's checks of
    /// `via` and `max_snap_m`, made as `GET /v1/route` and `/v1/table` read them): the
    /// sentence names the parameter and quotes what was given.
    public static func http(_ e: RoutingError, query text: String) -> HTTPError {
        switch e {
        case .tooManyViaPoints(let n, let limit):
            .badRequest(code(e), "query parameter 'via' has \(n) points; at most \(limit) are allowed")
        case .invalidOption(.maxSnapMeters, _): invalidSnapLimit(query: text)
        default: http(e)
        }
    }

    /// The `reason` of an estimated quote: the routing error that made it one, or "requested".
    public static func estimateReason(_ e: RoutingError?) -> (code: String, message: String) {
        guard let e else { return ("requested", "an estimate was requested") }
        return (code(e), message(e, points: .quote))
    }

    /// The `reason` of an answer that is an estimate (`estimate`), or nil when it is not one:
    /// what the JSON writer (`FareJSON.quote`, `FareJSON.estimated`) is given to say why.
    public static func estimateReason(of estimate: QuoteEstimate?) -> (code: String, message: String)? {
        estimate.map { estimateReason($0.reason) }
    }

    // MARK: Fares, quotes, parties' prices

    /// 400 for bad input (and unknown region or class), 422 for what cannot be priced (no
    /// schedule, outside the fare regions, outside the served roads, an estimate beyond its
    /// range), 404 for no route, 500 for the engine's own failures. `points`: how the endpoint
    /// names route points.
    public static func http(_ e: FareRequestError, points: PointNames) -> HTTPError {
        if case .route(let r) = e { return http(r, points: points) }
        let (status, code): (Int, String) = switch e {
        case .invalid: (400, "invalid_parameter")
        case .conflicting: (422, "invalid_parameter")  // each value fits the schema; together they do not
        case .schedule(.unknownRegion): (400, "unknown_region")
        case .schedule(.unknownTaxiClass): (400, "unknown_taxi_class")
        case .schedule(.beforeOldestSchedule): (422, "no_schedule")
        case .outsideFareRegions: (422, "outside_fare_regions")
        case .noScheduleForRegion: (422, "no_schedule")
        case .outsideEstimateRange: (422, "outside_estimate_range")
        case .invalidTrip: (400, "invalid_trip")
        case .invalidSplit: (400, "invalid_split")
        case .route: (500, "internal_error")  // answered above
        case .internalFailure: (500, "internal_error")
        }
        return HTTPError(status: status, code: code, message: e.message(naming: { name($0) }, point: { name($0, points) }))
    }

    /// A refused quote, as `http(_:points:)` answers it, except a rider count the request left
    /// out (`ridersGiven` false: one plus the drop-offs' riders) beyond the engine's range: each
    /// value fits the schema and only their sum is refused, so 422.
    public static func http(quote e: FareRequestError, ridersGiven: Bool) -> HTTPError {
        let answer = http(e, points: .quote)
        guard !ridersGiven, case .invalid(.riders, _) = e else { return answer }
        return HTTPError(status: 422, code: answer.code, message: answer.message)
    }

    // MARK: Party offers and parties' quotes

    /// 400 for an offer option out of range, 404 for no party, else the fare's answer (the
    /// rider's trip or the party's ride, its route points named as `/v1/route` names them).
    public static func http(_ e: PoolingError) -> HTTPError {
        if case .fare(let f) = e { return http(f, points: .route) }
        let message = e.message(naming: { name($0) }, point: { name($0, .route) }, fareField: { name($0) })
        if case .partyNotFound = e { return .notFound("party_not_found", message) }
        return .badRequest("invalid_parameter", message)
    }

    /// A match option the engine refused as `GET /v1/match` read it from query text `text`:
    /// the API's sentence names the parameter, the engine's range, and quotes the text.
    public static func http(_ e: PoolingError, query text: String) -> HTTPError {
        guard case .invalid(let field, _) = e else { return http(e) }
        let parameter = "query parameter '\(name(field))'"
        func number(_ r: ClosedRange<Double>) -> HTTPError {
            .badRequest("invalid_parameter", "\(parameter) must be a number from \(r.lowerBound) to \(r.upperBound), got '\(text.prefix(40))'")
        }
        func whole(_ r: ClosedRange<Int>) -> HTTPError {
            .badRequest("invalid_parameter", "\(parameter) must be a whole number from \(r.lowerBound) to \(r.upperBound), got '\(text.prefix(40))'")
        }
        switch field {
        case .window: return number(OfferRequest.windowRange)
        case .walk: return number(OfferRequest.walkRange)
        case .maxDetour: return number(OfferRequest.detourRange)
        case .seats: return whole(1...Party.maxSeats)
        case .limit: return whole(OfferRequest.limitRange)
        case .riderID: return .badRequest("invalid_parameter", "\(parameter) must be 1–64 characters of A–Z, a–z, 0–9, '_' or '-'")
        case .origin, .destination, .departure: return http(e)
        }
    }

    // MARK: Settlement

    /// A trace that cannot be settled: 422 when no two fixes join by road (no_match), for a
    /// trace that is no taxi ride (implausible_trace), times for some fixes only or going back
    /// (invalid_trace), a rider or drop-off the party refuses (invalid_field), a fare that cannot
    /// be metered (unpriceable); 400 for another unreadable trace (invalid_trace).
    public static func http(_ e: SettlementError) -> HTTPError {
        switch e {
        case .match(.noMatch): HTTPError(status: 422, code: "no_match", message: e.description)
        // Fits the document but does not go together: times for some fixes only, or going back.
        case .match(.missingTime), .match(.timeGoesBack): HTTPError(status: 422, code: "invalid_trace", message: e.description)
        case .match: .badRequest("invalid_trace", e.description)
        // A rider the party does not list, a drop-off time with a trace without times: refused values (422).
        case .unknownRider, .invalidInput: HTTPError(status: 422, code: "invalid_field", message: e.description)
        case .implausible: HTTPError(status: 422, code: "implausible_trace", message: e.description)
        case .fare(let f): HTTPError(status: 422, code: "unpriceable", message: f.description)
        }
    }

    /// A party not settled: 409 when settled under another key (already_settled) or changing
    /// all along (party_changing), else the trace's or the party service's answer.
    public static func http(_ e: PartySettleError) -> HTTPError {
        switch e {
        case .settledUnderAnotherKey: HTTPError(status: 409, code: "already_settled", message: e.description)
        case .keptChanging: HTTPError(status: 409, code: "party_changing", message: e.description)
        case .settlement(let s): http(s)
        case .party(let p): http(party: p)
        }
    }

    // MARK: Places

    /// A place search error: 400, or 422 when every value fits its documented schema and only
    /// how they combine is refused (`fitsSchema`: bounds out of order, radius_m or sort=distance
    /// without near, a cursor of another search, text with no letter or digit).
    public static func http(_ e: PlaceSearchError, fitsSchema: Bool = false) -> HTTPError {
        let code = switch e {
        case .emptyQuery: "empty_query"
        case .queryTooLong: "query_too_long"
        case .unknownCategory: "unknown_category"
        case .invalidNear: "invalid_near"
        case .invalidRect: "invalid_rect"
        case .invalidRadius: "invalid_radius"
        case .invalidSort: "invalid_sort"
        case .invalidLimit: "invalid_limit"
        case .invalidCursor: "invalid_cursor"
        }
        return HTTPError(status: fitsSchema ? 422 : 400, code: code, message: e.message)
    }

    // MARK: Coordinates

    /// A transformer that could not be made: 400 for a CRS name the API cannot use (naming the
    /// parameter, `side(name)`), 422 when PROJ knows no way between the two, 500 otherwise.
    public static func http(_ e: CoordinateError, parameter side: (String) -> String) -> HTTPError {
        switch e {
        case .unknownCRS(let name): .badRequest("unknown_crs", "parameter '\(side(name))': \(e.description)")
        case .unsupportedCRS(let name, _): .badRequest("unsupported_crs", "parameter '\(side(name))': \(e.description)")
        case .noTransformation: .unprocessable("no_transformation", e.description)
        default: HTTPError(status: 500, code: "internal_error", message: e.description)
        }
    }

    /// The first point of a batch that could not be converted: 400 for an invalid input point,
    /// 422 for one PROJ could not transform.
    /// `fitsSchema` (asked only for numbers outside the source CRS's domain): whether the request
    /// fits its documented schema; if so the refusal is 422 (the schema cannot tie the numbers to
    /// `from`), else 400.
    public static func http(_ issue: PointIssue, source: String, target: String, fitsSchema: () -> Bool) -> HTTPError {
        switch issue.kind {
        case .invalidInput: HTTPError(status: fitsSchema() ? 422 : 400, code: "invalid_coordinate", message: issue.description + " (in \(source))")
        case .transformFailed: .unprocessable("transform_failed", issue.description + " (\(source) → \(target))")
        }
    }

    // MARK: Parties

    /// A failed party write or read: 404 for a party or rider that is not there, 409/410/412
    /// for a write that conflicts with the party's state, 400 for an invalid party, 422 for
    /// one already expired, 503 when the store cannot write or be reached (with Retry-After),
    /// 500 for anything else.
    public static func http(party error: any Error) -> HTTPError {
        switch error {
        case let e as PartyWriteError:
            switch e {
            case .notFound: .notFound("party_not_found", e.description)
            case .riderNotFound: .notFound("rider_not_found", e.description)
            case .departed: HTTPError(status: 410, code: "departed", message: e.description)
            case .full: HTTPError(status: 409, code: "party_full", message: e.description)
            case .alreadyJoined: HTTPError(status: 409, code: "already_joined", message: e.description)
            case .seatsConflict: HTTPError(status: 409, code: "seats_conflict", message: e.description)
            case .dropOffNotServed: .unprocessable("outside_coverage", e.description)
            case .versionMismatch: HTTPError(status: 412, code: "version_mismatch", message: e.description)
            case .settled: HTTPError(status: 409, code: "party_settled", message: e.description)
            case .offerChanged: HTTPError(status: 409, code: "offer_changed", message: e.description)
            case .detourTooLong: HTTPError(status: 409, code: "detour_too_long", message: e.description)
            case .quarantined: HTTPError(status: 409, code: "party_quarantined", message: e.description)
            }
        case let e as PartyValidationError: PartiesJSON.invalid(e.field, e.message)
        case let e as PartyExpiredError: .unprocessable("party_expired", e.description)
        case let e as PartyStoreUnavailableError:
            HTTPError(status: 503, code: "storage_unavailable", message: "the party store cannot be reached: \(e.message); retry shortly",
                      headers: [("Retry-After", String(e.retryAfter))])
        case let e as PartyStoreError: HTTPError(status: 503, code: "storage_unavailable", message: "the party store cannot write: \(e.message)")
        default: HTTPError(status: 500, code: "internal_error", message: "internal error: \(error)")
        }
    }
}

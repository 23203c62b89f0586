import PartyModel
import Quoting
import FareEstimation
import Fares
import Geo
import HTTPServer
import JSON
import Pooling

/// `GET /v1/parties/{id}/quote` and `GET /v1/match`.
func registerPoolingEndpoints(_ router: Router, _ context: ServiceContext) {
    registerPoolingEndpoints(router, pooling: context.pooling)
}

/// Adds the party quote and offer routes served by `pooling`.
public func registerPoolingEndpoints(_ router: Router, pooling: PoolingService) {
    router.operation("GET", "/v1/parties/{id}/quote", OperationDoc(
        "A party's quote: the route from the origin through the riders' drop-offs in the order its joins fixed (each join places its rider where the accepted offer did), else in the order that makes the ride shortest in time (equal times: the earlier-listed rider's drop-off first), then the destination; the metered fare; each rider's share (one per person, docs/FARES.md). The host rides to the destination: a party listing no rider, or whose riders all get off before it, carries its host there as 'organiser' (one person, first among the shares)",
        parameters: [ParameterDoc("id", in: "path", required: true, "party id", schema: APISchemas.partyID),
                     ParameterDoc("split", "equal, by_leg (default: each leg's meter increment among those aboard) or proportional (to each rider's solo fare)", schema: APISchemas.oneOf(SplitPolicy.allCases.map(\.rawValue)))],
        responses: [(200, "{\"party_id\",\"version\",\"route\":{\"distance_m\",\"duration_s\",\"geometry\",\"legs\"},\"stops\":[{\"location\",\"riders\":[rider_id]}],\"drop_off_order\":[rider_id],\"fare\":{…},\"split\":\"by_leg\",\"shares\":[{\"rider_id\",\"seats\",\"krw\",\"solo_krw\"?}],\"region\",\"depart_at\"}"),
                    (400, "invalid_id, invalid_parameter"), (404, "party_not_found, no_route"),
                    (422, "outside_coverage, outside_fare_regions, no_schedule")],
        responseSchema: ResponseSchemas.partyQuote, responseExample: ResponseSchemas.partyQuoteExample
    )) { req, query in
        let id = try partyID(req)
        let split = try query.choice("split", as: SplitPolicy.self) ?? .byLeg
        do throws(PoolingError) {
            return .json(PoolingJSON.quote(try pooling.quote(partyID: id, split: split)))
        } catch {
            throw ErrorMapping.http(error)
        }
    }

    router.operation("GET", "/v1/match", OperationDoc(
        "Open parties a rider could join, best first (most saved, then least detour): within walk_m of the rider's origin, departing within window_min of depart_at (not yet departed), with the seats; the rider's drop-off inserted where it lengthens the party's ride least while neither the ride nor any rider already aboard (each against their own arrival in the party's current plan) is delayed by more than max_detour_pct; parties where no position qualifies, that no road reaches, or that already list rider_id are left out; detour.riders lists each existing rider's delay. A destination at one of the party's stops (a drop-off or its destination) gets off there with that stop's riders (rider order), adding nothing. Each match is priced as the party the join writes (the host implied only if nobody then rides to the destination), and carries its offer: a join (POST /v1/parties/{id}/riders) with that offer places the rider exactly so, and the party's quote then gives the same drop_off_order and pooled_krw",
        parameters: [
            ParameterDoc("origin", required: true, "where the rider is: lon,lat", schema: APISchemas.pointQuery),
            ParameterDoc("destination", required: true, "where the rider goes: lon,lat", schema: APISchemas.pointQuery),
            ParameterDoc("depart_at", "when the rider leaves (ISO 8601 or Unix seconds; default now)", schema: APISchemas.partyInstantQuery),
            ParameterDoc("window_min", type: "number", "minutes a party may depart before or after depart_at, 0–1440 (default 30)", schema: APISchemas.number(OfferRequest.windowRange)),
            ParameterDoc("walk_m", type: "number", "farthest walk to a party's origin in metres, 0–5000 (default 800)", schema: APISchemas.number(OfferRequest.walkRange)),
            ParameterDoc("seats", type: "integer", "seats the rider needs, 1–\(Party.maxSeats) (default 1)", schema: APISchemas.integer(1...Party.maxSeats)),
            ParameterDoc("max_detour_pct", type: "number", "largest growth in percent, 0–1000 (default 25), of the party's ride time and of each rider's own arrival time (from the departure, in the party's current plan): the rider's drop-off goes where it lengthens the ride least within both", schema: APISchemas.number(OfferRequest.detourRange)),
            ParameterDoc("limit", type: "integer", "matches at most, 1–50 (default 10)", schema: APISchemas.integer(OfferRequest.limitRange)),
            ParameterDoc("rider_id", "the rider's id in drop_off_order (default 'you')", schema: APISchemas.riderID),
            ParameterDoc("estimate", "allow: when the rider's own trip lies outside the served roads (outside_coverage), solo_krw is a straight-line estimate and every match says so in \"estimated\":{\"method\",\"circuity\",\"fare_range_krw\",\"straight_line_m\",\"reason\"} (saving_krw is then estimated too), instead of a 422 (within South Korea and up to 1,000 km: beyond, 422 outside_estimate_range); parties whose ride cannot take the rider's destination by road are still left out (an uncovered destination matches none). deny (default): a 422 outside_coverage", schema: APISchemas.oneOf(["allow", "deny"])),
        ],
        responses: [(200, "{\"matches\":[{\"party\":{…},\"walk_m\",\"drop_off_order\":[rider_id],\"detour\":{\"added_s\",\"added_m\",\"pct\",\"riders\":[{\"rider_id\",\"added_s\",\"pct\"}]},\"price\":{\"solo_krw\",\"pooled_krw\",\"saving_krw\"}}]}; solo_krw: the rider's metered fare alone, priced at the rider's depart_at; pooled_krw: the rider's by_leg share of the party's ride with the rider in it (priced at the party's departure); detour.riders: each rider already in the party (the host first) and how much later they arrive (pct: of their own arrival time in the party's current plan); offer: {\"drop_off_order\",\"pooled_krw\",\"max_detour_pct\"}, to hand back with the join"),
                    (400, "missing_parameter, invalid_parameter (naming it)"),
                    (404, "no_route: the rider's own trip has no road route"),
                    (422, "outside_coverage: the rider's origin or destination (unless estimate=allow); outside_estimate_range: estimate=allow for a point outside South Korea (124.5–132.0°E, 33.0–38.7°N) or an estimated trip over 1,000 km; outside_fare_regions, no_schedule")],
        responseSchema: ResponseSchemas.partyOffers, responseExample: ["matches": []]
    )) { _, query in
        func point(_ name: String) throws(HTTPError) -> Coordinate {
            try query.requiredPoint(name) { text in
                .badRequest("invalid_parameter", "query parameter '\(name)' must be lon,lat within ±180/±90, got '\(text.prefix(60))'")
            }
        }
        var r = OfferRequest(origin: try point("origin"), destination: try point("destination"),
                             departAt: try query.instant("depart_at") ?? SeoulTime.now())
        // Each option is checked by the engine's rule as it is read, so the first fault of the
        // query is the one answered (text that is no number is checked as NaN or Int.min, which
        // every rule refuses); the declared ranges are the engine's constants.
        func checked<T>(_ name: String, _ value: (String) -> T, _ check: (T) throws(PoolingError) -> Void) throws(HTTPError) -> T? {
            guard let text = try query.text(name) else { return nil }
            let v = value(text)
            do throws(PoolingError) { try check(v) } catch { throw ErrorMapping.http(error, query: text) }
            return v
        }
        let number = { (text: String) in NumberParsing.finiteDouble(text) ?? .nan }
        let whole = { (text: String) in Int(text) ?? .min }
        r.windowMinutes = try checked("window_min", number, OfferRequest.checkWindow) ?? 30
        r.walkMeters = try checked("walk_m", number, OfferRequest.checkWalk) ?? 800
        r.seats = try checked("seats", whole, OfferRequest.checkSeats) ?? 1
        r.maxDetourPercent = try checked("max_detour_pct", number, OfferRequest.checkDetour) ?? 25
        r.limit = try checked("limit", whole, OfferRequest.checkLimit) ?? 10
        r.riderID = try checked("rider_id", { $0 }, OfferRequest.checkRiderID) ?? r.riderID
        r.allowEstimate = try FareJSON.estimateOption(try query.choice("estimate", invalid: FareJSON.invalidEstimate)) ?? false
        do throws(PoolingError) {
            let offers = try pooling.offers(r)
            return .json(["matches": .array(offers.map { PoolingJSON.offer($0, estimateReason: ErrorMapping.estimateReason(of: $0.soloEstimate)) })])
        } catch {
            throw ErrorMapping.http(error)
        }
    }
}

/// The JSON of party quotes and offers.
public enum PoolingJSON {
    static func round(_ v: Double) -> JSONValue { .number((v * 10).rounded() / 10) }

    /// The answer of `GET /v1/parties/{id}/quote`.
    public static func quote(_ q: PartyQuote) -> JSONValue {
        let p = q.priced
        let seatsByID = Dictionary(p.ride.riders.map { ($0.id, $0.seats) }, uniquingKeysWith: { a, _ in a })
        var stops: [JSONValue] = []
        for (i, s) in p.ride.stops.enumerated() {
            stops.append(["location": PartiesJSON.position(s),
                          "riders": .array(p.ride.riders.filter { $0.stop == i }.map { .string($0.id) })])
        }
        return [
            "party_id": .string(q.party.id),
            "version": JSONValue(q.party.version),
            "route": [
                "distance_m": round(p.route.distanceMeters),
                "duration_s": round(p.route.durationSeconds),
                "geometry": .string(Polyline.encode(p.route.geometry, precision: 6)),
                "legs": .array(p.route.legs.map { ["distance_m": round($0.distanceMeters), "duration_s": round($0.durationSeconds)] }),
            ],
            "stops": .array(stops),
            "drop_off_order": .array(p.ride.dropOffOrder.map { .string($0) }),
            "fare": FareJSON.fare(p.fare, schedule: p.schedule),
            "split": .string(p.split.rawValue),
            "shares": .array(p.shares.enumerated().map { i, s in
                var m: [(String, JSONValue)] = [("rider_id", .string(s.riderID)), ("seats", JSONValue(seatsByID[s.riderID] ?? 1)),
                                                ("krw", JSONValue(s.krw))]
                if let solos = p.soloFaresKrw { m.append(("solo_krw", JSONValue(solos[i]))) }
                return .object(m)
            }),
            "region": .string(p.region),
            "depart_at": .string(SeoulTime.format(p.ride.departure)),
        ]
    }

    /// One offer of `GET /v1/match`; `estimateReason` says why `soloKrw` is an estimate, when
    /// it is one (the API's `ErrorMapping.estimateReason(of:)`).
    public static func offer(_ m: PartyOffer, estimateReason: (code: String, message: String)?) -> JSONValue {
        let value: JSONValue = [
            "party": PartiesJSON.party(m.party),
            "walk_m": round(m.walkMeters),
            "drop_off_order": .array(m.dropOffOrder.map { .string($0) }),
            "detour": ["added_s": round(m.addedSeconds), "added_m": round(m.addedMeters), "pct": round(m.detourPercent),
                       "riders": .array(m.riderDelays.map { ["rider_id": .string($0.riderID), "added_s": round($0.addedSeconds), "pct": round($0.percent)] })],
            "price": ["solo_krw": JSONValue(m.soloKrw), "pooled_krw": JSONValue(m.pooledKrw), "saving_krw": JSONValue(m.savingKrw)],
            "offer": PartiesJSON.offer(m.offer),
        ]
        return value.adding(m.soloEstimate.map { ("estimated", FareJSON.estimated($0, reason: estimateReason)) })
    }
}

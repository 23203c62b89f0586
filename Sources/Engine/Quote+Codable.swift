// Codable conformances: a library caller can hand these results on as JSON (or any
// Coder) and read them back. Keys are snake_case, like the HTTP API's.
import Fares
import Routing

extension QuoteEstimate: Codable {
    enum CodingKeys: String, CodingKey {
        case method = "method"
        case circuity = "circuity"
        case straightMeters = "straight_meters"
        case fareLowKrw = "fare_low_krw"
        case fareHighKrw = "fare_high_krw"
        case reason = "reason"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        method = try c.decode(String.self, forKey: .method)
        circuity = try c.decode(Double.self, forKey: .circuity)
        straightMeters = try c.decode(Double.self, forKey: .straightMeters)
        fareLowKrw = try c.decode(Int.self, forKey: .fareLowKrw)
        fareHighKrw = try c.decode(Int.self, forKey: .fareHighKrw)
        reason = try c.decodeIfPresent(RoutingError.self, forKey: .reason)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(method, forKey: .method)
        try c.encode(circuity, forKey: .circuity)
        try c.encode(straightMeters, forKey: .straightMeters)
        try c.encode(fareLowKrw, forKey: .fareLowKrw)
        try c.encode(fareHighKrw, forKey: .fareHighKrw)
        try c.encodeIfPresent(reason, forKey: .reason)
    }
}

extension Quote: Codable {
    enum CodingKeys: String, CodingKey {
        case route = "route"
        case region = "region"
        case schedule = "schedule"
        case trip = "trip"
        case fare = "fare"
        case split = "split"
        case riderDropOffs = "rider_drop_offs"
        case soloFaresKrw = "solo_fares_krw"
        case perPersonKrw = "per_person_krw"
        case departure = "departure"
        case estimate = "estimate"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        route = try c.decode(RouteResult.self, forKey: .route)
        region = try c.decode(String.self, forKey: .region)
        schedule = try c.decode(FareSchedule.self, forKey: .schedule)
        trip = try c.decode([TripSegment].self, forKey: .trip)
        fare = try c.decode(FareBreakdown.self, forKey: .fare)
        split = try c.decode([Int].self, forKey: .split)
        riderDropOffs = try c.decode([Int?].self, forKey: .riderDropOffs)
        soloFaresKrw = try c.decodeIfPresent([Int].self, forKey: .soloFaresKrw)
        perPersonKrw = try c.decode(Int.self, forKey: .perPersonKrw)
        departure = try c.decode(Double.self, forKey: .departure)
        estimate = try c.decodeIfPresent(QuoteEstimate.self, forKey: .estimate)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(route, forKey: .route)
        try c.encode(region, forKey: .region)
        try c.encode(schedule, forKey: .schedule)
        try c.encode(trip, forKey: .trip)
        try c.encode(fare, forKey: .fare)
        try c.encode(split, forKey: .split)
        try c.encode(riderDropOffs, forKey: .riderDropOffs)
        try c.encodeIfPresent(soloFaresKrw, forKey: .soloFaresKrw)
        try c.encode(perPersonKrw, forKey: .perPersonKrw)
        try c.encode(departure, forKey: .departure)
        try c.encodeIfPresent(estimate, forKey: .estimate)
    }
}

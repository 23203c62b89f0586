// Codable conformances: a library caller can hand these results on as JSON (or any
// Coder) and read them back. Keys are snake_case, like the HTTP API's.
import Fares
import Geo
import Parties
import Routing

extension PartyRide: Codable {
    enum CodingKeys: String, CodingKey {
        case origin = "origin"
        case stops = "stops"
        case riders = "riders"
        case departure = "departure"
    }
    private struct RiderStop: Codable {
        var id: String
        var seats: Int
        var stop: Int
        enum CodingKeys: String, CodingKey { case id = "id", seats = "seats", stop = "stop" }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        origin = try c.decode(Coordinate.self, forKey: .origin)
        stops = try c.decode([Coordinate].self, forKey: .stops)
        riders = try c.decode([RiderStop].self, forKey: .riders).map { (id: $0.id, seats: $0.seats, stop: $0.stop) }
        departure = try c.decode(Double.self, forKey: .departure)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(origin, forKey: .origin)
        try c.encode(stops, forKey: .stops)
        try c.encode(riders.map { RiderStop(id: $0.id, seats: $0.seats, stop: $0.stop) }, forKey: .riders)
        try c.encode(departure, forKey: .departure)
    }
}

extension PricedRide: Codable {
    enum CodingKeys: String, CodingKey {
        case ride = "ride"
        case route = "route"
        case region = "region"
        case schedule = "schedule"
        case fare = "fare"
        case split = "split"
        case shares = "shares"
        case soloFaresKrw = "solo_fares_krw"
    }
    private struct Share: Codable {
        var riderID: String
        var krw: Int
        enum CodingKeys: String, CodingKey { case riderID = "rider_id", krw = "krw" }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        ride = try c.decode(PartyRide.self, forKey: .ride)
        route = try c.decode(RouteResult.self, forKey: .route)
        region = try c.decode(String.self, forKey: .region)
        schedule = try c.decode(FareSchedule.self, forKey: .schedule)
        fare = try c.decode(FareBreakdown.self, forKey: .fare)
        split = try c.decode(SplitPolicy.self, forKey: .split)
        shares = try c.decode([Share].self, forKey: .shares).map { (riderID: $0.riderID, krw: $0.krw) }
        soloFaresKrw = try c.decodeIfPresent([Int].self, forKey: .soloFaresKrw)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(ride, forKey: .ride)
        try c.encode(route, forKey: .route)
        try c.encode(region, forKey: .region)
        try c.encode(schedule, forKey: .schedule)
        try c.encode(fare, forKey: .fare)
        try c.encode(split, forKey: .split)
        try c.encode(shares.map { Share(riderID: $0.riderID, krw: $0.krw) }, forKey: .shares)
        try c.encodeIfPresent(soloFaresKrw, forKey: .soloFaresKrw)
    }
}

extension PartyMatch: Codable {
    enum CodingKeys: String, CodingKey {
        case party = "party"
        case walkMeters = "walk_meters"
        case dropOffOrder = "drop_off_order"
        case addedSeconds = "added_seconds"
        case addedMeters = "added_meters"
        case detourPercent = "detour_percent"
        case soloKrw = "solo_krw"
        case pooledKrw = "pooled_krw"
        case ride = "ride"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        party = try c.decode(Party.self, forKey: .party)
        walkMeters = try c.decode(Double.self, forKey: .walkMeters)
        dropOffOrder = try c.decode([String].self, forKey: .dropOffOrder)
        addedSeconds = try c.decode(Double.self, forKey: .addedSeconds)
        addedMeters = try c.decode(Double.self, forKey: .addedMeters)
        detourPercent = try c.decode(Double.self, forKey: .detourPercent)
        soloKrw = try c.decode(Int.self, forKey: .soloKrw)
        pooledKrw = try c.decode(Int.self, forKey: .pooledKrw)
        ride = try c.decode(PartyRide.self, forKey: .ride)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(party, forKey: .party)
        try c.encode(walkMeters, forKey: .walkMeters)
        try c.encode(dropOffOrder, forKey: .dropOffOrder)
        try c.encode(addedSeconds, forKey: .addedSeconds)
        try c.encode(addedMeters, forKey: .addedMeters)
        try c.encode(detourPercent, forKey: .detourPercent)
        try c.encode(soloKrw, forKey: .soloKrw)
        try c.encode(pooledKrw, forKey: .pooledKrw)
        try c.encode(ride, forKey: .ride)
    }
}

extension PartyQuote: Codable {
    enum CodingKeys: String, CodingKey {
        case party = "party"
        case priced = "priced"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        party = try c.decode(Party.self, forKey: .party)
        priced = try c.decode(PricedRide.self, forKey: .priced)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(party, forKey: .party)
        try c.encode(priced, forKey: .priced)
    }
}

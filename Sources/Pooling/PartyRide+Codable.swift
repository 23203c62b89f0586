// Codable by hand: `riders` and `shares` are arrays of tuples, which cannot be Codable, so
// they go through small keyed structs. (Every other result type synthesizes its coding.)
import Fares
import Geo
import Parties
import Routing

extension PartyRide: Codable {
    enum CodingKeys: String, CodingKey {
        case origin, stops, riders, departure
    }
    private struct RiderStop: Codable {
        var id: String
        var seats: Int
        var stop: Int
        enum CodingKeys: String, CodingKey { case id, seats, stop }
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
        case ride, route, region, schedule, fare, split, shares, soloFaresKrw = "solo_fares_krw"
    }
    private struct Share: Codable {
        var riderID: String
        var krw: Int
        enum CodingKeys: String, CodingKey { case riderID = "rider_id", krw }
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

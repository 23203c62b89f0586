// Codable conformances: a library caller can hand these results on as JSON (or any
// Coder) and read them back. Keys are snake_case, like the HTTP API's.
import Geo

extension PartyRider: Codable {
    enum CodingKeys: String, CodingKey {
        case id = "id"
        case seats = "seats"
        case dropOff = "drop_off"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        seats = try c.decode(Int.self, forKey: .seats)
        dropOff = try c.decodeIfPresent(Coordinate.self, forKey: .dropOff)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(seats, forKey: .seats)
        try c.encodeIfPresent(dropOff, forKey: .dropOff)
    }
}

extension Party: Codable {
    enum CodingKeys: String, CodingKey {
        case id = "id"
        case origin = "origin"
        case destination = "destination"
        case departAt = "depart_at"
        case seatsTotal = "seats_total"
        case seatsTaken = "seats_taken"
        case title = "title"
        case riders = "riders"
        case version = "version"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        origin = try c.decode(Coordinate.self, forKey: .origin)
        destination = try c.decode(Coordinate.self, forKey: .destination)
        departAt = try c.decode(Double.self, forKey: .departAt)
        seatsTotal = try c.decode(Int.self, forKey: .seatsTotal)
        seatsTaken = try c.decode(Int.self, forKey: .seatsTaken)
        title = try c.decodeIfPresent(String.self, forKey: .title)
        riders = try c.decode([PartyRider].self, forKey: .riders)
        version = try c.decode(Int.self, forKey: .version)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(origin, forKey: .origin)
        try c.encode(destination, forKey: .destination)
        try c.encode(departAt, forKey: .departAt)
        try c.encode(seatsTotal, forKey: .seatsTotal)
        try c.encode(seatsTaken, forKey: .seatsTaken)
        try c.encodeIfPresent(title, forKey: .title)
        try c.encode(riders, forKey: .riders)
        try c.encode(version, forKey: .version)
    }
}

extension NearbyParty: Codable {
    enum CodingKeys: String, CodingKey {
        case party = "party"
        case distance = "distance"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        party = try c.decode(Party.self, forKey: .party)
        distance = try c.decode(Double.self, forKey: .distance)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(party, forKey: .party)
        try c.encode(distance, forKey: .distance)
    }
}

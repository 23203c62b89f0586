// Codable conformances: a library caller can hand these results on as JSON (or any
// Coder) and read them back. Keys are snake_case, like the HTTP API's.
import Geo

extension TablePoint: Codable {
    enum CodingKeys: String, CodingKey {
        case location = "location"
        case distanceMeters = "distance_meters"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        location = try c.decode(Coordinate.self, forKey: .location)
        distanceMeters = try c.decode(Double.self, forKey: .distanceMeters)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(location, forKey: .location)
        try c.encode(distanceMeters, forKey: .distanceMeters)
    }
}

extension RouteTable: Codable {
    enum CodingKeys: String, CodingKey {
        case sourceCount = "source_count"
        case destinationCount = "destination_count"
        case hour = "hour"
        case sources = "sources"
        case destinations = "destinations"
        case durationsMs = "durations_ms"
        case distancesCm = "distances_cm"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        sourceCount = try c.decode(Int.self, forKey: .sourceCount)
        destinationCount = try c.decode(Int.self, forKey: .destinationCount)
        hour = try c.decode(Int.self, forKey: .hour)
        sources = try c.decode([TablePoint].self, forKey: .sources)
        destinations = try c.decode([TablePoint].self, forKey: .destinations)
        durationsMs = try c.decode([UInt32].self, forKey: .durationsMs)
        distancesCm = try c.decode([UInt32].self, forKey: .distancesCm)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(sourceCount, forKey: .sourceCount)
        try c.encode(destinationCount, forKey: .destinationCount)
        try c.encode(hour, forKey: .hour)
        try c.encode(sources, forKey: .sources)
        try c.encode(destinations, forKey: .destinations)
        try c.encode(durationsMs, forKey: .durationsMs)
        try c.encode(distancesCm, forKey: .distancesCm)
    }
}

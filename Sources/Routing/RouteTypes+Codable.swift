// Codable conformances: a library caller can hand these results on as JSON (or any
// Coder) and read them back. Keys are snake_case, like the HTTP API's.
import Geo

extension RouteMetric: Codable {}

extension RouteLeg: Codable {
    enum CodingKeys: String, CodingKey {
        case distanceMeters = "distance_meters"
        case durationSeconds = "duration_seconds"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        distanceMeters = try c.decode(Double.self, forKey: .distanceMeters)
        durationSeconds = try c.decode(Double.self, forKey: .durationSeconds)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(distanceMeters, forKey: .distanceMeters)
        try c.encode(durationSeconds, forKey: .durationSeconds)
    }
}

extension RouteSegment: Codable {
    enum CodingKeys: String, CodingKey {
        case distanceMeters = "distance_meters"
        case durationSeconds = "duration_seconds"
        case roadClass = "road_class"
        case start = "start"
        case end = "end"
        case legIndex = "leg_index"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        distanceMeters = try c.decode(Double.self, forKey: .distanceMeters)
        durationSeconds = try c.decode(Double.self, forKey: .durationSeconds)
        roadClass = try c.decode(RoadClass.self, forKey: .roadClass)
        start = try c.decode(Coordinate.self, forKey: .start)
        end = try c.decode(Coordinate.self, forKey: .end)
        legIndex = try c.decode(Int.self, forKey: .legIndex)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(distanceMeters, forKey: .distanceMeters)
        try c.encode(durationSeconds, forKey: .durationSeconds)
        try c.encode(roadClass, forKey: .roadClass)
        try c.encode(start, forKey: .start)
        try c.encode(end, forKey: .end)
        try c.encode(legIndex, forKey: .legIndex)
    }
}

extension RouteResult: Codable {
    enum CodingKeys: String, CodingKey {
        case distanceMeters = "distance_meters"
        case durationSeconds = "duration_seconds"
        case geometry = "geometry"
        case legs = "legs"
        case snapped = "snapped"
        case snapDistancesMeters = "snap_distances_meters"
        case streetNames = "street_names"
        case segments = "segments"
        case weight = "weight"
        case metric = "metric"
        case hour = "hour"
        case settledNodes = "settled_nodes"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        distanceMeters = try c.decode(Double.self, forKey: .distanceMeters)
        durationSeconds = try c.decode(Double.self, forKey: .durationSeconds)
        geometry = try c.decode([Coordinate].self, forKey: .geometry)
        legs = try c.decode([RouteLeg].self, forKey: .legs)
        snapped = try c.decode([Coordinate].self, forKey: .snapped)
        snapDistancesMeters = try c.decode([Double].self, forKey: .snapDistancesMeters)
        streetNames = try c.decode([String].self, forKey: .streetNames)
        segments = try c.decode([RouteSegment].self, forKey: .segments)
        weight = try c.decode(UInt64.self, forKey: .weight)
        metric = try c.decode(RouteMetric.self, forKey: .metric)
        hour = try c.decode(Int.self, forKey: .hour)
        settledNodes = try c.decode(Int.self, forKey: .settledNodes)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(distanceMeters, forKey: .distanceMeters)
        try c.encode(durationSeconds, forKey: .durationSeconds)
        try c.encode(geometry, forKey: .geometry)
        try c.encode(legs, forKey: .legs)
        try c.encode(snapped, forKey: .snapped)
        try c.encode(snapDistancesMeters, forKey: .snapDistancesMeters)
        try c.encode(streetNames, forKey: .streetNames)
        try c.encode(segments, forKey: .segments)
        try c.encode(weight, forKey: .weight)
        try c.encode(metric, forKey: .metric)
        try c.encode(hour, forKey: .hour)
        try c.encode(settledNodes, forKey: .settledNodes)
    }
}

import Geo

/// What a route minimises.
public enum RouteMetric: String, Sendable, CaseIterable {
    /// Travel time at the departure hour's traffic speeds (the default).
    case time
    /// Length in metres.
    case distance
}

/// The search algorithm; all are exact. `astar` (the default) is the fastest exact search for
/// the query: for `metric=time`, the bidirectional query in the hierarchy customized for the
/// hour when the file's hierarchy covers the hour's metric (see `hierarchy`; the first query
/// at an hour starts the customization in the background and uses A*); else A* with the
/// contraction-hierarchy potential when the file has a hierarchy and the points are at least
/// `RouteEngine.hierarchyMinMeters` apart, landmarks otherwise. `chPotential` forces the hierarchy's potential whenever it applies (metric=time
/// and a file with a hierarchy), `alt` forces landmarks; `dijkstra` is the plain reference
/// the tests and benchmarks compare against.
public enum SearchAlgorithm: String, Sendable {
    case astar
    /// The bidirectional query in the contraction hierarchy customized for the hour (what
    /// `astar` uses whenever the file's hierarchy covers the query's metric and its
    /// customization is ready; this one waits for it); A* with the CH potential otherwise.
    case hierarchy
    case chPotential
    case alt
    case dijkstra
}

/// A route query.
public struct RouteRequest: Sendable {
    public var from: Coordinate
    public var to: Coordinate
    /// Points to pass through in order (at most `RouteEngine.maxViaPoints`). Each leg is routed
    /// on its own, so the route may turn back at a via point (a pick-up on the other side).
    public var via: [Coordinate]
    /// Departure instant (Unix seconds); its Seoul hour of day picks the traffic speeds.
    public var departAt: Double
    public var metric: RouteMetric
    /// How far a point may be from the nearest road, in metres (default 200).
    public var maxSnapMeters: Double
    public var algorithm: SearchAlgorithm

    public init(from: Coordinate, to: Coordinate, via: [Coordinate] = [], departAt: Double, metric: RouteMetric = .time,
                maxSnapMeters: Double = 200, algorithm: SearchAlgorithm = .astar)
    {
        self.from = from
        self.to = to
        self.via = via
        self.departAt = departAt
        self.metric = metric
        self.maxSnapMeters = maxSnapMeters
        self.algorithm = algorithm
    }
}

/// One traversed edge (or the part of one at either end of a leg), in travel order: what
/// the fare meter walks.
public struct RouteSegment: Sendable, Equatable {
    public let distanceMeters: Double
    public let durationSeconds: Double
    public let roadClass: RoadClass
    public let start: Coordinate
    public let end: Coordinate
    /// The leg (0-based) this segment belongs to.
    public let legIndex: Int
}

/// The part of a route between two consecutive points (from, vias, to).
public struct RouteLeg: Sendable, Equatable {
    public let distanceMeters: Double
    public let durationSeconds: Double
}

/// A computed route.
///
/// Durations use the traffic speed of the departure hour for the whole route (the clock is
/// not advanced along it), so that the ETA and the fare agree on one speed table.
public struct RouteResult: Sendable {
    public let distanceMeters: Double
    public let durationSeconds: Double
    /// The path from the snapped start to the snapped end.
    public let geometry: [Coordinate]
    public let legs: [RouteLeg]
    /// The request's points (from, vias, to) projected onto their roads.
    public let snapped: [Coordinate]
    /// Distance in metres from each request point to its snapped point.
    public let snapDistancesMeters: [Double]
    /// Street names along the route, in order, consecutive repeats removed.
    public let streetNames: [String]
    public let segments: [RouteSegment]
    /// The minimised total in integer units: milliseconds (time) or centimetres (distance).
    public let weight: UInt64
    public let metric: RouteMetric
    /// The Seoul hour of day whose speeds were used.
    public let hour: Int
    /// Nodes taken from the search queue, over all legs (a measure of search effort).
    public let settledNodes: Int
    /// Share (0…1) of the route's length driven on measured speeds (TOPIS, at the departure
    /// hour); 0 on graphs without them (OSM) and for estimates.
    public var measuredShare: Double = 0
    /// The name of the road each snapped point stands on (the edge the route leaves or reaches
    /// it by; "" when unnamed), in the order of `snapped`.
    public var snappedNames: [String] = []
}

/// A point of a route or table request, named by its role (the API and the CLI give it their
/// own names: `from`/`origin`, `via[i]`/`drop_offs[i]`, …).
public enum RoutePoint: Sendable, Hashable, CustomStringConvertible {
    /// The first point (`RouteRequest.from`; a quote's origin).
    case origin
    /// Via point i (`RouteRequest.via[i]`; a quote's drop-off i).
    case via(Int)
    /// The last point (`RouteRequest.to`; a quote's destination).
    case destination
    /// Source i of a table (`TableRequest.sources[i]`).
    case source(Int)
    /// Destination j of a table (`TableRequest.destinations[j]`).
    case tableDestination(Int)

    /// The request property the point comes from: `from`, `via[i]`, `to`, `sources[i]`, `destinations[j]`.
    public var description: String {
        switch self {
        case .origin: "from"
        case .via(let i): "via[\(i)]"
        case .destination: "to"
        case .source(let i): "sources[\(i)]"
        case .tableDestination(let j): "destinations[\(j)]"
        }
    }
}

/// An option of a route or table request.
public enum RouteOption: Sendable, Hashable, CustomStringConvertible {
    /// `maxSnapMeters`.
    case maxSnapMeters
    /// `departAt`.
    case departure
    /// A table's `sources` list.
    case sources
    /// A table's `destinations` list.
    case destinations

    public var description: String {
        switch self {
        case .maxSnapMeters: "maxSnapMeters"
        case .departure: "departAt"
        case .sources: "sources"
        case .destinations: "destinations"
        }
    }
}

/// Why a route could not be computed: what went wrong and with which input, as values. The API
/// layer decides the HTTP answer and names the points (`ErrorMapping` in the API module).
public enum RoutingError: Error, Sendable, CustomStringConvertible, Equatable {
    /// A point is not a valid coordinate.
    case invalidCoordinate(point: RoutePoint)
    /// The two points are not connected by any road allowed to cars.
    case noRoute(from: RoutePoint, to: RoutePoint)
    /// More via points than allowed.
    case tooManyViaPoints(count: Int, limit: Int)
    /// A request option is out of range; `reason` says what it must be.
    case invalidOption(RouteOption, reason: String)
    /// The point is outside the served road network: no road within `snapLimitMeters`
    /// (`otherAreaOf` nil), or its roads lie in another connected area than those of the point
    /// `otherAreaOf`, with no road between them. `nearestAreaMeters`: how far the nearest
    /// served road (or the other point's area) is, when known.
    case outsideCoverage(point: RoutePoint, coordinate: Coordinate, snapLimitMeters: Double, nearestAreaMeters: Double?,
                         otherAreaOf: RoutePoint?)

    /// A human sentence, with each point and option named by `name` and `option`.
    public func message(naming name: (RoutePoint) -> String,
                        option: (RouteOption) -> String = \.description) -> String
    {
        switch self {
        case .invalidCoordinate(let p): "'\(name(p))' is not a valid coordinate (longitude −180…180, latitude −90…90)"
        case .noRoute(let a, let b): "no road route from '\(name(a))' to '\(name(b))'"
        case .tooManyViaPoints(let n, let limit): "\(n) via points given; at most \(limit) are allowed"
        case .invalidOption(let o, let reason): "'\(option(o))' \(reason)"
        case let .outsideCoverage(p, c, limit, nearest, other):
            Self.outsideMessage(name(p), c, limit, nearest, other.map(name))
        }
    }

    /// The sentence with the request properties' names (`from`, `via[0]`, `sources[2]`, …).
    public var message: String { message(naming: \.description) }

    public var description: String { message }

    static func outsideMessage(_ p: String, _ c: Coordinate, _ limit: Double, _ nearest: Double?, _ other: String?) -> String {
        let away = nearest.map { m in m < 1000 ? "\(Int(m.rounded())) m" : String(format: "%.1f km", m / 1000) }
        if let other {
            return "'\(p)' (\(c.lon),\(c.lat)) lies in a served area that no road joins to the area of '\(other)'"
                + (away.map { "; that area is about \($0) away" } ?? "")
        }
        return "'\(p)' (\(c.lon),\(c.lat)) is outside the served road network: no road within \(Int(limit.rounded())) m"
            + (away.map { "; the nearest served road is about \($0) away" } ?? "")
    }
}

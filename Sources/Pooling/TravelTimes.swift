import Foundation
import Geo
import Routing

/// The duration and distance of the time-fastest route between two points.
public struct TravelCell: Sendable, Hashable {
    /// Seconds.
    public var duration: Double
    /// Metres.
    public var distance: Double

    public init(duration: Double, distance: Double) {
        self.duration = duration
        self.distance = distance
    }
}

/// Many-to-many travel times: the one seam through which party quotes and matching ask the
/// road network, so the way they are computed can change without touching either.
public protocol TravelTimes: Sendable {
    /// For every source × destination (row-major: `result[i][j]` is source i to destination j),
    /// the route a single route request at `departAt` would return, or nil when there is none
    /// (no road route, or the point is too far from a road).
    func table(sources: [Coordinate], destinations: [Coordinate], departAt: Double) -> [[TravelCell?]]
}

/// `TravelTimes` answered by one `RouteEngine.route` call per cell (exactly the single route).
///
/// Until `RouteEngine` has a many-to-many search, this is the implementation; a cell costs one
/// route (about 20 µs on central Seoul), so callers keep their tables small.
public struct SingleRouteTravelTimes: TravelTimes {
    public let routes: RouteEngine

    public init(routes: RouteEngine) { self.routes = routes }

    public func table(sources: [Coordinate], destinations: [Coordinate], departAt: Double) -> [[TravelCell?]] {
        sources.map { s in
            destinations.map { d in
                guard let r = try? routes.route(RouteRequest(from: s, to: d, departAt: departAt)) else { return nil }
                return TravelCell(duration: r.durationSeconds, distance: r.distanceMeters)
            }
        }
    }
}

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

/// `TravelTimes` answered by `RouteEngine.table`: a many-to-many search in the contraction
/// hierarchy, each cell exactly the single route's duration and distance. A point too far
/// from a road gets nil cells (the table is asked again without it), not an error.
public struct TableTravelTimes: TravelTimes {
    public let routes: RouteEngine

    public init(routes: RouteEngine) { self.routes = routes }

    public func table(sources: [Coordinate], destinations: [Coordinate], departAt: Double) -> [[TravelCell?]] {
        var out = [[TravelCell?]](repeating: [TravelCell?](repeating: nil, count: destinations.count), count: sources.count)
        var rows = Array(sources.indices), cols = Array(destinations.indices)
        while !rows.isEmpty && !cols.isEmpty {
            do {
                let t = try routes.table(TableRequest(sources: rows.map { sources[$0] }, destinations: cols.map { destinations[$0] }, departAt: departAt))
                for (i, row) in rows.enumerated() {
                    for (j, col) in cols.enumerated() {
                        guard let d = t.durationSeconds(source: i, destination: j), let m = t.distanceMeters(source: i, destination: j) else { continue }
                        out[row][col] = TravelCell(duration: d, distance: m)
                    }
                }
                return out
            } catch {
                // Drop the point the table named (off the roads, or invalid) and ask again.
                let point: RoutePoint
                switch error {
                case .outsideCoverage(let p, _, _, _, _), .invalidCoordinate(let p): point = p
                default: return out
                }
                switch point {
                case .source(let k) where k < rows.count: rows.remove(at: k)
                case .tableDestination(let k) where k < cols.count: cols.remove(at: k)
                default: return out
                }
            }
        }
        return out
    }
}

/// `TravelTimes` answered by one `RouteEngine.route` call per cell (exactly the single route):
/// the reference `TableTravelTimes` is checked against, and a fallback.
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

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

/// Many-to-many travel times: the one seam through which party quotes and offers ask the
/// road network, so the way they are computed can change without touching either.
public protocol TravelTimes: Sendable {
    /// For every source × destination (row-major: `result[i][j]` is source i to destination j),
    /// the route a single route request at `departAt` would return, or nil when there is none
    /// (no road route, or the point is too far from a road).
    func table(sources: [Coordinate], destinations: [Coordinate], departAt: Double) -> [[TravelCell?]]

    /// A ride's points (its origin, then its stops in riding order) made ready for many
    /// `insertionLegs` questions at departures in the Seoul hour of `departAt`; kept with the
    /// ride's plan.
    func prepareRide(_ points: [Coordinate], departAt: Double) -> PreparedRide

    /// For each of `rides` (prepared for the Seoul hour of `departAt`) and a new point: the
    /// cells from each ride point but the last to the new point (`toNew[i]`: from `points[i]`),
    /// and from the new point to each ride point but the first (`fromNew[i]`: to `points[i + 1]`).
    func insertionLegs(_ rides: [PreparedRide], point: Coordinate, departAt: Double) -> [InsertionLegs]
}

/// A ride's points made ready by a `TravelTimes` for `insertionLegs`.
public struct PreparedRide: Sendable {
    /// The origin, then the stops in riding order.
    public let points: [Coordinate]
    /// Each point snapped to the roads (nil: off the roads), when the seam snaps.
    let snapped: [SnappedPoint?]?
    /// The kept searches: forward from `points[0..<n-1]`, backward to `points[1..<n]` (nil: none kept).
    let forward: [HierarchySearchSpace?]?
    let backward: [HierarchySearchSpace?]?

    /// Points only: legs are read from tables.
    public init(points: [Coordinate]) {
        self.points = points
        snapped = nil
        forward = nil
        backward = nil
    }

    init(points: [Coordinate], snapped: [SnappedPoint?], forward: [HierarchySearchSpace?]?, backward: [HierarchySearchSpace?]?) {
        self.points = points
        self.snapped = snapped
        self.forward = forward
        self.backward = backward
    }

    /// Memory held, about.
    public var bytes: Int {
        let spaces = (forward ?? []).reduce(0) { $0 + ($1?.bytes ?? 0) } + (backward ?? []).reduce(0) { $0 + ($1?.bytes ?? 0) }
        return 64 + points.count * 16 + spaces
    }
}

/// The legs between a new point and one prepared ride's points (see `TravelTimes.insertionLegs`).
public struct InsertionLegs: Sendable, Equatable {
    public var toNew: [TravelCell?]
    public var fromNew: [TravelCell?]
}

extension TravelTimes {
    public func prepareRide(_ points: [Coordinate], departAt: Double) -> PreparedRide { PreparedRide(points: points) }

    /// Two tables: every ride point but a last to the new point, and from it to every point but a first.
    public func insertionLegs(_ rides: [PreparedRide], point: Coordinate, departAt: Double) -> [InsertionLegs] {
        tableInsertionLegs(self, rides, point: point, departAt: departAt)
    }
}

/// `insertionLegs` from two tables of `times`: every distinct ride point but a last to `point`,
/// and from `point` to every distinct ride point but a first.
func tableInsertionLegs(_ times: some TravelTimes, _ rides: [PreparedRide], point: Coordinate, departAt: Double) -> [InsertionLegs] {
    var befores = PointSet(), afters = PointSet()
    for r in rides {
        for p in r.points.dropLast() { befores.insert(p) }
        for p in r.points.dropFirst() { afters.insert(p) }
    }
    guard !befores.points.isEmpty else { return rides.map { _ in InsertionLegs(toNew: [], fromNew: []) } }
    let toR = times.table(sources: befores.points, destinations: [point], departAt: departAt)
    let fromR = times.table(sources: [point], destinations: afters.points, departAt: departAt)
    return rides.map { r in
        InsertionLegs(toNew: r.points.dropLast().map { toR[befores.index($0)][0] },
                      fromNew: r.points.dropFirst().map { fromR[0][afters.index($0)] })
    }
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

extension TableTravelTimes {
    /// Snaps the points and keeps their upward searches in the hierarchy of the hour (forward
    /// from every point but the last, backward to every point but the first).
    public func prepareRide(_ points: [Coordinate], departAt: Double) -> PreparedRide {
        let hour = SeoulTime.hour(departAt)
        let snapped = points.map { routes.snap($0) }
        var forward: [HierarchySearchSpace?] = [], backward: [HierarchySearchSpace?] = []
        for (i, s) in snapped.enumerated() {
            guard let s else {
                if i < points.count - 1 { forward.append(nil) }
                if i > 0 { backward.append(nil) }
                continue
            }
            if i < points.count - 1 {
                guard let space = routes.searchSpace(s, hour: hour, direction: .forward) else {
                    return PreparedRide(points: points, snapped: snapped, forward: nil, backward: nil)  // no hierarchy: tables
                }
                forward.append(space)
            }
            if i > 0 { backward.append(routes.searchSpace(s, hour: hour, direction: .backward)) }
        }
        return PreparedRide(points: points, snapped: snapped, forward: forward, backward: backward)
    }

    /// Both upward searches from the new point, once, scanned against every ride's kept
    /// searches: cells equal to the table's (rides without kept searches are asked by table).
    public func insertionLegs(_ rides: [PreparedRide], point: Coordinate, departAt: Double) -> [InsertionLegs] {
        let hour = SeoulTime.hour(departAt)
        guard rides.allSatisfy({ $0.forward != nil && $0.backward != nil }) else {
            return tableInsertionLegs(self, rides, point: point, departAt: departAt)
        }
        guard let p = routes.snap(point) else {
            return rides.map { r in
                InsertionLegs(toNew: Array(repeating: nil, count: max(0, r.points.count - 1)), fromNew: Array(repeating: nil, count: max(0, r.points.count - 1)))
            }
        }
        func cell(_ c: (ms: UInt32, cm: UInt32)?) -> TravelCell? {
            c.map { TravelCell(duration: Double($0.ms) / 1000, distance: Double($0.cm) / 100) }
        }
        let answer: [InsertionLegs]? = routes.withPointSearch(p, hour: hour) { search in
            guard let search else { return nil }
            return rides.map { r in
                InsertionLegs(toNew: r.forward!.map { s in s.flatMap { cell(search.cell(from: $0)) } },
                              fromNew: r.backward!.map { s in s.flatMap { cell(search.cell(to: $0)) } })
            }
        }
        return answer ?? tableInsertionLegs(self, rides, point: point, departAt: departAt)
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

import Foundation
import Geo

/// A many-to-many request: the fastest route from every source to every destination.
public struct TableRequest: Sendable {
    public var sources: [Coordinate]
    /// The destinations; nil: the sources themselves (a square table).
    public var destinations: [Coordinate]?
    /// Departure instant (Unix seconds); its Seoul hour of day picks the traffic speeds, as for a route.
    public var departAt: Double
    /// How far a point may be from the nearest road, in metres (default 200, as for a route).
    public var maxSnapMeters: Double

    public init(sources: [Coordinate], destinations: [Coordinate]? = nil, departAt: Double, maxSnapMeters: Double = 200) {
        self.sources = sources
        self.destinations = destinations
        self.departAt = departAt
        self.maxSnapMeters = maxSnapMeters
    }
}

/// A point of a table, snapped to its nearest road (as a route's first snapped point).
public struct TablePoint: Sendable, Equatable {
    /// The point on the road.
    public let location: Coordinate
    /// Metres from the requested point to `location`.
    public let distanceMeters: Double
}

/// Durations and distances from every source to every destination: for each cell, exactly
/// the duration and distance of the route `RouteEngine.route` returns for that pair with the
/// same departure and snapping (time metric), or nothing when no road route exists.
///
/// Cells are stored row by row (`source * destinationCount + destination`) in whole
/// milliseconds and centimetres, the units a route's totals are summed in.
public struct RouteTable: Sendable {
    /// The value of an unreachable cell in `durationsMs` and `distancesCm`.
    public static let unreachable = UInt32.max

    public let sourceCount: Int
    public let destinationCount: Int
    /// The Seoul hour of day whose speeds were used.
    public let hour: Int
    public let sources: [TablePoint]
    public let destinations: [TablePoint]
    /// Per cell, the route's duration in ms (`unreachable` when there is no route).
    public let durationsMs: [UInt32]
    /// Per cell, the route's length in cm (`unreachable` when there is no route).
    public let distancesCm: [UInt32]

    /// The route's duration in seconds from source `i` to destination `j`; nil when there is no route.
    public func durationSeconds(source i: Int, destination j: Int) -> Double? {
        let ms = durationsMs[i * destinationCount + j]
        return ms == Self.unreachable ? nil : Double(ms) / 1000
    }

    /// The route's length in metres from source `i` to destination `j`; nil when there is no route.
    public func distanceMeters(source i: Int, destination j: Int) -> Double? {
        let cm = distancesCm[i * destinationCount + j]
        return durationsMs[i * destinationCount + j] == Self.unreachable ? nil : Double(cm) / 100
    }

    /// Whether a road route leads from source `i` to destination `j`.
    public func isReachable(source i: Int, destination j: Int) -> Bool {
        durationsMs[i * destinationCount + j] != Self.unreachable
    }
}

extension RouteEngine {
    /// The table of routes from every source to every destination of `request` (see `RouteTable`):
    /// a many-to-many search in the contraction hierarchy customized for the departure hour
    /// (backward searches from every destination leave their labels in buckets at the nodes they
    /// settle; forward searches from every source scan them), on all cores. When the graph's
    /// hierarchy does not cover the hour's metric, one exact A* search per cell instead.
    ///
    /// Errors name the point at fault (`RoutePoint.source(i)` or `.tableDestination(j)`): a point too far from
    /// a road (`outsideCoverage`, with how far the nearest served road is), an invalid coordinate; an empty list or an out-of-range option
    /// is `invalidOption`.
    public func table(_ request: TableRequest) throws(RoutingError) -> RouteTable {
        try Self.checkSnapLimit(request.maxSnapMeters)
        guard request.departAt.isFinite else { throw .invalidOption(.departure, reason: "must be a finite instant") }
        guard !request.sources.isEmpty else { throw .invalidOption(.sources, reason: "must list at least one point") }
        let destinationPoints = request.destinations ?? request.sources
        guard !destinationPoints.isEmpty else { throw .invalidOption(.destinations, reason: "must list at least one point") }
        func snapAll(_ points: [Coordinate], _ name: (Int) -> RoutePoint) throws(RoutingError) -> [[Endpoint]] {
            var out: [[Endpoint]] = []
            out.reserveCapacity(points.count)
            for (i, p) in points.enumerated() {
                guard p.isValid else { throw .invalidCoordinate(point: name(i)) }
                let e = endpoints(at: p, maxMeters: request.maxSnapMeters)
                guard !e.isEmpty else {
                    throw .outsideCoverage(point: name(i), coordinate: p, snapLimitMeters: request.maxSnapMeters,
                                           nearestAreaMeters: distanceToServedRoad(p), otherAreaOf: nil)
                }
                out.append(e)
            }
            return out
        }
        let from = try snapAll(request.sources, RoutePoint.source)
        let to = request.destinations == nil ? from : try snapAll(destinationPoints, RoutePoint.tableDestination)
        let hour = SeoulTime.hour(request.departAt)
        let cells = from.count * to.count
        var durations = [UInt32](repeating: RouteTable.unreachable, count: cells)
        var lengths = [UInt32](repeating: RouteTable.unreachable, count: cells)
        durations.withUnsafeMutableBufferPointer { d in
            lengths.withUnsafeMutableBufferPointer { l in
                let out = TableCells(durations: d.baseAddress!, lengths: l.baseAddress!, columns: to.count)
                if let metric = graph.hasContractionHierarchy ? hierarchyMetric(hour: hour, wait: true) : nil {
                    hierarchyTable(from, to, metric: metric, hour: hour, into: out)
                } else {
                    searchTable(from, to, hour: hour, into: out)
                }
            }
        }
        func points(_ e: [[Endpoint]]) -> [TablePoint] { e.map { TablePoint(location: $0[0].hit.point, distanceMeters: $0[0].hit.distance) } }
        return RouteTable(sourceCount: from.count, destinationCount: to.count, hour: hour, sources: points(from),
                          destinations: request.destinations == nil ? points(from) : points(to),
                          durationsMs: durations, distancesCm: lengths)
    }

    /// The fallback without a hierarchy for the hour: one A* leg per cell, rows spread over the cores.
    private func searchTable(_ from: [[Endpoint]], _ to: [[Endpoint]], hour: Int, into out: TableCells) {
        let workers = TableCells.workers(rows: from.count, cells: from.count * to.count, cellsPerWorker: 64)
        let next = RowCounter()
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            pool.withScratch { scratch in
                timeFactors[hour].withUnsafeBufferPointer { q in
                    let time = TimeWeights(graph, q: q)
                    while let i = next.take(below: from.count) {
                        for j in 0..<to.count {
                            guard let outcome = leg(from[i], to[j], weights: time, landmarks: graph.landmarkTime, hierarchy: nil,
                                                    useHierarchy: graph.hasContractionHierarchy, scale: heuristicScale[hour],
                                                    algorithm: .astar, scratch: scratch) else { continue }
                            let route = assemble(legs: [LegPath(outcome: outcome, sources: from[i], targets: to[j])],
                                                 requestPoints: [from[i][0].hit.point, to[j][0].hit.point], time: time, metric: .time,
                                                 hour: hour, settled: 0)
                            out.set(i, j, ms: UInt32(min(outcome.cost, UInt64(UInt32.max - 1))),
                                    cm: UInt32(min((route.distanceMeters * 100).rounded(), Double(UInt32.max - 1))))
                        }
                    }
                }
            }
        }
    }
}

/// The output cells of a table being filled (rows are written by one thread each).
struct TableCells: @unchecked Sendable {
    let durations: UnsafeMutablePointer<UInt32>
    let lengths: UnsafeMutablePointer<UInt32>
    let columns: Int

    @inline(__always) func set(_ i: Int, _ j: Int, ms: UInt32, cm: UInt32) {
        durations[i * columns + j] = ms
        lengths[i * columns + j] = cm
    }

    /// How many threads to use: one per core, but none with fewer than `cellsPerWorker` cells.
    static func workers(rows: Int, cells: Int, cellsPerWorker: Int) -> Int {
        max(1, min(cores, rows, cells / max(1, cellsPerWorker)))
    }

    /// The cores, read once: `activeProcessorCount` reads the cgroup's files on every call
    /// (about 30 µs, a seventh of a 30-minute trace's matching, which asks for hundreds of small tables).
    static let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
}

/// Hands out row numbers to worker threads (the table's searches, the table's fares).
public final class RowCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0

    public init() {}

    /// The next row number below `limit`, or nil when every row has been handed out.
    public func take(below limit: Int) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard next < limit else { return nil }
        next += 1
        return next - 1
    }
}

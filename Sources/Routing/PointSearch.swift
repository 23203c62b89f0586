import Foundation
import Geo

/// A point snapped to the roads once, for many routes and table cells from or to it (the
/// same snapping as a route's or a table's point with the same snap limit).
public struct SnappedPoint: @unchecked Sendable {
    /// The point asked for.
    public let coordinate: Coordinate
    /// Each way of standing on the road there (never empty).
    let endpoints: [RouteEngine.Endpoint]
    /// The connected areas of the roads it stands on (`RoadGraph.area(ofNode:)`), ascending.
    public let areas: [Int]
}

/// The upward search of the many-to-many table from one point in the hierarchy customized for
/// one hour, kept: every node it settles without being stalled, with its label. A table cell
/// from a kept forward space (the point as a source) or to a kept backward space (the point as
/// a destination) is then a scan of the space against one `PointSearch`, equal to the cell the
/// table (and so a single route request) gives; stalled nodes are left out because no
/// cheapest route meets at one (its label is dearer than the node's distance).
///
/// A class (immutable): a plan's spaces are handed around for every candidate of every match,
/// and a copy of the value retained its four arrays each time (10% of a match's CPU with the
/// retains and releases).
public final class HierarchySearchSpace: @unchecked Sendable {
    public enum Direction: Sendable {
        /// From the point as a source (upward arcs).
        case forward
        /// Towards the point as a destination (downward arcs, backwards).
        case backward
    }

    public let direction: Direction
    /// The Seoul hour of day whose metric was searched.
    public let hour: Int
    public let point: SnappedPoint
    /// By rank, ascending: (rank, cost ms, length cm).
    let entries: [BucketEntry]
    /// Per entry, the arc its label came by (`TableScratch.startMark | i`: the i-th endpoint of
    /// `point`), to read routes back (`RouteEngine.route(from:to:)`).
    let parents: [UInt32]

    init(direction: Direction, hour: Int, point: SnappedPoint, entries: [BucketEntry], parents: [UInt32]) {
        self.direction = direction
        self.hour = hour
        self.point = point
        self.entries = entries
        self.parents = parents
    }

    /// Nodes kept.
    public var count: Int { entries.count }
    /// Memory held, about.
    public var bytes: Int {
        entries.count * (MemoryLayout<BucketEntry>.stride + 4) + point.endpoints.count * MemoryLayout<RouteEngine.Endpoint>.stride + 96
    }
}

/// Both upward searches from one point in one hour's hierarchy, labels by rank: cells between
/// the point and kept search spaces. Valid only inside `RouteEngine.withPointSearch`.
public struct PointSearch {
    let search: HierarchyTableSearch
    let point: SnappedPoint
    let forward: TableScratch
    let backward: TableScratch
    public let hour: Int

    /// The cell from `source` (a forward space of this hour) to this search's point: the
    /// route's duration in ms and length in cm, nil when no road route exists.
    public func cell(from source: HierarchySearchSpace) -> (ms: UInt32, cm: UInt32)? {
        precondition(source.direction == .forward && source.hour == hour, "a forward space of hour \(hour)")
        return meet(from: source.point, to: point, space: source.entries, other: backward.labels)
    }

    /// The cell from this search's point to `destination` (a backward space of this hour).
    public func cell(to destination: HierarchySearchSpace) -> (ms: UInt32, cm: UInt32)? {
        precondition(destination.direction == .backward && destination.hour == hour, "a backward space of hour \(hour)")
        return meet(from: point, to: destination.point, space: destination.entries, other: forward.labels)
    }

    /// As `HierarchyTableSearch.searchForward` fills one cell: the route along one edge when
    /// there is one (the first of the cheapest), then the least (cost, length) meeting.
    private func meet(from a: SnappedPoint, to b: SnappedPoint, space: [BucketEntry], other: UnsafeMutablePointer<TableLabel>) -> (ms: UInt32, cm: UInt32)? {
        let g = search.graph
        var dist = RouteTable.unreachable, length = RouteTable.unreachable
        for s in a.endpoints {
            let piece = g.edgePiece[s.edge]
            let ws = search.time(s.edge), len = search.length[s.edge]
            for t in b.endpoints where g.edgePiece[t.edge] == piece && s.fraction <= t.fraction {
                let cost = RouteEngine.partial(ws, t.fraction) - RouteEngine.partial(ws, s.fraction)
                if cost < dist {
                    dist = cost
                    length = RouteEngine.partial(len, t.fraction) - RouteEngine.partial(len, s.fraction)
                }
            }
        }
        space.withUnsafeBufferPointer { entries in
            for e in entries {
                let o = other[Int(e.column)]
                if o.dist == .max { continue }
                let c = e.dist &+ o.dist  // both below 2^31
                if c > dist { continue }
                let l = CHMetric.lengthSum(e.length, o.length)
                if c < dist || l < length {
                    dist = c
                    length = l
                }
            }
        }
        return dist == RouteTable.unreachable ? nil : (dist, length)
    }
}

extension RouteEngine {
    /// `p` snapped as a route or table point is (every way of standing on a road within
    /// `maxSnapMeters`); nil when `p` is invalid or no road is that near.
    public func snap(_ p: Coordinate, maxSnapMeters: Double = 200) -> SnappedPoint? {
        guard p.isValid, (try? Self.checkSnapLimit(maxSnapMeters)) != nil else { return nil }
        let e = endpoints(at: p, maxMeters: maxSnapMeters)
        guard !e.isEmpty else { return nil }
        return SnappedPoint(coordinate: p, endpoints: e, areas: Set(e.map { graph.area(ofNode: Int(graph.head[$0.edge])) }).sorted())
    }

    /// The route through snapped points (the first is the start, the last the end, the others
    /// via points), exactly as `route(_:)` answers for their coordinates at `departAt`.
    public func route(through points: [SnappedPoint], departAt: Double) throws(RoutingError) -> RouteResult {
        precondition(points.count >= 2, "a route has two points at least")
        try Self.checkViaCount(points.count - 2)
        let coordinates = points.map(\.coordinate)
        let names: [RoutePoint] = [.origin] + (0..<(points.count - 2)).map { .via($0) } + [.destination]
        return try route(snapped: points.map(\.endpoints), points: coordinates, names: names,
                         request: RouteRequest(from: coordinates[0], to: coordinates[coordinates.count - 1],
                                               via: Array(coordinates.dropFirst().dropLast()), departAt: departAt))
    }

    /// The search space of `point` in `direction` on the hierarchy customized for `hour`, to
    /// keep; nil when the graph's hierarchy does not cover that hour's metric.
    public func searchSpace(_ point: SnappedPoint, hour: Int, direction: HierarchySearchSpace.Direction) -> HierarchySearchSpace? {
        guard (0..<24).contains(hour), graph.hasContractionHierarchy, let metric = hierarchyMetric(hour: hour, wait: true) else { return nil }
        var kept: [(entry: BucketEntry, parent: UInt32)] = []
        withTableSearch(metric: metric, hour: hour) { search in
            tablePool.withScratch { s in
                let side: TableDirection
                switch direction {
                case .forward: search.seedForward(point.endpoints, s); side = search.forward
                case .backward: search.seedBackward(point.endpoints, s); side = search.backward
                }
                side.run(s) { v, label, stalled in
                    if !stalled { kept.append((BucketEntry(column: UInt32(v), dist: label.dist, length: label.length), s.parents[v])) }
                }
            }
        }
        kept.sort { $0.entry.column < $1.entry.column }
        return HierarchySearchSpace(direction: direction, hour: hour, point: point, entries: kept.map(\.entry), parents: kept.map(\.parent))
    }

    /// Runs both upward searches from `point` on the hierarchy customized for `hour` and hands
    /// them to `body` (nil when the hierarchy does not cover that hour's metric), to read cells
    /// against kept search spaces of the same hour.
    public func withPointSearch<R>(_ point: SnappedPoint, hour: Int, _ body: (PointSearch?) -> R) -> R {
        guard (0..<24).contains(hour), graph.hasContractionHierarchy, let metric = hierarchyMetric(hour: hour, wait: true) else { return body(nil) }
        return withTableSearch(metric: metric, hour: hour) { search in
            tablePool.withScratch { f in
                tablePool.withScratch { b in
                    // Labels are final once settled, and every node reached is settled: after
                    // the runs, `labels` holds each settled node's label (stalled ones too).
                    search.seedForward(point.endpoints, f)
                    search.forward.run(f) { _, _ in }
                    search.seedBackward(point.endpoints, b)
                    search.backward.run(b) { _, _ in }
                    return body(PointSearch(search: search, point: point, forward: f, backward: b, hour: hour))
                }
            }
        }
    }
}

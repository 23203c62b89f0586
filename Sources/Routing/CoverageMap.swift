import Foundation
import Geo

/// Where a graph serves: the union of the grid cells (about 550 × 550 m) its roads pass
/// through, per connected area, traced into GeoJSON polygons; and how far a point is from it.
///
/// Cells are `cellLat` × `cellLon` degrees from (0, 0); a cell is covered by an area when a
/// node or a road shape point of that area lies in it. Outlines follow cell edges: outer rings
/// counter-clockwise, holes clockwise (RFC 7946); cells touching only at a corner become
/// separate polygons.
public struct CoverageMap: Sendable {
    public static let cellLat = 0.005
    public static let cellLon = 0.00625

    /// One connected area of the graph.
    public struct Area: Sendable {
        public let id: Int
        public let nodes: Int
        public let bbox: BoundingBox
        /// Covered cells, as `row << 32 | col` keys (row and column offset by 2^31).
        let cells: Set<UInt64>
        /// The outline: polygons, each an outer ring then holes, rings closed ([lon, lat] pairs).
        public let polygons: [[[Coordinate]]]
        /// Covered area, km² (cells × cell area at the area's latitude).
        public let cellAreaKm2: Double
    }

    public let areas: [Area]
    /// Every covered cell, any area: for the distance test.
    private let allCells: [CellCentre]

    /// Builds the map of `graph` (one pass over its nodes and shape points).
    public init(graph: RoadGraph) {
        var cellsOf = [Set<UInt64>](repeating: [], count: graph.areaCount)
        var nodes = [Int](repeating: 0, count: graph.areaCount)
        var boxes = [BoundingBox](repeating: BoundingBox(west: 180, south: 90, east: -180, north: -90), count: graph.areaCount)
        func add(_ area: Int, lat: Int32, lon: Int32) {
            let la = Double(lat) * 1e-7, lo = Double(lon) * 1e-7
            cellsOf[area].insert(Self.key(row: Self.row(la), col: Self.col(lo)))
            boxes[area].west = min(boxes[area].west, lo); boxes[area].east = max(boxes[area].east, lo)
            boxes[area].south = min(boxes[area].south, la); boxes[area].north = max(boxes[area].north, la)
        }
        for v in 0..<graph.nodeCount {
            let a = graph.area(ofNode: v)
            nodes[a] += 1
            add(a, lat: graph.nodeLat[v], lon: graph.nodeLon[v])
        }
        for q in 0..<graph.pieceName.count {
            let lo = Int(graph.pieceFirstEdge[q]), hi = Int(graph.pieceFirstEdge[q + 1])
            guard hi > lo else { continue }
            let a = graph.area(ofNode: Int(graph.head[Int(graph.pieceEdges[lo])]))
            for k in Int(graph.pieceFirstPoint[q])..<Int(graph.pieceFirstPoint[q + 1]) {
                add(a, lat: graph.pointLat[k], lon: graph.pointLon[k])
            }
        }
        areas = (0..<graph.areaCount).map { a in
            let midLat = (boxes[a].south + boxes[a].north) / 2
            let cellKm2 = (Self.cellLat * 111.195) * (Self.cellLon * 111.195 * cos(midLat * .pi / 180))
            return Area(id: a, nodes: nodes[a], bbox: boxes[a], cells: cellsOf[a], polygons: Self.outline(cellsOf[a]),
                        cellAreaKm2: Double(cellsOf[a].count) * cellKm2)
        }
        var all = Set<UInt64>()
        for c in cellsOf { all.formUnion(c) }
        allCells = all.map(CellCentre.init(key:))
    }

    /// A map of one area alone (for the distance to it).
    init(singleArea a: Area) {
        areas = [a]
        allCells = a.cells.map(CellCentre.init(key:))
    }

    static func row(_ lat: Double) -> Int { Int((lat / cellLat).rounded(.down)) }
    static func col(_ lon: Double) -> Int { Int((lon / cellLon).rounded(.down)) }
    static func key(row: Int, col: Int) -> UInt64 { UInt64(row + (1 << 31)) << 32 | UInt64(col + (1 << 31)) }

    /// The distance (metres) from `p` to the nearest covered cell, 0 inside one; about ±0.5 km
    /// (a cell's size) from the distance to the nearest road. Nil when nothing is covered.
    ///
    /// A great-circle distance, right at any range (longitude wraps at ±180°): the cell whose
    /// centre is nearest on the sphere (the largest dot product of unit vectors), then the
    /// haversine distance to the nearest point of that cell.
    public func distanceToCoverage(_ p: Coordinate) -> Double? {
        Self.nearest(p, among: allCells)?.meters
    }

    /// The area whose covered cells are nearest to `p`, and that distance (metres), measured as
    /// `distanceToCoverage` measures it.
    public func nearestArea(_ p: Coordinate) -> (area: Int, meters: Double)? {
        var best: (area: Int, meters: Double)?
        for a in areas {
            guard let d = Self.nearest(p, among: a.cells.map(CellCentre.init(key:)))?.meters else { continue }
            if d < best?.meters ?? .infinity { best = (a.id, d) }
        }
        return best
    }

    /// The great-circle distance from `p` to the nearest of `cells` (see `distanceToCoverage`).
    static func nearest(_ p: Coordinate, among cells: [CellCentre]) -> (cell: CellCentre, meters: Double)? {
        let v = UnitVector(p)
        var best: CellCentre?, bestDot = -Double.infinity
        for c in cells {
            let dot = v.x * c.vector.x + v.y * c.vector.y + v.z * c.vector.z
            if dot > bestDot { bestDot = dot; best = c }
        }
        guard let best else { return nil }
        return (best, p.distance(to: best.nearestPoint(to: p)))
    }

    /// Outer rings and holes of a set of cells.
    static func outline(_ cells: Set<UInt64>) -> [[[Coordinate]]] {
        typealias V = GridVertex
        // Directed boundary edges between grid vertices (x = col, y = row), interior on the left.
        var outgoing: [V: [V]] = [:]
        func has(_ r: Int, _ c: Int) -> Bool { cells.contains(key(row: r, col: c)) }
        for k in cells {
            let r = Int(Int64(k >> 32) - (1 << 31)), c = Int(Int64(k & 0xFFFF_FFFF) - (1 << 31))
            if !has(r - 1, c) { outgoing[V(x: c, y: r), default: []].append(V(x: c + 1, y: r)) }          // bottom, east
            if !has(r, c + 1) { outgoing[V(x: c + 1, y: r), default: []].append(V(x: c + 1, y: r + 1)) }  // right, north
            if !has(r + 1, c) { outgoing[V(x: c + 1, y: r + 1), default: []].append(V(x: c, y: r + 1)) }  // top, west
            if !has(r, c - 1) { outgoing[V(x: c, y: r + 1), default: []].append(V(x: c, y: r)) }          // left, south
        }
        var rings: [[V]] = []
        // Walk each ring; at a vertex with two ways on (cells touching at a corner) turn left,
        // which keeps each ring around its own cells.
        let starts = outgoing.keys.sorted { $0.y != $1.y ? $0.y < $1.y : $0.x < $1.x }
        for s in starts {
            while let first = outgoing[s]?.first {
                outgoing[s]!.removeFirst()
                var ring = [s]
                var prev = s, cur = first
                while cur != s {
                    ring.append(cur)
                    guard var options = outgoing[cur], !options.isEmpty else { break }
                    let dx = cur.x - prev.x, dy = cur.y - prev.y
                    // Left of (dx, dy) is (-dy, dx).
                    let pick = options.count > 1 ? (options.firstIndex { $0.x - cur.x == -dy && $0.y - cur.y == dx } ?? 0) : 0
                    let next = options.remove(at: pick)
                    outgoing[cur] = options
                    prev = cur
                    cur = next
                }
                rings.append(simplify(ring))
            }
        }
        func signedArea(_ r: [V]) -> Int {
            var a = 0
            for i in r.indices { let p = r[i], q = r[(i + 1) % r.count]; a += p.x * q.y - q.x * p.y }
            return a
        }
        func contains(_ r: [V], _ x: Double, _ y: Double) -> Bool {
            var inside = false
            var j = r.count - 1
            for i in r.indices {
                let a = r[i], b = r[j]
                if (Double(a.y) > y) != (Double(b.y) > y),
                   x < Double(b.x - a.x) * (y - Double(a.y)) / Double(b.y - a.y) + Double(a.x) { inside.toggle() }
                j = i
            }
            return inside
        }
        let outers = rings.filter { signedArea($0) > 0 }
        var holes = [[[V]]](repeating: [], count: outers.count)
        for h in rings where signedArea(h) < 0 {
            // A point just inside the filled side of the hole's first edge (its right).
            let a = h[0], b = h[1]
            let mx = Double(a.x + b.x) / 2 + Double((b.y - a.y).signum()) * 0.25
            let my = Double(a.y + b.y) / 2 - Double((b.x - a.x).signum()) * 0.25
            if let o = outers.firstIndex(where: { contains($0, mx, my) }) { holes[o].append(h) }
        }
        func coords(_ r: [V]) -> [Coordinate] {
            (r + [r[0]]).map {
                Coordinate(lon: (Double($0.x) * cellLon * 1e6).rounded() / 1e6, lat: (Double($0.y) * cellLat * 1e6).rounded() / 1e6)
            }
        }
        return outers.indices.map { i in [coords(outers[i])] + holes[i].map(coords) }
    }

    /// Drops the vertices in the middle of straight runs.
    static func simplify(_ ring: [GridVertex]) -> [GridVertex] {
        guard ring.count > 4 else { return ring }
        var out: [GridVertex] = []
        let n = ring.count
        for i in 0..<n {
            let a = ring[(i + n - 1) % n], b = ring[i], c = ring[(i + 1) % n]
            let cross = (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x)
            if cross != 0 || (a == c) { out.append(b) }
        }
        return out
    }
}

/// A covered cell with its centre as a unit vector (for nearest-cell searches on the sphere).
struct CellCentre {
    let row: Int
    let col: Int
    let vector: UnitVector

    init(key: UInt64) {
        row = Int(Int64(key >> 32) - (1 << 31))
        col = Int(Int64(key & 0xFFFF_FFFF) - (1 << 31))
        vector = UnitVector(Coordinate(lon: (Double(col) + 0.5) * CoverageMap.cellLon, lat: (Double(row) + 0.5) * CoverageMap.cellLat))
    }

    /// The point of the cell nearest to `p` (`p` itself inside it): its latitude clamped to the
    /// cell's rows, its longitude to the cell's columns on the side `p` is nearer to, ±180° wrapped.
    func nearestPoint(to p: Coordinate) -> Coordinate {
        let south = Double(row) * CoverageMap.cellLat, west = Double(col) * CoverageMap.cellLon
        let halfWidth = CoverageMap.cellLon / 2, centreLon = west + halfWidth
        let dLon = remainder(p.lon - centreLon, 360)  // −180…180: the way round that is shorter
        return Coordinate(lon: abs(dLon) <= halfWidth ? p.lon : centreLon + (dLon > 0 ? halfWidth : -halfWidth),
                          lat: min(south + CoverageMap.cellLat, max(south, p.lat)))
    }
}

/// A point of the unit sphere: nearer points have larger dot products, at any range.
struct UnitVector {
    let x: Double, y: Double, z: Double

    init(_ c: Coordinate) {
        let lat = c.lat * .pi / 180, lon = c.lon * .pi / 180
        x = cos(lat) * cos(lon)
        y = cos(lat) * sin(lon)
        z = sin(lat)
    }
}

/// A corner of the coverage grid (column, row).
struct GridVertex: Hashable {
    var x: Int
    var y: Int
}

/// A value computed once, on first use, by whichever thread asks first.
final class OnceBox<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T?

    func value(_ make: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        if let stored { return stored }
        let v = make()
        stored = v
        return v
    }
}

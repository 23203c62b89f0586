import Foundation
import Geo

/// A place on a road: where a coordinate projects onto the nearest segment.
struct SnapHit {
    /// The piece of road and the global index of the segment's first point.
    var piece: Int
    var segmentStart: Int
    /// Position along the segment (0…1) and along the whole piece (0…1).
    var segmentFraction: Double
    var pieceFraction: Double
    /// The projected point and its distance from the query, metres.
    var point: Coordinate
    var distance: Double
}

/// The snapping grid: segment start points bucketed by cell, built at prepare time.
package enum SpatialGridBuilder {
    /// Cell side in metres.
    static let cellMeters = 150.0

    package static func build(pointLat: [Int32], pointLon: [Int32], pieceFirstPoint: [UInt32])
        -> (GridParameters, cellFirst: [UInt32], items: [UInt32])
    {
        guard let minLat = pointLat.min(), let maxLat = pointLat.max(), let minLon = pointLon.min(), let maxLon = pointLon.max()
        else { return (GridParameters(), [0, 0], []) }
        let south = Double(minLat) / 1e7, north = Double(maxLat) / 1e7
        let west = Double(minLon) / 1e7, east = Double(maxLon) / 1e7
        let projection = LocalProjection(referenceLatitude: (south + north) / 2)
        var cellLat = cellMeters / projection.metersPerDegreeLat
        var cellLon = cellMeters / max(1, projection.metersPerDegreeLon)
        var rows = 1, cols = 1
        while true {
            rows = Int(((north - south) / cellLat).rounded(.down)) + 1
            cols = Int(((east - west) / cellLon).rounded(.down)) + 1
            if rows * cols <= 8_000_000 { break }
            cellLat *= 2
            cellLon *= 2
        }
        let g = GridParameters(originLat: south, originLon: west, cellLat: cellLat, cellLon: cellLon, rows: rows, cols: cols)
        func cellRange(_ i: Int) -> (Int, Int, Int, Int) {
            let la = Double(pointLat[i]) / 1e7, lb = Double(pointLat[i + 1]) / 1e7
            let oa = Double(pointLon[i]) / 1e7, ob = Double(pointLon[i + 1]) / 1e7
            let r0 = g.row(min(la, lb)), r1 = g.row(max(la, lb))
            let c0 = g.col(min(oa, ob)), c1 = g.col(max(oa, ob))
            return (r0, r1, c0, c1)
        }
        var cellFirst = [UInt32](repeating: 0, count: rows * cols + 1)
        let pieces = pieceFirstPoint.count - 1
        for p in 0..<pieces {
            for i in Int(pieceFirstPoint[p])..<Int(pieceFirstPoint[p + 1] - 1) {
                let (r0, r1, c0, c1) = cellRange(i)
                for r in r0...r1 { for c in c0...c1 { cellFirst[r * cols + c + 1] += 1 } }
            }
        }
        for i in 0..<(rows * cols) { cellFirst[i + 1] += cellFirst[i] }
        var next = cellFirst
        var items = [UInt32](repeating: 0, count: Int(cellFirst[rows * cols]))
        for p in 0..<pieces {
            for i in Int(pieceFirstPoint[p])..<Int(pieceFirstPoint[p + 1] - 1) {
                let (r0, r1, c0, c1) = cellRange(i)
                for r in r0...r1 {
                    for c in c0...c1 {
                        items[Int(next[r * cols + c])] = UInt32(i)
                        next[r * cols + c] += 1
                    }
                }
            }
        }
        return (g, cellFirst, items)
    }
}

extension GridParameters {
    @inline(__always) func row(_ lat: Double) -> Int { min(rows - 1, max(0, Int(((lat - originLat) / cellLat).rounded(.down)))) }
    @inline(__always) func col(_ lon: Double) -> Int { min(cols - 1, max(0, Int(((lon - originLon) / cellLon).rounded(.down)))) }
}

extension RoadGraph {
    /// Segments nearest to `p` within `maxMeters`: the nearest one and any other within 5 cm
    /// of it (overlapping one-way pieces, the pieces meeting at a junction). Empty when no
    /// road is that close.
    func snap(_ p: Coordinate, maxMeters: Double) -> [SnapHit] {
        let mLat = earthRadiusMeters * Double.pi / 180 * 1e-7
        let mLon = mLat * cos(p.lat * Double.pi / 180)
        let g = grid
        let dLat = maxMeters / (mLat * 1e7), dLon = maxMeters / max(1e-9, mLon * 1e7)
        if p.lat + dLat < g.originLat || p.lat - dLat > g.originLat + Double(g.rows) * g.cellLat
            || p.lon + dLon < g.originLon || p.lon - dLon > g.originLon + Double(g.cols) * g.cellLon
        {
            return []
        }
        // Query point in fixed point; segment ends are taken relative to it, in metres.
        let pLat = p.lat * 1e7, pLon = p.lon * 1e7
        let r0 = g.row(p.lat - dLat), r1 = g.row(p.lat + dLat)
        let c0 = g.col(p.lon - dLon), c1 = g.col(p.lon + dLon)
        let pr = g.row(p.lat), pc = g.col(p.lon)
        let tolerance = 0.05
        var best = maxMeters
        var hits: [(segment: Int, t: Double, d: Double)] = []
        hits.reserveCapacity(8)
        let cellLatMeters = g.cellLat * mLat * 1e7, cellLonMeters = g.cellLon * mLon * 1e7
        // Rings of cells around p's cell; a ring is skipped once even its nearest cell is too far.
        let maxRing = max(pr - r0, r1 - pr, pc - c0, c1 - pc)
        func visit(_ r: Int, _ c: Int) {
            // Distance from p to this cell's rectangle first.
            let south = g.originLat + Double(r) * g.cellLat, west = g.originLon + Double(c) * g.cellLon
            let dy = max(0, south - p.lat, p.lat - (south + g.cellLat)) * mLat * 1e7
            let dx = max(0, west - p.lon, p.lon - (west + g.cellLon)) * mLon * 1e7
            if dx * dx + dy * dy > (best + tolerance) * (best + tolerance) { return }
            let cell = r * g.cols + c
            for k in Int(gridCellFirst[cell])..<Int(gridCellFirst[cell + 1]) {
                let s = Int(gridItems[k])
                let ax = (Double(pointLon[s]) - pLon) * mLon, ay = (Double(pointLat[s]) - pLat) * mLat
                let bx = (Double(pointLon[s + 1]) - pLon) * mLon, by = (Double(pointLat[s + 1]) - pLat) * mLat
                let ex = bx - ax, ey = by - ay
                let len2 = ex * ex + ey * ey
                var t = len2 > 0 ? -(ax * ex + ay * ey) / len2 : 0
                t = min(1, max(0, t))
                let qx = ax + t * ex, qy = ay + t * ey
                let d2 = qx * qx + qy * qy
                let limit = best + tolerance
                if d2 <= limit * limit {
                    let d = d2.squareRoot()
                    if d < best { best = d }
                    hits.append((s, t, d))
                }
            }
        }
        for ring in 0...maxRing {
            if ring >= 2 && Double(ring - 1) * min(cellLatMeters, cellLonMeters) > best + tolerance { break }
            for r in max(r0, pr - ring)...min(r1, pr + ring) {
                if r == pr - ring || r == pr + ring {
                    for c in max(c0, pc - ring)...min(c1, pc + ring) { visit(r, c) }
                } else {
                    if pc - ring >= c0 { visit(r, pc - ring) }
                    if ring > 0 && pc + ring <= c1 { visit(r, pc + ring) }
                }
            }
        }
        var out: [SnapHit] = []
        for (i, h) in hits.enumerated() where h.d <= best + tolerance {
            if hits[..<i].contains(where: { $0.segment == h.segment }) { continue }
            guard let piece = piece(containingPoint: h.segment), h.segment + 1 < Int(pieceFirstPoint[piece + 1]) else { continue }
            let first = Int(pieceFirstPoint[piece]), last = Int(pieceFirstPoint[piece + 1]) - 1
            let total = Double(pointOffset[last]) - Double(pointOffset[first])
            let along = Double(pointOffset[h.segment]) - Double(pointOffset[first])
                + h.t * (Double(pointOffset[h.segment + 1]) - Double(pointOffset[h.segment]))
            let fraction = total > 0 ? min(1, max(0, along / total)) : 0
            let lat = Double(pointLat[h.segment]) / 1e7, lon = Double(pointLon[h.segment]) / 1e7
            let lat2 = Double(pointLat[h.segment + 1]) / 1e7, lon2 = Double(pointLon[h.segment + 1]) / 1e7
            let point = Coordinate(lon: lon + h.t * (lon2 - lon), lat: lat + h.t * (lat2 - lat))
            out.append(SnapHit(piece: piece, segmentStart: h.segment, segmentFraction: h.t, pieceFraction: fraction,
                               point: point, distance: h.d))
        }
        return out
    }

    /// The piece whose points include global point index `i`.
    func piece(containingPoint i: Int) -> Int? {
        var lo = 0, hi = pieceName.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if Int(pieceFirstPoint[mid + 1]) <= i { lo = mid + 1 } else { hi = mid }
        }
        return lo < pieceName.count ? lo : nil
    }
}

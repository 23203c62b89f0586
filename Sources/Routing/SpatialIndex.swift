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
enum SpatialGridBuilder {
    /// Cell side in metres.
    static let cellMeters = 150.0

    static func build(pointLat: [Int32], pointLon: [Int32], pieceFirstPoint: [UInt32])
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
        let mLat = earthRadiusMeters * Double.pi / 180
        let mLon = mLat * cos(p.lat * Double.pi / 180)
        let g = grid
        // Cells that may hold a segment within maxMeters of p.
        let dLat = maxMeters / mLat, dLon = maxMeters / max(1e-9, mLon)
        if p.lat + dLat < g.originLat || p.lat - dLat > g.originLat + Double(g.rows) * g.cellLat
            || p.lon + dLon < g.originLon || p.lon - dLon > g.originLon + Double(g.cols) * g.cellLon
        {
            return []
        }
        let r0 = g.row(p.lat - dLat), r1 = g.row(p.lat + dLat)
        let c0 = g.col(p.lon - dLon), c1 = g.col(p.lon + dLon)
        var best = maxMeters
        let tolerance = 0.05
        var hits: [(segment: Int, t: Double, d: Double)] = []
        // Nearest cells first, so `best` shrinks early and far cells are skipped.
        let pr = g.row(p.lat), pc = g.col(p.lon)
        var cells: [(Double, Int)] = []
        for r in r0...r1 {
            for c in c0...c1 {
                let cellSouth = g.originLat + Double(r) * g.cellLat, cellWest = g.originLon + Double(c) * g.cellLon
                let dy = max(0, cellSouth - p.lat, p.lat - (cellSouth + g.cellLat)) * mLat
                let dx = max(0, cellWest - p.lon, p.lon - (cellWest + g.cellLon)) * mLon
                let d = (dx * dx + dy * dy).squareRoot()
                if d <= maxMeters { cells.append((r == pr && c == pc ? -1 : d, r * g.cols + c)) }
            }
        }
        cells.sort { $0.0 < $1.0 }
        for (cellDistance, cell) in cells {
            if cellDistance > best + tolerance { break }
            for k in Int(gridCellFirst[cell])..<Int(gridCellFirst[cell + 1]) {
                let s = Int(gridItems[k])
                let ax = (Double(pointLon[s]) / 1e7 - p.lon) * mLon, ay = (Double(pointLat[s]) / 1e7 - p.lat) * mLat
                let bx = (Double(pointLon[s + 1]) / 1e7 - p.lon) * mLon, by = (Double(pointLat[s + 1]) / 1e7 - p.lat) * mLat
                let dx = bx - ax, dy = by - ay
                let len2 = dx * dx + dy * dy
                var t = len2 > 0 ? -(ax * dx + ay * dy) / len2 : 0
                t = min(1, max(0, t))
                let qx = ax + t * dx, qy = ay + t * dy
                let d = (qx * qx + qy * qy).squareRoot()
                if d <= best + tolerance {
                    if d < best { best = d }
                    hits.append((s, t, d))
                }
            }
        }
        var seen = Set<Int>()
        var out: [SnapHit] = []
        for h in hits where h.d <= best + tolerance && seen.insert(h.segment).inserted {
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

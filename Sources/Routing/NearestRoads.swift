import Foundation
import Geo

/// A point on one road piece near a query point: OSRM's nearest service over the snapping grid.
public struct NearestRoad: Sendable, Equatable {
    /// The nearest point of the piece.
    public let location: Coordinate
    /// Metres from the query point to `location`.
    public let distanceMeters: Double
    /// The piece's street name ("" when unnamed).
    public let name: String
    /// The graph nodes at the piece's two ends (ids of this graph file, not OSM ids).
    public let nodes: [Int]
}

extension RouteEngine {
    /// The `count` road pieces nearest to `p` within `maxMeters`, nearest first (one point per
    /// piece; ties in order of the piece). Empty when `p` is invalid or no road is that near.
    /// The first is the point `snap(_:)` stands on, so a route from `p` starts there.
    public func nearestRoads(to p: Coordinate, count: Int, maxMeters: Double = RouteEngine.maxSnapLimitMeters) -> [NearestRoad] {
        guard p.isValid, count > 0 else { return [] }
        var radius = min(maxMeters, 100)
        while true {
            let found = graph.nearestPieces(p, maxMeters: radius)
            if found.count >= count || radius >= maxMeters {
                return found.prefix(count).map { hit in
                    let first = Int(graph.pieceFirstEdge[hit.piece])
                    let edge = Int(graph.pieceEdges[first])
                    return NearestRoad(location: hit.point, distanceMeters: hit.distance, name: graph.name(Int(graph.pieceName[hit.piece])),
                                       nodes: [graph.tail(ofEdge: edge), Int(graph.head[edge])])
                }
            }
            radius = min(maxMeters, radius * 4)
        }
    }
}

extension RoadGraph {
    /// The tail node of edge `e` (the node whose out-edges hold it).
    func tail(ofEdge e: Int) -> Int {
        var lo = 0, hi = nodeCount
        while lo < hi {
            let mid = (lo + hi) >> 1
            if Int(firstOut[mid + 1]) <= e { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Every piece with a segment within `maxMeters` of `p`: its nearest point, nearest first.
    func nearestPieces(_ p: Coordinate, maxMeters: Double) -> [(piece: Int, point: Coordinate, distance: Double)] {
        let g = grid
        let mLat = earthRadiusMeters * Double.pi / 180, mLon = mLat * cos(p.lat * Double.pi / 180)
        let dLat = maxMeters / mLat, dLon = maxMeters / max(1e-9, mLon)
        guard g.rows > 0, g.cols > 0,
              p.lat + dLat >= g.originLat, p.lat - dLat <= g.originLat + Double(g.rows) * g.cellLat,
              p.lon + dLon >= g.originLon, p.lon - dLon <= g.originLon + Double(g.cols) * g.cellLon else { return [] }
        var best: [Int: (point: Coordinate, distance: Double)] = [:]
        var seen = Set<Int>()
        for r in g.row(p.lat - dLat)...g.row(p.lat + dLat) {
            for c in g.col(p.lon - dLon)...g.col(p.lon + dLon) {
                let cell = r * g.cols + c
                for k in Int(gridCellFirst[cell])..<Int(gridCellFirst[cell + 1]) {
                    let s = Int(gridItems[k])
                    guard seen.insert(s).inserted else { continue }
                    let ax = (Double(pointLon[s]) / 1e7 - p.lon) * mLon, ay = (Double(pointLat[s]) / 1e7 - p.lat) * mLat
                    let bx = (Double(pointLon[s + 1]) / 1e7 - p.lon) * mLon, by = (Double(pointLat[s + 1]) / 1e7 - p.lat) * mLat
                    let ex = bx - ax, ey = by - ay, len2 = ex * ex + ey * ey
                    let t = len2 > 0 ? min(1, max(0, -(ax * ex + ay * ey) / len2)) : 0
                    let qx = ax + t * ex, qy = ay + t * ey
                    let d = (qx * qx + qy * qy).squareRoot()
                    guard d <= maxMeters, let piece = piece(containingPoint: s) else { continue }
                    if let b = best[piece], b.distance <= d { continue }
                    let point = Coordinate(lon: p.lon + qx / mLon, lat: p.lat + qy / mLat)
                    best[piece] = (point, d)
                }
            }
        }
        return best.map { (piece: $0.key, point: $0.value.point, distance: $0.value.distance) }
            .sorted { $0.distance != $1.distance ? $0.distance < $1.distance : $0.piece < $1.piece }
    }
}

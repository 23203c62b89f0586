import Geo

/// One named road assembled from the node-link network: its nodes in numbering order (from the
/// road's start: its west end, or its south end for a road running north–south) and the real
/// distance along the road to each of them.
///
/// Road-name address numbers (기초번호) are set every 20 m from the start, odd on the left and
/// even on the right, so building number N lies about (N − 1) × 10 m from the start
/// (`RoadNumbering.rule`; a calibrated road may differ).
public struct NamedRoad: Sendable, Hashable {
    /// The road name as addresses write it ("테헤란로", "테헤란로7길").
    public let name: String
    /// The 시군구 codes the road's links belong to ("11680").
    public let districts: [String]
    /// The road's nodes, start first.
    public let points: [Coordinate]
    /// Metres along the road from the start to each point (first 0, non-decreasing).
    public let distances: [Double]

    public init(name: String, districts: [String], points: [Coordinate], distances: [Double]) {
        self.name = name
        self.districts = districts
        self.points = points
        self.distances = distances
    }

    /// The road's length in metres.
    public var length: Double { distances.last ?? 0 }

    /// Metres between consecutive basic numbers on one side of the road.
    public static let basicInterval = 20.0

    /// The point `d` metres along the road (clamped to its ends) and the unit direction of
    /// travel there (in local metres east, north).
    public func point(at d: Double) -> (point: Coordinate, east: Double, north: Double) {
        guard points.count >= 2 else { return (points.first ?? Coordinate(lon: 0, lat: 0), 1, 0) }
        let d = min(max(d, 0), length)
        var i = 1
        while i < distances.count - 1 && distances[i] < d { i += 1 }
        let a = points[i - 1], b = points[i]
        let span = distances[i] - distances[i - 1]
        let t = span > 0 ? (d - distances[i - 1]) / span : 0
        let p = Coordinate(lon: a.lon + t * (b.lon - a.lon), lat: a.lat + t * (b.lat - a.lat))
        let projection = LocalProjection(referenceLatitude: a.lat)
        let (ax, ay) = projection.project(a), (bx, by) = projection.project(b)
        let norm = ((bx - ax) * (bx - ax) + (by - ay) * (by - ay)).squareRoot()
        return norm > 0 ? (p, (bx - ax) / norm, (by - ay) / norm) : (p, 1, 0)
    }

    /// The nearest point of the road to `p`: metres along the road, metres away, and whether
    /// `p` lies on the left (looking from the start).
    public func project(_ p: Coordinate) -> (along: Double, away: Double, left: Bool) {
        let projection = LocalProjection(referenceLatitude: p.lat)
        let (px, py) = projection.project(p)
        var best = (along: 0.0, away: Double.infinity, left: true)
        for i in 1..<max(1, points.count) {
            let (ax, ay) = projection.project(points[i - 1]), (bx, by) = projection.project(points[i])
            let dx = bx - ax, dy = by - ay
            let len2 = dx * dx + dy * dy
            let t = len2 > 0 ? min(1, max(0, ((px - ax) * dx + (py - ay) * dy) / len2)) : 0
            let cx = ax + t * dx, cy = ay + t * dy
            let away = ((px - cx) * (px - cx) + (py - cy) * (py - cy)).squareRoot()
            if away < best.away {
                let along = distances[i - 1] + t * (distances[i] - distances[i - 1])
                best = (along, away, dx * (py - ay) - dy * (px - ax) > 0)
            }
        }
        return best
    }
}

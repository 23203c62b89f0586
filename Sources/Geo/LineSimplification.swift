import Foundation

/// Douglas–Peucker simplification of lines, for drawing them at a map zoom.
public enum LineSimplification {
    /// The points of `line` that keep it within `toleranceMeters` of the original (the first and
    /// last always kept). Distances use a local equirectangular projection at the line's first
    /// point, exact enough at the scale of a city.
    public static func simplify(_ line: [Coordinate], toleranceMeters: Double) -> [Coordinate] {
        guard line.count > 2, toleranceMeters > 0 else { return line }
        let mLat = earthRadiusMeters * .pi / 180
        let mLon = mLat * cos(line[0].lat * .pi / 180)
        let x = line.map { ($0.lon - line[0].lon) * mLon }, y = line.map { ($0.lat - line[0].lat) * mLat }
        var keep = [Bool](repeating: false, count: line.count)
        keep[0] = true
        keep[line.count - 1] = true
        let limit2 = toleranceMeters * toleranceMeters
        var stack: [(Int, Int)] = [(0, line.count - 1)]
        while let (a, b) = stack.popLast() {
            guard b > a + 1 else { continue }
            let ex = x[b] - x[a], ey = y[b] - y[a]
            let len2 = ex * ex + ey * ey
            var worst = -1.0, at = a
            for i in (a + 1)..<b {
                let px = x[i] - x[a], py = y[i] - y[a]
                var t = len2 > 0 ? (px * ex + py * ey) / len2 : 0
                t = min(1, max(0, t))
                let dx = px - t * ex, dy = py - t * ey
                let d2 = dx * dx + dy * dy
                if d2 > worst { worst = d2; at = i }
            }
            if worst > limit2 {
                keep[at] = true
                stack.append((a, at))
                stack.append((at, b))
            }
        }
        var out: [Coordinate] = []
        for i in 0..<line.count where keep[i] { out.append(line[i]) }
        return out
    }

    /// Metres per screen pixel of 256-px Web Mercator tiles at `zoom` and latitude `lat`
    /// (on the WGS84 equatorial radius, as Web Mercator defines its scale).
    public static func metersPerPixel(zoom: Double, latitude lat: Double) -> Double {
        2 * .pi * 6_378_137 * cos(lat * .pi / 180) / (WebMercator.tileSize * pow(2, zoom))
    }
}

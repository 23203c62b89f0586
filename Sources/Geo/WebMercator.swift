import Foundation

/// Web Mercator (EPSG:3857) pixel math for 256-px tiles, the Naver/Google/OSM convention.
///
/// World pixel coordinates at zoom `z` run from 0 to `256 · 2^z`, x eastward from
/// longitude −180, y southward from latitude ≈ 85.05.
public enum WebMercator {
    public static let tileSize = 256.0
    public static let maxLatitude = 85.05112878

    /// Normalised world position in [0, 1) × [0, 1).
    @inline(__always)
    public static func normalized(_ c: Coordinate) -> (x: Double, y: Double) {
        let lat = min(maxLatitude, max(-maxLatitude, c.lat))
        let x = c.lon / 360 + 0.5
        let s = sin(lat * .pi / 180)
        let y = 0.5 - 0.25 * log((1 + s) / (1 - s)) / .pi
        return (min(max(x, 0), 1), min(max(y, 0), 1))
    }

    /// Inverse of `normalized`.
    public static func coordinate(normalizedX x: Double, y: Double) -> Coordinate {
        let lon = (x - 0.5) * 360
        let y2 = (180 - y * 360) * .pi / 180
        let lat = 360 * atan(exp(y2)) / .pi - 90
        return Coordinate(lon: lon, lat: lat)
    }

    /// World pixel position at `zoom`.
    public static func pixel(_ c: Coordinate, zoom: Int) -> (x: Double, y: Double) {
        let n = normalized(c)
        let scale = tileSize * Double(1 << zoom)
        return (n.x * scale, n.y * scale)
    }
}

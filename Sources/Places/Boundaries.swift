import Foundation
import Geo
import JSON

/// The outline of one division (the Seoul 구 and 법정동 polygons), for point-in-polygon tests.
public struct Boundary: Sendable {
    public let code: String
    /// "sigungu" or "emd".
    public let level: String
    public let area: MultiPolygon

    public init(code: String, level: String, area: MultiPolygon) {
        self.code = code
        self.level = level
        self.area = area
    }
}

/// Reading boundaries from GeoJSON and storing them as compact blobs.
package enum BoundaryCodec {
    package struct Failure: Error, CustomStringConvertible {
        let message: String
        package var description: String { message }
    }

    /// Reads a GeoJSON FeatureCollection of Polygon/MultiPolygon features with properties
    /// `level` and `code` (as in seoul_sigungu_emd_boundaries.geojson).
    package static func readGeoJSON(path: String) throws(Failure) -> [Boundary] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(message: "\(path): cannot read the file")
        }
        let root: JSONValue
        do {
            root = try JSONParser.parse([UInt8](data))
        } catch {
            throw Failure(message: "\(path): not valid JSON: \(error)")
        }
        guard let features = root["features"]?.arrayValue else {
            throw Failure(message: "\(path): no 'features' array (expected a GeoJSON FeatureCollection)")
        }
        var out: [Boundary] = []
        for (i, f) in features.enumerated() {
            guard let code = f["properties"]?["code"]?.stringValue, let level = f["properties"]?["level"]?.stringValue,
                  let geometry = f["geometry"], let type = geometry["type"]?.stringValue,
                  let coords = geometry["coordinates"]?.arrayValue
            else {
                throw Failure(message: "\(path): feature \(i) lacks properties.code, properties.level or a geometry")
            }
            var polygons: [Polygon] = []
            switch type {
            case "Polygon":
                polygons.append(try polygon(coords, path: path, feature: i))
            case "MultiPolygon":
                for p in coords {
                    guard let rings = p.arrayValue else { throw Failure(message: "\(path): feature \(i): bad MultiPolygon") }
                    polygons.append(try polygon(rings, path: path, feature: i))
                }
            default:
                throw Failure(message: "\(path): feature \(i) (code \(code)) has geometry type \(type); expected Polygon or MultiPolygon")
            }
            out.append(Boundary(code: code, level: level, area: MultiPolygon(polygons: polygons)))
        }
        return out
    }

    package static func polygon(_ rings: [JSONValue], path: String, feature: Int) throws(Failure) -> Polygon {
        var out: [[Coordinate]] = []
        for ring in rings {
            guard let points = ring.arrayValue else { throw Failure(message: "\(path): feature \(feature): a ring is not an array") }
            var r: [Coordinate] = []
            r.reserveCapacity(points.count)
            for p in points {
                guard let lon = p[0]?.doubleValue, let lat = p[1]?.doubleValue else {
                    throw Failure(message: "\(path): feature \(feature): a position is not [lon, lat]")
                }
                let c = Coordinate(lon: lon, lat: lat)
                guard c.isValid else { throw Failure(message: "\(path): feature \(feature): position \(lon),\(lat) out of range") }
                r.append(c)
            }
            out.append(r)
        }
        return Polygon(rings: out)
    }

    /// Polygons → bytes: counts as little-endian UInt32, positions as Float64 lon, lat.
    package static func encode(_ area: MultiPolygon) -> [UInt8] {
        var out: [UInt8] = []
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { out.append(contentsOf: $0) } }
        func f64(_ v: Double) { withUnsafeBytes(of: v.bitPattern.littleEndian) { out.append(contentsOf: $0) } }
        u32(area.polygons.count)
        for p in area.polygons {
            u32(p.rings.count)
            for r in p.rings {
                u32(r.count)
                for c in r { f64(c.lon); f64(c.lat) }
            }
        }
        return out
    }

    /// Bytes from `encode` → polygons; nil when truncated or malformed.
    package static func decode(_ bytes: [UInt8]) -> MultiPolygon? {
        var i = 0
        func u32() -> Int? {
            guard i + 4 <= bytes.count else { return nil }
            var v: UInt32 = 0
            for k in 0..<4 { v |= UInt32(bytes[i + k]) << (8 * k) }
            i += 4
            return Int(v)
        }
        func f64() -> Double? {
            guard i + 8 <= bytes.count else { return nil }
            var v: UInt64 = 0
            for k in 0..<8 { v |= UInt64(bytes[i + k]) << (8 * k) }
            i += 8
            return Double(bitPattern: v)
        }
        guard let np = u32(), np < 100_000 else { return nil }
        var polygons: [Polygon] = []
        for _ in 0..<np {
            guard let nr = u32(), nr < 100_000 else { return nil }
            var rings: [[Coordinate]] = []
            for _ in 0..<nr {
                guard let n = u32(), n <= (bytes.count - i) / 16 else { return nil }
                var r: [Coordinate] = []
                r.reserveCapacity(n)
                for _ in 0..<n {
                    guard let lon = f64(), let lat = f64() else { return nil }
                    r.append(Coordinate(lon: lon, lat: lat))
                }
                rings.append(r)
            }
            polygons.append(Polygon(rings: rings))
        }
        return MultiPolygon(polygons: polygons)
    }
}

/// Google's encoded polyline algorithm at a given precision (5 or 6 digits).
///
/// Coordinates are written latitude first, as the format requires.
public enum Polyline {
    /// Encodes `coords` at `precision` decimal digits (6 = OSRM's `polyline6`).
    public static func encode(_ coords: [Coordinate], precision: Int = 6) -> String {
        var factor = 1.0
        for _ in 0..<precision { factor *= 10 }
        var out = [UInt8]()
        out.reserveCapacity(coords.count * 8)
        var prevLat = 0, prevLon = 0
        for c in coords {
            let lat = Int((c.lat * factor).rounded())
            let lon = Int((c.lon * factor).rounded())
            append(lat - prevLat, to: &out)
            append(lon - prevLon, to: &out)
            prevLat = lat
            prevLon = lon
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func append(_ value: Int, to out: inout [UInt8]) {
        var v = value < 0 ? ~(value << 1) : (value << 1)
        while v >= 0x20 {
            out.append(UInt8((0x20 | (v & 0x1f)) + 63))
            v >>= 5
        }
        out.append(UInt8(v + 63))
    }

    /// Decodes an encoded polyline; nil when the text is not a valid polyline.
    public static func decode(_ text: String, precision: Int = 6) -> [Coordinate]? {
        var factor = 1.0
        for _ in 0..<precision { factor *= 10 }
        let bytes = Array(text.utf8)
        var i = 0
        var lat = 0, lon = 0
        var result = [Coordinate]()
        func next() -> Int? {
            var shift = 0, value = 0
            while true {
                guard i < bytes.count, shift <= 60 else { return nil }
                let b = Int(bytes[i]) - 63
                guard b >= 0 && b < 64 else { return nil }
                i += 1
                value |= (b & 0x1f) << shift
                shift += 5
                if b < 0x20 { break }
            }
            return (value & 1) != 0 ? ~(value >> 1) : (value >> 1)
        }
        while i < bytes.count {
            guard let dLat = next(), let dLon = next() else { return nil }
            lat &+= dLat
            lon &+= dLon
            result.append(Coordinate(lon: Double(lon) / factor, lat: Double(lat) / factor))
        }
        return result
    }
}

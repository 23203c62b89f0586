import HTTPServer
import JSON

/// Numeric feature ids of the cluster answers, as supercluster gives and MapLibre wants them
/// (`promoteId: "feature_id"`, or the feature's own `id`): a 53-bit hash (exact in a JavaScript
/// number) of what the feature is, so the same cluster (the same cells at the same zoom) or the
/// same party has the same id in every answer. Clusters and parties hash apart (a kind byte first).
package enum FeatureNumber {
    package static func of(cluster idText: [UInt8]) -> Int64 { hash(kind: 1, idText) }
    package static func of(party id: String) -> Int64 { hash(kind: 2, Array(id.utf8)) }

    /// FNV-1a (64 bits) over the kind and the text, folded to 53 bits, never 0.
    static func hash(kind: UInt8, _ bytes: [UInt8]) -> Int64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in [kind] + bytes {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01b3
        }
        let folded = (h ^ (h >> 53)) & ((1 << 53) - 1)
        return Int64(max(folded, 1))
    }

    /// supercluster's `point_count_abbreviated`: the count itself below 1,000, then `1.2k`
    /// (tenths of thousands) below 10,000, then `12k`.
    package static func abbreviated(_ count: Int) -> JSONValue {
        if count >= 10_000 { return .string("\(Int((Double(count) / 1000).rounded(.toNearestOrAwayFromZero)))k") }
        if count >= 1000 {
            let tenths = Int((Double(count) / 100).rounded(.toNearestOrAwayFromZero))
            return .string(tenths % 10 == 0 ? "\(tenths / 10)k" : "\(tenths / 10).\(tenths % 10)k")
        }
        return .number(Double(count))
    }

    static func writeAbbreviated(_ count: Int, into out: inout [UInt8]) { JSONWriter.write(abbreviated(count), into: &out) }
}

extension HTTPResponse {
    /// GeoJSON's media type (RFC 7946).
    static let geoJSONType = "application/geo+json"

    /// A GeoJSON body with `Content-Type: application/geo+json`.
    static func geoJSON(_ bytes: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", geoJSONType)], body: bytes)
    }
}

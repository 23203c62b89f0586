import HTTPServer
import JSON
import PartyClusters

/// Numeric feature ids of the cluster answers, as supercluster gives and MapLibre wants them
/// (`promoteId: "feature_id"`, or the feature's own `id`), exact in a JavaScript number. A
/// cluster's names its zoom and least cell (`cluster(_:)`), so the children, leaves and
/// expansion endpoints take it back as supercluster's `getChildren(id)` does; a party's is a
/// 52-bit hash of its id in [2^52, 2^53), apart from every cluster's (below 2^49). The same
/// cluster (the same cells at the same zoom) or the same party has the same id in every answer.
package enum FeatureNumber {
    /// Bits per axis of a cell number at `zoom`: cells are at least 16 px (`PartyIndex.radiusRange`),
    /// so a zoom has at most 2^(zoom+4) of them per axis.
    static func axisBits(zoom: Int) -> Int { zoom + 4 }

    /// `1 << 2b | x << b | y` with `b = axisBits(zoom)` for the cluster's least cell: the highest
    /// bit says the zoom. A cell beyond the grid (never one the index prints) gets a party-like hash.
    package static func of(cluster id: ClusterID) -> Int64 {
        let b = axisBits(zoom: id.zoom)
        guard id.first.x < 1 << b, id.first.y < 1 << b else { return of(party: id.description) }
        return Int64(1) << (2 * b) | Int64(id.first.x) << b | Int64(id.first.y)
    }

    /// The zoom and least cell a cluster's number names; nil for a number no cluster has.
    package static func cluster(_ number: Int64) -> (zoom: Int, cell: ClusterID.Cell)? {
        guard number > 0, number < 1 << 49 else { return nil }
        let top = 63 - number.leadingZeroBitCount
        guard top % 2 == 0, case let b = top / 2, case let zoom = b - 4, (0...PartyIndex.maxZoom).contains(zoom) else { return nil }
        let mask = (Int64(1) << b) - 1
        return (zoom, ClusterID.Cell(x: Int((number >> b) & mask), y: Int(number & mask)))
    }

    package static func of(party id: String) -> Int64 { hash(Array(id.utf8)) }

    /// FNV-1a (64 bits) over the text, folded to 52 bits, in [2^52, 2^53).
    static func hash(_ bytes: [UInt8]) -> Int64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01b3
        }
        return Int64((h ^ (h >> 52)) & ((1 << 52) - 1) | 1 << 52)
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

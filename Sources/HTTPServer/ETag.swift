/// Entity tags for cacheable answers and `If-None-Match` revalidation (RFC 9110 §8.8.3, §13.1.2).
///
/// Tags are weak (`W/"…"`): the same tag stands for the identity and the gzip form of an
/// answer, which are equivalent representations.
enum ETag {
    /// A weak tag from a 64-bit hash of the body, 8 bytes a step (about 1 µs for a 7 KB answer).
    static func of(_ body: [UInt8]) -> String { tag(hash(body)) }

    /// The tag text of a body hash.
    static func tag(_ h: UInt64) -> String {
        let s = String(h, radix: 16)
        return "W/\"" + String(repeating: "0", count: 16 - s.count) + s + "\""
    }

    /// The 64-bit hash behind a body's tag.
    static func hash(_ body: [UInt8]) -> UInt64 {
        var h: UInt64 = 0x9e37_79b9_7f4a_7c15 ^ UInt64(body.count)
        body.withUnsafeBytes { p in
            var i = 0
            while i + 8 <= p.count {
                h = step(h ^ p.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                i += 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while i < p.count {
                tail |= UInt64(p[i]) << shift
                shift += 8
                i += 1
            }
            h = mix(h ^ tail)
        }
        return h
    }

    /// One multiply-rotate step per word (one multiply on the dependency chain).
    @inline(__always) private static func step(_ x: UInt64) -> UInt64 {
        let m = x &* 0x9fb2_1c65_1e98_df25
        return (m << 29) | (m >> 35)
    }

    /// The final avalanche (a strong enough mix for change detection, not for security).
    @inline(__always) private static func mix(_ x: UInt64) -> UInt64 {
        let m = x &* 0xbf58_476d_1ce4_e5b9
        return (m ^ (m >> 31)) &* 0x94d0_49bb_1331_11eb
    }

    /// True when an `If-None-Match` value names `tag` (weak comparison) or is `*`.
    static func matches(_ ifNoneMatch: String, _ tag: String) -> Bool {
        let opaque = strip(tag)
        for item in ifNoneMatch.split(separator: ",") {
            let t = item.trimmingCharacters(in: .whitespaces)
            if t == "*" || strip(t) == opaque { return true }
        }
        return false
    }

    private static func strip(_ t: String) -> Substring {
        t.hasPrefix("W/") ? t.dropFirst(2) : Substring(t)
    }
}

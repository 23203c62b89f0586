/// One entity tag (RFC 9110 §8.8.3): its opaque text between the quotes, and whether it is weak (`W/"…"`).
public struct EntityTag: Sendable, Equatable {
    public let opaque: String
    public let isWeak: Bool

    public init(_ opaque: String, weak: Bool = false) {
        self.opaque = opaque
        self.isWeak = weak
    }
}

/// The value of an `If-Match` or `If-None-Match` header (RFC 9110 §13.1.1–2): `*`, or a list
/// of entity tags. `If-Match` compares them strongly (a weak tag never matches), `If-None-Match`
/// weakly (`W/"3"` matches `"3"`).
public enum EntityTagList: Sendable, Equatable {
    /// `*`: any current representation.
    case any
    /// The tags listed, in order.
    case tags([EntityTag])

    /// Parses a header value; nil when it is neither `*` nor a comma-separated list of entity
    /// tags. A tag's quotes are scanned, not split on (a comma may sit inside them); bare
    /// digits (`3`, without quotes; 1 to 16 with no leading zero, as a version is written) are
    /// read as the strong tag `"3"`, which clients that drop the quotes send.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        var i = 0
        func skipSpace() { while i < bytes.count, bytes[i] == UInt8(ascii: " ") || bytes[i] == UInt8(ascii: "\t") { i += 1 } }
        skipSpace()
        var end = bytes.count
        while end > i, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        if end - i == 1, bytes[i] == UInt8(ascii: "*") {
            self = .any
            return
        }
        var tags: [EntityTag] = []
        while i < end {
            let weak = end - i >= 2 && bytes[i] == UInt8(ascii: "W") && bytes[i + 1] == UInt8(ascii: "/")
            if weak { i += 2 }
            let start: Int
            if i < end, bytes[i] == UInt8(ascii: "\"") {
                i += 1
                start = i
                // etagc: %x21 / %x23-7E / obs-text.
                while i < end, bytes[i] != UInt8(ascii: "\"") {
                    guard bytes[i] == 0x21 || bytes[i] >= 0x23 && bytes[i] != 0x7F else { return nil }
                    i += 1
                }
                guard i < end else { return nil }
                tags.append(EntityTag(String(decoding: bytes[start..<i], as: UTF8.self), weak: weak))
                i += 1
            } else {
                guard !weak else { return nil }
                start = i
                while i < end, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1 }
                // 1 to 16 digits with no leading zero: a version as GET answers it, unquoted.
                guard i > start, i - start <= 16, bytes[start] != UInt8(ascii: "0") else { return nil }
                tags.append(EntityTag(String(decoding: bytes[start..<i], as: UTF8.self)))
            }
            skipSpace()
            if i < end {
                guard bytes[i] == UInt8(ascii: ",") else { return nil }
                i += 1
                skipSpace()
                guard i < end else { return nil }
            }
        }
        guard !tags.isEmpty else { return nil }
        self = .tags(tags)
    }
}

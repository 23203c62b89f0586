/// Short, escaped excerpts of untrusted text for error messages: no control character, no
/// invalid UTF-8 and no unbounded length ever reaches a terminal or a log through them.
public enum Escaped {
    /// At most `limit` characters of `text`, with control characters (C0, DEL, C1) and
    /// backslashes written as `\n`, `\t`, `\\` or `\u{…}`, and "…" when cut.
    public static func excerpt<S: StringProtocol>(_ text: S, limit: Int = 40) -> String {
        var out = ""
        var shown = 0
        for scalar in text.unicodeScalars {
            if shown >= limit { return out + "…" }
            shown += 1
            switch scalar.value {
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x5C: out += "\\\\"
            case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
                out += "\\u{\(String(scalar.value, radix: 16))}"
            default:
                // Combining marks in bulk would still stack up: count each scalar, not each character.
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// An excerpt of raw bytes: decoded as UTF-8 (invalid bytes shown as `\x..`), then as
    /// `excerpt(_:limit:)`.
    public static func excerpt<C: Collection>(bytes: C, limit: Int = 40) -> String where C.Element == UInt8 {
        var out = ""
        var shown = 0
        let pending = Array(bytes.prefix(limit * 4 + 4))
        let cut = bytes.count > pending.count
        var i = 0
        while i < pending.count {
            if shown >= limit { return out + "…" }
            let b = pending[i]
            let length = b < 0x80 ? 1 : b >= 0xC2 && b < 0xE0 ? 2 : b >= 0xE0 && b < 0xF0 ? 3 : b >= 0xF0 && b < 0xF5 ? 4 : 0
            if length > 0, i + length <= pending.count,
               let s = String(validating: pending[i..<i + length], as: UTF8.self), s.unicodeScalars.count == 1
            {
                out += excerpt(s, limit: 1)
                i += length
            } else {
                out += "\\x" + (b < 16 ? "0" : "") + String(b, radix: 16)
                i += 1
            }
            shown += 1
        }
        return cut ? out + "…" : out
    }
}

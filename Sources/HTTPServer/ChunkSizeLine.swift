/// The size a chunk of a chunked request body announces (RFC 9112 §7.1), read from
/// libmicrohttpd's read buffer, so a chunk past the body limit is refused when announced instead
/// of being read (and thrown away) for as long as it comes.
///
/// libmicrohttpd 0.9.75 decodes chunked bodies itself and hands the access handler only the
/// data, never the sizes. What it keeps: the body is read into the buffer right after the
/// request head, unread bytes are moved back to the start of that region after each pass, and
/// a chunk's data is handed over straight from the buffer. So when a chunk's first data comes in
/// the same pass as its size line, that line lies just before the data, after the previous line
/// end (or at the start of the region); when it came in an earlier pass, the data starts the
/// region and nothing is there (`absent`: the caller falls back to counting bytes).
enum ChunkSizeLine: Equatable {
    /// No size line precedes the data (it came in an earlier read).
    case absent
    /// The announced size in bytes.
    case size(UInt64)
    /// More hex digits than 64 bits hold.
    case tooLarge

    /// The longest size line looked for (hex digits and extensions).
    static let maxLineBytes = 256

    /// The line before `data` (the first byte of a chunk's data), looking no further back than
    /// `floor` (the start of the body's region of the buffer).
    static func before(_ data: UnsafePointer<UInt8>, floor: UnsafePointer<UInt8>) -> ChunkSizeLine {
        guard data > floor, data - floor <= 1 << 20 else { return .absent }
        var end = data
        guard end[-1] == UInt8(ascii: "\n") else { return .absent }
        end -= 1
        if end > floor && end[-1] == UInt8(ascii: "\r") { end -= 1 }
        var start = end
        while start > floor && start[-1] != UInt8(ascii: "\n") && start[-1] != UInt8(ascii: "\r") {
            start -= 1
            guard end - start <= maxLineBytes else { return .absent }
        }
        // chunk-size [ chunk-ext ]: hex digits, then optional blanks and ';' extensions.
        var p = start
        var value: UInt64 = 0
        var digits = 0, significant = 0
        while p < end, let d = hexValue(p.pointee) {
            digits += 1
            if significant > 0 || d != 0 { significant += 1 }
            if significant <= 16 { value = value << 4 | UInt64(d) }
            p += 1
        }
        guard digits > 0 else { return .absent }
        while p < end && (p.pointee == UInt8(ascii: " ") || p.pointee == UInt8(ascii: "\t")) { p += 1 }
        guard p == end || p.pointee == UInt8(ascii: ";") else { return .absent }
        return significant > 16 ? .tooLarge : .size(value)
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

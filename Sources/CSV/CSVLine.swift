/// The fast path of the CSV module: the fields of one line as byte ranges, with no allocation.
///
/// `taxipot transform` reads millions of short `x,y` lines and must stay an order of magnitude
/// faster than its peers as a whole process; `CSVReader` makes a `String` per field, which costs
/// more than the coordinate conversion itself. This scanner follows the same quoting rules on one
/// line (a quoted field cannot span lines here) and leaves the bytes where they are, so a caller
/// can replace two fields and copy the rest of the line through.
public enum CSVLine {
    /// What separates the fields of a line.
    public enum Separator: Sendable, Equatable {
        /// One byte (comma, semicolon, tab, `|`); RFC 4180 quoting applies.
        case byte(UInt8)
        /// Runs of spaces and tabs, leading and trailing ones ignored, no quoting (the cs2cs habit).
        case whitespace

        /// The comma.
        public static let comma = Separator.byte(0x2C)

        /// Parses a `--delimiter` value: `,` `;` `|` `tab` (or `\t`), and with `allowWhitespace`
        /// also `space`/`whitespace`; nil when it is none of them.
        public init?(option: String, allowWhitespace: Bool) {
            switch option.lowercased() {
            case ",", "comma": self = .byte(0x2C)
            case ";", "semicolon": self = .byte(0x3B)
            case "|", "pipe": self = .byte(0x7C)
            case "tab", "\\t", "\t": self = .byte(0x09)
            case "space", "whitespace", " ":
                guard allowWhitespace else { return nil }
                self = .whitespace
            default: return nil
            }
        }

        /// The byte a writer puts between fields (a space for whitespace).
        public var outputByte: UInt8 {
            switch self {
            case .byte(let b): return b
            case .whitespace: return 0x20
            }
        }
    }

    /// The byte ranges of a line's fields, written to `ranges` (quotes stay in the range; see
    /// `unquoted`). False when a quoted field is not closed on the line.
    public static func fieldRanges(_ line: UnsafeBufferPointer<UInt8>, separator: Separator = .comma,
                                   into ranges: inout [Range<Int>]) -> Bool
    {
        ranges.removeAll(keepingCapacity: true)
        let n = line.count
        guard case .byte(let sep) = separator else {
            var i = 0
            while true {
                while i < n, line[i] == 32 || line[i] == 9 { i += 1 }
                if i >= n { return true }
                let start = i
                while i < n, line[i] != 32, line[i] != 9 { i += 1 }
                ranges.append(start..<i)
            }
        }
        var i = 0
        while true {
            let start = i
            if i < n, line[i] == 34 {  // quoted field
                i += 1
                var closed = false
                while i < n {
                    if line[i] == 34 {
                        if i + 1 < n, line[i + 1] == 34 { i += 2; continue }
                        i += 1
                        closed = true
                        break
                    }
                    i += 1
                }
                guard closed else { return false }
                while i < n, line[i] != sep { i += 1 }  // anything after the closing quote stays in the field
            } else {
                while i < n, line[i] != sep { i += 1 }
            }
            ranges.append(start..<i)
            if i >= n { return true }
            i += 1  // past the separator
        }
    }

    /// A field's value bytes: without surrounding spaces and quotes (doubled quotes are kept as-is).
    public static func unquoted(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int> {
        var lo = range.lowerBound, hi = range.upperBound
        while lo < hi, line[lo] == 32 || line[lo] == 9 { lo += 1 }
        while hi > lo, line[hi - 1] == 32 || line[hi - 1] == 9 { hi -= 1 }
        if hi - lo >= 2, line[lo] == 34, line[hi - 1] == 34 { lo += 1; hi -= 1 }
        return lo..<hi
    }

    /// Header names: unquoted, spaces trimmed, a leading UTF-8 byte-order mark dropped; nil when a
    /// quoted name is not closed.
    public static func headerNames(_ line: [UInt8], separator: Separator = .comma) -> [String]? {
        var bytes = line
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        return bytes.withUnsafeBufferPointer { b -> [String]? in
            var ranges: [Range<Int>] = []
            guard fieldRanges(b, separator: separator, into: &ranges) else { return nil }
            return ranges.map { r in
                let u = unquoted(b, r)
                return String(decoding: b[u], as: UTF8.self).replacingDoubledQuotes()
            }
        }
    }
}

extension String {
    /// `""` as `"`.
    fileprivate func replacingDoubledQuotes() -> String {
        guard contains("\"\"") else { return self }
        var out = ""
        var previousQuote = false
        for c in self {
            if c == "\"" && previousQuote { previousQuote = false; continue }
            previousQuote = c == "\""
            out.append(c)
        }
        return out
    }
}

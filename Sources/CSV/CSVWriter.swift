/// Formats CSV records as RFC 4180 text (comma-separated), quoting a field only when it needs it.
///
/// A field is quoted when it holds a comma, a double quote, a CR or an LF; quotes inside
/// are doubled. Everything else is written as is.
public struct CSVWriter: Sendable {
    /// The line end after each record: "\n" (default) or "\r\n".
    public var lineEnd: [UInt8]

    public init(crlf: Bool = false) {
        lineEnd = crlf ? [0x0D, 0x0A] : [0x0A]
    }

    /// True when `field` must be quoted.
    public static func needsQuotes<S: StringProtocol>(_ field: S) -> Bool {
        for c in field.utf8 where c == 0x2C || c == 0x22 || c == 0x0D || c == 0x0A {
            return true
        }
        return false
    }

    /// Appends one field (without separator) to `out`.
    public static func appendField(_ field: String, to out: inout [UInt8]) {
        var field = field
        field.withUTF8 { bytes in
            var quote = false
            for c in bytes where c == 0x2C || c == 0x22 || c == 0x0D || c == 0x0A {
                quote = true
                break
            }
            guard quote else {
                out.append(contentsOf: bytes)
                return
            }
            out.append(0x22)
            for c in bytes {
                if c == 0x22 { out.append(0x22) }
                out.append(c)
            }
            out.append(0x22)
        }
    }

    /// Appends one field (without separator) to `out`.
    public static func appendField<S: StringProtocol>(_ field: S, to out: inout [UInt8]) {
        guard needsQuotes(field) else {
            out.append(contentsOf: field.utf8)
            return
        }
        out.append(0x22)
        for c in field.utf8 {
            if c == 0x22 { out.append(0x22) }
            out.append(c)
        }
        out.append(0x22)
    }

    /// Appends a whole record and its line end to `out`.
    public func appendRecord<S: StringProtocol>(_ fields: [S], to out: inout [UInt8]) {
        for (i, f) in fields.enumerated() {
            if i > 0 { out.append(0x2C) }
            Self.appendField(f, to: &out)
        }
        out.append(contentsOf: lineEnd)
    }

    /// One record as text, with its line end.
    public func format<S: StringProtocol>(_ fields: [S]) -> String {
        var out: [UInt8] = []
        appendRecord(fields, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

/// Why a JSON text was refused, with the byte offset where it went wrong.
public struct JSONParseError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public let offset: Int
    public var description: String { "\(message) at byte \(offset)" }
}

/// A strict RFC 8259 parser with limits: nesting depth, finite numbers only, and no key
/// twice in one object (RFC 8259 leaves duplicates to the reader; here they are an error).
public struct JSONParser {
    public static let defaultMaxDepth = 64

    /// Parses one JSON value from `bytes` (UTF-8); trailing non-space bytes are an error.
    public static func parse(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSONValue {
        var p = JSONParser(bytes: bytes, maxDepth: maxDepth)
        p.skipSpace()
        let v = try p.value(depth: 0)
        p.skipSpace()
        guard p.i == bytes.count else { throw JSONParseError(message: "unexpected text after the JSON value", offset: p.i) }
        return v
    }

    public static func parse(_ text: String, maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }

    let bytes: [UInt8]
    let maxDepth: Int
    var i = 0

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    func fail(_ m: String) -> JSONParseError { JSONParseError(message: m, offset: i) }

    /// A key for a message: JSON-quoted (so control characters are escaped), at most 60 characters.
    static func shown(_ key: String) -> String {
        let cut = key.unicodeScalars.count > 60 ? String(String.UnicodeScalarView(key.unicodeScalars.prefix(60))) : key
        var out: [UInt8] = []
        JSONWriter.writeString(cut, into: &out)
        return String(decoding: out, as: UTF8.self) + (cut.utf8.count < key.utf8.count ? "…" : "")
    }

    mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
        guard i < bytes.count else { throw fail("unexpected end of JSON") }
        switch bytes[i] {
        case UInt8(ascii: "{"):
            guard depth < maxDepth else { throw fail("JSON nested deeper than \(maxDepth) levels") }
            i += 1
            var members = [(String, JSONValue)]()
            // Keys seen, once an object has many (few are compared one by one).
            var seen: Set<String>?
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a string key") }
                let keyStart = i
                let key = try string()
                // A repeated key is refused: readers disagree on which one wins (first, last,
                // both), so two parsers could read one body two ways.
                let repeated: Bool
                if seen == nil && members.count < 16 {
                    repeated = members.contains { $0.0 == key }
                } else {
                    if seen == nil { seen = Set(members.map(\.0)) }
                    repeated = !seen!.insert(key).inserted
                }
                if repeated { throw JSONParseError(message: "duplicate key \(Self.shown(key)) in an object", offset: keyStart) }
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                i += 1
                skipSpace()
                members.append((key, try value(depth: depth + 1)))
                skipSpace()
                guard i < bytes.count else { throw fail("unexpected end of JSON") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
                throw fail("expected ',' or '}'")
            }
        case UInt8(ascii: "["):
            guard depth < maxDepth else { throw fail("JSON nested deeper than \(maxDepth) levels") }
            i += 1
            var items = [JSONValue]()
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            while true {
                skipSpace()
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard i < bytes.count else { throw fail("unexpected end of JSON") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
                throw fail("expected ',' or ']'")
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true"); return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false"); return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null"); return .null
        default:
            return .number(try number())
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let n = word.utf8CodeUnitCount
        guard i + n <= bytes.count else { throw fail("invalid literal") }
        let p = word.utf8Start
        for k in 0..<n where bytes[i + k] != p[k] { throw fail("invalid literal") }
        i += n
    }

    mutating func number() throws(JSONParseError) -> Double {
        let start = i
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 else { throw fail("invalid value") }
        if bytes[i] == 48 { i += 1 } else { while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 { i += 1 } }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 else { throw fail("invalid number") }
            while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 else { throw fail("invalid number") }
            while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 { i += 1 }
        }
        guard i - start <= 400 else { throw fail("number too long") }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        guard let v = Double(text), v.isFinite else {
            i = start
            throw fail("number out of range")
        }
        return v
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw fail("invalid \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[i]
            let d: UInt32
            switch c {
            case 48...57: d = UInt32(c - 48)
            case 65...70: d = UInt32(c - 55)
            case 97...102: d = UInt32(c - 87)
            default: throw fail("invalid \\u escape")
            }
            v = v * 16 + d
            i += 1
        }
        return v
    }

    mutating func string() throws(JSONParseError) -> String {
        i += 1  // opening quote
        var out = [UInt8]()
        var runStart = i
        while true {
            guard i < bytes.count else { throw fail("unterminated string") }
            let c = bytes[i]
            if c == UInt8(ascii: "\"") {
                out.append(contentsOf: bytes[runStart..<i])
                i += 1
                break
            }
            if c < 0x20 { throw fail("control character in string") }
            if c == UInt8(ascii: "\\") {
                out.append(contentsOf: bytes[runStart..<i])
                i += 1
                guard i < bytes.count else { throw fail("unterminated string") }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if scalar >= 0xD800 && scalar < 0xDC00 {
                        guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u")
                        else { throw fail("unpaired surrogate in string") }
                        i += 2
                        let low = try hex4()
                        guard low >= 0xDC00 && low < 0xE000 else { throw fail("unpaired surrogate in string") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if scalar >= 0xDC00 && scalar < 0xE000 {
                        throw fail("unpaired surrogate in string")
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape") }
                    out.append(contentsOf: Array(String(Character(u)).utf8))
                default:
                    throw fail("invalid escape in string")
                }
                runStart = i
                continue
            }
            i += 1
        }
        guard let s = String(validating: out, as: UTF8.self) else {
            throw fail("string is not valid UTF-8")
        }
        return s
    }
}

/// `X-Request-Id`: a client's id is kept when it is a plausible token, else one is made, and
/// either way the answer and the access log carry it.
public enum RequestID {
    /// Longest client id kept.
    public static let maxLength = 128

    /// The client's `X-Request-Id` when it is 1–128 characters of letters, digits and
    /// `-._:/+=@`, else a new random one (16 hex digits): an id that could break a log line or
    /// a header is never echoed.
    static func resolve(_ given: String?) -> String {
        if let given, !given.isEmpty, given.utf8.count <= maxLength, given.utf8.allSatisfy(isTokenByte) { return given }
        return generate()
    }

    static func generate() -> String {
        var g = SystemRandomNumberGenerator()
        let v = g.next() as UInt64
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    private static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "+"),
             UInt8(ascii: "="), UInt8(ascii: "@"): return true
        default: return false
        }
    }
}

import Foundation

/// The secrets of a libpq connection string, found as libpq reads the string, for messages and
/// logs that must never show them.
///
/// Secret are the values of `password` and `sslpassword` (the private key's pass phrase), in
/// every form libpq accepts: the password of a URI's user-info (`postgresql://user:secret@host`),
/// a URI query parameter (`?password=…`, also with a percent-encoded name such as `pass%77ord`),
/// and a `key=value` conninfo entry (spaces around `=`, single-quoted values with backslash
/// escapes). Names are compared without regard to case (a wrongly written name hides a value
/// rather than shows it). `passfile`, `sslkey` and the other file names are not secret: they
/// name where a secret is, which an operator needs to read.
public enum ConnectionSecrets {
    /// The parameter names whose values are secret.
    public static let secretNames: Set<String> = ["password", "sslpassword"]

    /// What a secret is shown as.
    public static let mask = "***"

    /// `conninfo` with every secret value replaced by `***`.
    public static func redacted(_ conninfo: String) -> String {
        let bytes = Array(conninfo.utf8)
        var out: [UInt8] = []
        var at = 0
        for r in ranges(bytes) where r.lowerBound >= at {
            out += bytes[at..<r.lowerBound]
            out += Array(mask.utf8)
            at = r.upperBound
        }
        out += bytes[at...]
        return String(decoding: out, as: UTF8.self)
    }

    /// `message` (from libpq or the server, which may quote the connection string) with every
    /// secret value of `conninfo`, as written or percent-decoded, replaced by `***`.
    public static func scrubbed(_ message: String, conninfo: String) -> String {
        let bytes = Array(conninfo.utf8)
        var secrets: Set<String> = []
        for r in ranges(bytes) {
            let raw = String(decoding: bytes[r], as: UTF8.self)
            secrets.insert(raw)
            if let decoded = raw.removingPercentEncoding { secrets.insert(decoded) }
            if raw.count >= 2 && raw.hasPrefix("'") && raw.hasSuffix("'") {
                secrets.insert(unquoted(raw.dropFirst().dropLast()))
            }
        }
        var text = message
        // Longest first, so a secret containing another is replaced whole.
        for s in secrets.filter({ !$0.isEmpty }).sorted(by: { $0.count > $1.count }) {
            text = text.replacingOccurrences(of: s, with: mask)
        }
        return text
    }

    /// The byte ranges of the secret values of `bytes`, in order, not overlapping.
    static func ranges(_ bytes: [UInt8]) -> [Range<Int>] {
        let found: [Range<Int>]
        if let scheme = uriPrefixLength(bytes) {
            found = uriRanges(bytes, authorityStart: scheme)
        } else {
            found = keywordRanges(bytes)
        }
        // Merge overlapping ranges (a URI's user-info may reach into its query).
        var merged: [Range<Int>] = []
        for r in found.sorted(by: { $0.lowerBound < $1.lowerBound }) where !r.isEmpty {
            if let last = merged.last, r.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, r.upperBound)
            } else {
                merged.append(r)
            }
        }
        return merged
    }

    /// The length of `postgresql://` or `postgres://` when `bytes` starts with one (libpq's URI
    /// designators), else nil.
    private static func uriPrefixLength(_ bytes: [UInt8]) -> Int? {
        for prefix in ["postgresql://", "postgres://"] {
            let p = Array(prefix.utf8)
            if bytes.count >= p.count && zip(bytes, p).allSatisfy({ lowercase($0) == $1 }) { return p.count }
        }
        return nil
    }

    /// A URI's secrets: the user-info's password (libpq: the user-info ends at the first `@`
    /// before any `/`; to the last `@` before the path here, so a password holding a raw `@`
    /// is hidden whole) and the values of secret query parameters.
    private static func uriRanges(_ bytes: [UInt8], authorityStart s: Int) -> [Range<Int>] {
        var found: [Range<Int>] = []
        let slash = bytes[s...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.count
        let firstAt = bytes[s..<slash].firstIndex(of: UInt8(ascii: "@"))
        if firstAt != nil, let lastAt = bytes[s..<slash].lastIndex(of: UInt8(ascii: "@")),
           let colon = bytes[s..<lastAt].firstIndex(of: UInt8(ascii: ":"))
        {
            found.append((colon + 1)..<lastAt)
        }
        guard let question = bytes[s...].firstIndex(of: UInt8(ascii: "?")) else { return found }
        var start = question + 1
        while start <= bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
            if let equals = bytes[start..<end].firstIndex(of: UInt8(ascii: "=")) {
                let name = String(decoding: bytes[start..<equals], as: UTF8.self)
                if isSecret(name.removingPercentEncoding ?? name) { found.append((equals + 1)..<end) }
            }
            start = end + 1
        }
        return found
    }

    /// A `key = value …` conninfo string's secret values (libpq's reading: a name, optional
    /// spaces, `=`, optional spaces, then a value up to the next space or a single-quoted one
    /// with `\'` and `\\` escapes; a value left unterminated runs to the end).
    private static func keywordRanges(_ bytes: [UInt8]) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var i = 0
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || (0x09...0x0D).contains(b) }
        while i < bytes.count {
            while i < bytes.count && isSpace(bytes[i]) { i += 1 }
            let nameStart = i
            while i < bytes.count && !isSpace(bytes[i]) && bytes[i] != UInt8(ascii: "=") { i += 1 }
            let name = String(decoding: bytes[nameStart..<i], as: UTF8.self)
            while i < bytes.count && isSpace(bytes[i]) { i += 1 }
            guard i < bytes.count, bytes[i] == UInt8(ascii: "=") else { continue }
            i += 1
            while i < bytes.count && isSpace(bytes[i]) { i += 1 }
            let valueStart = i
            if i < bytes.count && bytes[i] == UInt8(ascii: "'") {
                i += 1
                while i < bytes.count && bytes[i] != UInt8(ascii: "'") { i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1 }
                i = min(bytes.count, i + 1)
            } else {
                while i < bytes.count && !isSpace(bytes[i]) { i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1 }
                i = min(bytes.count, i)
            }
            if isSecret(name) { found.append(valueStart..<i) }
        }
        return found
    }

    private static func isSecret(_ name: String) -> Bool { secretNames.contains(name.lowercased()) }

    private static func lowercase(_ b: UInt8) -> UInt8 { (0x41...0x5A).contains(b) ? b + 0x20 : b }

    /// A quoted conninfo value's text (`\x` is `x`).
    private static func unquoted(_ s: Substring) -> String {
        var out = ""
        var escaped = false
        for c in s {
            if !escaped && c == "\\" { escaped = true; continue }
            out.append(c)
            escaped = false
        }
        return out
    }
}

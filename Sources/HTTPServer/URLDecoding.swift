/// Strict decoding of a request target into path and query pairs.
///
/// Percent-escapes must be two hex digits and decode to valid UTF-8; `+` in the query is a
/// space. Anything else is a 400 `invalid_url`, never a guess.
enum URLDecoding {
    static func split(target: String) throws(HTTPError) -> (path: String, query: [(name: String, value: String)]) {
        let bytes = Array(target.utf8)
        let q = bytes.firstIndex(of: UInt8(ascii: "?"))
        let pathBytes = q.map { Array(bytes[..<$0]) } ?? bytes
        let path = try decode(pathBytes[...], plusIsSpace: false, what: "path")
        var query: [(name: String, value: String)] = []
        if let q {
            let rest = bytes[(q + 1)...]
            for part in rest.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
                if let eq = part.firstIndex(of: UInt8(ascii: "=")) {
                    let name = try decode(part[..<eq], plusIsSpace: true, what: "query")
                    let value = try decode(part[(eq + 1)...], plusIsSpace: true, what: "query")
                    query.append((name, value))
                } else {
                    query.append((try decode(part, plusIsSpace: true, what: "query"), ""))
                }
            }
        }
        return (path, query)
    }

    static func decode(_ s: ArraySlice<UInt8>, plusIsSpace: Bool, what: String) throws(HTTPError) -> String {
        var out = [UInt8]()
        out.reserveCapacity(s.count)
        var i = s.startIndex
        while i < s.endIndex {
            let c = s[i]
            if c == UInt8(ascii: "%") {
                guard let h = hex(s, i + 1), let l = hex(s, i + 2) else {
                    throw HTTPError(status: 400, code: "invalid_url", message: "the \(what) has a malformed percent-escape")
                }
                out.append(h << 4 | l)
                i += 3
            } else {
                out.append(plusIsSpace && c == UInt8(ascii: "+") ? 0x20 : c)
                i += 1
            }
        }
        guard let text = String(validating: out, as: UTF8.self) else {
            throw HTTPError(status: 400, code: "invalid_url", message: "the \(what) is not valid UTF-8 once percent-decoded")
        }
        if text.utf8.contains(0) {
            throw HTTPError(status: 400, code: "invalid_url", message: "the \(what) contains a NUL character")
        }
        return text
    }

    private static func hex(_ s: ArraySlice<UInt8>, _ i: Int) -> UInt8? {
        guard i < s.endIndex else { return nil }
        switch s[i] {
        case 48...57: return s[i] - 48
        case 65...70: return s[i] - 55
        case 97...102: return s[i] - 87
        default: return nil
        }
    }
}

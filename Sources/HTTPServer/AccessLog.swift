import Foundation

/// How the access log writes a request: `text` (one human line) or `json` (one JSON object a line).
public enum AccessLogFormat: String, Sendable, CaseIterable {
    case text, json
}

/// One request as the access log records it.
struct AccessLogEntry {
    var requestID: String
    var method: String
    /// The matched route pattern (`/v1/parties/{id}`), so logs group by endpoint and carry no ids
    /// or query text; `unmatched` for answers given before or without a route.
    var route: String
    /// The request path without its query (the text format shows it; JSON keeps to `route`).
    var path: Substring
    var status: Int
    /// From the request's arrival to its answer queued; for a streamed answer, to its last byte.
    var seconds: Double
    /// Body bytes sent (after compression); for a streamed answer, every chunk's bytes (the line
    /// is written when the body ends, or the client leaves).
    var bytes: Int

    /// The line (with its newline) in `format`, stamped with the wall-clock time now.
    func line(_ format: AccessLogFormat) -> String {
        switch format {
        case .text:
            return "\(Self.timestamp()) \(method) \(path.prefix(200)) \(status) \(Int(seconds * 1e6))us \(bytes)B id=\(requestID)\n"
        case .json:
            var s = "{\"time\":\"\(Self.timestamp())\",\"request_id\":"
            Self.appendJSONString(requestID, to: &s)
            s += ",\"method\":"
            Self.appendJSONString(method, to: &s)
            s += ",\"path\":"
            Self.appendJSONString(route, to: &s)
            s += ",\"status\":\(status),\"duration_ms\":\(Double(Int(seconds * 1e6)) / 1000),\"bytes\":\(bytes)}\n"
            return s
        }
    }

    /// Now as RFC 3339 UTC with milliseconds: `2026-12-01T14:05:09.123Z`.
    static func timestamp() -> String {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        var t = tm()
        var secs = ts.tv_sec
        gmtime_r(&secs, &t)
        func pad(_ v: Int32, _ n: Int) -> String {
            let s = String(v)
            return s.count >= n ? s : String(repeating: "0", count: n - s.count) + s
        }
        return "\(pad(t.tm_year + 1900, 4))-\(pad(t.tm_mon + 1, 2))-\(pad(t.tm_mday, 2))T\(pad(t.tm_hour, 2)):\(pad(t.tm_min, 2)):\(pad(t.tm_sec, 2)).\(pad(Int32(ts.tv_nsec / 1_000_000), 3))Z"
    }

    static func appendJSONString(_ value: String, to s: inout String) {
        s += "\""
        for u in value.unicodeScalars {
            switch u {
            case "\"": s += "\\\""
            case "\\": s += "\\\\"
            case "\n": s += "\\n"
            case "\r": s += "\\r"
            case "\t": s += "\\t"
            default:
                if u.value < 0x20 {
                    let h = String(u.value, radix: 16)
                    s += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                } else {
                    s.unicodeScalars.append(u)
                }
            }
        }
        s += "\""
    }
}

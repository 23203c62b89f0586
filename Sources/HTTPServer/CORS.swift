/// Cross-origin resource sharing for browser clients on another origin (`--cors-origin`).
public struct CORSPolicy: Sendable, Equatable {
    /// `*` for any origin, else the one origin allowed (e.g. `https://map.example.com`).
    public let allowedOrigin: String

    /// Headers a browser may send (preflight answer): the bearer token, JSON bodies, ids, revalidation.
    public static let allowedHeaders = "Authorization, Content-Type, X-Request-Id, If-Match, If-None-Match, Accept-Encoding"
    /// Headers a browser script may read from an answer.
    public static let exposedHeaders = "ETag, X-Request-Id, Retry-After, Location"
    /// Seconds a browser may cache a preflight answer.
    public static let maxAgeSeconds = 600

    /// A policy for `origin`: `*`, or an origin `scheme://host[:port]` without path. Nil when it is neither.
    public init?(origin: String) {
        let o = origin.trimmingCharacters(in: .whitespaces)
        if o != "*" {
            guard let schemeEnd = o.range(of: "://"), ["http", "https"].contains(o[..<schemeEnd.lowerBound].lowercased()) else { return nil }
            let rest = o[schemeEnd.upperBound...]
            guard !rest.isEmpty, !rest.contains("/"), !rest.contains(" "), !rest.contains(",") else { return nil }
        }
        allowedOrigin = o
    }

    /// The `Access-Control-Allow-Origin` value for a request from `origin`, or nil when that
    /// origin is not allowed (the browser then withholds the answer from the page).
    func allowOrigin(for origin: String?) -> String? {
        guard let origin, !origin.isEmpty else { return nil }
        if allowedOrigin == "*" { return "*" }
        return origin == allowedOrigin ? origin : nil
    }

    /// Headers for an ordinary (non-preflight) answer to a request from `origin`.
    func headers(for origin: String?) -> [(String, String)] {
        guard let allow = allowOrigin(for: origin) else { return allowedOrigin == "*" ? [] : [("Vary", "Origin")] }
        var h: [(String, String)] = [("Access-Control-Allow-Origin", allow), ("Access-Control-Expose-Headers", Self.exposedHeaders)]
        if allow != "*" { h.append(("Vary", "Origin")) }
        return h
    }

    /// Headers for a preflight answer (`OPTIONS` with `Access-Control-Request-Method`).
    func preflightHeaders(for origin: String?, methods: [String]) -> [(String, String)] {
        guard let allow = allowOrigin(for: origin) else { return allowedOrigin == "*" ? [] : [("Vary", "Origin")] }
        var h: [(String, String)] = [
            ("Access-Control-Allow-Origin", allow),
            ("Access-Control-Allow-Methods", methods.joined(separator: ", ")),
            ("Access-Control-Allow-Headers", Self.allowedHeaders),
            ("Access-Control-Max-Age", String(Self.maxAgeSeconds)),
        ]
        if allow != "*" { h.append(("Vary", "Origin")) }
        return h
    }
}

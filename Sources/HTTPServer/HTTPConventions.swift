/// The HTTP conventions every answer follows, applied by the server after the handler:
/// `X-Request-Id`, CORS, `ETag`/304 on cacheable answers, gzip when the client accepts it,
/// and `OPTIONS` (CORS preflight included).
struct HTTPConventions: Sendable {
    /// CORS policy, or nil for none (no CORS headers; browsers keep other origins out).
    let cors: CORSPolicy?
    /// Bodies of at least this many bytes are gzip-compressed for clients that accept it; 0: never.
    let gzipMinBytes: Int
    /// gzip forms of recent cacheable answers (16 MB of identity + gzip bytes at most).
    let gzipCache = GzipCache(capacityBytes: 16 << 20)

    /// Headers every answer carries whatever its route: the request id and CORS.
    func baseHeaders(requestID: String, origin: String?) -> [(String, String)] {
        var h: [(String, String)] = [("X-Request-Id", requestID)]
        if let cors { h += cors.headers(for: origin) }
        return h
    }

    /// Applies the conventions to a handler's `response` for a request with `headers`.
    func apply(_ response: inout HTTPResponse, method: String, headers: [String: String], requestID: String, cacheable: Bool) {
        response.headers += baseHeaders(requestID: requestID, origin: headers["origin"])
        var hash: UInt64?
        if cacheable, response.status == 200, method == "GET" || method == "HEAD" {
            let h = ETag.hash(response.body)
            hash = h
            // A handler's own ETag (a party's version) is kept; otherwise the body's hash is the tag.
            let tag: String
            if let own = response.headers.first(where: { $0.0.lowercased() == "etag" })?.1 {
                tag = own
            } else {
                tag = ETag.tag(h)
                response.headers.append(("ETag", tag))
            }
            if !response.headers.contains(where: { $0.0 == "Cache-Control" }) { response.headers.append(("Cache-Control", "no-cache")) }
            if let inm = headers["if-none-match"], ETag.matches(inm, tag) {
                response.status = 304
                response.body = []
                response.headers.removeAll { $0.0 == "Content-Type" }
                return
            }
        }
        compress(&response, acceptEncoding: headers["accept-encoding"], hash: hash)
    }

    /// gzip for a body of at least `gzipMinBytes` of a text type, when `acceptEncoding` admits it.
    /// `hash`: the body's `ETag.hash` when it has a tag; such answers go through `gzipCache`.
    func compress(_ response: inout HTTPResponse, acceptEncoding: String?, hash: UInt64? = nil) {
        guard gzipMinBytes > 0, response.body.count >= gzipMinBytes, response.status != 204, response.status != 304,
              let type = response.headers.first(where: { $0.0 == "Content-Type" })?.1, Self.isCompressible(type),
              !response.headers.contains(where: { $0.0 == "Content-Encoding" })
        else { return }
        response.headers.append(("Vary", "Accept-Encoding"))
        guard let acceptEncoding, Gzip.isAccepted(by: acceptEncoding),
              let packed = hash.map({ gzipCache.packed(response.body, hash: $0) }) ?? Gzip.compress(response.body)
        else { return }
        response.body = packed
        response.headers.append(("Content-Encoding", "gzip"))
    }

    static func isCompressible(_ contentType: String) -> Bool {
        contentType.hasPrefix("application/json") || contentType.hasPrefix("text/") || contentType.hasPrefix("application/geo+json")
            || contentType.hasPrefix("application/javascript") || contentType.hasPrefix("image/svg+xml")
    }

    /// The answer to `OPTIONS` on a path whose routes allow `methods`: 204 with `Allow`, and
    /// with the CORS preflight headers when the origin is allowed.
    func options(methods: [String], headers: [String: String], requestID: String) -> HTTPResponse {
        var all = methods
        if all.contains("GET") && !all.contains("HEAD") { all.append("HEAD") }
        all.append("OPTIONS")
        var h: [(String, String)] = [("Allow", all.joined(separator: ", ")), ("X-Request-Id", requestID)]
        if let cors, headers["access-control-request-method"] != nil {
            h += cors.preflightHeaders(for: headers["origin"], methods: all)
        } else if let cors {
            h += cors.headers(for: headers["origin"])
        }
        return HTTPResponse(status: 204, headers: h)
    }
}

import JSON

/// An HTTP request as handlers see it: decoded path, query pairs, lower-cased headers, body.
public struct HTTPRequest: Sendable {
    public let method: String
    /// The path without the query string, percent-decoded.
    public let path: String
    /// Query parameters in order; a name may repeat.
    public let query: [(name: String, value: String)]
    /// Headers with lower-cased names.
    public let headers: [String: String]
    public let body: [UInt8]
    /// Values of `{name}` segments of the matched route pattern.
    public var pathParameters: [String: String] = [:]

    public init(method: String, path: String, query: [(name: String, value: String)] = [],
                headers: [String: String] = [:], body: [UInt8] = [])
    {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// The value of query parameter `name`; a repeated parameter is a 400 error.
    public func queryValue(_ name: String) throws(HTTPError) -> String? {
        var found: String?
        for q in query where q.name == name {
            if found != nil {
                throw HTTPError(status: 400, code: "repeated_parameter", message: "query parameter '\(name)' is given more than once")
            }
            found = q.value
        }
        return found
    }

    /// The value of a required query parameter; missing or empty is a 400 error naming it.
    public func requiredQueryValue(_ name: String) throws(HTTPError) -> String {
        guard let v = try queryValue(name), !v.isEmpty else {
            throw HTTPError(status: 400, code: "missing_parameter", message: "query parameter '\(name)' is required")
        }
        return v
    }

    /// The body parsed as JSON; an empty or invalid body is a 400 error.
    public func jsonBody() throws(HTTPError) -> JSONValue {
        guard !body.isEmpty else {
            throw HTTPError(status: 400, code: "invalid_json", message: "the request body must be a JSON document")
        }
        do {
            return try JSONParser.parse(body)
        } catch {
            throw HTTPError(status: 400, code: "invalid_json", message: "the request body is not valid JSON: \(error.description)")
        }
    }

    /// A header value by case-insensitive name.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// An HTTP response: status, extra headers and body bytes.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// A body written while it is sent, instead of `body` (see `streaming`).
    public var stream: BodyStream?

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON body with `Content-Type: application/json`.
    public static func json(_ value: JSONValue, status: Int = 200, headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: JSONWriter.bytes(value))
    }

    /// Pre-serialised JSON bytes.
    public static func json(bytes: [UInt8], status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: bytes)
    }

    public static func text(_ s: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", contentType)], body: Array(s.utf8))
    }

    /// 204 No Content.
    public static let noContent = HTTPResponse(status: 204)
}

/// An error answer: status, a snake_case code and a human sentence, sent as
/// `{"error":{"code":…,"message":…}}`.
public struct HTTPError: Error, Sendable, CustomStringConvertible {
    public let status: Int
    public let code: String
    public let message: String
    public var headers: [(String, String)]

    public init(status: Int, code: String, message: String, headers: [(String, String)] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    public var description: String { "\(status) \(code): \(message)" }

    public var response: HTTPResponse {
        .json(["error": ["code": .string(code), "message": .string(message)]], status: status, headers: headers)
    }

    public static func badRequest(_ code: String, _ message: String) -> HTTPError {
        HTTPError(status: 400, code: code, message: message)
    }

    public static func notFound(_ code: String, _ message: String) -> HTTPError {
        HTTPError(status: 404, code: code, message: message)
    }

    public static func unprocessable(_ code: String, _ message: String) -> HTTPError {
        HTTPError(status: 422, code: code, message: message)
    }
}

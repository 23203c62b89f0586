import JSON

/// A request handler. Throw `HTTPError` for an error answer; any other error is a 500.
public typealias HTTPHandler = @Sendable (HTTPRequest) throws -> HTTPResponse

/// One query or path parameter, for the OpenAPI document.
public struct ParameterDoc: Sendable {
    public let name: String
    public let location: String  // "query" or "path"
    public let required: Bool
    public let type: String  // "string", "integer", "number", "boolean"
    public let description: String
    /// A full JSON Schema of the value (pattern, range, enum …) when `type` alone under-describes it.
    public let schema: JSONValue?

    public init(_ name: String, in location: String = "query", required: Bool = false, type: String = "string", _ description: String,
                schema: JSONValue? = nil)
    {
        self.name = name
        self.location = location
        self.required = required
        self.type = type
        self.description = description
        self.schema = schema
    }
}

/// What the OpenAPI document says of one operation.
public struct OperationDoc: Sendable {
    public let summary: String
    public let parameters: [ParameterDoc]
    /// A JSON Schema of the request body, when the operation takes one.
    public let requestBody: JSONValue?
    /// Status codes this operation answers, besides the generic errors, with a description.
    public let responses: [(Int, String)]
    /// A JSON Schema of the success body (2xx), and an example of it.
    public let responseSchema: JSONValue?
    public let responseExample: JSONValue?
    /// An example request body.
    public let requestExample: JSONValue?
    /// The media types the success body may have (default `application/json` alone).
    public let responseContentTypes: [String]
    /// The first of `responseContentTypes`.
    public var responseContentType: String { responseContentTypes[0] }
    /// The schema of this operation's own error answers when they are not the API's
    /// `{"error":{…}}` (the OSRM and Kakao faces answer those APIs' error shapes).
    public let errorSchema: JSONValue?
    /// An example of those error answers.
    public let errorExample: JSONValue?
    /// The media types of the request body (default `application/json`).
    public let requestContentTypes: [String]

    public init(_ summary: String, parameters: [ParameterDoc] = [], requestBody: JSONValue? = nil,
                responses: [(Int, String)] = [(200, "OK")], responseSchema: JSONValue? = nil, responseExample: JSONValue? = nil,
                requestExample: JSONValue? = nil, responseContentType: String = "application/json",
                errorSchema: JSONValue? = nil, errorExample: JSONValue? = nil, requestContentTypes: [String] = ["application/json"],
                responseContentTypes: [String]? = nil)
    {
        self.errorExample = errorExample
        self.requestContentTypes = requestContentTypes
        self.errorSchema = errorSchema
        self.responseContentTypes = responseContentTypes ?? [responseContentType]
        self.summary = summary
        self.parameters = parameters
        self.requestBody = requestBody
        self.responses = responses
        self.responseSchema = responseSchema
        self.responseExample = responseExample
        self.requestExample = requestExample
    }
}

/// How much work a handler does, which decides the thread it may run on.
public enum HandlerCost: Sendable {
    /// Bounded CPU work in memory (tens to hundreds of µs), never blocking on disk, locks held by
    /// slow code, or sleeps. The server may run it on its I/O thread when no request waits for a
    /// worker, which saves two thread hand-offs per request.
    case light
    /// Anything else (large bodies, disk writes, possibly long computations): always on a worker.
    case heavy
    /// Long computations whose cost the request decides (tables of up to a million cells): the
    /// route's `BulkHandler` reads the request on a worker and names its cost; the server admits
    /// it against its budget of bulk work in flight (503 with `Retry-After` past it) and runs
    /// the rest on its own bulk pool, so light and heavy requests never wait behind it.
    case bulk
}

/// A bulk request once read: its cost, in the units of the server's bulk budget
/// (`HTTPServerOptions.bulkBudget`), and the long part, run on the bulk pool.
public struct BulkWork: Sendable {
    public let cost: Int
    /// What one unit of `cost` is, for the 503 message ("table cells").
    public let unit: String
    public let run: @Sendable () throws -> HTTPResponse

    public init(cost: Int, unit: String, _ run: @escaping @Sendable () throws -> HTTPResponse) {
        self.cost = max(0, cost)
        self.unit = unit
        self.run = run
    }
}

/// The first part of a `.bulk` route: reads and checks the request (throw `HTTPError` for an
/// error answer) and returns its cost and the rest of the work.
public typealias BulkHandler = @Sendable (HTTPRequest) throws -> BulkWork

/// An error a handler throws with its own answer (an API face whose errors are not
/// `HTTPError`'s shape: OSRM's `{"code","message"}`); `Router.answer` answers it as it is.
public protocol AnsweredError: Error {
    var response: HTTPResponse { get }
}

/// A route: method, path pattern with `{name}` segments, a name for metrics, and its handler.
public struct Route: Sendable {
    public let method: String
    public let pattern: String
    public let segments: [Substring]
    /// For each segment, its parameter's name when it is `{name}` (nil for a literal), worked out
    /// once here rather than per request.
    let parameterNames: [String?]
    public let doc: OperationDoc
    public let cost: HandlerCost
    /// True when a 200 answer gets an `ETag` and `If-None-Match` may turn it into a 304.
    public let cacheable: Bool
    /// The whole request in one call (for a `.bulk` route: its `bulk` part, then the work).
    public let handler: HTTPHandler
    /// A `.bulk` route's first part (the server runs the two parts on different pools).
    public let bulk: BulkHandler?

    init(method: String, pattern: String, doc: OperationDoc, cost: HandlerCost, cacheable: Bool, handler: @escaping HTTPHandler, bulk: BulkHandler?) {
        self.method = method
        self.pattern = pattern
        segments = pattern.split(separator: "/", omittingEmptySubsequences: true)
        parameterNames = segments.map { s in s.first == "{" && s.last == "}" ? String(s.dropFirst().dropLast()) : nil }
        self.doc = doc
        self.cost = cost
        self.cacheable = cacheable
        self.handler = handler
        self.bulk = bulk
    }
}

/// Method + path pattern → handler. Built once before the server starts; read-only after.
public final class Router: @unchecked Sendable {
    public private(set) var routes: [Route] = []

    public init() {}

    /// Adds a route. `pattern` is a path such as `/v1/parties/{id}`; `cost` says whether the
    /// handler is `.light` enough to run on the I/O thread (default `.heavy`: always on a worker).
    /// `cacheable` (default: GET routes) gives 200 answers an `ETag` for revalidation; pass false
    /// for answers that change with every call (health, metrics).
    public func add(_ method: String, _ pattern: String, _ doc: OperationDoc, cost: HandlerCost = .heavy,
                    cacheable: Bool? = nil, _ handler: @escaping HTTPHandler)
    {
        routes.append(Route(method: method, pattern: pattern, doc: doc, cost: cost,
                            cacheable: cacheable ?? (method == "GET"), handler: handler, bulk: nil))
    }

    /// Adds a `.bulk` route: `handler` reads the request and names its cost (see `HandlerCost.bulk`).
    public func addBulk(_ method: String, _ pattern: String, _ doc: OperationDoc, cacheable: Bool? = nil,
                        _ handler: @escaping BulkHandler)
    {
        routes.append(Route(method: method, pattern: pattern, doc: doc, cost: .bulk,
                            cacheable: cacheable ?? (method == "GET"), handler: { try handler($0).run() }, bulk: handler))
    }

    /// Runs `check` before the handler of every route added so far whose pattern `matches`:
    /// what it throws is the answer (a guard for a group of routes, such as a store not ready).
    public func guardRoutes(where matches: (String) -> Bool, _ check: @escaping @Sendable (HTTPRequest) throws -> Void) {
        routes = routes.map { r in
            guard matches(r.pattern) else { return r }
            let handler = r.handler
            let bulk = r.bulk.map { bulk -> BulkHandler in { req in try check(req); return try bulk(req) } }
            return Route(method: r.method, pattern: r.pattern, doc: r.doc, cost: r.cost, cacheable: r.cacheable,
                         handler: { req in try check(req); return try handler(req) }, bulk: bulk)
        }
    }

    /// The outcome of matching a path.
    public enum Match: Sendable {
        case found(Route, [String: String])
        case methodNotAllowed([String])
        case notFound
    }

    public func match(method: String, path: String) -> Match {
        // Split on the UTF-8 bytes ('/' is never part of another character): a split by Character
        // walks grapheme boundaries, about 27k instructions for an OSRM path of two points.
        let parts = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map { Substring($0) }
        var allowed: [String] = []
        for r in routes where r.segments.count == parts.count {
            var params: [String: String] = [:]
            var ok = true
            for (i, p) in parts.enumerated() {
                if let name = r.parameterNames[i] {
                    params[name] = String(p)
                } else if r.segments[i] != p {
                    ok = false
                    break
                }
            }
            guard ok else { continue }
            if r.method == method || (method == "HEAD" && r.method == "GET") { return .found(r, params) }
            allowed.append(r.method)
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed)
    }

    /// Dispatches a request: matched handler, or 404/405 JSON errors; HTTPError becomes its answer.
    public func handle(_ request: HTTPRequest) -> (route: String, response: HTTPResponse) {
        handle(request, match(method: request.method, path: request.path))
    }

    /// Dispatches a request whose path was already matched (`m` from `match(method:path:)`).
    public func handle(_ request: HTTPRequest, _ m: Match) -> (route: String, response: HTTPResponse) {
        switch m {
        case .notFound:
            return ("unmatched", HTTPError(status: 404, code: "not_found", message: "no endpoint at \(request.method) \(request.path.prefix(200))").response)
        case .methodNotAllowed(let methods):
            let allow = methods.joined(separator: ", ")
            return ("unmatched", HTTPError(status: 405, code: "method_not_allowed",
                                           message: "\(request.method) is not allowed here; use \(allow)",
                                           headers: [("Allow", allow)]).response)
        case .found(let route, let params):
            var req = request
            req.pathParameters = params
            return (route.pattern, Self.answer { try route.handler(req) })
        }
    }

    /// The answer `body` gives: its response, the answer of the `HTTPError` it throws, or a 500.
    public static func answer(_ body: () throws -> HTTPResponse) -> HTTPResponse {
        do {
            return try body()
        } catch let e as HTTPError {
            return e.response
        } catch let e as any AnsweredError {
            return e.response
        } catch {
            return HTTPError(status: 500, code: "internal_error", message: "internal error: \(error)").response
        }
    }
}

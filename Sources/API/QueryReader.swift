import Geo
import HTTPServer
import JSON

/// Reads an operation's query parameters from the same `ParameterDoc` list that gives the
/// OpenAPI document its `parameters`, so a parameter cannot be documented one way and parsed
/// another: the names a handler may read, which are required, and the checks the server makes
/// itself (type, `enum`, `minimum`/`maximum`) all come from the declaration.
///
/// Every handler reads its query through one (`Router.operation` builds it from the operation's
/// `OperationDoc`); the wording of each refusal is the handler's (`invalid:`), the rule is the
/// declaration's. Checks that belong to the engine (a route's `max_snap_m`, the via-point count)
/// are left to it; the handler maps its domain error (`ErrorMapping`).
struct QueryReader {
    let request: HTTPRequest
    /// The operation's parameters (a handful: a scan costs less than building a dictionary per request).
    private let declared: [ParameterDoc]

    init(_ request: HTTPRequest, _ parameters: [ParameterDoc]) {
        self.request = request
        declared = parameters
    }

    /// The declaration of `name`. A handler reading a parameter its operation does not declare
    /// is a server bug: a 500 naming it (`QueryParameterTests` walks every operation to keep it out).
    func declaration(_ name: String) throws(HTTPError) -> ParameterDoc {
        guard let d = declared.first(where: { $0.name == name && $0.location == "query" }) else {
            throw HTTPError(status: 500, code: "internal_error", message: "internal error: query parameter '\(name)' is read but not declared")
        }
        return d
    }

    /// The text of `name`, nil when absent; a required one absent or empty is a 400
    /// `missing_parameter`, one given twice a 400 `repeated_parameter`.
    func text(_ name: String) throws(HTTPError) -> String? {
        try declaration(name).required ? try request.requiredQueryValue(name) : try request.queryValue(name)
    }

    /// The operation's query parameters.
    var declaredQueryParameters: [ParameterDoc] { declared.filter { $0.location == "query" } }

    /// Names in the query the operation does not declare, in order (the OSRM face refuses them
    /// as OSRM does; `/v1/places` points at Kakao's `query`).
    func undeclaredNames() -> [String] {
        request.query.map(\.name).filter { name in !declared.contains { $0.name == name && $0.location == "query" } }
    }

    /// The text of a required parameter (see `text(_:)`).
    func requiredText(_ name: String) throws(HTTPError) -> String {
        guard try declaration(name).required else {
            throw HTTPError(status: 500, code: "internal_error", message: "internal error: query parameter '\(name)' is read as required but declared optional")
        }
        return try request.requiredQueryValue(name)
    }

    /// The text of a required parameter whose absence the domain refuses in its own words
    /// (`q` of `/v1/places`: `empty_query`); nil when absent.
    func textCheckedByDomain(_ name: String) throws(HTTPError) -> String? {
        _ = try declaration(name)
        return try request.queryValue(name)
    }

    /// The value `parse` makes of the text, nil when absent; `invalid(text)` is the refusal
    /// when `parse` gives nil.
    func value<T>(_ name: String, _ parse: (String) -> T?, invalid: (String) -> HTTPError) throws(HTTPError) -> T? {
        guard let text = try text(name) else { return nil }
        guard let v = parse(text) else { throw invalid(text) }
        return v
    }

    // MARK: Checks taken from the declaration's schema

    /// The declared range: `minimum` (or `exclusiveMinimum`) and `maximum`.
    func bounds(_ name: String) throws(HTTPError) -> (lower: Double, exclusive: Bool, upper: Double) {
        let schema = try declaration(name).schema ?? [:]
        let exclusive = schema["exclusiveMinimum"]?.doubleValue
        return (exclusive ?? schema["minimum"]?.doubleValue ?? -.infinity, exclusive != nil, schema["maximum"]?.doubleValue ?? .infinity)
    }

    /// True when `v` lies in the declared range.
    func fits(_ v: Double, _ name: String) throws(HTTPError) -> Bool {
        let b = try bounds(name)
        return (b.exclusive ? v > b.lower : v >= b.lower) && v <= b.upper
    }

    /// A whole number in the declared range, nil when absent:
    /// "query parameter 'x' must be a whole number from A to B, got '…'".
    func integer(_ name: String) throws(HTTPError) -> Int? {
        let b = try bounds(name)
        let low = b.lower.isFinite ? Int(b.lower) : Int.min, high = b.upper.isFinite ? Int(b.upper) : Int.max
        return try value(name, { Int($0).flatMap { (low...high).contains($0) ? $0 : nil } }) { text in
            .badRequest("invalid_parameter", "query parameter '\(name)' must be a whole number from \(low) to \(high), got '\(text.prefix(40))'")
        }
    }

    /// A finite number in the declared range, nil when absent; the default refusal is
    /// "query parameter 'x' must be a number from A to B, got '…'".
    func number(_ name: String, invalid: ((String) -> HTTPError)? = nil) throws(HTTPError) -> Double? {
        let b = try bounds(name)
        guard let text = try text(name) else { return nil }
        guard let v = NumberParsing.finiteDouble(text), try fits(v, name) else {
            throw invalid?(text) ?? .badRequest("invalid_parameter", "query parameter '\(name)' must be a number from \(b.lower) to \(b.upper), got '\(text.prefix(40))'")
        }
        return v
    }

    /// A required number (see `number(_:invalid:)`).
    func requiredNumber(_ name: String, invalid: ((String) -> HTTPError)? = nil) throws(HTTPError) -> Double {
        _ = try requiredText(name)
        return try number(name, invalid: invalid)!  // present: requiredText threw otherwise
    }

    /// One of the declared `enum` values, nil when absent; the default refusal is
    /// "query parameter 'x' must be a, b or c, got '…'".
    func choice(_ name: String, invalid: ((String) -> HTTPError)? = nil) throws(HTTPError) -> String? {
        let allowed = (try declaration(name).schema?["enum"]?.arrayValue ?? []).compactMap(\.stringValue)
        guard let text = try text(name) else { return nil }
        guard allowed.contains(text) else {
            let list = allowed.count > 1 ? allowed.dropLast().joined(separator: ", ") + " or " + allowed[allowed.count - 1] : allowed.joined()
            throw invalid?(text) ?? .badRequest("invalid_parameter", "query parameter '\(name)' must be \(list), got '\(text.prefix(40))'")
        }
        return text
    }

    /// One of the declared values as `T` (an enum whose raw values the declaration lists).
    func choice<T: RawRepresentable>(_ name: String, as: T.Type, invalid: ((String) -> HTTPError)? = nil) throws(HTTPError) -> T? where T.RawValue == String {
        try choice(name, invalid: invalid).flatMap(T.init(rawValue:))
    }

    // MARK: Shapes many operations share

    /// A point "lon,lat" (WGS84 degrees), nil when absent; `invalid` words the refusal.
    func point(_ name: String, invalid: (String) -> HTTPError) throws(HTTPError) -> Coordinate? {
        try value(name, { Coordinate.parseDegrees(Substring($0)) }, invalid: invalid)
    }

    /// A required point (see `point(_:invalid:)`).
    func requiredPoint(_ name: String, invalid: (String) -> HTTPError) throws(HTTPError) -> Coordinate {
        let text = try requiredText(name)
        guard let c = Coordinate.parseDegrees(Substring(text)) else { throw invalid(text) }
        return c
    }

    /// A required box "west,south,east,north" in decimal degrees, exactly as the document's
    /// `APISchemas.bboxQuery` pattern writes it (no exponent, `+` or spaces; longitudes within
    /// ±180, latitudes within ±90); `invalid` words the refusal. The bounds' order is the caller's
    /// to check (a 422: the pattern cannot say it).
    func requiredBox(_ name: String, invalid: (String) -> HTTPError) throws(HTTPError) -> BoundingBox {
        let text = try requiredText(name)
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 4, let w = Coordinate.parseLongitude(parts[0]), let s = Coordinate.parseLatitude(parts[1]),
              let e = Coordinate.parseLongitude(parts[2]), let n = Coordinate.parseLatitude(parts[3]) else { throw invalid(text) }
        return BoundingBox(west: w, south: s, east: e, north: n)
    }

    /// An ISO 8601 date-time (no offset: Asia/Seoul), nil when absent.
    func dateTime(_ name: String) throws(HTTPError) -> Double? {
        try value(name, { SeoulTime.parse($0) }) { text in
            .badRequest("invalid_parameter", "query parameter '\(name)' must be an ISO 8601 date-time such as 2025-05-01T08:30:00+09:00, got '\(text.prefix(60))'")
        }
    }

    /// An instant as ISO 8601 or Unix seconds, nil when absent.
    func instant(_ name: String) throws(HTTPError) -> Double? {
        try value(name, { NumberParsing.finiteDouble($0) ?? SeoulTime.parse($0) }) { text in
            .badRequest("invalid_parameter", "query parameter '\(name)' must be an ISO 8601 date-time or Unix seconds, got '\(text.prefix(40))'")
        }
    }
}

extension Router {
    /// Adds an operation whose handler reads its query through a `QueryReader` over
    /// `doc.parameters`: the list the OpenAPI document shows is the list the handler may read.
    func operation(_ method: String, _ pattern: String, _ doc: OperationDoc, cost: HandlerCost = .heavy, cacheable: Bool? = nil,
                   _ handler: @escaping @Sendable (HTTPRequest, QueryReader) throws -> HTTPResponse)
    {
        add(method, pattern, doc, cost: cost, cacheable: cacheable) { req in try handler(req, QueryReader(req, doc.parameters)) }
    }
}

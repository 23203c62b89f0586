import HTTPServer
import JSON

/// Builds the OpenAPI 3.1 document from the router's routes, so no route can be missing from it.
/// The schemas `ComponentSchemas` names are defined once under `components/schemas` and
/// referenced by `$ref` wherever an operation uses them.
public enum OpenAPIDocument {
    /// The generic error answers every operation may give.
    static let genericErrors: [(Int, String)] = [
        (400, "Bad input"), (404, "Unknown route or id"), (405, "Method not allowed"),
        (413, "Body over 1 MiB"), (414, "URL over 8 KiB"), (503, "Overloaded; retry after the Retry-After seconds"),
    ]

    public static func build(router: Router, dataset: DatasetInfo) -> JSONValue {
        var paths: [(String, JSONValue)] = []
        var byPath: [String: [(String, JSONValue)]] = [:]
        var order: [String] = []
        for route in router.routes {
            if byPath[route.pattern] == nil { order.append(route.pattern) }
            byPath[route.pattern, default: []].append((route.method.lowercased(), operation(route)))
        }
        for p in order { paths.append((p, .object(byPath[p]!))) }
        let components = ComponentSchemas(router: router)
        return [
            "openapi": "3.1.0",
            "info": [
                "title": "Taxipot engine API",
                "version": .string(APIVersion.api),
                "description": .string("Coordinates, places, routes, fares and parties for a Korean taxi-pooling service. Dataset: \(dataset.name)."),
            ],
            "x-dataset": ["name": .string(dataset.name), "version": .string(dataset.version)],
            "components": [
                "schemas": components.definitions,
                "securitySchemes": ["bearerAuth": ["type": "http", "scheme": "bearer",
                                                   "description": "the server's TAXIPOT_WRITE_TOKEN, needed by writes"]],
            ],
            "paths": components.referencing(.object(paths)),
        ]
    }

    static let errorSchema: JSONValue = [
        "type": "object",
        "required": ["error"],
        "additionalProperties": false,
        "properties": ["error": ["type": "object", "required": ["code", "message"], "additionalProperties": false,
                                 "properties": ["code": ["type": "string", "pattern": "^[a-z][a-z0-9_]*$"],
                                                "message": ["type": "string", "minLength": 1],
                                                "offer": ResponseSchemas.joinOffer]]],
    ]

    /// The error code a response description starts with (`invalid_id, …` → `invalid_id`), else a generic one.
    static func errorCode(_ status: Int, _ description: String) -> String {
        let first = description.unicodeScalars.prefix { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
        if first.contains("_") { return String(String.UnicodeScalarView(first)) }
        switch status {
        case 400: return "invalid_parameter"
        case 401: return "unauthorized"
        case 403: return "writes_disabled"
        case 404: return "not_found"
        case 405: return "method_not_allowed"
        case 413: return "body_too_large"
        case 414: return "uri_too_long"
        case 503: return "overloaded"
        default: return "error"
        }
    }

    static func errorResponse(_ status: Int, _ description: String, schema: JSONValue? = nil, example: JSONValue? = nil) -> JSONValue {
        if let schema {
            return ["description": .string(description), "content": ["application/json": ["schema": schema, "example": example ?? .null]]]
        }
        return ["description": .string(description),
         "content": ["application/json": [
             "schema": ["$ref": "#/components/schemas/Error"],
             "example": ["error": ["code": .string(errorCode(status, description)), "message": .string(description)]],
         ]]]
    }

    /// A success answer: its schema when the route gives one, in each of its media types; no body for 204/304.
    static func successResponse(_ route: Route, _ status: Int, _ description: String) -> JSONValue {
        if status == 204 || status == 304 { return ["description": .string(description)] }
        var media: [(String, JSONValue)] = [("schema", route.doc.responseSchema ?? ["type": "object"])]
        if let example = route.doc.responseExample { media.append(("example", example)) }
        return ["description": .string(description),
                "content": .object(route.doc.responseContentTypes.map { ($0, .object(media)) })]
    }

    /// `<method>_<path segments>`, `{x}` read as `by_x` (`get_v1_parties_by_id`); `/` is `root`.
    static func operationID(_ route: Route) -> String {
        let segments = route.pattern.split(separator: "/").map {
            $0.replacingOccurrences(of: "{", with: "by_").replacingOccurrences(of: "}", with: "").replacingOccurrences(of: ".", with: "_")
        }
        return ([route.method.lowercased()] + (segments.isEmpty ? ["root"] : segments)).joined(separator: "_")
    }

    static func operation(_ route: Route) -> JSONValue {
        var op: [(String, JSONValue)] = [("summary", .string(route.doc.summary))]
        op.append(("operationId", .string(operationID(route))))
        if !route.doc.parameters.isEmpty {
            op.append(("parameters", .array(route.doc.parameters.map { p in
                ["name": .string(p.name), "in": .string(p.location), "required": .bool(p.required || p.location == "path"),
                 "description": .string(p.description), "schema": p.schema ?? ["type": .string(p.type)]]
            })))
        }
        if let body = route.doc.requestBody {
            var media: [(String, JSONValue)] = [("schema", body)]
            if let example = route.doc.requestExample { media.append(("example", example)) }
            op.append(("requestBody", ["required": true, "content": .object(route.doc.requestContentTypes.map { ($0, .object(media)) })]))
        }
        if route.doc.responses.contains(where: { $0.0 == 401 }) {
            op.append(("security", [["bearerAuth": []]]))
        }
        var responses: [(String, JSONValue)] = route.doc.responses.map { status, text in
            (String(status), status >= 400 ? errorResponse(status, text, schema: route.doc.errorSchema, example: route.doc.errorExample) : successResponse(route, status, text))
        }
        if route.cacheable && !route.doc.responses.contains(where: { $0.0 == 304 }) {
            responses.append(("304", ["description": "Not modified: the If-None-Match tag is the answer's current ETag"]))
        }
        for (status, text) in genericErrors where !route.doc.responses.contains(where: { $0.0 == status }) {
            responses.append((String(status), errorResponse(status, text)))
        }
        op.append(("responses", .object(responses)))
        return .object(op)
    }
}

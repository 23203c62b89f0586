import HTTPServer
import JSON

/// Builds the OpenAPI 3.1 document from the router's routes, so no route can be missing from it.
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
        return [
            "openapi": "3.1.0",
            "info": [
                "title": "Taxipot engine API",
                "version": .string(dataset.version),
                "description": .string("Coordinates, places, routes, fares and parties for a Korean taxi-pooling service. Dataset: \(dataset.name)."),
            ],
            "components": ["schemas": ["Error": errorSchema]],
            "paths": .object(paths),
        ]
    }

    static let errorSchema: JSONValue = [
        "type": "object",
        "required": ["error"],
        "properties": ["error": ["type": "object", "required": ["code", "message"],
                                 "properties": ["code": ["type": "string"], "message": ["type": "string"]]]],
    ]

    static func operation(_ route: Route) -> JSONValue {
        var op: [(String, JSONValue)] = [("summary", .string(route.doc.summary))]
        let id = route.method.lowercased() + route.pattern.split(separator: "/").map {
            $0.replacingOccurrences(of: "{", with: "by_").replacingOccurrences(of: "}", with: "")
                .replacingOccurrences(of: ".", with: "_")
        }.joined(separator: "_")
        op.append(("operationId", .string(id)))
        if !route.doc.parameters.isEmpty {
            op.append(("parameters", .array(route.doc.parameters.map { p in
                ["name": .string(p.name), "in": .string(p.location), "required": .bool(p.required || p.location == "path"),
                 "description": .string(p.description), "schema": ["type": .string(p.type)]]
            })))
        }
        if let body = route.doc.requestBody {
            op.append(("requestBody", ["required": true, "content": ["application/json": ["schema": body]]]))
        }
        var responses: [(String, JSONValue)] = route.doc.responses.map { (String($0.0), ["description": .string($0.1)]) }
        for (status, text) in genericErrors where !route.doc.responses.contains(where: { $0.0 == status }) {
            responses.append((String(status), ["description": .string(text),
                                               "content": ["application/json": ["schema": ["$ref": "#/components/schemas/Error"]]]]))
        }
        op.append(("responses", .object(responses)))
        return .object(op)
    }
}

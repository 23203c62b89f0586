import JSON

/// JSON Schemas of the OSRM face's answers (OSRM v5's shapes, the members this face writes).
enum OSRMSchemas {
    typealias S = ResponseSchemas

    static let error: JSONValue = ["oneOf": [
        S.object(["code", "message"], [
            ("code", ["type": "string", "enum": .array(OSRMError.codes.map { .string($0) })]), ("message", S.string),
        ]),
        // The transport's own refusals (a malformed URL) come before the face and keep the API's shape.
        ["$ref": "#/components/schemas/Error"],
    ]]
    static let ok: JSONValue = ["const": "Ok"]
    static let waypoint: JSONValue = S.object(["distance", "name", "location"], [
        ("hint", S.string), ("distance", S.metres), ("name", S.string), ("location", S.position),
    ])
    static let numbers: JSONValue = S.array(S.number)
    static let annotation: JSONValue = S.object([], [
        ("duration", numbers), ("distance", numbers), ("weight", numbers), ("speed", numbers), ("datasources", numbers),
        ("metadata", S.object(["datasource_names"], [("datasource_names", S.array(S.string))])),
    ])
    static let leg: JSONValue = S.object(["steps", "summary", "weight", "duration", "distance"], [
        ("steps", ["type": "array", "maxItems": 0, "items": ["type": "object"], "description": "always empty: steps=false"]), ("summary", S.string), ("weight", S.seconds), ("duration", S.seconds),
        ("distance", S.metres), ("annotation", annotation),
    ])
    static let route: JSONValue = S.object(["code", "routes"], [
        ("code", ok),
        ("routes", S.array(S.object(["legs", "weight_name", "weight", "duration", "distance"], [
            ("geometry", ["oneOf": [S.string, S.lineString]]), ("legs", S.array(leg)), ("weight_name", S.string),
            ("weight", S.seconds), ("duration", S.seconds), ("distance", S.metres),
        ]))),
        ("waypoints", S.array(waypoint)),
    ])
    static let matrix: JSONValue = S.array(S.array(S.nullable(S.number)))
    static let table: JSONValue = S.object(["code"], [
        ("code", ok), ("durations", matrix), ("distances", matrix), ("sources", S.array(waypoint)), ("destinations", S.array(waypoint)),
    ])
    static let nearest: JSONValue = S.object(["code", "waypoints"], [
        ("code", ok),
        ("waypoints", S.array(S.object(["nodes", "distance", "name", "location"], [
            ("nodes", S.array(S.count)), ("hint", S.string), ("distance", S.metres), ("name", S.string), ("location", S.position),
        ]))),
    ])
}

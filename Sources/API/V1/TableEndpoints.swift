import Quoting
import FareEstimation
import Fares
import Foundation
import Geo
import HTTPServer
import JSON
import Routing

/// What a table answer carries per cell.
public struct TableAnnotations: Sendable, Equatable {
    public var duration = true
    public var distance = true
    public var fare = false

    public init(duration: Bool = true, distance: Bool = true, fare: Bool = false) {
        self.duration = duration
        self.distance = distance
        self.fare = fare
    }

    /// Parses names (`duration`, `distance`, `fare`); nil for an unknown or missing one.
    static func parse<S: Sequence>(_ names: S) -> TableAnnotations? where S.Element: StringProtocol {
        var a = TableAnnotations(duration: false, distance: false, fare: false)
        var any = false
        for name in names {
            switch name.trimmingSpaces() {
            case "duration": a.duration = true
            case "distance": a.distance = true
            case "fare": a.fare = true
            default: return nil
            }
            any = true
        }
        return any ? a : nil
    }
}

/// A parsed table request of `GET` or `POST /v1/table`.
struct TableQuery {
    var request: TableRequest
    var annotations: TableAnnotations
}

/// `GET /v1/table` and `POST /v1/table`: durations, distances and solo fares between points, in
/// OSRM's table shape.
enum TableEndpoint {
    /// Points per list: GET (the URL) and POST (the 1 MiB body).
    static let maxPointsGet = 100
    static let maxPointsPost = 1000
    /// Fares route each cell on its own (as a quote does), so they are offered for at most this many cells.
    static let maxFareCells = 10_000

    static let annotationsText = "comma-separated: duration, distance, fare (default duration,distance)"
    static let annotationsSchema: JSONValue = ["type": "string", "pattern": "^(duration|distance|fare)(,(duration|distance|fare)){0,2}$",
                                               "example": "duration,distance"]

    /// The answer: `{"durations","distances","fares_krw","sources","destinations","depart_at"}`, written
    /// directly (a million cells as a JSON tree would cost more than the search). Durations in
    /// seconds and distances in metres rounded to 0.1 as `GET /v1/route` rounds them; null where
    /// no route exists.
    static func encode(_ table: RouteTable, fares: [Int?]?, annotations: TableAnnotations, departAt: Double) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + table.durationsMs.count * ((annotations.duration ? 8 : 0) + (annotations.distance ? 9 : 0) + (fares != nil ? 6 : 0)))
        func key(_ k: String) { out.append(UInt8(ascii: "\"")); out += Array(k.utf8); out += Array("\":".utf8) }
        func matrix(_ name: String, _ cell: (Int) -> Void) {
            key(name)
            out.append(UInt8(ascii: "["))
            for i in 0..<table.sourceCount {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                out.append(UInt8(ascii: "["))
                for j in 0..<table.destinationCount {
                    if j > 0 { out.append(UInt8(ascii: ",")) }
                    cell(i * table.destinationCount + j)
                }
                out.append(UInt8(ascii: "]"))
            }
            out += Array("],".utf8)
        }
        let null = Array("null".utf8)
        out.append(UInt8(ascii: "{"))
        if annotations.duration {
            matrix("durations") { k in
                let ms = table.durationsMs[k]
                if ms == RouteTable.unreachable { out += null; return }
                JSONWriter.writeNumber((Double(ms) / 1000 * 10).rounded() / 10, into: &out)
            }
        }
        if annotations.distance {
            matrix("distances") { k in
                if table.durationsMs[k] == RouteTable.unreachable { out += null; return }
                JSONWriter.writeNumber((Double(table.distancesCm[k]) / 100 * 10).rounded() / 10, into: &out)
            }
        }
        if let fares {
            matrix("fares_krw") { k in
                if let f = fares[k] { JSONWriter.writeInteger(Int64(f), into: &out) } else { out += null }
            }
        }
        func points(_ name: String, _ list: [TablePoint]) {
            let value: JSONValue = .array(list.map { p in
                ["location": .array([.number((p.location.lon * 1e6).rounded() / 1e6), .number((p.location.lat * 1e6).rounded() / 1e6)]),
                 "distance_m": .number((p.distanceMeters * 10).rounded() / 10)]
            })
            key(name)
            JSONWriter.write(value, into: &out)
            out.append(UInt8(ascii: ","))
        }
        points("sources", table.sources)
        points("destinations", table.destinations)
        key("depart_at")
        JSONWriter.writeString(SeoulTime.format(departAt), into: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The work of a parsed query for the server's bulk pool, its cost in cells.
    static func work(_ q: TableQuery, _ context: ServiceContext) -> BulkWork {
        let cells = q.request.sources.count * (q.request.destinations?.count ?? q.request.sources.count)
        return BulkWork(cost: cells, unit: "table cells") { try answer(q, context) }
    }

    /// Answers a parsed query: the table, fares when asked for, JSON.
    static func answer(_ q: TableQuery, _ context: ServiceContext) throws(HTTPError) -> HTTPResponse {
        let table: RouteTable
        do throws(RoutingError) { table = try context.routeEngine.table(q.request) } catch { throw ErrorMapping.http(error) }
        var fares: [Int?]?
        if q.annotations.fare {
            do throws(FareRequestError) { fares = try context.quotes.soloFares(q.request, table: table) } catch {
                throw ErrorMapping.http(error, points: .route)
            }
        }
        return .json(bytes: encode(table, fares: fares, annotations: q.annotations, departAt: q.request.departAt))
    }

    /// Checks the sizes of a query: points per list and fare cells; errors name the field.
    static func checkLimits(_ q: TableQuery, maxPoints: Int) throws(HTTPError) {
        let sources = q.request.sources.count, destinations = q.request.destinations?.count ?? sources
        for (name, n) in [("sources", sources), ("destinations", destinations)] where n > maxPoints {
            throw .badRequest("too_many_points", "'\(name)' has \(n) points; at most \(maxPoints) are allowed here")
        }
        if q.annotations.fare && sources * destinations > maxFareCells {
            throw .badRequest("too_many_cells", "'annotations' asks for fares of \(sources * destinations) cells; fares are offered for at most \(maxFareCells) cells (a fare routes its cell on its own)")
        }
    }

    /// `GET /v1/table?sources=…[&destinations=…][&depart_at=][&annotations=][&max_snap_m=]`.
    static func parseGet(_ query: QueryReader) throws(HTTPError) -> TableQuery {
        func points(_ name: String) throws(HTTPError) -> [Coordinate]? {
            guard let text = try query.text(name) else { return nil }
            let parts = text.split(separator: ";", omittingEmptySubsequences: false)
            guard parts.count <= maxPointsGet else {
                throw .badRequest("too_many_points", "query parameter '\(name)' has \(parts.count) points; at most \(maxPointsGet) are allowed (POST /v1/table takes \(maxPointsPost))")
            }
            var out: [Coordinate] = []
            for (i, part) in parts.enumerated() {
                guard let c = Coordinate.parseDegrees(part) else {
                    throw .badRequest("invalid_parameter", "query parameter '\(name)': point \(i) must be lon,lat with longitude −180…180 and latitude −90…90, got '\(part.prefix(60))'")
                }
                out.append(c)
            }
            return out
        }
        let sources = try points("sources")!
        let destinations = try points("destinations")
        let departAt = try query.dateTime("depart_at") ?? SeoulTime.now()
        let annotations = try query.value("annotations", { TableAnnotations.parse($0.split(separator: ",", omittingEmptySubsequences: false)) }) { text in
            .badRequest("invalid_parameter", "query parameter 'annotations' must be \(annotationsText), got '\(text.prefix(60))'")
        } ?? TableAnnotations()
        let snap = try snapLimit(query)
        let q = TableQuery(request: TableRequest(sources: sources, destinations: destinations, departAt: departAt, maxSnapMeters: snap),
                           annotations: annotations)
        try checkLimits(q, maxPoints: maxPointsGet)
        return q
    }

    /// `POST /v1/table` with `{"sources":[[lon,lat],…],"destinations"?,"depart_at"?,"annotations"?,"max_snap_m"?}`
    /// (points also as `{"lon","lat"}`; annotations as a list or a comma-separated string).
    static func parsePost(_ json: JSONValue) throws(HTTPError) -> TableQuery {
        let b = try FareJSON.Body(json, schema: postSchema)
        func points(_ name: String) throws(HTTPError) -> [Coordinate]? {
            guard let v = b.present(name) else { return nil }
            guard let items = v.arrayValue else { throw .badRequest("invalid_parameter", "\(name) must be a list of [lon,lat] points") }
            guard items.count <= maxPointsPost else {
                throw .badRequest("too_many_points", "\(name) has \(items.count) points; at most \(maxPointsPost) are allowed")
            }
            var out: [Coordinate] = []
            out.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                if let pair = item.arrayValue {
                    guard pair.count == 2, let lon = pair[0].doubleValue, let lat = pair[1].doubleValue,
                          Coordinate(lon: lon, lat: lat).isValid
                    else {
                        throw .badRequest("invalid_parameter", "\(name)[\(i)] must be [lon,lat] with longitude −180…180 and latitude −90…90")
                    }
                    out.append(Coordinate(lon: lon, lat: lat))
                } else {
                    out.append(try FareJSON.Body.coordinate(item, name: "\(name)[\(i)]"))
                }
            }
            return out
        }
        guard let sources = try points("sources") else { throw .badRequest("missing_parameter", "sources is required") }
        let destinations = try points("destinations")
        var annotations = TableAnnotations()
        if let v = b.present("annotations") {
            let names: [String]? = v.arrayValue.map { $0.compactMap(\.stringValue) }.flatMap { $0.count == v.arrayValue?.count ? $0 : nil }
                ?? v.stringValue.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
            guard let names, let a = TableAnnotations.parse(names) else {
                throw .badRequest("invalid_parameter", "annotations must list \(annotationsText)")
            }
            annotations = a
        }
        // The engine's check, made here so the first fault of the body is the one answered.
        let snap = try b.number("max_snap_m") ?? 200
        do throws(RoutingError) { try RouteEngine.checkSnapLimit(snap) } catch { throw ErrorMapping.http(error) }
        let q = TableQuery(request: TableRequest(sources: sources, destinations: destinations, departAt: try b.departure() ?? SeoulTime.now(),
                                                 maxSnapMeters: snap),
                           annotations: annotations)
        try checkLimits(q, maxPoints: maxPointsPost)
        return q
    }
}

/// Registers `GET` and `POST /v1/table`.
func registerTableEndpoints(_ router: Router, _ context: ServiceContext) {
    let responses: [(Int, String)] = [
        (200, "{\"durations\":[[s]],\"distances\":[[m]],\"fares_krw\":[[won]],\"sources\":[{\"location\":[lon,lat],\"distance_m\"}],\"destinations\":[…],\"depart_at\"}: "
            + "one row per source, one column per destination, each the duration and distance of the route GET /v1/route returns for the pair "
            + "(rounded as it rounds them) and its solo metered fare; null where no road route exists; only the annotations asked for"),
        (400, "a parameter is missing or malformed (the message names it), too many points, or fares for more than \(TableEndpoint.maxFareCells) cells"),
        (422, "outside_coverage: no road within max_snap_m of a point (named sources[i] or destinations[j]); with fares, a source outside the fare regions"),
        (503, "overloaded: the table cells in flight on the server are at its budget (serve --table-cell-budget); Retry-After says when to retry"),
    ]
    let getDoc = OperationDoc(
        "Durations, distances and solo fares from every source to every destination (OSRM's table shape), at the traffic speeds of the departure hour",
        parameters: [
            ParameterDoc("sources", required: true, "points as lon,lat;lon,lat;… (WGS84, at most \(TableEndpoint.maxPointsGet))", schema: APISchemas.pointListQuery(1, TableEndpoint.maxPointsGet)),
            ParameterDoc("destinations", "points as lon,lat;… (at most \(TableEndpoint.maxPointsGet)); default: the sources", schema: APISchemas.pointListQuery(1, TableEndpoint.maxPointsGet)),
            ParameterDoc("depart_at", "departure time, ISO 8601 (no offset = Asia/Seoul); default now", schema: APISchemas.instantQuery),
            ParameterDoc("annotations", TableEndpoint.annotationsText, schema: TableEndpoint.annotationsSchema),
            ParameterDoc("max_snap_m", type: "number", "how far a point may be from a road, metres (default 200, at most 5000)", schema: APISchemas.number(0...RouteEngine.maxSnapLimitMeters, exclusiveMinimum: true)),
        ],
        responses: responses, responseSchema: ResponseSchemas.table, responseExample: ResponseSchemas.tableExample)
    router.addBulk("GET", "/v1/table", getDoc) { req in
        TableEndpoint.work(try TableEndpoint.parseGet(QueryReader(req, getDoc.parameters)), context)
    }
    let postDoc = OperationDoc(
        "The same table as GET /v1/table for up to \(TableEndpoint.maxPointsPost) × \(TableEndpoint.maxPointsPost) points, from a JSON body",
        requestBody: TableEndpoint.postSchema, responses: responses, responseSchema: ResponseSchemas.table,
        responseExample: ResponseSchemas.tableExample, requestExample: ["sources": [[126.97, 37.56], [126.98, 37.57]], "destinations": [[126.99, 37.57]], "annotations": ["duration", "fare"]])
    router.addBulk("POST", "/v1/table", postDoc) { req in
        TableEndpoint.work(try TableEndpoint.parsePost(try req.jsonBody()), context)
    }
}

extension TableEndpoint {
    static func points(_ description: String) -> JSONValue {
        ["type": "array", "minItems": 1, "maxItems": .number(Double(TableEndpoint.maxPointsPost)), "description": .string(description),
         "items": ["oneOf": [APISchemas.positionInput,
                             ["type": "object", "required": ["lon", "lat"], "additionalProperties": false,
                              "properties": ["lon": APISchemas.lon, "lat": APISchemas.lat]]]]]
    }

    /// The body of `POST /v1/table`; its properties are the fields the server accepts.
    static let postSchema: JSONValue = APISchemas.optionalsNullable([
        "type": "object",
        "required": ["sources"],
        "additionalProperties": false,
        "properties": [
            "sources": points("points as [lon,lat] (WGS84)"),
            "destinations": points("points as [lon,lat]; default: the sources"),
            "depart_at": ["type": "string", "pattern": .string("^" + APISchemas.dateTimeText + "$"), "description": "ISO 8601; default now; no offset means Asia/Seoul"],
            "annotations": ["description": .string("a list or a " + TableEndpoint.annotationsText),
                            "oneOf": [["type": "array", "minItems": 1, "items": ["type": "string", "enum": ["duration", "distance", "fare"]]], annotationsSchema]],
            "max_snap_m": ["type": "number", "exclusiveMinimum": 0, "maximum": .number(RouteEngine.maxSnapLimitMeters),
                           "description": "how far a point may be from a road, metres (default 200, at most 5000)"],
        ],
    ])
}

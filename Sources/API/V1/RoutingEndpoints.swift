import Foundation
import Geo
import HTTPServer
import JSON
import Routing

/// How a route's geometry is written.
public enum RouteGeometryFormat: String, Sendable, CaseIterable {
    /// Google's encoded polyline at 6 digits (OSRM's `polyline6`).
    case polyline6
    /// A GeoJSON LineString.
    case geojson
    /// No geometry.
    case none
}

/// The route answer, shared by `GET /v1/route` and `taxipot route`.
public enum RouteJSON {
    /// `{"distance_m","duration_s","depart_at","metric","geometry"?,"legs","snapped","street_names","measured_share"}`.
    public static func encode(_ r: RouteResult, departAt: Double, geometry: RouteGeometryFormat) -> JSONValue {
        func round(_ v: Double, _ digits: Double) -> JSONValue { .number((v * digits).rounded() / digits) }
        func point(_ c: Coordinate) -> JSONValue { .array([round(c.lon, 1e6), round(c.lat, 1e6)]) }
        var members: [(String, JSONValue)] = [
            ("distance_m", round(r.distanceMeters, 10)),
            ("duration_s", round(r.durationSeconds, 10)),
            ("depart_at", .string(SeoulTime.format(departAt))),
            ("metric", .string(r.metric.rawValue)),
        ]
        switch geometry {
        case .polyline6: members.append(("geometry", .string(Polyline.encode(r.geometry, precision: 6))))
        case .geojson: members.append(("geometry", ["type": "LineString", "coordinates": .array(r.geometry.map(point))]))
        case .none: break
        }
        members.append(("legs", .array(r.legs.map { ["distance_m": round($0.distanceMeters, 10), "duration_s": round($0.durationSeconds, 10)] })))
        members.append(("snapped", .array(zip(r.snapped, r.snapDistancesMeters).map { c, d in
            ["location": point(c), "distance_m": round(d, 10)]
        })))
        members.append(("street_names", .array(r.streetNames.map { .string($0) })))
        members.append(("measured_share", round(r.measuredShare, 1000)))
        return .object(members)
    }
}

/// `GET /v1/route`.
func registerRoutingEndpoints(_ router: Router, _ context: ServiceContext) {
    let doc = OperationDoc(
        "Fastest (or shortest) car route through the given points, with traffic speeds of the departure hour",
        parameters: [
            ParameterDoc("from", required: true, "start as lon,lat (WGS84)", schema: APISchemas.pointQuery),
            ParameterDoc("to", required: true, "destination as lon,lat (WGS84)", schema: APISchemas.pointQuery),
            ParameterDoc("via", "points to pass in order, lon,lat;lon,lat (at most \(RouteEngine.maxViaPoints))", schema: APISchemas.pointListQuery(1, RouteEngine.maxViaPoints)),
            ParameterDoc("depart_at", "departure time, ISO 8601 (no offset = Asia/Seoul); default now", schema: APISchemas.instantQuery),
            ParameterDoc("metric", "what to minimise: time (default) or distance", schema: APISchemas.oneOf(RouteMetric.allCases.map(\.rawValue))),
            ParameterDoc("geometry", "polyline6 (default), geojson or none", schema: APISchemas.oneOf(RouteGeometryFormat.allCases.map(\.rawValue))),
            ParameterDoc("max_snap_m", type: "number", "how far a point may be from a road, metres (default 200, at most 5000)", schema: APISchemas.number(0...RouteEngine.maxSnapLimitMeters, exclusiveMinimum: true)),
        ],
        responses: [(200, "The route: distance_m, duration_s, geometry, legs, snapped points, street_names, measured_share (share of the length on measured speeds)"),
                    (400, "A parameter is missing or malformed, or more than 25 via points"),
                    (404, "no_route: the points are not connected by road"),
                    (422, "outside_coverage: a point with no road within max_snap_m, or in a served area no road joins to the other point's (the message says how far the nearest served road is; see /v1/coverage)")],
        responseSchema: ResponseSchemas.route, responseExample: ResponseSchemas.routeExample)
    router.operation("GET", "/v1/route", doc, cost: .light) { _, query in
        let engine = context.routeEngine
        let (request, format) = try parseRouteQuery(query)
        let result: RouteResult
        do throws(RoutingError) { result = try engine.route(request) } catch { throw ErrorMapping.http(error) }
        return .json(RouteJSON.encode(result, departAt: request.departAt, geometry: format))
    }
}

/// Reads the query parameters of `GET /v1/route`; every error names its parameter. The engine's
/// checks of the via count and `max_snap_m` are made as those are read, so the first fault of
/// the query is the one answered.
func parseRouteQuery(_ query: QueryReader) throws(HTTPError) -> (RouteRequest, RouteGeometryFormat) {
    func coordinate(_ name: String) throws(HTTPError) -> Coordinate {
        try query.requiredPoint(name) { text in
            .badRequest("invalid_parameter", "query parameter '\(name)' must be lon,lat with longitude −180…180 and latitude −90…90, got '\(text.prefix(60))'")
        }
    }
    let from = try coordinate("from")
    let to = try coordinate("to")
    var via: [Coordinate] = []
    if let text = try query.text("via"), !text.isEmpty {
        do throws(RoutingError) { try RouteEngine.checkViaCount(text.split(separator: ";", omittingEmptySubsequences: false).count) } catch {
            throw ErrorMapping.http(error, query: text)
        }
        guard let list = Coordinate.parseDegreesList(text) else {
            throw .badRequest("invalid_parameter", "query parameter 'via' must be lon,lat;lon,lat;… with valid coordinates, got '\(text.prefix(60))'")
        }
        via = list
    }
    let departAt = try query.dateTime("depart_at") ?? SeoulTime.now()
    let metric = try query.choice("metric", as: RouteMetric.self) ?? .time
    let format = try query.choice("geometry", as: RouteGeometryFormat.self) ?? .polyline6
    let snap = try snapLimit(query)
    return (RouteRequest(from: from, to: to, via: via, departAt: departAt, metric: metric, maxSnapMeters: snap), format)
}

/// `max_snap_m` of `GET /v1/route` and `/v1/table` (default 200), checked by the engine's rule.
func snapLimit(_ query: QueryReader) throws(HTTPError) -> Double {
    guard let text = try query.text("max_snap_m") else { return 200 }
    guard let v = NumberParsing.finiteDouble(text) else { throw ErrorMapping.invalidSnapLimit(query: text) }
    do throws(RoutingError) { try RouteEngine.checkSnapLimit(v) } catch { throw ErrorMapping.http(error, query: text) }
    return v
}

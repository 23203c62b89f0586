import Foundation
import Geo
import HTTPServer
import JSON
import MapMatching
import Routing

/// OSRM v5's match service over `MapMatcher`: `GET /match/v1/{profile}/{coordinates}`, and POST
/// with the options in a form body (long traces' `timestamps` and `radiuses` outgrow a URL).
extension OSRMFace {
    /// The trace of a match request: the path's coordinates with `timestamps` (Unix seconds) and
    /// `radiuses` (each fix's σ, metres) from the options.
    static func trace(_ req: HTTPRequest, _ o: [String: String]) throws(OSRMError) -> [TraceFix] {
        let points = try coordinates(req)
        func list(_ name: String) throws(OSRMError) -> [Substring]? {
            guard let text = o[name] else { return nil }
            let parts = text.split(separator: ";", omittingEmptySubsequences: false)
            guard parts.count == points.count else {
                throw OSRMError("InvalidOptions", "Number of \(name) does not match number of coordinates")
            }
            return parts
        }
        var fixes = points.map { TraceFix($0) }
        if let times = try list("timestamps") {
            for (i, t) in times.enumerated() {
                guard let v = NumberParsing.finiteDouble(String(t)) else { throw invalid("timestamps", String(t), "Unix seconds") }
                fixes[i].time = v
            }
        }
        if let radii = try list("radiuses") {
            for (i, r) in radii.enumerated() where !r.isEmpty && r != "unlimited" {
                guard let v = NumberParsing.finiteDouble(String(r)), v > 0 else { throw invalid("radiuses", String(r), "metres above 0") }
                fixes[i].accuracyMeters = v
            }
        }
        return fixes
    }

    /// OSRM's reading of a matcher error.
    static func from(_ e: MatchError) -> OSRMError {
        switch e {
        case .tooFewFixes: OSRMError("InvalidOptions", "Number of coordinates needs to be at least two.")
        case .tooManyFixes(let n, let limit): OSRMError("TooBig", "Number of entries \(n) is higher than current maximum (\(limit))")
        case .invalidCoordinate: OSRMError("InvalidValue", "Invalid coordinate value.")
        case .invalidOption: OSRMError("InvalidOptions", e.message)
        case .missingTime, .invalidTime, .timeGoesBack, .invalidAccuracy: OSRMError("InvalidValue", e.message)
        case .noMatch: OSRMError("NoMatch", "Could not match the trace. (\(e.message))")
        }
    }

    /// Work units (table cells, `HTTPServerOptions.bulkBudget`) a fix costs: a 30-minute 1 Hz
    /// trace (1,800 fixes) is matched in about 20 ms in a release build, a million-cell table
    /// in about a second.
    static let cellsPerFix = 12

    /// `/match/v1/{profile}/{coordinates}`: the request read and checked (on a worker), its
    /// cost in fixes, and the matching (on the bulk pool). A request refused here throws its
    /// OSRM error (answered at once).
    static func matchWork(_ req: HTTPRequest, _ query: QueryReader, _ engine: RouteEngine) throws(OSRMError) -> BulkWork {
        let o = try options(query)
        try checkUnsupported(o)
        let fixes = try trace(req, o)
        if try bool(o, "steps", default: false) { throw OSRMError("NotImplemented", "steps=true is not supported (turn-by-turn instructions are not made)") }
        if let w = o["waypoints"], !w.isEmpty { throw OSRMError("NotImplemented", "waypoints are not supported (every matched fix is a waypoint)") }
        let format = try choice(o, "geometries", default: OSRMGeometry.polyline)
        let overview = try choice(o, "overview", default: OSRMOverview.simplified)
        let annotations = try annotationKeys(o["annotations"])
        let hints = try bool(o, "generate_hints", default: true)
        var options = MatchOptions()
        options.tidy = try bool(o, "tidy", default: false)
        switch o["gaps"] ?? "split" {
        case "split": options.splitGaps = true
        case "ignore": options.splitGaps = false
        case let g: throw invalid("gaps", g, "split or ignore")
        }
        options.departAt = SeoulTime.now()
        let matchOptions = options
        return BulkWork(cost: fixes.count * cellsPerFix, unit: "table cells (a trace fix counts \(cellsPerFix))") {
            do throws(OSRMError) {
                return try match(fixes, matchOptions, engine, format: format, overview: overview, annotations: annotations, hints: hints)
            } catch { return error.response }
        }
    }

    /// The matching of a checked trace, as OSRM answers it.
    static func match(_ fixes: [TraceFix], _ options: MatchOptions, _ engine: RouteEngine, format: OSRMGeometry, overview: OSRMOverview,
                      annotations: OSRMAnnotations, hints: Bool) throws(OSRMError) -> HTTPResponse {
        let result: MatchResult
        do throws(MatchError) { result = try MapMatcher(engine: engine).match(fixes, options: options) } catch { throw from(error) }
        return ok([("matchings", .array(result.matchings.map { matchingJSON($0, format: format, overview: overview, annotations: annotations) })),
                   ("tracepoints", .array(result.fixes.map { fix in
                       guard case .success(let m) = fix else { return .null }
                       var w = OSRMJSON.waypoint(m.location, distance: m.distanceMeters, name: name(at: m.location, engine))
                       guard case .object(var members) = w else { return w }
                       if !hints { members = members.filter { $0.0 != "hint" } }
                       members += [("matchings_index", .number(Double(m.matchingIndex))),
                                   ("waypoint_index", m.waypointIndex.map { .number(Double($0)) } ?? .null),
                                   ("alternatives_count", 0)]
                       w = .object(members)
                       return w
                   }))])
    }

    static func matchingJSON(_ m: Matching, format: OSRMGeometry, overview: OSRMOverview, annotations: OSRMAnnotations) -> JSONValue {
        let segments = m.segments
        let route = routeMembers(geometry: m.geometry, legs: m.legs.map { ($0.durationSeconds, $0.distanceMeters) },
                                 durationSeconds: m.durationSeconds, distanceMeters: m.distanceMeters,
                                 format: format, overview: overview, annotations: annotations,
                                 segmentsOfLeg: { i in segments.filter { $0.leg == i }.map(\.segment)[...] })
        return .object([("confidence", OSRMJSON.round(m.confidence, 1e6))] + route)
    }
}

extension OSRMSchemas {
    static let match: JSONValue = S.object(["code", "matchings", "tracepoints"], [
        ("code", ok),
        ("matchings", S.array(S.object(["confidence", "legs", "weight_name", "weight", "duration", "distance"], [
            ("confidence", S.number), ("geometry", ["oneOf": [S.string, S.lineString]]), ("legs", S.array(leg)), ("weight_name", S.string),
            ("weight", S.seconds), ("duration", S.seconds), ("distance", S.metres),
        ]))),
        ("tracepoints", S.array(S.nullable(S.object(["distance", "name", "location", "matchings_index", "waypoint_index", "alternatives_count"], [
            ("hint", S.string), ("distance", S.metres), ("name", S.string), ("location", S.position), ("matchings_index", S.count),
            ("waypoint_index", S.nullable(S.count)), ("alternatives_count", S.count),
        ])))),
    ])
    static let matchError: JSONValue = S.object(["code", "message"], [
        ("code", ["type": "string", "enum": .array((OSRMError.codes + ["NoMatch"]).map { .string($0) })]), ("message", S.string),
    ])
}

/// `GET` and `POST /match/v1/{profile}/{coordinates}`.
func registerOSRMMatchEndpoint(_ router: Router, _ context: ServiceContext) {
    func option(_ name: String, _ text: String, _ schema: JSONValue = ["type": "string"]) -> ParameterDoc { ParameterDoc(name, text, schema: schema) }
    let parameters: [ParameterDoc] = [
        ParameterDoc("profile", in: "path", required: true, "driving (also car)",
                     schema: ["type": "string", "enum": .array(OSRMFace.profiles.map { .string($0) }), "example": "driving"]),
        ParameterDoc("coordinates", in: "path", required: true, "the trace's fixes: lon,lat;lon,lat… (WGS84), polyline(…) or polyline6(…)",
                     schema: ["type": "string", "minLength": 1, "example": "126.9780,37.5665;126.9800,37.5668;126.9820,37.5672"]),
        option("timestamps", "Unix seconds per fix, ;-separated, never decreasing (all or none)"),
        option("radiuses", "each fix's GPS accuracy σ in metres, ;-separated (default 10; the search radius is 4σ, 30–400 m)"),
        option("gaps", "split (default: a gap over 60 s or 2 km starts a new matching) or ignore", APISchemas.oneOf(["split", "ignore"])),
        option("tidy", "true: fixes within max(2σ, 50 m) of the previous one kept are left out (null tracepoints); false (default): projected onto the route",
               APISchemas.oneOf(["true", "false"])),
        option("geometries", "polyline (default), polyline6 or geojson", APISchemas.oneOf(OSRMGeometry.allCases.map(\.rawValue))),
        option("overview", "simplified (default), full or false", APISchemas.oneOf(OSRMOverview.allCases.map(\.rawValue))),
        option("steps", "false only", APISchemas.oneOf(["false"])),
        option("annotations", "true, false or duration,distance,weight,speed,datasources"),
        option("generate_hints", "true (default) or false", APISchemas.oneOf(["true", "false"])),
    ]
    let doc = OperationDoc("OSRM v5 match service: a GPS trace snapped to the driven roads (hidden Markov model over the same engine; "
                           + "at most \(MatchOptions.maxFixes) fixes). POST takes the same options as a form body.",
                           parameters: parameters,
                           responses: [(200, "OSRM's answer with code Ok"),
                                       (400, "OSRM's error: {\"code\",\"message\"}; NoMatch when no two fixes can be joined by road"),
                                       (503, "overloaded ({\"error\":{\"code\",\"message\"}}): the bulk work in flight is at the server's budget (a fix counts \(OSRMFace.cellsPerFix) table cells against serve --table-cell-budget); Retry-After says when to retry")],
                           responseSchema: OSRMSchemas.match, errorSchema: OSRMSchemas.matchError,
                           errorExample: ["code": "NoMatch", "message": "Could not match the trace. (no fix lies within reach of a road)"])
    // Long traces are bulk work: admitted against the server's budget, matched on its bulk pool.
    router.addBulk("GET", "/match/v1/{profile}/{coordinates}", doc) { req in
        try OSRMFace.matchWork(req, QueryReader(req, doc.parameters), context.routeEngine)
    }
    router.addBulk("POST", "/match/v1/{profile}/{coordinates}", doc) { req in
        let merged: HTTPRequest
        do throws(HTTPError) { merged = try req.withFormFieldsInQuery() } catch {
            throw OSRMError("InvalidQuery", "the form body is malformed: \(error.message)")
        }
        return try OSRMFace.matchWork(merged, QueryReader(merged, doc.parameters), context.routeEngine)
    }
}

import Foundation
import Geo
import HTTPServer
import JSON
import Routing

/// OSRM v5's HTTP face (`/route/v1`, `/table/v1`, `/nearest/v1`): a thin layer of OSRM's
/// parameters and answer shapes over the same `RouteEngine` as `/v1/route` and `/v1/table`, so
/// OSRM clients (routingpy, osrm-py, …) work by pointing their base URL here.
enum OSRMFace {
    /// Profile names served (all the one car profile with traffic speeds): OSRM's demo name
    /// `driving` and its car profile's `car`.
    static let profiles = ["driving", "car"]
    /// Coordinates per table (osrm-routed's default `--max-table-size`) and per nearest answer.
    static let maxTableCoordinates = TableEndpoint.maxPointsGet
    static let maxNearest = 100
    /// Tolerance of `overview=simplified`: a phone screen's pixel at zoom 14, about.
    static let simplifyMeters = 10.0

    // MARK: URL

    /// The path's coordinates: `lon,lat;lon,lat…`, `polyline(…)` or `polyline6(…)`, optionally
    /// followed by `.json`; the profile checked first.
    static func coordinates(_ req: HTTPRequest) throws(OSRMError) -> [Coordinate] {
        let profile = req.pathParameters["profile"] ?? ""
        guard profiles.contains(profile) else {
            throw OSRMError("InvalidValue", "profile '\(profile.prefix(40))' is not served; use \(profiles.joined(separator: " or "))")
        }
        var text = Substring(req.pathParameters["coordinates"] ?? "")
        if text.utf8.suffix(5).elementsEqual(".json".utf8) { text = text.dropLast(5) }
        for (prefix, precision) in [("polyline(", 5), ("polyline6(", 6)] where text.utf8.first == UInt8(ascii: "p") && text.hasPrefix(prefix) && text.hasSuffix(")") {
            guard let list = Polyline.decode(String(text.dropFirst(prefix.count).dropLast()), precision: precision), !list.isEmpty else {
                throw OSRMError("InvalidQuery", "Query string malformed close to position \(prefix.count): not a \(prefix.dropLast()) of coordinates")
            }
            return try checked(list)
        }
        // Split on the UTF-8 bytes (';' and ',' are never part of another character); positions
        // are byte offsets, as osrm-routed counts them.
        var list: [Coordinate] = []
        var position = 0
        for pair in text.utf8.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false) {
            let parts = pair.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            guard parts.count == 2, let lon = NumberParsing.finiteDouble(Substring(parts[0])),
                  let lat = NumberParsing.finiteDouble(Substring(parts[1])) else {
                throw OSRMError("InvalidQuery", "Query string malformed close to position \(position): coordinates are lon,lat;lon,lat…")
            }
            list.append(Coordinate(lon: lon, lat: lat))
            position += pair.count + 1
        }
        return try checked(list)
    }

    private static func checked(_ list: [Coordinate]) throws(OSRMError) -> [Coordinate] {
        guard list.allSatisfy(\.isValid) else { throw OSRMError("InvalidValue", "Invalid coordinate value.") }
        return list
    }

    // MARK: Query

    /// The query's options by name (read through the operation's declaration); an undeclared
    /// one, or one given twice, is OSRM's `InvalidQuery`.
    static func options(_ query: QueryReader) throws(OSRMError) -> [String: String] {
        if let name = query.undeclaredNames().first {
            throw OSRMError("InvalidQuery", "Query string malformed close to position of '\(name.prefix(40))': not an option of this service")
        }
        // The query's own items (two or three), not a lookup per declared option (seventeen).
        var out: [String: String] = [:]
        for item in query.request.query where out.updateValue(item.value, forKey: item.name) != nil {
            throw OSRMError("InvalidQuery", "Query string malformed: query parameter '\(item.name.prefix(40))' is given more than once")
        }
        return out
    }

    static func invalid(_ name: String, _ value: String, _ expected: String) -> OSRMError {
        OSRMError("InvalidQuery", "Query string malformed: '\(name)=\(value.prefix(40))' (\(expected))")
    }

    static func bool(_ o: [String: String], _ name: String, default d: Bool) throws(OSRMError) -> Bool {
        guard let v = o[name] else { return d }
        switch v {
        case "true": return true
        case "false": return false
        default: throw invalid(name, v, "true or false")
        }
    }

    static func choice<T: RawRepresentable & CaseIterable>(_ o: [String: String], _ name: String, default d: T) throws(OSRMError) -> T
        where T.RawValue == String
    {
        guard let v = o[name] else { return d }
        guard let c = T(rawValue: v) else { throw invalid(name, v, T.allCases.map(\.rawValue).joined(separator: ", ")) }
        return c
    }

    /// `radiuses`: one per coordinate, metres or `unlimited`; the engine takes one snap limit,
    /// so the largest is used (at most 5,000 m). Absent: 200 m, as `/v1/route`.
    static func snapLimit(_ o: [String: String], count: Int) throws(OSRMError) -> Double {
        guard let text = o["radiuses"] else { return 200 }
        let parts = text.split(separator: ";", omittingEmptySubsequences: false)
        guard parts.count == count else { throw OSRMError("InvalidOptions", "Number of radiuses does not match number of coordinates") }
        var limit = 0.0
        for p in parts {
            if p == "unlimited" || p.isEmpty { limit = RouteEngine.maxSnapLimitMeters; continue }
            guard let v = NumberParsing.finiteDouble(String(p)), v >= 0 else { throw invalid("radiuses", text, "metres or unlimited") }
            limit = max(limit, min(v, RouteEngine.maxSnapLimitMeters))
        }
        return max(limit, 1)
    }

    static func checkUnsupported(_ o: [String: String]) throws(OSRMError) {
        if o["bearings"].map({ !$0.isEmpty }) == true { throw OSRMError("NotImplemented", "bearings are not supported") }
        if let e = o["exclude"], !e.isEmpty { throw OSRMError("NotImplemented", "exclude classes are not supported") }
        if let a = o["approaches"] {
            // OSRM's grammar knows unrestricted, curb and opposite (or nothing) per coordinate:
            // another word is a malformed query; curb and opposite are not served here.
            let each = a.split(separator: ";", omittingEmptySubsequences: false)
            guard each.allSatisfy({ ["", "unrestricted", "curb", "opposite"].contains($0) }) else {
                throw invalid("approaches", a, "unrestricted, curb or opposite per coordinate")
            }
            if each.contains(where: { $0 == "curb" || $0 == "opposite" }) {
                throw OSRMError("NotImplemented", "approaches other than unrestricted are not supported")
            }
        }
        if let s = o["snapping"], s != "default", s != "any" { throw invalid("snapping", s, "default or any") }
    }

    /// The street name at a snapped point (the piece it stands on).
    static func name(at c: Coordinate, _ engine: RouteEngine) -> String {
        engine.nearestRoads(to: c, count: 1, maxMeters: 1).first?.name ?? ""
    }

    static func waypoints(_ points: [(Coordinate, Double)], hints: Bool, _ engine: RouteEngine) -> JSONValue {
        waypoints(points.map { c, d in (c, d, name(at: c, engine)) }, hints: hints)
    }

    /// Waypoints whose road names are known (a route's `snappedNames`: no lookup).
    static func waypoints(_ points: [(Coordinate, Double, String)], hints: Bool) -> JSONValue {
        .array(points.map { c, d, name in OSRMJSON.waypoint(c, distance: d, name: name, hint: hints) })
    }

    /// The members of a route object in OSRM's form, shared by `routes[]` and `matchings[]`: the
    /// geometry as `overview` asks, one leg object per leg (no steps; its annotation when asked,
    /// from `segmentsOfLeg`), and the totals with duration as the weight.
    static func routeMembers(geometry: [Coordinate], legs: [(durationSeconds: Double, distanceMeters: Double)],
                             durationSeconds: Double, distanceMeters: Double, format: OSRMGeometry, overview: OSRMOverview,
                             annotations: OSRMAnnotations, segmentsOfLeg: (Int) -> ArraySlice<RouteSegment>) -> [(String, JSONValue)] {
        var legObjects: [JSONValue] = []
        for (i, leg) in legs.enumerated() {
            var m: [(String, JSONValue)] = [("steps", []), ("summary", ""), ("weight", OSRMJSON.round(leg.durationSeconds, 10)),
                                            ("duration", OSRMJSON.round(leg.durationSeconds, 10)), ("distance", OSRMJSON.round(leg.distanceMeters, 10))]
            if !annotations.isEmpty { m.append(("annotation", OSRMJSON.annotation(segmentsOfLeg(i), annotations))) }
            legObjects.append(.object(m))
        }
        var out: [(String, JSONValue)] = []
        switch overview {
        case .full: out.append(("geometry", OSRMJSON.geometry(geometry, format)))
        case .simplified: out.append(("geometry", OSRMJSON.geometry(LineSimplification.simplify(geometry, toleranceMeters: simplifyMeters), format)))
        case .none: break
        }
        out += [("legs", .array(legObjects)), ("weight_name", "duration"), ("weight", OSRMJSON.round(durationSeconds, 10)),
                ("duration", OSRMJSON.round(durationSeconds, 10)), ("distance", OSRMJSON.round(distanceMeters, 10))]
        return out
    }

    static func ok(_ members: [(String, JSONValue)]) -> HTTPResponse { .json(.object([("code", "Ok")] + members)) }

    // MARK: Services

    /// `GET /route/v1/{profile}/{coordinates}`.
    static func route(_ req: HTTPRequest, _ query: QueryReader, _ engine: RouteEngine) throws(OSRMError) -> HTTPResponse {
        let points = try coordinates(req)
        let o = try options(query)
        guard points.count >= 2 else { throw OSRMError("InvalidOptions", "Number of coordinates needs to be at least two.") }
        try checkUnsupported(o)
        // OSRM reads a count of alternatives as an unsigned number: `-1` is malformed.
        if let a = o["alternatives"], a != "false", a != "true", !(a.utf8.allSatisfy { (0x30...0x39).contains($0) } && UInt32(a) != nil) {
            throw invalid("alternatives", a, "true, false or a number from 0")
        }
        if try bool(o, "steps", default: false) { throw OSRMError("NotImplemented", "steps=true is not supported (turn-by-turn instructions are not made)") }
        if let w = o["waypoints"], w != (0..<points.count).map(String.init).joined(separator: ";") {
            throw OSRMError("NotImplemented", "waypoints other than every coordinate are not supported")
        }
        if let c = o["continue_straight"], c != "default" { _ = try bool(o, "continue_straight", default: true) }
        let format = try choice(o, "geometries", default: OSRMGeometry.polyline)
        let overview = try choice(o, "overview", default: OSRMOverview.simplified)
        let annotations = try annotationKeys(o["annotations"])
        let hints = try bool(o, "generate_hints", default: true), skip = try bool(o, "skip_waypoints", default: false)
        let request = RouteRequest(from: points[0], to: points[points.count - 1], via: Array(points.dropFirst().dropLast()),
                                   departAt: SeoulTime.now(), metric: .time, maxSnapMeters: try snapLimit(o, count: points.count))
        let r: RouteResult
        do throws(RoutingError) { r = try engine.route(request) } catch {
            throw OSRMError.from(error) { p in
                switch p {
                case .origin, .source: 0
                case .via(let i): i + 1
                case .destination, .tableDestination: points.count - 1
                }
            }
        }
        let route = routeMembers(geometry: r.geometry, legs: r.legs.map { ($0.durationSeconds, $0.distanceMeters) },
                                 durationSeconds: r.durationSeconds, distanceMeters: r.distanceMeters,
                                 format: format, overview: overview, annotations: annotations,
                                 segmentsOfLeg: { i in r.segments.filter { $0.legIndex == i }[...] })
        var members: [(String, JSONValue)] = [("routes", [.object(route)])]
        if !skip {
            members.append(("waypoints", waypoints(r.snapped.indices.map { (r.snapped[$0], r.snapDistancesMeters[$0], r.snappedNames[$0]) }, hints: hints)))
        }
        return ok(members)
    }

    /// `annotations`: `true`, `false` or a comma list of duration, distance, weight, speed, datasources.
    static func annotationKeys(_ text: String?) throws(OSRMError) -> OSRMAnnotations {
        guard let text, text != "false" else { return [] }
        if text == "true" { return .all }
        var keys: OSRMAnnotations = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            if name == "nodes" { throw OSRMError("NotImplemented", "annotations=nodes is not supported (OSM node ids are not kept)") }
            guard let k = OSRMAnnotations.names.first(where: { $0.0 == name })?.1 else {
                throw invalid("annotations", text, "true, false or duration, distance, weight, speed, datasources")
            }
            keys.insert(k)
        }
        return keys
    }

    /// `sources`/`destinations`: `all` or indices `i;j;…` into the coordinates.
    static func indices(_ o: [String: String], _ name: String, count: Int) throws(OSRMError) -> [Int] {
        guard let text = o[name], text != "all" else { return Array(0..<count) }
        var out: [Int] = []
        for part in text.split(separator: ";", omittingEmptySubsequences: false) {
            guard let i = Int(part), i >= 0 else { throw invalid(name, text, "all or indices i;j;…") }
            guard i < count else { throw OSRMError("InvalidOptions", "\(name) index \(i) is out of range: there are \(count) coordinates") }
            out.append(i)
        }
        return out
    }

    /// `GET /table/v1/{profile}/{coordinates}`: durations (s) and distances (m) as `/v1/table`
    /// computes them; null where no route exists.
    static func table(_ req: HTTPRequest, _ query: QueryReader, _ engine: RouteEngine) throws(OSRMError) -> HTTPResponse {
        let points = try coordinates(req)
        let o = try options(query)
        try checkUnsupported(o)
        for name in ["fallback_speed", "fallback_coordinate", "scale_factor"] where o[name] != nil {
            throw OSRMError("NotImplemented", "\(name) is not supported")
        }
        guard points.count <= maxTableCoordinates else {
            throw OSRMError("TooBig", "Number of entries \(points.count) is higher than current maximum (\(maxTableCoordinates))")
        }
        let sources = try indices(o, "sources", count: points.count), destinations = try indices(o, "destinations", count: points.count)
        var duration = true, distance = false
        if let a = o["annotations"] {
            let names = a.split(separator: ",", omittingEmptySubsequences: false)
            guard !names.isEmpty, names.allSatisfy({ $0 == "duration" || $0 == "distance" }) else { throw invalid("annotations", a, "duration, distance or duration,distance") }
            duration = names.contains("duration")
            distance = names.contains("distance")
        }
        let hints = try bool(o, "generate_hints", default: true), skip = try bool(o, "skip_waypoints", default: false)
        let request = TableRequest(sources: sources.map { points[$0] }, destinations: destinations.map { points[$0] },
                                   departAt: SeoulTime.now(), maxSnapMeters: try snapLimit(o, count: points.count))
        let t: RouteTable
        do throws(RoutingError) { t = try engine.table(request) } catch {
            throw OSRMError.from(error) { p in
                switch p {
                case .source(let i): sources[i]
                case .tableDestination(let j): destinations[j]
                case .origin: 0
                case .via(let i): i + 1
                case .destination: points.count - 1
                }
            }
        }
        func matrix(_ cell: @escaping (Int) -> JSONValue) -> JSONValue {
            .array((0..<t.sourceCount).map { i in .array((0..<t.destinationCount).map { j in cell(i * t.destinationCount + j) }) })
        }
        var members: [(String, JSONValue)] = []
        if duration {
            members.append(("durations", matrix { k in t.durationsMs[k] == RouteTable.unreachable ? .null : OSRMJSON.round(Double(t.durationsMs[k]) / 1000, 10) }))
        }
        if distance {
            members.append(("distances", matrix { k in t.durationsMs[k] == RouteTable.unreachable ? .null : OSRMJSON.round(Double(t.distancesCm[k]) / 100, 10) }))
        }
        if !skip {
            members.append(("sources", waypoints(t.sources.map { ($0.location, $0.distanceMeters) }, hints: hints, engine)))
            members.append(("destinations", waypoints(t.destinations.map { ($0.location, $0.distanceMeters) }, hints: hints, engine)))
        }
        return ok(members)
    }

    /// `GET /nearest/v1/{profile}/{coordinate}`: the `number` nearest road points (default 1).
    static func nearest(_ req: HTTPRequest, _ query: QueryReader, _ engine: RouteEngine) throws(OSRMError) -> HTTPResponse {
        let points = try coordinates(req)
        let o = try options(query)
        try checkUnsupported(o)
        guard points.count == 1 else { throw OSRMError("InvalidOptions", "Only one input coordinate is supported") }
        var number = 1
        if let text = o["number"] {
            guard let n = Int(text), n >= 1 else { throw invalid("number", text, "an integer ≥ 1") }
            guard n <= maxNearest else { throw OSRMError("TooBig", "Number of results \(n) is higher than current maximum (\(maxNearest))") }
            number = n
        }
        let hints = try bool(o, "generate_hints", default: true)
        _ = try bool(o, "skip_waypoints", default: false)  // a nearest answer is its waypoints: kept
        let found = engine.nearestRoads(to: points[0], count: number, maxMeters: try snapLimit(o, count: 1) == 200 && o["radiuses"] == nil
                                            ? RouteEngine.maxSnapLimitMeters : try snapLimit(o, count: 1))
        guard !found.isEmpty else { throw OSRMError("NoSegment", "Could not find a matching segment for coordinate 0") }
        return ok([("waypoints", .array(found.map { n in
            OSRMJSON.waypoint(n.location, distance: n.distanceMeters, name: n.name, nodes: n.nodes, hint: hints)
        }))])
    }
}

/// The OSRM routes (`match` is in OSRMMatchEndpoint.swift; `trip` and `tile` are not served: 404 as any unknown path).
func registerOSRMEndpoints(_ router: Router, _ context: ServiceContext) {
    let path: [ParameterDoc] = [
        ParameterDoc("profile", in: "path", required: true, "driving (also car): the one car profile with traffic speeds of the current hour",
                     schema: ["type": "string", "enum": .array(OSRMFace.profiles.map { .string($0) }), "example": "driving"]),
    ]
    func coordinates(_ example: String) -> ParameterDoc {
        ParameterDoc("coordinates", in: "path", required: true, "lon,lat;lon,lat… (WGS84), polyline(…) or polyline6(…), optionally followed by .json",
                     schema: ["type": "string", "minLength": 1, "example": .string(example)])
    }
    let two = "126.9780,37.5665;126.9920,37.5700", one = "126.9780,37.5665"
    func option(_ name: String, _ text: String, _ schema: JSONValue = ["type": "string"]) -> ParameterDoc { ParameterDoc(name, text, schema: schema) }
    let common = [
        option("radiuses", "metres or unlimited per coordinate, ;-separated; the largest is the snap limit (at most 5000; default 200)"),
        option("hints", "accepted and ignored (points are snapped again)"),
        option("generate_hints", "true (default) or false", APISchemas.oneOf(["true", "false"])),
        option("skip_waypoints", "true: no waypoints in the answer", APISchemas.oneOf(["true", "false"])),
        option("approaches", "unrestricted (or empty) per coordinate; curb and opposite answer NotImplemented, another word InvalidQuery"), option("bearings", "not supported (empty only)"),
        option("exclude", "not supported (empty only)"), option("snapping", "default or any", APISchemas.oneOf(["default", "any"])),
    ]
    let errors: [(Int, String)] = [(400, "OSRM's error: {\"code\",\"message\"} with code \(OSRMError.codes.joined(separator: ", "))")]
    func doc(_ summary: String, _ points: String, _ extra: [ParameterDoc], _ schema: JSONValue) -> OperationDoc {
        OperationDoc(summary, parameters: path + [coordinates(points)] + extra + common, responses: [(200, "OSRM's answer with code Ok")] + errors,
                     responseSchema: schema, errorSchema: OSRMSchemas.error,
                     errorExample: ["code": "NoSegment", "message": "Could not find a matching segment for coordinate 0"])
    }
    router.operation("GET", "/route/v1/{profile}/{coordinates}", doc(
        "OSRM v5 route service over the same engine as /v1/route (steps=false only; one route)", two,
        [option("geometries", "polyline (default), polyline6 or geojson", APISchemas.oneOf(OSRMGeometry.allCases.map(\.rawValue))),
         option("overview", "simplified (default), full or false", APISchemas.oneOf(OSRMOverview.allCases.map(\.rawValue))),
         option("steps", "false only", APISchemas.oneOf(["false"])),
         option("annotations", "true, false or duration,distance,weight,speed,datasources (one entry per road segment)"),
         option("alternatives", "true, false or a count from 0 (InvalidQuery otherwise, as OSRM's grammar); one route is answered"), option("continue_straight", "accepted", APISchemas.oneOf(["true", "false", "default"])),
         option("waypoints", "every coordinate's index only")],
        OSRMSchemas.route), cost: .light) { req, query in
        do throws(OSRMError) { return try OSRMFace.route(req, query, context.routeEngine) } catch { return error.response }
    }
    router.operation("GET", "/table/v1/{profile}/{coordinates}", doc(
        "OSRM v5 table service over the same engine as /v1/table (at most \(OSRMFace.maxTableCoordinates) coordinates)", two,
        [option("sources", "all (default) or indices i;j;…"), option("destinations", "all (default) or indices i;j;…"),
         option("annotations", "duration (default), distance or duration,distance",
                ["type": "string", "pattern": "^(duration|distance)(,(duration|distance))?$"]),
         option("fallback_speed", "not supported"), option("fallback_coordinate", "not supported"), option("scale_factor", "not supported")],
        OSRMSchemas.table), cost: .light) { req, query in
        do throws(OSRMError) { return try OSRMFace.table(req, query, context.routeEngine) } catch { return error.response }
    }
    router.operation("GET", "/nearest/v1/{profile}/{coordinates}", doc(
        "OSRM v5 nearest service: the nearest road points (nodes are this graph's node ids)", one,
        [option("number", "how many (default 1, at most \(OSRMFace.maxNearest))", ["type": "integer", "minimum": 1, "maximum": .number(Double(OSRMFace.maxNearest))])],
        OSRMSchemas.nearest), cost: .light) { req, query in
        do throws(OSRMError) { return try OSRMFace.nearest(req, query, context.routeEngine) } catch { return error.response }
    }
}

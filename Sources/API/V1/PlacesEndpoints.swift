import Foundation
import Geo
import HTTPServer
import JSON
import Places

/// The JSON of places and reverse-geocoding answers, shared by the endpoints and the CLI.
public enum PlacesJSON {
    static func round(_ v: Double, _ digits: Double) -> JSONValue { .number((v * digits).rounded() / digits) }

    /// `{"id","name","category","address","lon","lat","distance_m"?}`.
    public static func encode(_ hit: PlaceHit) -> JSONValue {
        let p = hit.place
        var members: [(String, JSONValue)] = [
            ("id", .string(p.id)), ("name", .string(p.name)), ("category", .string(p.category)),
            ("address", .string(p.address)), ("lon", round(p.lon, 1e7)), ("lat", round(p.lat, 1e7)),
        ]
        if let d = hit.distanceMeters { members.append(("distance_m", .number(d.rounded()))) }
        if let precision = hit.precision { members.append(("precision", .string(precision.rawValue))) }
        return .object(members)
    }

    /// `{"text","road","number","lon","lat","distance_m","precision"}` or null.
    static func encode(_ a: ReverseAddress?) -> JSONValue {
        guard let a else { return .null }
        return .object([
            ("text", .string(a.text)), ("road", .string(a.road)), ("number", .number(Double(a.number))),
            ("lon", round(a.coordinate.lon, 1e7)), ("lat", round(a.coordinate.lat, 1e7)),
            ("distance_m", .number(a.distanceMeters.rounded())), ("precision", .string(a.precision.rawValue)),
        ])
    }

    /// `{"places":[…],"next_cursor":…}`.
    public static func encode(_ result: PlaceSearchResult) -> JSONValue {
        ["places": .array(result.places.map(encode)), "next_cursor": JSONValue(result.nextCursor)]
    }

    /// `{"code","name"}` of a division, or null.
    static func encode(_ d: Division?) -> JSONValue {
        guard let d else { return .null }
        return ["code": .string(d.code), "name": .string(d.name)]
    }

    /// `{"region":{"sido","sigungu","dong","full_name","code","approximate"}|null,"places":[…]}`.
    public static func encode(_ r: ReverseResult) -> JSONValue {
        var region: JSONValue = .null
        if let a = r.area {
            region = ["sido": encode(a.sido), "sigungu": encode(a.sigungu), "dong": encode(a.emd),
                      "full_name": .string(a.fullName), "code": .string(a.code), "approximate": .bool(a.approximate)]
        }
        return ["region": region, "places": .array(r.nearby.map(encode)), "address": encode(r.address)]
    }
}

/// The place index over `DATA/build/places.db`; nil (with a warning on stderr) when the DB has
/// not been built; an error naming the file when it cannot be read.
/// `GET /v1/places` (keyword search) and `GET /v1/reverse` (what is at a point).
func registerPlacesEndpoints(_ router: Router, _ context: ServiceContext) {

    let searchDoc = OperationDoc(
        "Find places by name, part of a name, 초성, typo, romanisation or address, optionally near a point. A road-name address (테헤란로 152, 서울 강남구 테헤란로7길 21, 세종대로 지하 2) or a lot address (역삼동 737) also gives one answer of category `address` with its `precision`: `interpolated` (placed along the road by its number), `road` (only the road is known) or `dong` (only the 동)",
        parameters: [
            ParameterDoc("q", required: true, "what the user typed (1–\(PlaceQuery.maximumLength) Unicode code points): 강남역, 홍대, ㅎㄷㅇㄱ, 왕심리, Gangnam, 서울 강남구 역삼동, 테헤란로 152, 역삼동 737", schema: APISchemas.placeText),
            ParameterDoc("near", "location bias as lon,lat: closer places rank higher; needed by radius_m and sort=distance", schema: APISchemas.pointQuery),
            ParameterDoc("radius_m", type: "number", "only places within this many metres of near (1–\(Int(PlaceQuery.maximumRadius)))", schema: APISchemas.number(1...PlaceQuery.maximumRadius)),
            ParameterDoc("rect", "only places inside west,south,east,north (degrees)", schema: APISchemas.bboxQuery),
            ParameterDoc("category", "only places of this category (station, bus_stop, intersection, sido, sigungu, emd, ri, tourist, …)", schema: APISchemas.oneOf(context.places.knownCategories)),
            ParameterDoc("sort", "accuracy (default) or distance (nearest first; needs near)", schema: APISchemas.oneOf(["accuracy", "distance"])),
            ParameterDoc("limit", type: "integer", "page size, 1–\(PlaceQuery.maximumLimit) (default 15)", schema: APISchemas.integer(1...PlaceQuery.maximumLimit)),
            ParameterDoc("cursor", "next_cursor of the previous page", schema: APISchemas.placesCursor),
        ],
        responses: [(200, "{\"places\":[{\"id\",\"name\",\"category\",\"address\",\"lon\",\"lat\",\"distance_m\"?,\"precision\"?}],\"next_cursor\":string|null}"),
                    (400, "bad q, near, rect, radius_m, category, sort, limit or cursor"),
                    (422, "empty_query (q has no letter or digit), invalid_cursor (a cursor of another search), invalid_radius or invalid_sort (radius_m or sort=distance without near), invalid_rect (bounds out of order)")],
        responseSchema: ResponseSchemas.places, responseExample: ResponseSchemas.placesExample)
    // The place search checks its own values (the same rules `taxipot places` applies): the
    // reader gives their text, for the declared names only.
    router.operation("GET", "/v1/places", searchDoc, cost: .light) { _, params in
        let index = context.places
        // Absent `q` is a missing parameter (an empty one is the domain's empty_query); Kakao's
        // name `query` is pointed at.
        guard let q = try params.textCheckedByDomain("q") else {
            let hint = params.undeclaredNames().contains("query")
                ? " ('query' is Kakao Local's name: use q here, or /v2/local/search/keyword.json)" : ""
            throw HTTPError(status: 400, code: "missing_parameter", message: "query parameter 'q' is required\(hint)")
        }
        var query = PlaceQuery(text: q)
        do {
            if let v = try params.text("near") { query.near = try PlaceQuery.parseNear(v) }
            if let v = try params.text("radius_m") { query.radiusMeters = try PlaceQuery.parseRadius(v) }
            if let v = try params.text("rect") {
                do { query.rect = try PlaceQuery.parseRect(v) } catch let e as PlaceSearchError where APISchemas.fits(v, APISchemas.bboxQuery) {
                    throw ErrorMapping.http(e, fitsSchema: true)  // bounds out of order
                }
            }
            if let v = try params.text("sort") { query.sort = try PlaceQuery.parseSort(v) }
            if let v = try params.text("limit") { query.limit = try PlaceQuery.parseLimit(v) }
            query.category = try params.text("category")
            query.cursor = try params.text("cursor")
        } catch let e as PlaceSearchError {
            throw ErrorMapping.http(e)
        }
        do {
            return .json(PlacesJSON.encode(try index.search(query)))
        } catch let e as PlaceSearchError {
            // Each value fits its schema here; what the search refuses now is how they combine
            // (radius_m or sort=distance without near, a cursor of another search): 422.
            switch e {
            case .invalidRadius, .invalidSort, .invalidRect: throw ErrorMapping.http(e, fitsSchema: true)
            // Text with no letter or digit (only spaces, punctuation, symbols): nothing to search for.
            case .emptyQuery where !query.text.isEmpty: throw ErrorMapping.http(e, fitsSchema: true)
            case .invalidCursor(let text) where APISchemas.fits(text, APISchemas.placesCursor): throw ErrorMapping.http(e, fitsSchema: true)
            default: throw ErrorMapping.http(e)
            }
        }
    }

    let reverseRadius: ClosedRange<Double> = 1...5_000
    let reverseDoc = OperationDoc(
        "The 시도/시군구/동 at a point (polygons in Seoul; elsewhere the nearest division, marked approximate), the places within 300 m and the nearest road-name address estimate (road and basic number, precision interpolated)",
        parameters: [
            ParameterDoc("at", required: true, "the point as lon,lat (WGS84)", schema: APISchemas.pointQuery),
            ParameterDoc("radius_m", type: "number", "radius for nearby places, 1–5000 (default 300)", schema: APISchemas.number(reverseRadius)),
            ParameterDoc("limit", type: "integer", "number of nearby places, 0–50 (default 10)", schema: APISchemas.integer(0...50)),
        ],
        responses: [(200, "{\"region\":{\"sido\",\"sigungu\",\"dong\",\"full_name\",\"code\",\"approximate\"}|null,\"places\":[…],\"address\":{\"text\",\"road\",\"number\",\"lon\",\"lat\",\"distance_m\",\"precision\"}|null}"),
                    (400, "bad at, radius_m or limit")],
        responseSchema: ResponseSchemas.reverse, responseExample: ResponseSchemas.reverseExample)
    router.operation("GET", "/v1/reverse", reverseDoc, cost: .light) { _, query in
        let index = context.places
        let point = try query.requiredPoint("at") { text in
            .badRequest("invalid_at", "query parameter 'at' must be lon,lat in degrees (e.g. 127.0276,37.4979), got '\(text.prefix(60))'")
        }
        let radius = try query.number("radius_m") { text in
            .badRequest("invalid_radius", "query parameter 'radius_m' must be a number of metres from \(Int(reverseRadius.lowerBound)) to \(Int(reverseRadius.upperBound)), got '\(text.prefix(40))'")
        } ?? PlaceIndex.reverseRadius
        let limit = try query.integer("limit") ?? 10
        return .json(PlacesJSON.encode(index.reverse(at: point, radiusMeters: radius, limit: limit)))
    }
}

import Foundation
import Geo
import HTTPServer
import JSON
import Places

/// A Kakao Local error answer: `{"errorType","message"}` (`MissingParameter`, `InvalidArgument`), 400.
struct KakaoError: Error {
    let type: String
    let message: String

    static func missing(_ name: String) -> KakaoError { KakaoError(type: "MissingParameter", message: "\(name) parameter required") }
    static func invalid(_ name: String, _ value: String, _ expected: String) -> KakaoError {
        KakaoError(type: "InvalidArgument", message: "\(name) is invalid: '\(value.prefix(40))' (\(expected))")
    }

    var response: HTTPResponse { .json(["errorType": .string(type), "message": .string(message)], status: 400) }
}

/// Kakao Local's keyword search, address search and coordinate to address over the place index
/// (`/v2/local/…`), with Kakao's parameters and answer shapes, so app code written for Kakao
/// switches by base URL. `Authorization: KakaoAK …` is accepted and ignored (no key is needed).
enum KakaoLocalFace {
    /// Kakao's page (1–45) and size (1–15) limits.
    static let maxPage = 45, maxSize = 15
    /// Kakao's category group codes for the index's categories.
    static let groups: [(code: String, name: String, category: String)] = [
        ("SW8", "지하철역", PlaceCategory.station), ("AT4", "관광명소", PlaceCategory.tourist), ("AT4", "관광명소", PlaceCategory.attraction),
        ("FD6", "음식점", PlaceCategory.food), ("AD5", "숙박", PlaceCategory.hotel), ("MT1", "대형마트", PlaceCategory.shopping),
    ]
    /// Categories that are addresses (administrative divisions now; road-name addresses when the index has them).
    static let addressCategories: Set<String> = [PlaceCategory.sido, PlaceCategory.sigungu, PlaceCategory.emd, PlaceCategory.ri,
                                                 "address", "road_address"]

    /// A road-name address (`… 강남대로 396`, `… 세종대로20길 5`): a word ending in 로 or 길
    /// followed by a building number.
    static func isRoadAddress(_ address: String) -> Bool {
        let words = address.split(separator: " ").filter { $0 != "지하" }
        return zip(words, words.dropFirst()).contains { w, n in (w.hasSuffix("로") || w.hasSuffix("길")) && n.first?.isNumber == true }
    }

    /// The declared parameters' values (others are ignored, as Kakao does); a missing required
    /// one is `MissingParameter`, one given twice `InvalidArgument`.
    static func options(_ query: QueryReader) throws(KakaoError) -> [String: String] {
        var out: [String: String] = [:]
        for p in query.declaredQueryParameters {
            do { out[p.name] = try query.text(p.name) } catch {
                throw error.code == "missing_parameter" ? .missing(p.name) : KakaoError(type: "InvalidArgument", message: "\(p.name) is given more than once")
            }
        }
        return out
    }

    static func integer(_ o: [String: String], _ name: String, _ range: ClosedRange<Int>, default d: Int) throws(KakaoError) -> Int {
        guard let text = o[name] else { return d }
        guard let v = Int(text), range.contains(v) else { throw .invalid(name, text, "an integer \(range.lowerBound)–\(range.upperBound)") }
        return v
    }

    static func number(_ o: [String: String], _ name: String) throws(KakaoError) -> Double? {
        guard let text = o[name] else { return nil }
        guard let v = NumberParsing.finiteDouble(text) else { throw .invalid(name, text, "a number") }
        return v
    }

    static func coordinateText(_ v: Double) -> JSONValue { .string(String(format: "%.7f", v).replacingOccurrences(of: #"\.?0+$"#, with: "", options: .regularExpression)) }

    /// Every hit of `query` the search pages through (at most `PlaceIndex.maximumResults`), in
    /// its order: the Kakao pages are slices of it, and its count is `total_count`.
    static func allHits(_ index: PlaceIndex, _ query: PlaceQuery) throws(KakaoError) -> [PlaceHit] {
        var q = query
        q.limit = PlaceQuery.maximumLimit
        q.cursor = nil
        var all: [PlaceHit] = []
        while true {
            let r: PlaceSearchResult
            do { r = try index.search(q) } catch { throw kakaoError(error) }
            all += r.places
            guard let next = r.nextCursor else { return all }
            q.cursor = next
        }
    }

    /// The page `page` of `size` of `all`.
    static func slice(_ all: [PlaceHit], page: Int, size: Int) -> ArraySlice<PlaceHit> {
        all.dropFirst((page - 1) * size).prefix(size)
    }

    /// Kakao's `meta` for any page of `total` hits: `pageable_count` the hits the 45 pages of
    /// `size` reach, `is_end` whether this page reaches the last of them.
    static func meta(total: Int, page: Int, size: Int) -> JSONValue {
        let pageable = min(total, maxPage * size)
        return ["total_count": .number(Double(total)), "pageable_count": .number(Double(pageable)), "is_end": .bool(page * size >= pageable)]
    }

    /// A search refusal in Kakao's words: its parameter names (`query`, not the `q` of `/v1/places`).
    static func kakaoError(_ error: PlaceSearchError) -> KakaoError {
        switch error {
        case .emptyQuery: KakaoError(type: "InvalidArgument", message: "query must contain a letter or digit")
        case .queryTooLong(let n): KakaoError(type: "InvalidArgument", message: "query is \(n) Unicode code points long; the maximum is \(PlaceQuery.maximumLength)")
        case .invalidRect(let t): .invalid("rect", t, "left_x,left_y,right_x,right_y in WGS84 degrees")
        case .invalidRadius(let why): KakaoError(type: "InvalidArgument", message: "radius \(why)")
        case .invalidNear(let t): .invalid("x/y", t, "WGS84 longitude and latitude")
        case .invalidSort(let why): KakaoError(type: "InvalidArgument", message: "sort \(why)")
        case .unknownCategory(let c, _): .invalid("category_group_code", c, groups.map(\.code).joined(separator: ", "))
        // Set by this face, never by the client: named as the page they stand for.
        case .invalidLimit(let t): .invalid("size", t, "an integer 1–\(maxSize)")
        case .invalidCursor(let t): .invalid("page", t, "an integer 1–\(maxPage)")
        }
    }

    /// `GET /v2/local/search/keyword.json`.
    static func keyword(_ query: QueryReader, _ index: PlaceIndex) throws(KakaoError) -> HTTPResponse {
        let o = try options(query)
        guard let text = o["query"], !text.isEmpty else { throw .missing("query") }
        var query = PlaceQuery(text: text)
        // x and y go together: one without the other, like radius or sort=distance without
        // them, is ignored (a lone value fits its schema; Kakao uses them only as a pair).
        let x = try number(o, "x"), y = try number(o, "y")
        if let x, !(-180...180).contains(x) { throw .invalid("x", o["x"]!, "a longitude −180…180") }
        if let y, !(-90...90).contains(y) { throw .invalid("y", o["y"]!, "a latitude −90…90") }
        if let x, let y {
            guard Coordinate(lon: x, lat: y).isValid else { throw .invalid("x/y", "\(x),\(y)", "WGS84 longitude and latitude") }
            query.near = Coordinate(lon: x, lat: y)
        }
        if o["radius"] != nil {
            let r = try integer(o, "radius", 0...Int(PlaceQuery.maximumRadius), default: 0)
            if query.near != nil { query.radiusMeters = Double(max(r, 1)) }
        }
        if let rect = o["rect"] {
            let v = rect.split(separator: ",").compactMap { NumberParsing.finiteDouble(String($0)) }
            guard v.count == 4 else { throw .invalid("rect", rect, "left_x,left_y,right_x,right_y") }
            query.rect = BoundingBox(west: min(v[0], v[2]), south: min(v[1], v[3]), east: max(v[0], v[2]), north: max(v[1], v[3]))
        }
        if let code = o["category_group_code"] {
            guard let g = groups.first(where: { $0.code == code }) else { throw .invalid("category_group_code", code, groups.map(\.code).joined(separator: ", ")) }
            query.category = g.category
        }
        if let s = o["sort"] {
            guard let sort = PlaceSort(rawValue: s) else { throw .invalid("sort", s, "accuracy or distance") }
            if query.near != nil { query.sort = sort }
        }
        let pageNumber = try integer(o, "page", 1...maxPage, default: 1), size = try integer(o, "size", 1...maxSize, default: maxSize)
        let all = try allHits(index, query)
        let hits = slice(all, page: pageNumber, size: size)
        let documents: [JSONValue] = hits.map { h in
            let p = h.place, g = groups.first { $0.category == p.category }
            return .object([
                ("id", .string(p.id)), ("place_name", .string(p.name)), ("category_name", .string(p.category)),
                ("category_group_code", .string(g?.code ?? "")), ("category_group_name", .string(g?.name ?? "")), ("phone", ""),
                ("address_name", .string(p.address)), ("road_address_name", .string(isRoadAddress(p.address) ? p.address : "")), ("x", coordinateText(p.lon)), ("y", coordinateText(p.lat)),
                ("place_url", ""), ("distance", .string(h.distanceMeters.map { String(Int($0.rounded())) } ?? "")),
            ])
        }
        var meta = meta(total: all.count, page: pageNumber, size: size)
        if case .object(var m) = meta {
            m.append(("same_name", ["region": [], "keyword": .string(text), "selected_region": ""]))
            meta = .object(m)
        }
        return .json(["meta": meta, "documents": .array(documents)])
    }

    /// Kakao's `address` member for a point: the 시도/시군구/동 at it.
    static func address(at c: Coordinate, name: String?, _ index: PlaceIndex) -> JSONValue {
        let area = index.reverse(at: c, limit: 0).area
        return .object([
            ("address_name", .string(name ?? area?.fullName ?? "")),
            ("region_1depth_name", .string(area?.sido?.name ?? "")), ("region_2depth_name", .string(area?.sigungu?.name ?? "")),
            ("region_3depth_name", .string(area?.emd?.name ?? "")), ("mountain_yn", "N"), ("main_address_no", ""), ("sub_address_no", ""),
        ])
    }

    /// `GET /v2/local/search/address.json`: the index's address-kind places (divisions; road-name
    /// addresses when the index holds them) matching `query`.
    static func addressSearch(_ query: QueryReader, _ index: PlaceIndex) throws(KakaoError) -> HTTPResponse {
        let o = try options(query)
        guard let text = o["query"], !text.isEmpty else { throw .missing("query") }
        if let a = o["analyze_type"], a != "similar", a != "exact" { throw .invalid("analyze_type", a, "similar or exact") }
        let pageNumber = try integer(o, "page", 1...maxPage, default: 1), size = try integer(o, "size", 1...30, default: 10)
        // Every hit the search pages through, address kinds kept, then paged here.
        let all = try allHits(index, PlaceQuery(text: text)).filter { addressCategories.contains($0.place.category) }
        let exact = o["analyze_type"] == "exact"
        let matching = exact ? all.filter { $0.place.name == text || $0.place.address == text } : all
        let documents: [JSONValue] = slice(matching, page: pageNumber, size: size).map { h in
            let p = h.place, road = p.category == "road_address"
            let name = p.address.isEmpty ? p.name : p.address
            return .object([
                ("address_name", .string(name)), ("address_type", .string(road ? "ROAD_ADDR" : (p.category == "address" ? "REGION_ADDR" : "REGION"))),
                ("x", coordinateText(p.lon)), ("y", coordinateText(p.lat)),
                ("address", road ? .null : address(at: p.coordinate, name: name, index)),
                ("road_address", road ? ["address_name": .string(name)] : .null),
            ])
        }
        return .json(["meta": meta(total: matching.count, page: pageNumber, size: size), "documents": .array(documents)])
    }

    /// `GET /v2/local/geo/coord2address.json`: the 시도/시군구/동 at `x`,`y` (WGS84 only).
    static func coord2address(_ query: QueryReader, _ index: PlaceIndex) throws(KakaoError) -> HTTPResponse {
        let o = try options(query)
        guard let x = try number(o, "x") else { throw .missing("x") }
        guard let y = try number(o, "y") else { throw .missing("y") }
        if let crs = o["input_coord"], crs != "WGS84" { throw .invalid("input_coord", crs, "WGS84 only") }
        let c = Coordinate(lon: x, lat: y)
        guard c.isValid else { throw .invalid("x/y", "\(x),\(y)", "WGS84 longitude −180…180 and latitude −90…90") }
        guard index.reverse(at: c, limit: 0).area != nil else { return .json(["meta": ["total_count": 0], "documents": []]) }
        return .json(["meta": ["total_count": 1], "documents": [["road_address": .null, "address": address(at: c, name: nil, index)]]])
    }
}

func registerKakaoLocalEndpoints(_ router: Router, _ context: ServiceContext) {
    let auth = ParameterDoc("Authorization", in: "header", "KakaoAK … (accepted and ignored)")
    let page = ParameterDoc("page", type: "integer", "page, 1–45 (default 1)", schema: APISchemas.integer(1...KakaoLocalFace.maxPage))
    func doc(_ summary: String, _ parameters: [ParameterDoc], _ schema: JSONValue) -> OperationDoc {
        OperationDoc(summary, parameters: parameters + [auth],
                     responses: [(200, "Kakao Local's answer: {\"meta\",\"documents\"}; meta.total_count is every hit the search pages through (at most \(PlaceIndex.maximumResults)), the same on every page, pageable_count the part 45 pages of size reach"),
                                 (400, "Kakao's error: {\"errorType\",\"message\"} with MissingParameter or InvalidArgument, naming Kakao's parameter")],
                     responseSchema: schema, errorSchema: KakaoSchemas.error,
                     errorExample: ["errorType": "MissingParameter", "message": "query parameter required"])
    }
    router.operation("GET", "/v2/local/search/keyword.json", doc(
        "Kakao Local keyword search over the place index (x, y as strings; category_group_code SW8, AT4, FD6, AD5, MT1)",
        [ParameterDoc("query", required: true, "what the user typed", schema: APISchemas.placeText),
         ParameterDoc("category_group_code", "Kakao's category group", schema: APISchemas.oneOf(Array(Set(KakaoLocalFace.groups.map(\.code))).sorted())),
         ParameterDoc("x", type: "number", "longitude of the centre (WGS84)", schema: ["type": "number", "minimum": -180, "maximum": 180]),
         ParameterDoc("y", type: "number", "latitude of the centre (WGS84)", schema: ["type": "number", "minimum": -90, "maximum": 90]),
         ParameterDoc("radius", type: "integer", "metres around x,y, 0–20000", schema: APISchemas.integer(0...20_000)),
         ParameterDoc("rect", "left_x,left_y,right_x,right_y", schema: APISchemas.bboxQuery),
         page, ParameterDoc("size", type: "integer", "page size, 1–15 (default 15)", schema: APISchemas.integer(1...KakaoLocalFace.maxSize)),
         ParameterDoc("sort", "accuracy (default) or distance (needs x, y)", schema: APISchemas.oneOf(["accuracy", "distance"]))],
        KakaoSchemas.keyword), cost: .light) { _, query in
        do throws(KakaoError) { return try KakaoLocalFace.keyword(query, context.places) } catch { return error.response }
    }
    router.operation("GET", "/v2/local/search/address.json", doc(
        "Kakao Local address search over the place index's addresses (시도/시군구/동; road-name addresses when indexed)",
        [ParameterDoc("query", required: true, "the address typed", schema: APISchemas.placeText),
         ParameterDoc("analyze_type", "similar (default) or exact", schema: APISchemas.oneOf(["similar", "exact"])),
         page, ParameterDoc("size", type: "integer", "page size, 1–30 (default 10)", schema: APISchemas.integer(1...30))],
        KakaoSchemas.address), cost: .light) { _, query in
        do throws(KakaoError) { return try KakaoLocalFace.addressSearch(query, context.places) } catch { return error.response }
    }
    router.operation("GET", "/v2/local/geo/coord2address.json", doc(
        "Kakao Local coordinate to address: the 시도/시군구/동 at a point (road_address is null)",
        [ParameterDoc("x", required: true, type: "number", "longitude (WGS84)", schema: ["type": "number", "minimum": -180, "maximum": 180]),
         ParameterDoc("y", required: true, type: "number", "latitude (WGS84)", schema: ["type": "number", "minimum": -90, "maximum": 90]),
         ParameterDoc("input_coord", "WGS84 only", schema: APISchemas.oneOf(["WGS84"]))],
        KakaoSchemas.coord2address), cost: .light) { _, query in
        do throws(KakaoError) { return try KakaoLocalFace.coord2address(query, context.places) } catch { return error.response }
    }
}

/// JSON Schemas of the Kakao face's answers.
enum KakaoSchemas {
    typealias S = ResponseSchemas
    static let error: JSONValue = ["oneOf": [
        S.object(["errorType", "message"], [
            ("errorType", ["type": "string", "enum": ["MissingParameter", "InvalidArgument"]]), ("message", S.string),
        ]),
        // The transport's own refusals (a malformed URL) come before the face and keep the API's shape.
        ["$ref": "#/components/schemas/Error"],
    ]]
    static let meta: JSONValue = S.object(["total_count", "pageable_count", "is_end"], [
        ("total_count", S.count), ("pageable_count", S.count), ("is_end", ["type": "boolean"]),
        ("same_name", S.object(["region", "keyword", "selected_region"], [("region", S.array(S.string)), ("keyword", S.string), ("selected_region", S.string)])),
    ])
    static let keyword: JSONValue = S.object(["meta", "documents"], [
        ("meta", meta),
        ("documents", S.array(S.object(
            ["id", "place_name", "category_name", "category_group_code", "category_group_name", "phone", "address_name",
             "road_address_name", "x", "y", "place_url", "distance"],
            ["id", "place_name", "category_name", "category_group_code", "category_group_name", "phone", "address_name",
             "road_address_name", "x", "y", "place_url", "distance"].map { ($0, S.string) }))),
    ])
    static let addressMember: JSONValue = S.object(
        ["address_name", "region_1depth_name", "region_2depth_name", "region_3depth_name", "mountain_yn", "main_address_no", "sub_address_no"],
        ["address_name", "region_1depth_name", "region_2depth_name", "region_3depth_name", "mountain_yn", "main_address_no", "sub_address_no"].map { ($0, S.string) })
    static let address: JSONValue = S.object(["meta", "documents"], [
        ("meta", meta),
        ("documents", S.array(S.object(["address_name", "address_type", "x", "y", "address", "road_address"], [
            ("address_name", S.string), ("address_type", ["type": "string", "enum": ["REGION", "ROAD", "REGION_ADDR", "ROAD_ADDR"]]),
            ("x", S.string), ("y", S.string), ("address", S.nullable(addressMember)),
            ("road_address", S.nullable(S.object(["address_name"], [("address_name", S.string)]))),
        ]))),
    ])
    static let coord2address: JSONValue = S.object(["meta", "documents"], [
        ("meta", S.object(["total_count"], [("total_count", S.count)])),
        ("documents", S.array(S.object(["road_address", "address"], [("road_address", ["type": "null"]), ("address", addressMember)]))),
    ])
}

@testable import API
import HTTPServer
import JSON
import TestSupport
import XCTest

/// `/v1/transform` in-process through the router.
final class CoordinatesEndpointTests: XCTestCase {
    static let router: Router = {
        let context = try! TestDataset.context()
        return makeRouter(context: context)
    }()

    func get(_ target: String) -> HTTPResponse {
        var query: [(name: String, value: String)] = []
        for pair in target.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            query.append((String(parts[0]), parts.count > 1 ? String(parts[1]) : ""))
        }
        return Self.router.handle(HTTPRequest(method: "GET", path: "/v1/transform", query: query)).response
    }

    func post(_ body: String) -> HTTPResponse {
        post(Array(body.utf8))
    }

    func post(_ body: [UInt8]) -> HTTPResponse {
        Self.router.handle(HTTPRequest(method: "POST", path: "/v1/transform", headers: ["content-type": "application/json"], body: body)).response
    }

    func json(_ r: HTTPResponse, file: StaticString = #filePath, line: UInt = #line) throws -> JSONValue {
        XCTAssertEqual(r.headers.first { $0.0 == "Content-Type" }?.1, "application/json", file: file, line: line)
        return try JSONParser.parse(r.body)
    }

    func assertError(_ r: HTTPResponse, _ status: Int, _ code: String, mentions: [String] = [],
                     file: StaticString = #filePath, line: UInt = #line) throws
    {
        let body = String(decoding: r.body, as: UTF8.self)
        XCTAssertEqual(r.status, status, body, file: file, line: line)
        let j = try json(r, file: file, line: line)
        XCTAssertEqual(j["error"]?["code"]?.stringValue, code, body, file: file, line: line)
        let message = j["error"]?["message"]?.stringValue ?? ""
        for m in mentions { XCTAssertTrue(message.contains(m), "'\(message)' should mention '\(m)'", file: file, line: line) }
    }

    func coords(_ j: JSONValue) -> [(Double, Double)] {
        (j["coords"]?.arrayValue ?? []).map { ($0[0]?.doubleValue ?? .nan, $0[1]?.doubleValue ?? .nan) }
    }

    // MARK: GET

    func testGetTransformsToKATECAndFlagsOutsideAreaOfUse() throws {
        let r = get("from=wgs84&to=KATEC&coords=126.978546,37.566554;129.075642,35.179554")
        XCTAssertEqual(r.status, 200, String(decoding: r.body, as: UTF8.self))
        let j = try json(r)
        XCTAssertEqual(j["from"]?.stringValue, "EPSG:4326")
        XCTAssertEqual(j["to"]?.stringValue, "KATEC")
        let c = coords(j)
        XCTAssertEqual(c.count, 2)
        XCTAssertEqual(c[0].0, 309958.44, accuracy: 0.1)  // docs/REFERENCE.md, "Coordinate systems"
        XCTAssertEqual(c[0].1, 552078.82, accuracy: 0.1)
        XCTAssertEqual(j["outside_area_of_use"], [])
        // Busan lies outside WTM's (EPSG:5181) Central Belt, 126–128°E.
        let w = try json(get("from=WGS84&to=WTM&coords=126.978546,37.566554;129.075642,35.179554"))
        XCTAssertEqual(w["outside_area_of_use"], [1])
        XCTAssertEqual(coords(w)[0].0, 198104.6055, accuracy: 0.001)  // cs2cs EPSG:4326 EPSG:5181
    }

    func testGetErrors() throws {
        try assertError(get("from=WGS84&to=EPSG:999999&coords=127,37"), 400, "unknown_crs", mentions: ["'to'", "EPSG:999999"])
        try assertError(get("from=KATECH&to=WGS84&coords=127,37"), 400, "unknown_crs", mentions: ["'from'", "KATECH"])
        try assertError(get("from=EPSG:4978&to=WGS84&coords=127,37"), 400, "unsupported_crs", mentions: ["EPSG:4978", "geocentric"])
        try assertError(get("from=WGS84&to=UTMK"), 400, "missing_parameter", mentions: ["coords"])
        try assertError(get("from=WGS84&to=UTMK&coords=127,37;127,abc"), 400, "invalid_coordinate", mentions: ["point 1", "abc"])
        try assertError(get("from=WGS84&to=UTMK&coords=127,37;127,37;nan,37"), 400, "invalid_coordinate", mentions: ["point 2"])
        try assertError(get("from=WGS84&to=UTMK&coords=127,37;127"), 400, "invalid_coordinate", mentions: ["point 1"])
        // Numbers out of the source CRS's range fit the documented pattern (which cannot depend on
        // `from`): 422, where text that is not a pair of numbers is 400.
        try assertError(get("from=WGS84&to=UTMK&coords=127,37;127,91"), 422, "invalid_coordinate", mentions: ["point 1", "latitude 91"])
        try assertError(get("from=WGS84&to=UTMK&coords=181,37"), 422, "invalid_coordinate", mentions: ["point 0", "longitude 181"])
        let many = [String](repeating: "127,37", count: 1_001).joined(separator: ";")
        try assertError(get("from=WGS84&to=UTMK&coords=" + many), 400, "too_many_points", mentions: ["1001", "1000"])
        let limit = [String](repeating: "127,37", count: 1_000).joined(separator: ";")
        XCTAssertEqual(coords(try json(get("from=WGS84&to=UTMK&coords=" + limit))).count, 1_000)
    }

    // MARK: POST

    func testPostMatchesGetAndHandlesWCONGNAMUL() throws {
        let r = post(#"{"from":"WCONGNAMUL","to":"WGS84","coords":[[439042,1109728],[500000,1250000]]}"#)
        XCTAssertEqual(r.status, 200, String(decoding: r.body, as: UTF8.self))
        let j = try json(r)
        XCTAssertEqual(j["from"]?.stringValue, "WCONGNAMUL")
        let c = coords(j)
        XCTAssertEqual(c[0].0, 126.7243, accuracy: 1e-4)  // Incheon/Bupyeong, docs/REFERENCE.md, "Coordinate systems"
        XCTAssertEqual(c[0].1, 37.4942, accuracy: 1e-4)
        // 500000, 1250000 WCONGNAMUL = 200000, 500000 m in EPSG:5181 = its origin, 127°E 38°N.
        XCTAssertEqual(c[1].0, 127, accuracy: 1e-10)
        XCTAssertEqual(c[1].1, 38, accuracy: 1e-10)
        let g = try json(get("from=WCONGNAMUL&to=WGS84&coords=439042,1109728;500000,1250000"))
        XCTAssertEqual(g["coords"], j["coords"])
    }

    func testPostLimitAndErrors() throws {
        func body(_ n: Int) -> [UInt8] {
            var s = #"{"from":"WGS84","to":"UTMK","coords":["#
            s += [String](repeating: "[127,37]", count: n).joined(separator: ",")
            return Array((s + "]}").utf8)
        }
        try assertError(post(body(100_001)), 413, "too_many_points", mentions: ["100001", "100000"])
        let full = post(body(100_000))
        XCTAssertEqual(full.status, 200)
        XCTAssertEqual(coords(try json(full)).count, 100_000)

        try assertError(post("{nope"), 400, "invalid_json")
        try assertError(post("[1,2]"), 400, "invalid_json")
        try assertError(post(#"{"to":"UTMK","coords":[[127,37]]}"#), 400, "missing_field", mentions: ["from"])
        try assertError(post(#"{"from":"WGS84","to":"UTMK"}"#), 400, "missing_field", mentions: ["coords"])
        try assertError(post(#"{"from":"WGS84","to":"NOPE","coords":[[127,37]]}"#), 400, "unknown_crs", mentions: ["'to'", "NOPE"])
        try assertError(post(#"{"from":"WGS84","to":"UTMK","coords":[[127,37],[127]]}"#), 400, "invalid_coordinate", mentions: ["point 1"])
        try assertError(post(#"{"from":"WGS84","to":"UTMK","coords":[[127,37],[127,"37"]]}"#), 400, "invalid_coordinate", mentions: ["point 1"])
        try assertError(post(#"{"from":"WGS84","to":"UTMK","coords":[[127,37],[127,37],[127,-90.5]]}"#), 422, "invalid_coordinate",
                        mentions: ["point 2", "latitude -90.5"])
        // EPSG:3035 cannot map its antipode (cs2cs prints "*" too).
        try assertError(post(#"{"from":"WGS84","to":"EPSG:3035","coords":[[10,52],[-170,-52]]}"#), 422, "transform_failed", mentions: ["point 1"])
    }

    func testOpenAPIDocumentsBothOperations() throws {
        let routes = Self.router.routes.filter { $0.pattern == "/v1/transform" }
        XCTAssertEqual(Set(routes.map(\.method)), ["GET", "POST"])
        let get = try XCTUnwrap(routes.first { $0.method == "GET" })
        XCTAssertEqual(get.doc.parameters.map(\.name), ["from", "to", "coords"])
        XCTAssertNotNil(routes.first { $0.method == "POST" }?.doc.requestBody)
    }
}

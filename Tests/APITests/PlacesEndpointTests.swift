import Foundation
import TaxiPotServer
import TestSupport
import XCTest

/// `GET /v1/places` and `GET /v1/reverse` in-process: a data folder linking the repository's
/// `data/` sources, with the place DB built into its `build/` once per test run.
final class PlacesEndpointTests: XCTestCase {
    static let router: Result<Router, Error> = Result { makeRouter(context: try TestDataset.context()) }

    func get(_ path: String, _ query: [(String, String)]) throws -> (status: Int, json: JSONValue) {
        let response = try Self.router.get().handle(HTTPRequest(method: "GET", path: path, query: query)).response
        return (response.status, try JSONParser.parse(response.body))
    }

    func testSearch() throws {
        let (status, json) = try get("/v1/places", [("q", "강남역")])
        XCTAssertEqual(status, 200)
        let places = try XCTUnwrap(json["places"]?.arrayValue)
        XCTAssertEqual(places.count, 15)  // the default page
        let first = places[0]
        XCTAssertEqual(first["name"]?.stringValue, "강남역")
        XCTAssertEqual(first["category"]?.stringValue, "station")
        XCTAssertTrue(first["address"]?.stringValue?.contains("강남대로") ?? false)
        XCTAssertEqual(first["lon"]?.doubleValue ?? 0, 127.028, accuracy: 0.005)
        XCTAssertEqual(first["lat"]?.doubleValue ?? 0, 37.497, accuracy: 0.005)
        XCTAssertNotNil(first["id"]?.stringValue)
        XCTAssertNil(first["distance_m"], "no distance without near")
        XCTAssertNotNil(json["next_cursor"]?.stringValue)
        // Exactly the documented members, in order.
        XCTAssertEqual(first.objectValue?.map(\.0), ["id", "name", "category", "address", "lon", "lat"])
    }

    /// A junction typed with its word ("강남역사거리": the data names it 강남역) is found by both
    /// faces, the Kakao one as /v1/places (issue 43).
    func testAJunctionWordIsUnderstoodByBothFaces() throws {
        for text in ["강남역사거리", "광화문사거리"] {
            let stem = String(text.dropLast(3))
            let ours = try get("/v1/places", [("q", text)])
            XCTAssertEqual(ours.json["places"]?[0]?["id"], try get("/v1/places", [("q", stem)]).json["places"]?[0]?["id"], text)
            XCTAssertTrue(ours.json["places"]?[0]?["name"]?.stringValue?.hasPrefix(stem) == true, text)
            let kakao = try get("/v2/local/search/keyword.json", [("query", text)])
            XCTAssertEqual(kakao.status, 200, text)
            XCTAssertEqual(kakao.json["documents"]?[0]?["id"], ours.json["places"]?[0]?["id"], text)
        }
    }

    func testNearFiltersAndPaging() throws {
        // 시청 near Daejeon is Daejeon's, with its distance.
        let (status, json) = try get("/v1/places", [("q", "시청"), ("near", "127.3848,36.3504"), ("limit", "3")])
        XCTAssertEqual(status, 200)
        let first = try XCTUnwrap(json["places"]?[0])
        XCTAssertEqual(first["name"]?.stringValue, "시청역")
        XCTAssertTrue(first["address"]?.stringValue?.hasPrefix("대전") ?? false)
        XCTAssertLessThan(first["distance_m"]?.doubleValue ?? .infinity, 2_000)

        let stations = try get("/v1/places", [("q", "강남"), ("category", "station"), ("limit", "50")]).json
        XCTAssertTrue(stations["places"]?.arrayValue?.allSatisfy { $0["category"]?.stringValue == "station" } ?? false)

        let near = try get("/v1/places", [("q", "역"), ("near", "127.0276,37.4979"), ("radius_m", "800"), ("sort", "distance"),
                                          ("limit", "20")]).json
        let d = near["places"]?.arrayValue?.compactMap { $0["distance_m"]?.doubleValue } ?? []
        XCTAssertFalse(d.isEmpty)
        XCTAssertEqual(d, d.sorted())
        XCTAssertTrue(d.allSatisfy { $0 <= 800 })

        let inRect = try get("/v1/places", [("q", "시청"), ("rect", "128.9,35.05,129.3,35.3")]).json
        XCTAssertTrue(inRect["places"]?[0]?["address"]?.stringValue?.hasPrefix("부산") ?? false)

        let page1 = try get("/v1/places", [("q", "역삼"), ("limit", "5")]).json
        let cursor = try XCTUnwrap(page1["next_cursor"]?.stringValue)
        let page2 = try get("/v1/places", [("q", "역삼"), ("limit", "5"), ("cursor", cursor)]).json
        let both = try get("/v1/places", [("q", "역삼"), ("limit", "10")]).json
        let ids = { (j: JSONValue) in j["places"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [] }
        XCTAssertEqual(ids(page1) + ids(page2), ids(both))
    }

    func testBadInput() throws {
        // 400: a value does not fit its documented schema; 422: each fits, the request is still
        // refused (text with no letter or digit, parameters that need `near`, a rect's bounds out
        // of order, a cursor of another search).
        func code(_ query: [(String, String)], _ expected: Int = 400) throws -> String? {
            let (status, json) = try get("/v1/places", query)
            XCTAssertEqual(status, expected, "\(query)")
            XCTAssertNotNil(json["error"]?["message"]?.stringValue)
            return json["error"]?["code"]?.stringValue
        }
        // Absent q is missing (issue 37), and Kakao's `query` is pointed at.
        XCTAssertEqual(try code([]), "missing_parameter")
        XCTAssertEqual(try code([("query", "강남역")]), "missing_parameter")
        XCTAssertTrue(try get("/v1/places", [("query", "강남역")]).json["error"]?["message"]?.stringValue?.contains("Kakao") ?? false)
        XCTAssertEqual(try code([("q", "")]), "empty_query")
        XCTAssertEqual(try code([("q", "   ")], 422), "empty_query")
        XCTAssertEqual(try code([("q", String(repeating: "강", count: 101))]), "query_too_long")
        // maxLength counts code points: one character of 101 (a letter and 100 combining marks) is too long.
        XCTAssertEqual(try code([("q", "a" + String(repeating: "\u{301}", count: 100))]), "query_too_long")
        XCTAssertEqual(try code([("q", "강남"), ("category", "casino")]), "unknown_category")
        let unknown = try get("/v1/places", [("q", "강남"), ("category", "casino")]).json
        XCTAssertTrue(unknown["error"]?["message"]?.stringValue?.contains("station, bus_stop") ?? false)
        XCTAssertEqual(try code([("q", "강남"), ("near", "abc")]), "invalid_near")
        XCTAssertEqual(try code([("q", "강남"), ("near", "127.0,95.0")]), "invalid_near")
        XCTAssertEqual(try code([("q", "강남"), ("rect", "1,2,3")]), "invalid_rect")
        XCTAssertEqual(try code([("q", "강남"), ("rect", "127.1,37.4,126.9,37.6")], 422), "invalid_rect")
        XCTAssertEqual(try code([("q", "강남"), ("radius_m", "500")], 422), "invalid_radius")
        XCTAssertEqual(try code([("q", "강남"), ("near", "127.0,37.5"), ("radius_m", "-1")]), "invalid_radius")
        XCTAssertEqual(try code([("q", "강남"), ("sort", "distance")], 422), "invalid_sort")
        XCTAssertEqual(try code([("q", "강남"), ("sort", "best")]), "invalid_sort")
        XCTAssertEqual(try code([("q", "강남"), ("limit", "0")]), "invalid_limit")
        XCTAssertEqual(try code([("q", "강남"), ("limit", "51")]), "invalid_limit")
        XCTAssertEqual(try code([("q", "강남"), ("cursor", "15.nothere")]), "invalid_cursor")
        XCTAssertEqual(try code([("q", "강남"), ("cursor", "5.00000000")], 422), "invalid_cursor")
        XCTAssertEqual(try code([("q", "강남"), ("q", "역삼")]), "repeated_parameter")
        // FTS syntax is plain text, never an error.
        for q in ["\"강남역\"", "강남*", "강남 NEAR 역삼", "-강남", "강남:역", "(강남)", "강남 OR 역삼", "*", "\""] {
            let (status, json) = try get("/v1/places", [("q", q)])
            if SearchText.fold(q).isEmpty {
                XCTAssertEqual(status, 422, q)
                XCTAssertEqual(json["error"]?["code"]?.stringValue, "empty_query")
            } else {
                XCTAssertEqual(status, 200, q)
            }
        }
    }

    func testReverse() throws {
        let (status, json) = try get("/v1/reverse", [("at", "126.9780,37.5663")])
        XCTAssertEqual(status, 200)
        let region = try XCTUnwrap(json["region"])
        XCTAssertEqual(region["sido"]?["name"]?.stringValue, "서울특별시")
        XCTAssertEqual(region["sigungu"]?["name"]?.stringValue, "중구")
        XCTAssertEqual(region["dong"]?["name"]?.stringValue, "태평로1가")
        XCTAssertEqual(region["full_name"]?.stringValue, "서울특별시 중구 태평로1가")
        XCTAssertEqual(region["approximate"]?.boolValue, false)
        let places = try XCTUnwrap(json["places"]?.arrayValue)
        XCTAssertFalse(places.isEmpty)
        XCTAssertTrue(places.allSatisfy { ($0["distance_m"]?.doubleValue ?? .infinity) <= 300 })

        let busan = try get("/v1/reverse", [("at", "129.0756,35.1798")]).json
        XCTAssertEqual(busan["region"]?["approximate"]?.boolValue, true)
        XCTAssertEqual(busan["region"]?["sido"]?["name"]?.stringValue, "부산광역시")

        let sea = try get("/v1/reverse", [("at", "124.0,33.0")])
        XCTAssertEqual(sea.status, 200)
        XCTAssertEqual(sea.json["region"], .null)

        XCTAssertEqual(try get("/v1/reverse", []).status, 400)
        XCTAssertEqual(try get("/v1/reverse", [("at", "37.5,127.0,1")]).json["error"]?["code"]?.stringValue, "invalid_at")
        XCTAssertEqual(try get("/v1/reverse", [("at", "200,37")]).json["error"]?["code"]?.stringValue, "invalid_at")
        XCTAssertEqual(try get("/v1/reverse", [("at", "127,37.5"), ("radius_m", "0")]).json["error"]?["code"]?.stringValue, "invalid_radius")
    }

    func testDocumentedInOpenAPI() throws {
        let routes = try Self.router.get().routes
        let places = try XCTUnwrap(routes.first { $0.pattern == "/v1/places" })
        XCTAssertEqual(Set(places.doc.parameters.map(\.name)), ["q", "near", "radius_m", "rect", "category", "sort", "limit", "cursor"])
        XCTAssertNotNil(routes.first { $0.pattern == "/v1/reverse" })
    }
}

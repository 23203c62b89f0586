import API
import Foundation
import Geo
import HTTPServer
import JSON
import TestSupport
import XCTest

/// `GET /v1/coverage`, the coverage summary of `/health`, and quotes outside the served roads.
final class CoverageEndpointTests: XCTestCase {
    static let router: Result<Router, Error> = Result { makeRouter(context: try TestDataset.context()) }

    func call(_ method: String, _ path: String, query: [(String, String)] = [], body: String = "") throws -> (status: Int, json: JSONValue, type: String?) {
        let r = try Self.router.get().handle(HTTPRequest(method: method, path: path, query: query.map { ($0.0, $0.1) }, body: Array(body.utf8))).response
        return (r.status, try JSONParser.parse(r.body), r.headers.first { $0.0.lowercased() == "content-type" }?.1)
    }

    func testCoverageIsGeoJSONWithOneFeaturePerArea() throws {
        let (status, json, type) = try call("GET", "/v1/coverage")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(type, "application/geo+json")
        XCTAssertEqual(json["type"]?.stringValue, "FeatureCollection")
        XCTAssertEqual(json["network"]?["name"]?.stringValue, "osm", "the test dataset serves the OSM graph")
        let features = try XCTUnwrap(json["features"]?.arrayValue)
        XCTAssertGreaterThanOrEqual(features.count, 4, "central Seoul, Songpa, Dongjak and the Yeouido pieces")
        var nodes = 0
        for f in features {
            XCTAssertEqual(f["geometry"]?["type"]?.stringValue, "MultiPolygon")
            let polygons = try XCTUnwrap(f["geometry"]?["coordinates"]?.arrayValue)
            XCTAssertFalse(polygons.isEmpty)
            let ring = try XCTUnwrap(polygons[0].arrayValue?[0].arrayValue)
            XCTAssertEqual(ring.first?.arrayValue?.compactMap(\.doubleValue), ring.last?.arrayValue?.compactMap(\.doubleValue))
            XCTAssertEqual(f["properties"]?["bbox"]?.arrayValue?.count, 4)
            nodes += f["properties"]?["nodes"]?.intValue ?? 0
        }
        let health = try call("GET", "/health").json
        XCTAssertEqual(health["network"]?["name"]?.stringValue, "osm")
        XCTAssertEqual(health["coverage"]?["areas"]?.intValue, features.count)
        XCTAssertEqual(health["coverage"]?["nodes"]?.intValue, nodes)
        let bands = try XCTUnwrap(health["circuity"]?["bands"]?.arrayValue)
        XCTAssertEqual(bands.count, 6)
        let first = bands[0]
        XCTAssertGreaterThan(first["pairs"]?.intValue ?? 0, 100)
        XCTAssertGreaterThan(first["median"]?.doubleValue ?? 0, 1)
        XCTAssertNotNil(first["p10"]?.doubleValue)
        XCTAssertNotNil(first["p90"]?.doubleValue)
    }

    func testQuoteOutsideCoverageAnswers422OrALabelledEstimate() throws {
        let body = #"{"origin":{"lon":127.0276,"lat":37.4979},"destination":{"lon":126.9237,"lat":37.5572},"depart_at":"2024-05-08T10:00"}"#
        let refused = try call("POST", "/v1/quote", body: body)
        XCTAssertEqual(refused.status, 422)
        XCTAssertEqual(refused.json["error"]?["code"]?.stringValue, "outside_coverage")
        XCTAssertTrue(refused.json["error"]?["message"]?.stringValue?.contains("'origin'") ?? false)

        let allowed = try call("POST", "/v1/quote", body: String(body.dropLast()) + #","estimate":"allow"}"#)
        XCTAssertEqual(allowed.status, 200)
        let label = try XCTUnwrap(allowed.json["estimated"])
        XCTAssertEqual(label["method"]?.stringValue, "straight_line")
        XCTAssertGreaterThan(label["circuity"]?.doubleValue ?? 0, 1)
        let range = try XCTUnwrap(label["fare_range_krw"]?.arrayValue?.compactMap(\.intValue))
        let total = try XCTUnwrap(allowed.json["fare"]?["total_krw"]?.intValue)
        XCTAssertEqual(range.count, 2)
        XCTAssertTrue(range[0] <= total && total <= range[1], "\(range) \(total)")
        XCTAssertEqual(label["reason"]?["code"]?.stringValue, "outside_coverage")

        // The same through the query, and never without the label.
        let viaQuery = try call("POST", "/v1/quote", query: [("estimate", "allow")], body: body)
        XCTAssertEqual(viaQuery.status, 200)
        XCTAssertEqual(viaQuery.json["estimated"]?["fare_range_krw"]?.arrayValue?.count, 2)
        let routed = try call("POST", "/v1/quote", query: [("estimate", "allow")],
                              body: #"{"origin":{"lon":126.9829,"lat":37.57},"destination":{"lon":126.972,"lat":37.5547},"depart_at":"2024-05-08T10:00"}"#)
        XCTAssertEqual(routed.status, 200)
        XCTAssertNil(routed.json["estimated"], "a routed quote carries no estimate label")

        let bad = try call("POST", "/v1/quote", body: String(body.dropLast()) + #","estimate":"maybe"}"#)
        XCTAssertEqual(bad.status, 400)
        XCTAssertTrue(bad.json["error"]?["message"]?.stringValue?.contains("estimate") ?? false)
    }
}

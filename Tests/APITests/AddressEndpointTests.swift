import Foundation
import TaxiPotServer
import TestSupport
import XCTest

/// Addresses over HTTP (issue 36): `/v1/places` answers an address with its `precision`;
/// `/v1/reverse` gives the nearest road-name address estimate.
final class AddressEndpointTests: XCTestCase {
    static let router: Result<Router, Error> = Result { makeRouter(context: try TestDataset.context()) }

    func get(_ path: String, _ query: [(String, String)]) throws -> (status: Int, json: JSONValue) {
        let response = try Self.router.get().handle(HTTPRequest(method: "GET", path: path, query: query)).response
        return (response.status, try JSONParser.parse(response.body))
    }

    func testAddressAnswersSayTheirPrecision() throws {
        for (q, precision) in [("서울 중구 세종대로 110", "interpolated"), ("역삼동 737", "dong"), ("테헤란로 99999999999", "road"),
                               ("테헤란로 -1", "road")] {
            let (status, json) = try get("/v1/places", [("q", q)])
            XCTAssertEqual(status, 200, q)
            let first = try XCTUnwrap(json["places"]?[0], q)
            XCTAssertEqual(first["category"]?.stringValue, "address", q)
            XCTAssertEqual(first["precision"]?.stringValue, precision, q)
        }
        // Places carry no precision.
        let (_, json) = try get("/v1/places", [("q", "강남역")])
        XCTAssertNil(json["places"]?[0]?["precision"])
    }

    func testReverseAddsTheNearestAddress() throws {
        let (status, json) = try get("/v1/reverse", [("at", "126.9779,37.5663")])
        XCTAssertEqual(status, 200)
        let address = try XCTUnwrap(json["address"])
        XCTAssertEqual(address["road"]?.stringValue, "세종대로")
        XCTAssertEqual(address["precision"]?.stringValue, "interpolated")
        XCTAssertTrue(address["text"]?.stringValue?.hasPrefix("서울특별시 중구 세종대로 ") ?? false, "\(address)")
        // At sea: null, not missing.
        let (_, sea) = try get("/v1/reverse", [("at", "124.0,33.0")])
        XCTAssertEqual(sea["address"], .null)
    }
}

import API
import Foundation
import Geo
import HTTPServer
import JSON
import TestSupport
import XCTest

/// Where straight-line estimates stop (`estimate=allow` beyond South Korea or 1,000 km: 422
/// `outside_estimate_range`), and how far away the nearest served road is said to be from far
/// points (a great-circle distance, longitude wrapped).
final class EstimateRangeTests: XCTestCase {
    static let context: Result<ServiceContext, Error> = Result { try TestDataset.context() }
    static let router: Result<Router, Error> = Result { makeRouter(context: try context.get()) }

    func call(_ method: String, _ path: String, query: [(String, String)] = [], body: String = "") throws -> (status: Int, json: JSONValue) {
        let r = try Self.router.get().handle(HTTPRequest(method: method, path: path, query: query, body: Array(body.utf8))).response
        return (r.status, try JSONParser.parse(r.body))
    }

    static let jonggak = "126.9829,37.57"
    /// Destinations no taxi fare reaches: New York, the South Pole on the antimeridian, and a
    /// subnormal longitude with a negative zero latitude (the Gulf of Guinea), written in decimals
    /// as the point pattern has them (no exponent).
    static let farAway = [(-74.0, 40.7, "-74,40.7"), (180.0, -90.0, "180,-90"),
                          (1e-320, -0.0, "0." + String(repeating: "0", count: 319) + "1,-0.0")]

    func testEstimateBeyondKoreaIsRefusedWith422OnQuoteAndOffers() throws {
        for (lon, lat, text) in Self.farAway {
            let body = #"{"origin":{"lon":126.9829,"lat":37.57},"destination":{"lon":\#(lon),"lat":\#(lat)},"depart_at":"2024-05-08T10:00","estimate":"allow"}"#
            let quote = try call("POST", "/v1/quote", body: body)
            XCTAssertEqual(quote.status, 422, "\(text): \(quote.json)")
            XCTAssertEqual(quote.json["error"]?["code"]?.stringValue, "outside_estimate_range", text)
            let message = quote.json["error"]?["message"]?.stringValue ?? ""
            XCTAssertTrue(message.hasPrefix("destination ("), message)
            XCTAssertTrue(message.contains("South Korea"), message)

            let match = try call("GET", "/v1/match", query: [("origin", Self.jonggak), ("destination", text), ("estimate", "allow"),
                                                            ("depart_at", "2024-05-08T10:00:00+09:00")])
            XCTAssertEqual(match.status, 422, "\(text): \(match.json)")
            XCTAssertEqual(match.json["error"]?["code"]?.stringValue, "outside_estimate_range", text)
            XCTAssertTrue(match.json["error"]?["message"]?.stringValue?.hasPrefix("destination (") ?? false, "\(match.json)")

            // Without estimate=allow the answer is outside_coverage, as before.
            let denied = try call("POST", "/v1/quote", body: body.replacingOccurrences(of: #","estimate":"allow""#, with: ""))
            XCTAssertEqual(denied.status, 422)
            XCTAssertEqual(denied.json["error"]?["code"]?.stringValue, "outside_coverage")
        }
    }

    /// Inside South Korea an estimate still prices (Seoul → Busan, about 325 km in a straight
    /// line); a route zigzagging between them past 1,000 km is refused with no point named.
    func testEstimateRangeIsSouthKoreaAndAThousandKilometres() throws {
        let busan = #"{"lon":129.0414,"lat":35.1151}"#, seoul = #"{"lon":126.9829,"lat":37.57}"#
        let toBusan = try call("POST", "/v1/quote", body: #"{"origin":\#(seoul),"destination":\#(busan),"depart_at":"2024-05-08T10:00","estimate":"allow"}"#)
        XCTAssertEqual(toBusan.status, 200, "\(toBusan.json)")
        XCTAssertEqual(toBusan.json["estimated"]?["method"]?.stringValue, "straight_line")

        let zigzag = #"{"origin":\#(seoul),"drop_offs":[\#(busan),\#(seoul)],"destination":\#(busan),"riders":3,"depart_at":"2024-05-08T10:00","estimate":"allow"}"#
        let long = try call("POST", "/v1/quote", body: zigzag)
        XCTAssertEqual(long.status, 422, "\(long.json)")
        XCTAssertEqual(long.json["error"]?["code"]?.stringValue, "outside_estimate_range")
        XCTAssertTrue(long.json["error"]?["message"]?.stringValue?.contains("1000 km") ?? false, "\(long.json)")
    }

    /// "The nearest served road is about N km away": the great-circle distance to the served
    /// roads (within a coverage cell, about 0.8 km, of the nearest road node), also across the
    /// antimeridian.
    func testNearestServedRoadDistanceIsGreatCircle() throws {
        let graph = try Self.context.get().data.graph
        for (lon, lat) in [(-74.0, 40.7), (-179.9, 37.5), (129.0756, 35.1796)] {
            let far = Coordinate(lon: lon, lat: lat)
            let answer = try call("GET", "/v1/route", query: [("from", Self.jonggak), ("to", "\(lon),\(lat)")])
            XCTAssertEqual(answer.status, 422)
            let message = answer.json["error"]?["message"]?.stringValue ?? ""
            let said = try XCTUnwrap(message.firstMatch(of: /about ([0-9.]+) km away/).flatMap { Double($0.1) }, message) * 1000
            let nearestNode = (0..<graph.nodeCount).lazy.map { far.distance(to: graph.coordinate(ofNode: $0)) }.min()!
            XCTAssertLessThanOrEqual(said, nearestNode + 100, "\(far): \(message)")
            XCTAssertGreaterThanOrEqual(said, nearestNode - 900, "\(far): \(message)")
        }
    }
}

import API
import Quoting
import FareEstimation
import Fares
import Foundation
import Geo
import HTTPServer
import Import
import JSON
import Places
import Routing
import TestSupport
import XCTest

/// `POST /v1/fare` served in-process by a router over the repository's schedules and profile.
final class FaresEndpointTests: XCTestCase {
    static let router: Router = {
        let router = Router()
        do {
            registerFareEndpoint(router, fares: try FareEstimator.load(dataDir: TestPaths.dataDir.path))
        } catch {
            fatalError("data/fares or data/traffic does not load: \(error)")
        }
        return router
    }()

    func post(_ body: String) -> (status: Int, json: JSONValue?) {
        let r = Self.router.handle(HTTPRequest(method: "POST", path: "/v1/fare", body: Array(body.utf8))).response
        return (r.status, try? JSONParser.parse(r.body))
    }

    func testFareAnswerHasTheBreakdownAndTheSplit() throws {
        let (status, json) = post(#"{"distance_m":10000,"depart_at":"2024-05-08T23:30:00+09:00","riders":3}"#)
        XCTAssertEqual(status, 200)
        let fare = try XCTUnwrap(json?["fare"])
        let total = try XCTUnwrap(fare["total_krw"]?.intValue)
        let parts = ["base_krw", "distance_krw", "time_krw", "night_krw", "out_of_city_krw", "rounding_krw", "toll_krw"]
        XCTAssertEqual(parts.compactMap { fare[$0]?.intValue }.reduce(0, +), total)
        XCTAssertEqual(fare["schedule"]?.stringValue, "seoul-mid-2023-02-01")
        XCTAssertGreaterThan(fare["night_krw"]?.intValue ?? 0, 0)
        let split = try XCTUnwrap(json?["split"]?.arrayValue)
        XCTAssertEqual(split.count, 3)
        XCTAssertEqual(split.compactMap { $0["krw"]?.intValue }.reduce(0, +), total)
        XCTAssertEqual(split.first?["rider"]?.intValue, 0)
        XCTAssertEqual(json?["per_person_krw"]?.intValue, (total * 2 + 30) / 60 * 10)
        XCTAssertEqual(json?["trip"]?["timing"]?.stringValue, "profile")
        XCTAssertGreaterThan(json?["trip"]?["slow_s"]?.doubleValue ?? 0, 0)

        // With duration and slow time given, they are used as given.
        let given = post(#"{"distance_m":6840,"duration_s":1200,"slow_s":0,"depart_at":"2024-05-08T22:50","toll_krw":1100,"rounding":100,"riders":2,"split":"by_leg"}"#)
        XCTAssertEqual(given.status, 200)
        XCTAssertEqual(given.json?["trip"]?["timing"]?.stringValue, "given")
        XCTAssertEqual(given.json?["trip"]?["slow_s"]?.doubleValue, 0)
        XCTAssertEqual(given.json?["fare"]?["toll_krw"]?.intValue, 1100)
        XCTAssertEqual(given.json?["fare"]?["night_krw"]?.intValue, 1000 + 13 * 20 + 27 * 40)
        XCTAssertEqual(given.json?["split"]?.arrayValue?.compactMap { $0["krw"]?.intValue }, [6100, 6100])  // (11,140 → 11,100) + 1,100 toll, halved
    }

    func testBadInputAnswers() {
        let t = #""depart_at":"2024-05-08T12:00""#
        let cases: [(String, Int, String, String?)] = [
            (#"{"distance_m":1000,\#(t),"region":"daegu"}"#, 400, "unknown_region", "busan, gyeonggi, incheon, seoul"),
            (#"{"distance_m":1000,\#(t),"taxi_class":"van"}"#, 400, "unknown_taxi_class", "deluxe, mid"),
            (#"{"distance_m":1000,"depart_at":"yesterday"}"#, 400, "invalid_parameter", "depart_at"),
            (#"{"distance_m":1000,"depart_at":"2024-02-30T12:00"}"#, 400, "invalid_parameter", "depart_at"),
            (#"{"distance_m":1000}"#, 400, "missing_parameter", "depart_at"),
            (#"{"distance_m":1000,\#(t),"riders":0}"#, 400, "invalid_parameter", "riders"),
            (#"{"distance_m":1000,\#(t),"riders":11}"#, 400, "invalid_parameter", "riders"),
            (#"{"distance_m":1000,\#(t),"riders":1.5}"#, 400, "invalid_parameter", "riders"),
            (#"{"distance_m":-5,\#(t)}"#, 400, "invalid_parameter", "distance_m"),
            (#"{"distance_m":1000001,\#(t)}"#, 400, "invalid_parameter", "distance_m"),
            (#"{"distance_m":"ten",\#(t)}"#, 400, "invalid_parameter", "distance_m"),
            (#"{"distance_m":NaN,\#(t)}"#, 400, "invalid_json", nil),
            (#"{"distance_m":1e999,\#(t)}"#, 400, "invalid_json", nil),
            (#"{\#(t)}"#, 400, "missing_parameter", "distance_m"),
            (#"{"distance_m":1000,\#(t),"split":"fair"}"#, 400, "invalid_parameter", "split"),
            (#"{"distance_m":1000,\#(t),"rounding":50}"#, 400, "invalid_parameter", "rounding"),
            // Each value fits the schema, but slow_s exceeds duration_s: 422 (the schema cannot relate fields).
            (#"{"distance_m":1000,\#(t),"duration_s":60,"slow_s":90}"#, 422, "invalid_parameter", "slow_s"),
            (#"{"distance_m":1000,\#(t),"distance":5}"#, 400, "unknown_field", "distance"),
            (#"[1000]"#, 400, "invalid_json", nil),
            (#""#, 400, "invalid_json", nil),
            (#"{"distance_m":1000,"depart_at":"2015-06-01T12:00"}"#, 422, "no_schedule", "2019-02-16T04:00:00+09:00"),
            (#"{"distance_m":1000,"depart_at":"2023-01-10T12:00","taxi_class":"deluxe"}"#, 422, "no_schedule", "2023-02-01T04:00:00+09:00"),
        ]
        for (body, status, code, mention) in cases {
            let (s, json) = post(body)
            XCTAssertEqual(s, status, body)
            XCTAssertEqual(json?["error"]?["code"]?.stringValue, code, body)
            if let mention {
                let message = json?["error"]?["message"]?.stringValue ?? ""
                XCTAssertTrue(message.contains(mention), "\(body): \(message)")
            }
        }
    }

    /// `POST /v1/quote` over the shared test dataset's route engine and the real region locator.
    static let quoteRouter: Result<Router, Error> = Result {
        let fares = try FareEstimator.load(dataDir: TestPaths.dataDir.path)
        let quotes = RideQuoter(routes: try TestDataset.loaded.get().routes, fares: fares,
                                 regions: try RegionLocator(dataDirectory: TestPaths.dataDir.path))
        let router = Router()
        registerQuoteEndpoint(router, quotes: quotes)
        return router
    }

    func quote(_ body: String, router: Router? = nil) throws -> (status: Int, json: JSONValue?) {
        let r = try (router ?? Self.quoteRouter.get()).handle(HTTPRequest(method: "POST", path: "/v1/quote", body: Array(body.utf8))).response
        return (r.status, try? JSONParser.parse(r.body))
    }

    let jonggak = #"{"lon":126.9829,"lat":37.5700}"#
    let itaewon = #"{"lon":126.9945,"lat":37.5345}"#
    let seoulStation = #"{"lon":126.9720,"lat":37.5547}"#

    func testQuoteAnswer() throws {
        let body = #"{"origin":\#(jonggak),"destination":\#(itaewon),"drop_offs":[{"lon":126.9720,"lat":37.5547,"riders":2}],"#
            + #""riders":3,"depart_at":"2024-05-08T23:30:00+09:00","split":"by_leg","rounding":100,"toll_krw":0}"#
        let (status, json) = try quote(body)
        XCTAssertEqual(status, 200, "\(String(describing: json))")
        let route = try XCTUnwrap(json?["route"])
        XCTAssertEqual(route["legs"]?.arrayValue?.count, 2)
        XCTAssertGreaterThan(route["distance_m"]?.doubleValue ?? 0, 3000)
        XCTAssertNotNil(route["geometry"]?.stringValue.flatMap { Polyline.decode($0) })
        let fare = try XCTUnwrap(json?["fare"])
        let total = try XCTUnwrap(fare["total_krw"]?.intValue)
        XCTAssertEqual(fare["schedule"]?.stringValue, "seoul-mid-2023-02-01")
        XCTAssertEqual(fare["region"]?.stringValue, "seoul")
        XCTAssertGreaterThan(fare["night_krw"]?.intValue ?? 0, 0)
        let split = try XCTUnwrap(json?["split"]?.arrayValue)
        XCTAssertEqual(split.count, 3)
        XCTAssertEqual(split.compactMap { $0["krw"]?.intValue }.reduce(0, +), total)
        XCTAssertEqual(split.map { $0["drop_off"]?.intValue }, [nil, 0, 0])
        XCTAssertTrue(split.dropFirst().allSatisfy { ($0["krw"]?.intValue ?? 1) % 100 == 0 })
        XCTAssertNotNil(json?["per_person_krw"]?.intValue)

        // Defaults: riders 1, equal split, departure now.
        let (s2, j2) = try quote(#"{"origin":\#(jonggak),"destination":\#(seoulStation)}"#)
        XCTAssertEqual(s2, 200)
        XCTAssertEqual(j2?["split"]?.arrayValue?.count, 1)
        XCTAssertEqual(j2?["split"]?[0]?["krw"]?.intValue, j2?["fare"]?["total_krw"]?.intValue)
    }

    func testQuoteBadInputAnswers() throws {
        let t = #""depart_at":"2024-05-08T12:00""#
        let od = #""origin":\#(jonggak),"destination":\#(itaewon)"#
        let cases: [(String, Int, String, String?)] = [
            (#"{\#(od),\#(t),"riders":11}"#, 400, "invalid_parameter", "riders"),
            (#"{\#(od),\#(t),"riders":0}"#, 400, "invalid_parameter", "riders"),
            (#"{\#(od),\#(t),"taxi_class":"van"}"#, 400, "unknown_taxi_class", "deluxe, mid"),
            (#"{\#(od),"depart_at":"soon"}"#, 400, "invalid_parameter", "depart_at"),
            (#"{\#(od),"depart_at":"2012-01-01T12:00"}"#, 422, "no_schedule", "2019-02-16T04:00:00+09:00"),
            (#"{"origin":\#(jonggak),\#(t)}"#, 400, "missing_parameter", "destination"),
            (#"{"origin":{"lon":200,"lat":37},"destination":\#(itaewon),\#(t)}"#, 400, "invalid_parameter", "origin"),
            (#"{"origin":{"lon":"x"},"destination":\#(itaewon),\#(t)}"#, 400, "invalid_parameter", "origin"),
            // Two riders in all, both getting off at the drop-off: each value fits the schema, together they do not (422).
            (#"{\#(od),\#(t),"drop_offs":[{"lon":126.9720,"lat":37.5547,"riders":2}],"riders":2}"#, 422, "invalid_parameter", "riders"),
            (#"{\#(od),\#(t),"drop_offs":{"lon":1}}"#, 400, "invalid_parameter", "drop_offs"),
            (#"{\#(od),\#(t),"drop_offs":[{"lon":126.97,"lat":37.55,"riders":"two"}]}"#, 400, "invalid_parameter", "drop_offs[0].riders"),
            (#"{"origin":\#(jonggak),"destination":{"lon":126.90,"lat":37.60},\#(t)}"#, 422, "outside_coverage", "destination"),
            (#"{"origin":{"lon":150,"lat":10},"destination":\#(itaewon),\#(t)}"#, 422, "outside_fare_regions", "origin"),
            (#"{\#(od),\#(t),"split":"fair"}"#, 400, "invalid_parameter", "split"),
            (#"{\#(od),\#(t),"rounding":5}"#, 400, "invalid_parameter", "rounding"),
            (#"{\#(od),\#(t),"toll_krw":-1}"#, 400, "invalid_parameter", "toll_krw"),
            (#"{\#(od),\#(t),"from":1}"#, 400, "unknown_field", "from"),
        ]
        for (body, status, code, mention) in cases {
            let (s, json) = try quote(body)
            XCTAssertEqual(s, status, body)
            XCTAssertEqual(json?["error"]?["code"]?.stringValue, code, body)
            if let mention {
                let message = json?["error"]?["message"]?.stringValue ?? ""
                XCTAssertTrue(message.contains(mention), "\(body): \(message)")
            }
        }
    }
}

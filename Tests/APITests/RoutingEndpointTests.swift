import Foundation
import TaxiPotServer
import TestSupport
import XCTest

/// `GET /v1/route` in-process: a data folder linking the repository's `data/` sources, with
/// the Seoul graph imported into its `build/` once per test run.
final class RoutingEndpointTests: XCTestCase {
    /// A fresh folder linking every source of `data/`, with an empty `build/`.
    static func linkedDataDir() throws -> URL {
        let dir = TestPaths.temporaryDirectory("route-endpoint")
        let fm = FileManager.default
        for item in try fm.contentsOfDirectory(atPath: TestPaths.dataDir.path) where item != "build" {
            try fm.createSymbolicLink(at: dir.appendingPathComponent(item), withDestinationURL: TestPaths.dataDir.appendingPathComponent(item))
        }
        try fm.createDirectory(at: dir.appendingPathComponent("build"), withIntermediateDirectories: true)
        return dir
    }

    static let router: Result<Router, Error> = Result { makeRouter(context: try TestDataset.context()) }

    func get(_ query: [(String, String)]) throws -> (status: Int, json: JSONValue) {
        let response = try Self.router.get().handle(HTTPRequest(method: "GET", path: "/v1/route", query: query.map { ($0.0, $0.1) })).response
        return (response.status, try JSONParser.parse(response.body))
    }

    let cityHall = ("from", "126.9780,37.5665")
    let namsan = ("to", "126.9910,37.5512")

    func testRouteAnswer() throws {
        let (status, json) = try get([cityHall, namsan, ("depart_at", "2025-05-01T03:00:00+09:00")])
        XCTAssertEqual(status, 200)
        let distance = try XCTUnwrap(json["distance_m"]?.doubleValue)
        let duration = try XCTUnwrap(json["duration_s"]?.doubleValue)
        XCTAssertGreaterThan(distance, 2000)
        XCTAssertLessThan(distance, 12000)
        XCTAssertGreaterThan(duration, distance / (90 / 3.6))
        XCTAssertEqual(json["depart_at"]?.stringValue, "2025-05-01T03:00:00+09:00")
        XCTAssertEqual(json["metric"]?.stringValue, "time")
        let line = try XCTUnwrap(Polyline.decode(try XCTUnwrap(json["geometry"]?.stringValue), precision: 6))
        XCTAssertGreaterThan(line.count, 10)
        let drawn = zip(line, line.dropFirst()).reduce(0.0) { $0 + $1.0.distance(to: $1.1) }
        XCTAssertEqual(drawn, distance, accuracy: distance * 0.01)
        XCTAssertEqual(json["legs"]?.arrayValue?.count, 1)
        XCTAssertEqual(json["legs"]?[0]?["distance_m"]?.doubleValue, distance)
        let snapped = try XCTUnwrap(json["snapped"]?.arrayValue)
        XCTAssertEqual(snapped.count, 2)
        XCTAssertEqual(snapped[0]["location"]?[0]?.doubleValue ?? 0, 126.978, accuracy: 0.002)
        XCTAssertLessThan(snapped[0]["distance_m"]?.doubleValue ?? 999, 200)
        let names = try XCTUnwrap(json["street_names"]?.arrayValue?.compactMap(\.stringValue))
        XCTAssertTrue(names.contains("세종대로"), "\(names)")
    }

    func testGeometryFormatsMetricViaAndTime() throws {
        let geo = try get([cityHall, namsan, ("geometry", "geojson")]).json
        XCTAssertEqual(geo["geometry"]?["type"]?.stringValue, "LineString")
        XCTAssertGreaterThan(geo["geometry"]?["coordinates"]?.arrayValue?.count ?? 0, 10)
        XCTAssertEqual(geo["geometry"]?["coordinates"]?[0]?.arrayValue?.count, 2)
        let none = try get([cityHall, namsan, ("geometry", "none")]).json
        XCTAssertNil(none["geometry"])
        let night = try get([cityHall, namsan, ("depart_at", "2025-05-01T03:00:00")]).json
        let rush = try get([cityHall, namsan, ("depart_at", "2025-05-01T08:30:00")]).json
        XCTAssertGreaterThan(rush["duration_s"]!.doubleValue!, night["duration_s"]!.doubleValue! * 1.4)
        let shortest = try get([cityHall, namsan, ("metric", "distance"), ("depart_at", "2025-05-01T03:00:00")]).json
        XCTAssertEqual(shortest["metric"]?.stringValue, "distance")
        XCTAssertLessThanOrEqual(shortest["distance_m"]!.doubleValue!, night["distance_m"]!.doubleValue!)
        let via = try get([cityHall, namsan, ("via", "126.985,37.56;126.99,37.565")]).json
        XCTAssertEqual(via["legs"]?.arrayValue?.count, 3)
        XCTAssertEqual(via["snapped"]?.arrayValue?.count, 4)
    }

    func assertError(_ query: [(String, String)], status: Int, code: String, mentioning word: String,
                     file: StaticString = #filePath, line: UInt = #line) throws {
        let (s, json) = try get(query)
        XCTAssertEqual(s, status, file: file, line: line)
        XCTAssertEqual(json["error"]?["code"]?.stringValue, code, file: file, line: line)
        let message = json["error"]?["message"]?.stringValue ?? ""
        XCTAssertTrue(message.contains(word), "'\(message)' should mention '\(word)'", file: file, line: line)
    }

    func testBadInput() throws {
        try assertError([namsan], status: 400, code: "missing_parameter", mentioning: "'from'")
        try assertError([("from", "abc"), namsan], status: 400, code: "invalid_parameter", mentioning: "'from'")
        try assertError([cityHall, ("to", "126.99,91")], status: 400, code: "invalid_parameter", mentioning: "'to'")
        try assertError([cityHall, ("to", "nan,37.5")], status: 400, code: "invalid_parameter", mentioning: "'to'")
        try assertError([cityHall, namsan, ("via", "126.98,37.56;x")], status: 400, code: "invalid_parameter", mentioning: "'via'")
        let many = Array(repeating: "126.98,37.56", count: 26).joined(separator: ";")
        try assertError([cityHall, namsan, ("via", many)], status: 400, code: "too_many_via_points", mentioning: "25")
        try assertError([cityHall, namsan, ("metric", "fast")], status: 400, code: "invalid_parameter", mentioning: "'metric'")
        try assertError([cityHall, namsan, ("geometry", "wkt")], status: 400, code: "invalid_parameter", mentioning: "'geometry'")
        try assertError([cityHall, namsan, ("depart_at", "tomorrow")], status: 400, code: "invalid_parameter", mentioning: "'depart_at'")
        try assertError([cityHall, namsan, ("max_snap_m", "-1")], status: 400, code: "invalid_parameter", mentioning: "'max_snap_m'")
        try assertError([cityHall, cityHall, namsan], status: 400, code: "repeated_parameter", mentioning: "'from'")
        // Off the road network: Incheon harbour is far outside central Seoul.
        try assertError([cityHall, ("to", "126.60,37.45")], status: 422, code: "outside_coverage", mentioning: "'to'")
        try assertError([cityHall, namsan, ("via", "126.98,37.56;126.60,37.45")], status: 422, code: "outside_coverage", mentioning: "'via[1]'")
        XCTAssertEqual(ErrorMapping.http(RoutingError.noRoute(from: .origin, to: .destination)).status, 404)
        XCTAssertEqual(ErrorMapping.http(RoutingError.noRoute(from: .origin, to: .destination)).code, "no_route")
    }

    func testDocumentedInOpenAPI() throws {
        let response = try Self.router.get().handle(HTTPRequest(method: "GET", path: "/openapi.json")).response
        let text = String(decoding: response.body, as: UTF8.self)
        XCTAssertTrue(text.contains("/v1/route"))
        for p in ["from", "to", "via", "depart_at", "metric", "geometry", "max_snap_m"] { XCTAssertTrue(text.contains("\"\(p)\""), p) }
    }

    func testWithoutAGraphTheServiceRefusesToStartNamingIt() throws {
        let dir = try Self.linkedDataDir()
        XCTAssertThrowsError(try ServiceContext(configuration: ServiceConfiguration(dataDir: dir.path, stateDir: dir.path))) { error in
            XCTAssertTrue("\(error)".contains("seoul.graph"), "\(error)")
            XCTAssertTrue("\(error)".contains("make data"), "\(error)")
        }
    }
}

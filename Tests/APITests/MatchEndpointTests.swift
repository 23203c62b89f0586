import Foundation
import MapMatching
import TaxiPotServer
import TestSupport
import XCTest

/// `GET`/`POST /match/v1/{profile}/{coordinates}` in-process on the Seoul dataset: OSRM's shape,
/// the matched route of a clean trace is the route it was made from, errors in OSRM's codes.
final class MatchEndpointTests: XCTestCase {
    static let router: Result<Router, Error> = Result { makeRouter(context: try TestDataset.context()) }
    static let start = 1_764_637_200.0

    func call(_ method: String, _ coordinates: String, query: [(String, String)] = [], body: String = "") throws -> (status: Int, json: JSONValue) {
        let request = HTTPRequest(method: method, path: "/match/v1/driving/\(coordinates)", query: query, body: Array(body.utf8))
        let response = try Self.router.get().handle(request).response
        return (response.status, try JSONParser.parse(response.body))
    }

    /// A clean 10 s trace of City Hall → Gwanghwamun → Jongno 3-ga and its route.
    func trace() throws -> (coordinates: String, timestamps: String, route: RouteResult) {
        let engine = try TestDataset.loaded.get().routes
        let route = try engine.route(RouteRequest(from: Coordinate(lon: 126.9780, lat: 37.5665), to: Coordinate(lon: 126.9882, lat: 37.5701),
                                                  via: [Coordinate(lon: 126.9769, lat: 37.5759)], departAt: Self.start))
        let fixes = SyntheticTrace.make(route, intervalSeconds: 10, noiseMeters: 0, start: Self.start, seed: 1)
        return (fixes.map { "\($0.coordinate.lon),\($0.coordinate.lat)" }.joined(separator: ";"),
                fixes.map { String(Int($0.time!)) }.joined(separator: ";"), route)
    }

    func testGetShapeAndLength() throws {
        let t = try trace()
        let (status, json) = try call("GET", t.coordinates, query: [("timestamps", t.timestamps), ("overview", "full"), ("geometries", "geojson")])
        XCTAssertEqual(status, 200, "\(json)")
        XCTAssertEqual(json["code"]?.stringValue, "Ok")
        let m = try XCTUnwrap(json["matchings"]?[0])
        XCTAssertEqual(json["matchings"]?.arrayValue?.count, 1)
        XCTAssertEqual(m["distance"]?.doubleValue ?? 0, t.route.distanceMeters, accuracy: t.route.distanceMeters * 0.01)
        XCTAssertGreaterThan(m["confidence"]?.doubleValue ?? 0, 0.9)
        XCTAssertEqual(m["geometry"]?["type"]?.stringValue, "LineString")
        let points = t.coordinates.split(separator: ";").count
        XCTAssertEqual(json["tracepoints"]?.arrayValue?.count, points)
        // One leg between consecutive waypoints; fixes thinned out are projected (waypoint_index null).
        let waypoints = json["tracepoints"]?.arrayValue?.filter { $0["waypoint_index"]?.intValue != nil }.count ?? 0
        XCTAssertGreaterThan(waypoints, 1)
        XCTAssertEqual(m["legs"]?.arrayValue?.count, waypoints - 1)
        XCTAssertTrue(json["tracepoints"]?.arrayValue?.allSatisfy { $0 != .null } ?? false)
        XCTAssertEqual(json["tracepoints"]?[0]?["waypoint_index"]?.intValue, 0)
        XCTAssertEqual(json["tracepoints"]?[0]?["matchings_index"]?.intValue, 0)
    }

    func testPostTakesTheOptionsInTheBody() throws {
        let t = try trace()
        let get = try call("GET", t.coordinates, query: [("timestamps", t.timestamps)])
        let post = try call("POST", t.coordinates, body: "timestamps=\(t.timestamps)")
        XCTAssertEqual(post.status, 200)
        XCTAssertEqual(post.json, get.json)
    }

    func testErrorsInOSRMCodes() throws {
        let t = try trace()
        XCTAssertEqual(try call("GET", "126.9780,37.5665").json["code"]?.stringValue, "InvalidOptions")
        XCTAssertEqual(try call("GET", t.coordinates, query: [("timestamps", "1;2")]).json["code"]?.stringValue, "InvalidOptions")
        let back = t.timestamps.split(separator: ";").reversed().joined(separator: ";")
        let r = try call("GET", t.coordinates, query: [("timestamps", back)])
        XCTAssertEqual(r.status, 400)
        XCTAssertEqual(r.json["code"]?.stringValue, "InvalidValue")
        let far = (0..<5).map { "126.\(100 + $0),36.0" }.joined(separator: ";")
        let none = try call("GET", far)
        XCTAssertEqual(none.status, 400)
        XCTAssertEqual(none.json["code"]?.stringValue, "NoMatch")
        XCTAssertEqual(try call("GET", t.coordinates, query: [("gaps", "maybe")]).json["code"]?.stringValue, "InvalidQuery")
    }
}

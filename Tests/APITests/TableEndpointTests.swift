import Foundation
import TaxiPotServer
import TestSupport
import XCTest

/// `GET` and `POST /v1/table` in-process on the Seoul dataset: OSRM's shape, every cell the
/// route endpoint's answer for its pair, fares the quote's, limits and errors naming the field.
final class TableEndpointTests: XCTestCase {
    static let router: Result<Router, Error> = Result { makeRouter(context: try TestDataset.context()) }

    func call(_ method: String, _ path: String, query: [(String, String)] = [], body: String = "") throws -> (status: Int, json: JSONValue) {
        let request = HTTPRequest(method: method, path: path, query: query.map { ($0.0, $0.1) }, body: Array(body.utf8))
        let response = try Self.router.get().handle(request).response
        return (response.status, try JSONParser.parse(response.body))
    }

    let departAt = "2025-05-01T08:30:00+09:00"
    // City Hall, Namsan, Gwanghwamun, Jongno 3-ga, Seoul Station.
    let points = ["126.9780,37.5665", "126.9910,37.5512", "126.9769,37.5759", "126.9882,37.5701", "126.9706,37.5547"]

    func list(_ p: [String]) -> String { p.joined(separator: ";") }

    func testGetShapeAndEveryCellEqualsTheRouteAndTheQuote() throws {
        let sources = Array(points.prefix(3)), destinations = Array(points.suffix(3))
        let (status, json) = try call("GET", "/v1/table", query: [("sources", list(sources)), ("destinations", list(destinations)),
                                                                   ("depart_at", departAt), ("annotations", "duration,distance,fare")])
        XCTAssertEqual(status, 200, "\(json)")
        XCTAssertEqual(json.objectValue?.map(\.0), ["durations", "distances", "fares_krw", "sources", "destinations", "depart_at"])
        XCTAssertEqual(json["durations"]?.arrayValue?.count, 3)
        XCTAssertEqual(json["sources"]?.arrayValue?.count, 3)
        XCTAssertEqual(json["destinations"]?.arrayValue?.count, 3)
        XCTAssertEqual(json["depart_at"]?.stringValue, departAt)
        for (i, a) in sources.enumerated() {
            XCTAssertEqual(json["sources"]?[i]?["location"]?.arrayValue?.count, 2)
            XCTAssertLessThan(json["sources"]?[i]?["distance_m"]?.doubleValue ?? 999, 200)
            for (j, b) in destinations.enumerated() {
                XCTAssertEqual(json["durations"]?[i]?.arrayValue?.count, 3)
                let route = try call("GET", "/v1/route", query: [("from", a), ("to", b), ("depart_at", departAt), ("geometry", "none")])
                XCTAssertEqual(route.status, 200)
                XCTAssertEqual(json["durations"]?[i]?[j]?.doubleValue, route.json["duration_s"]?.doubleValue, "cell \(i),\(j)")
                XCTAssertEqual(json["distances"]?[i]?[j]?.doubleValue, route.json["distance_m"]?.doubleValue, "cell \(i),\(j)")
                let ca = a.split(separator: ","), cb = b.split(separator: ",")
                let quote = try call("POST", "/v1/quote", body: "{\"origin\":{\"lon\":\(ca[0]),\"lat\":\(ca[1])},\"destination\":{\"lon\":\(cb[0]),\"lat\":\(cb[1])},\"depart_at\":\"\(departAt)\"}")
                XCTAssertEqual(quote.status, 200)
                XCTAssertEqual(json["fares_krw"]?[i]?[j]?.intValue, quote.json["fare"]?["total_krw"]?.intValue, "cell \(i),\(j)")
            }
            if i == 0 {
                let route = try call("GET", "/v1/route", query: [("from", a), ("to", destinations[0]), ("geometry", "none")]).json
                XCTAssertEqual(json["sources"]?[0]?["location"], route["snapped"]?[0]?["location"])
            }
        }
    }

    func testDefaultsSquareTableAndAnnotations() throws {
        let (status, json) = try call("GET", "/v1/table", query: [("sources", list(points)), ("depart_at", departAt)])
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json.objectValue?.map(\.0), ["durations", "distances", "sources", "destinations", "depart_at"])
        XCTAssertEqual(json["durations"]?.arrayValue?.count, 5)
        for i in 0..<5 {
            XCTAssertEqual(json["durations"]?[i]?.arrayValue?.count, 5)
            XCTAssertEqual(json["durations"]?[i]?[i]?.doubleValue, 0)
        }
        XCTAssertEqual(json["sources"], json["destinations"])
        let only = try call("GET", "/v1/table", query: [("sources", list(points)), ("annotations", "distance")]).json
        XCTAssertEqual(only.objectValue?.map(\.0), ["distances", "sources", "destinations", "depart_at"])
    }

    func testPostEqualsGetWithBothPointForms() throws {
        let get = try call("GET", "/v1/table", query: [("sources", list(Array(points.prefix(2)))), ("destinations", list(points)),
                                                       ("depart_at", departAt), ("annotations", "duration,distance,fare")])
        XCTAssertEqual(get.status, 200)
        let body = "{\"sources\":[[126.9780,37.5665],{\"lon\":126.9910,\"lat\":37.5512}],\"destinations\":["
            + points.map { "[\($0)]" }.joined(separator: ",") + "],\"depart_at\":\"\(departAt)\",\"annotations\":[\"duration\",\"distance\",\"fare\"]}"
        let post = try call("POST", "/v1/table", body: body)
        XCTAssertEqual(post.status, 200, "\(post.json)")
        XCTAssertEqual(post.json, get.json)
        let commas = try call("POST", "/v1/table", body: "{\"sources\":[[126.9780,37.5665]],\"annotations\":\"duration\"}")
        XCTAssertEqual(commas.json.objectValue?.map(\.0), ["durations", "sources", "destinations", "depart_at"])
    }

    /// POST takes more points than GET: 250 random road points to 3.
    func testPostBeyondTheGetLimit() throws {
        var rng = SplitMix64(seed: 4)
        let graph = try TestDataset.loaded.get().graph
        // Points of the central area: cells between areas no road joins would be null.
        var counts: [Int: Int] = [:]
        for i in 0..<graph.nodeCount { counts[graph.area(ofNode: i), default: 0] += 1 }
        let central = counts.max { $0.value < $1.value }!.key
        var pts: [Coordinate] = []
        while pts.count < 250 {
            let i = Int(rng.next() % UInt64(graph.nodeCount))
            if graph.area(ofNode: i) == central { pts.append(graph.coordinate(ofNode: i)) }
        }
        let body = "{\"sources\":[" + pts.map { "[\($0.lon),\($0.lat)]" }.joined(separator: ",") + "],\"destinations\":["
            + pts.prefix(3).map { "[\($0.lon),\($0.lat)]" }.joined(separator: ",") + "],\"depart_at\":\"\(departAt)\"}"
        let (status, json) = try call("POST", "/v1/table", body: body)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["durations"]?.arrayValue?.count, 250)
        XCTAssertEqual(json["distances"]?[249]?.arrayValue?.count, 3)
        XCTAssertTrue(json["durations"]?.arrayValue?.allSatisfy { $0.arrayValue?.allSatisfy { $0.doubleValue != nil } ?? false } ?? false)
        for k in 0..<3 { XCTAssertEqual(json["durations"]?[k]?[k]?.doubleValue, 0) }
    }

    func testLimits() throws {
        let many = Array(repeating: points[0], count: 101)
        var r = try call("GET", "/v1/table", query: [("sources", list(many))])
        XCTAssertEqual(r.status, 400)
        XCTAssertEqual(r.json["error"]?["code"]?.stringValue, "too_many_points")
        XCTAssertTrue(r.json["error"]?["message"]?.stringValue?.contains("'sources'") ?? false)
        r = try call("GET", "/v1/table", query: [("sources", points[0]), ("destinations", list(many))])
        XCTAssertEqual(r.json["error"]?["code"]?.stringValue, "too_many_points")
        XCTAssertTrue(r.json["error"]?["message"]?.stringValue?.contains("'destinations'") ?? false)
        let body = "{\"sources\":[" + Array(repeating: "[126.978,37.5665]", count: 1001).joined(separator: ",") + "]}"
        r = try call("POST", "/v1/table", body: body)
        XCTAssertEqual(r.status, 400)
        XCTAssertEqual(r.json["error"]?["code"]?.stringValue, "too_many_points")
        let fares = "{\"sources\":[" + Array(repeating: "[126.978,37.5665]", count: 101).joined(separator: ",") + "],\"annotations\":[\"fare\"]}"
        r = try call("POST", "/v1/table", body: fares)
        XCTAssertEqual(r.status, 400)
        XCTAssertEqual(r.json["error"]?["code"]?.stringValue, "too_many_cells")
    }

    func testPointTooFarFromARoadIs422NamingItsIndex() throws {
        var r = try call("GET", "/v1/table", query: [("sources", list([points[0], points[1], "125.0,36.0"]))])
        XCTAssertEqual(r.status, 422)
        XCTAssertEqual(r.json["error"]?["code"]?.stringValue, "outside_coverage")
        XCTAssertTrue(r.json["error"]?["message"]?.stringValue?.contains("km") ?? false, "names how far the served roads are: \(r.json)")
        XCTAssertTrue(r.json["error"]?["message"]?.stringValue?.contains("sources[2]") ?? false, "\(r.json)")
        r = try call("POST", "/v1/table", body: "{\"sources\":[[126.978,37.5665]],\"destinations\":[[126.978,37.5665],[125.0,36.0]]}")
        XCTAssertEqual(r.status, 422)
        XCTAssertTrue(r.json["error"]?["message"]?.stringValue?.contains("destinations[1]") ?? false, "\(r.json)")
    }

    func testBadInputNamesTheField() throws {
        let cases: [([(String, String)], String, String)] = [
            ([], "missing_parameter", "sources"),
            ([("sources", "126.97,37.56;abc")], "invalid_parameter", "sources"),
            ([("sources", points[0]), ("destinations", "126.97")], "invalid_parameter", "destinations"),
            ([("sources", points[0]), ("annotations", "duration,speed")], "invalid_parameter", "annotations"),
            ([("sources", points[0]), ("depart_at", "tomorrow")], "invalid_parameter", "depart_at"),
            ([("sources", points[0]), ("max_snap_m", "-3")], "invalid_parameter", "max_snap_m"),
        ]
        for (query, code, field) in cases {
            let r = try call("GET", "/v1/table", query: query)
            XCTAssertEqual(r.status, 400, "\(query)")
            XCTAssertEqual(r.json["error"]?["code"]?.stringValue, code, "\(query)")
            XCTAssertTrue(r.json["error"]?["message"]?.stringValue?.contains(field) ?? false, "\(query): \(r.json)")
        }
        let bodies: [(String, String, String)] = [
            ("{}", "missing_parameter", "sources"),
            ("[1,2]", "invalid_json", "object"),
            ("{\"sources\":\"126.97,37.56\"}", "invalid_parameter", "sources"),
            ("{\"sources\":[[126.97]]}", "invalid_parameter", "sources[0]"),
            ("{\"sources\":[[126.97,37.56]],\"destinations\":[[126.97,95]]}", "invalid_parameter", "destinations[0]"),
            ("{\"sources\":[[126.97,37.56]],\"annotations\":[\"fare\",3]}", "invalid_parameter", "annotations"),
            ("{\"sources\":[[126.97,37.56]],\"colour\":1}", "unknown_field", "colour"),
            ("{\"sources\":[[126.97,37.56]],\"depart_at\":7}", "invalid_parameter", "depart_at"),
        ]
        for (body, code, field) in bodies {
            let r = try call("POST", "/v1/table", body: body)
            XCTAssertEqual(r.status, 400, body)
            XCTAssertEqual(r.json["error"]?["code"]?.stringValue, code, body)
            XCTAssertTrue(r.json["error"]?["message"]?.stringValue?.contains(field) ?? false, "\(body): \(r.json)")
        }
    }

    func testOpenAPIDocumentsBothMethods() throws {
        let doc = try call("GET", "/openapi.json").json
        XCTAssertNotNil(doc["paths"]?["/v1/table"]?["get"])
        XCTAssertNotNil(doc["paths"]?["/v1/table"]?["post"]?["requestBody"])
        let names = doc["paths"]?["/v1/table"]?["get"]?["parameters"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        XCTAssertEqual(names, ["sources", "destinations", "depart_at", "annotations", "max_snap_m"])
    }
}

@testable import API
import Foundation
import Geo
import HTTPServer
import JSON
import Parties
import PartyModel
import TestSupport
import XCTest

/// The API accepts what it prints (issue 43): every party object, id, ETag and cursor an answer
/// prints is taken back where the API takes such a thing, and a write refuses what the engine
/// cannot serve.
final class RoundTripTests: XCTestCase {
    let token = "round-trip"

    func call(_ router: Router, _ method: String, _ path: String, query: [(String, String)] = [], body: String? = nil,
              headers: [String: String] = [:]) -> (status: Int, json: JSONValue?, headers: [(String, String)], body: [UInt8])
    {
        var headers = headers
        if method != "GET" { headers["authorization"] = "Bearer \(token)" }
        let r = router.handle(HTTPRequest(method: method, path: path, query: query.map { (name: $0.0, value: $0.1) },
                                          headers: headers, body: body.map { Array($0.utf8) } ?? [])).response
        return (r.status, r.body.isEmpty ? nil : try? JSONParser.parse(r.body), r.headers, r.body)
    }

    func plainRouter() throws -> Router {
        let service = try PartyService(stateDirectory: TestPaths.temporaryDirectory("round-trip").path)
        let router = Router()
        registerPartiesEndpoints(router, parties: service, writeToken: token)
        return router
    }

    let depart = SeoulTime.format(Date().timeIntervalSince1970 + 3600)
    /// Central Seoul, on the tests' network: 시청 → 종로.
    let trip = #""origin":[126.978,37.5665],"destination":[126.9882,37.5701]"#

    /// The members of a printed party but the version, which each write moves on.
    func withoutVersion(_ v: JSONValue?) -> [String: JSONValue] {
        var m = [String: JSONValue]()
        for (k, x) in v?.objectValue ?? [] where k != "version" { m[k] = x }
        return m
    }

    /// A party's GET, and each item of a party listing, PUT back exactly as printed: accepted
    /// (200), the same party. A party listing no rider prints `"riders": []` (FARES.md's way to
    /// create one), which a PUT took for a malformed list (400).
    func testAPartyAsPrintedIsAcceptedBack() throws {
        let router = try plainRouter()
        let bodies = [
            "none": #"{\#(trip),"depart_at":"\#(depart)","seats_total":3,"riders":[]}"#,
            "implied": #"{\#(trip),"depart_at":"\#(depart)","seats_total":4,"seats_taken":2,"title":"시청 → 종로"}"#,
            "listed": #"{\#(trip),"depart_at":"\#(depart)","seats_total":4,"riders":[{"rider_id":"h","seats":1},{"rider_id":"a","seats":2,"drop_off":[126.9769,37.5759]}]}"#,
        ]
        for (id, body) in bodies.sorted(by: { $0.key < $1.key }) {
            let created = call(router, "PUT", "/v1/parties/\(id)", body: body)
            XCTAssertEqual(created.status, 201, "\(id): \(String(describing: created.json))")
            let printed = try XCTUnwrap(call(router, "GET", "/v1/parties/\(id)").json, id)
            let back = call(router, "PUT", "/v1/parties/\(id)", body: String(decoding: JSONWriter.bytes(printed), as: UTF8.self))
            XCTAssertEqual(back.status, 200, "\(id): \(String(describing: back.json))")
            let again = call(router, "GET", "/v1/parties/\(id)").json
            XCTAssertEqual(withoutVersion(again), withoutVersion(printed), id)
            XCTAssertEqual(again?["version"]?.intValue, (printed["version"]?.intValue ?? 0) + 1, id)
        }
        XCTAssertEqual(call(router, "GET", "/v1/parties/none").json?["riders"], .array([]))
        // The listing's items (with distance_m), and its cursor.
        var cursor: String?
        var seen = Set<String>()
        repeat {
            let page = call(router, "GET", "/v1/parties", query: [("near", "126.978,37.5665"), ("limit", "1")] + (cursor.map { [("cursor", $0)] } ?? []))
            XCTAssertEqual(page.status, 200)
            for item in page.json?["parties"]?.arrayValue ?? [] {
                let id = try XCTUnwrap(item["id"]?.stringValue)
                seen.insert(id)
                let back = call(router, "PUT", "/v1/parties/\(id)", body: String(decoding: JSONWriter.bytes(item), as: UTF8.self))
                XCTAssertEqual(back.status, 200, "\(id): \(String(describing: back.json))")
            }
            cursor = page.json?["next_cursor"]?.stringValue
        } while cursor != nil
        XCTAssertEqual(seen, Set(bodies.keys))
        // The ETag as If-Match, and a printed rider_id as the leave's path.
        let listed = call(router, "GET", "/v1/parties/listed")
        let etag = try XCTUnwrap(listed.headers.first { $0.0.lowercased() == "etag" }?.1)
        let rider = try XCTUnwrap(listed.json?["riders"]?.arrayValue?.last?["rider_id"]?.stringValue)
        XCTAssertEqual(call(router, "DELETE", "/v1/parties/listed/riders/\(rider)", headers: ["if-match": etag]).status, 204)
    }

    /// Each cluster's numeric feature id (its GeoJSON `id` and `feature_id`, as supercluster's
    /// `getChildren(id)` takes it) answers children and leaves exactly as its `cluster_id` does,
    /// at every zoom, for clusters of one cell and merged ones, down to the parties; a lone
    /// party's number is not a cluster's (400).
    func testEveryClusterFeatureIDIsTakenBack() throws {
        let service = try PartyService(stateDirectory: TestPaths.temporaryDirectory("round-trip-clusters").path)
        let router = Router()
        registerPartiesEndpoints(router, parties: service, writeToken: token)
        var rng = SplitMix64(seed: 43)
        let center = Coordinate(lon: 126.978, lat: 37.5665)
        for i in 0..<300 {
            let c = i < 20 ? center : center.offset(eastMeters: .random(in: -8000...8000, using: &rng), northMeters: .random(in: -8000...8000, using: &rng))
            _ = try service.save(Party(id: "P\(i)", origin: c, destination: center, departAt: Date().timeIntervalSince1970 + 3600 + Double(i),
                                       seatsTotal: 4, seatsTaken: 1))
        }
        var kinds = Set<String>()
        var checked = 0
        for zoom in [4, 9, 11, 12, 13, 15, 17, 20] {
            let bbox = zoom < 15 ? "126.85,37.48,127.10,37.64" : "126.97,37.56,126.99,37.57"
            let answer = call(router, "GET", "/v1/clusters", query: [("bbox", bbox), ("zoom", "\(zoom)")])
            XCTAssertEqual(answer.status, 200, "zoom \(zoom): \(String(describing: answer.json))")
            for f in answer.json?["features"]?.arrayValue ?? [] {
                let number = try XCTUnwrap(f["id"]?.doubleValue.map { Int64($0) })
                XCTAssertEqual(f["properties"]?["feature_id"]?.doubleValue.map { Int64($0) }, number)
                guard let text = f["properties"]?["cluster_id"]?.stringValue else {
                    kinds.insert("party")
                    let asCluster = call(router, "GET", "/v1/clusters/\(number)/children")
                    XCTAssertEqual(asCluster.status, 404)
                    XCTAssertEqual(asCluster.json?["error"]?["code"]?.stringValue, "cluster_not_found")
                    continue
                }
                kinds.insert(text.split(separator: ".").count > 3 ? "merged" : "one cell")
                for (path, query) in [("children", [(String, String)]()), ("leaves", [("limit", "1000")])] {
                    let byText = call(router, "GET", "/v1/clusters/\(text)/\(path)", query: query)
                    let byNumber = call(router, "GET", "/v1/clusters/\(number)/\(path)", query: query)
                    XCTAssertEqual(byText.status, 200, "\(text) \(path): \(String(describing: byText.json))")
                    XCTAssertEqual(byNumber.status, 200, "\(number) (\(text)) \(path): \(String(describing: byNumber.json))")
                    XCTAssertEqual(String(decoding: byNumber.body, as: UTF8.self), String(decoding: byText.body, as: UTF8.self), "\(text) \(path)")
                    checked += 1
                }
            }
        }
        XCTAssertEqual(kinds, ["party", "merged", "one cell"])
        XCTAssertGreaterThan(checked, 20)
        // A number no answer gives: of the documented form, it names no cluster (404); text
        // that is neither form is refused (400).
        XCTAssertEqual(call(router, "GET", "/v1/clusters/7/leaves").status, 404)
        XCTAssertEqual(call(router, "GET", "/v1/clusters/7x/leaves").status, 400)
        // Of the documented text form but no cluster's (a cell before the first, a cell twice): 404.
        let pattern = try NSRegularExpression(pattern: XCTUnwrap(APISchemas.clusterID["pattern"]?.stringValue))
        for text in ["20.479666028.8.9.76.-1.0", "14.13954.6345.0.1.0.1"] {
            XCTAssertNotNil(pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)), text)
            XCTAssertEqual(call(router, "GET", "/v1/clusters/\(text)/leaves").status, 404, text)
        }
    }

    /// A PUT refuses an origin, destination or rider drop-off the engine cannot serve (the check
    /// a join makes of a drop-off), naming the field, and stores nothing; a party it accepts
    /// can be quoted.
    func testAPartyTheEngineCannotServeIsRefused() throws {
        let config = ServiceConfiguration(dataDir: try TestDataset.directory(), stateDir: TestPaths.temporaryDirectory("round-trip-state").path,
                                          writeToken: token)
        let router = makeRouter(context: try TestDataset.context(config))
        // West of Incheon's coast: no served road within reach.
        let sea = "[126.60,37.45]"
        let cases: [(String, String)] = [
            (#"{"origin":\#(sea),"destination":[126.9882,37.5701],"depart_at":"\#(depart)","seats_total":4}"#, "origin"),
            (#"{"origin":[126.978,37.5665],"destination":\#(sea),"depart_at":"\#(depart)","seats_total":4}"#, "destination"),
            (#"{\#(trip),"depart_at":"\#(depart)","seats_total":4,"riders":[{"rider_id":"h"},{"rider_id":"a","drop_off":\#(sea)}]}"#, "riders[1].drop_off"),
        ]
        for (i, (body, field)) in cases.enumerated() {
            let r = call(router, "PUT", "/v1/parties/far-\(i)", body: body)
            XCTAssertEqual(r.status, 422, field)
            XCTAssertEqual(r.json?["error"]?["code"]?.stringValue, "outside_coverage", field)
            XCTAssertTrue(r.json?["error"]?["message"]?.stringValue?.contains("'\(field)'") == true, "\(field): \(String(describing: r.json))")
            XCTAssertEqual(call(router, "GET", "/v1/parties/far-\(i)").status, 404, field)
        }
        let good = #"{\#(trip),"depart_at":"\#(depart)","seats_total":4,"riders":[{"rider_id":"h"},{"rider_id":"a","drop_off":[126.9769,37.5759]}]}"#
        XCTAssertEqual(call(router, "PUT", "/v1/parties/near", body: good).status, 201)
        XCTAssertEqual(call(router, "GET", "/v1/parties/near/quote").status, 200)
    }
}

import API
import Foundation
import Geo
import HTTPServer
import JSON
import Parties
import PartyClusters
import PartyModel
import TestSupport
import XCTest

/// The party and cluster endpoints, in-process through the router.
final class PartiesEndpointTests: XCTestCase {
    let token = "s3cret-token"

    /// A router over a fresh party store, with writes enabled by `token` (or disabled).
    func makeRouter(token: String?) throws -> (Router, PartyService) {
        let service = try PartyService(stateDirectory: TestPaths.temporaryDirectory("parties-api").path)
        let router = Router()
        registerPartiesEndpoints(router, parties: service, writeToken: token)
        return (router, service)
    }

    func call(_ router: Router, _ method: String, _ path: String, query: [(String, String)] = [], body: String? = nil,
              auth: String? = nil) -> (status: Int, json: JSONValue?, headers: [(String, String)])
    {
        var headers = [String: String]()
        if let auth { headers["authorization"] = auth }
        let r = router.handle(HTTPRequest(method: method, path: path, query: query.map { (name: $0.0, value: $0.1) },
                                          headers: headers, body: body.map { Array($0.utf8) } ?? [])).response
        return (r.status, r.body.isEmpty ? nil : try? JSONParser.parse(r.body), r.headers)
    }

    func body(lon: Double, lat: Double, departIn: Double = 3600, seats: Int = 4, taken: Int = 1, title: String? = nil) -> String {
        let depart = SeoulTime.format(Date().timeIntervalSince1970 + departIn)
        var s = #"{"origin":[\#(lon),\#(lat)],"destination":"127.1,37.6","depart_at":"\#(depart)","seats_total":\#(seats),"seats_taken":\#(taken)"#
        if let title { s += #","title":"\#(title)""# }
        return s + "}"
    }

    /// A body with a key twice is a 400 naming the key, over a real socket, and nothing is
    /// written; a title is limited in code points, as the OpenAPI schema's maxLength counts
    /// (one character with 250 combining marks is 251: a 400 naming the title).
    func testDuplicateKeysAndOverlongTitlesAreRefusedOverHTTP() throws {
        let (router, service) = try makeRouter(token: token)
        var options = HTTPServerOptions()
        options.accessLog = false
        let server = HTTPServer(router: router, options: options)
        try server.start(host: "127.0.0.1", port: 0)
        defer { server.stop(graceSeconds: 1) }
        let client = try RawHTTPClient(port: server.port)
        let auth = ["Authorization": "Bearer \(token)"]
        let twice = body(lon: 127.0, lat: 37.5, taken: 1).dropLast() + #","seats_taken":4}"#
        let dup = try client.request("PUT", "/v1/parties/dup", headers: auth, body: Array(twice.utf8))
        XCTAssertEqual(dup.status, 400)
        let error = try JSONParser.parse(dup.body)["error"]
        XCTAssertEqual(error?["code"]?.stringValue, "invalid_json")
        XCTAssertTrue(error?["message"]?.stringValue?.contains(#"duplicate key "seats_taken""#) == true, "\(String(describing: error))")
        XCTAssertNil(service.party(id: "dup"))

        let heavy = "a" + String(repeating: "\u{301}", count: 300_000)
        XCTAssertEqual(heavy.count, 1, "one character")
        let long = try client.request("PUT", "/v1/parties/heavy", headers: auth, body: Array(body(lon: 127.0, lat: 37.5, title: heavy).utf8))
        XCTAssertEqual(long.status, 400)
        let message = try JSONParser.parse(long.body)["error"]?["message"]?.stringValue ?? ""
        XCTAssertTrue(message.contains("title") && message.contains("200 Unicode code points"), message)
        XCTAssertNil(service.party(id: "heavy"))

        // maxLength counts code points (JSON Schema): "a" + 250 combining marks is 251 (one
        // character, 501 bytes); 200 of them pass, 201 do not, whatever their bytes.
        let marks = "a" + String(repeating: "\u{301}", count: 250)
        let marked = try client.request("PUT", "/v1/parties/marks", headers: auth, body: Array(body(lon: 127.0, lat: 37.5, title: marks).utf8))
        XCTAssertEqual(marked.status, 400, marked.text)
        XCTAssertTrue(marked.text.contains("title") && marked.text.contains("251"), marked.text)
        XCTAssertNil(service.party(id: "marks"))
        for (title, status) in [(String(repeating: "\u{1F695}", count: 200), 201), ("a" + String(repeating: "\u{301}", count: 199), 201),
                                (String(repeating: "가", count: 201), 400)] {
            let r = try client.request("PUT", "/v1/parties/t\(title.unicodeScalars.count)-\(title.utf8.count)", headers: auth,
                                       body: Array(body(lon: 127.0, lat: 37.5, title: title).utf8))
            XCTAssertEqual(r.status, status, "\(title.unicodeScalars.count) code points: \(r.text)")
        }

        let doc = OpenAPIDocument.build(router: router, dataset: try DatasetInfo.load(dataDir: TestPaths.dataDir.path))
        let put: JSONValue? = doc["paths"]?["/v1/parties/{id}"]?["put"]
        // The body is the named PartyInput.
        XCTAssertEqual(put?["requestBody"]?["content"]?["application/json"]?["schema"]?["$ref"]?.stringValue, "#/components/schemas/PartyInput")
        let schema: JSONValue? = doc["components"]?["schemas"]?["PartyInput"]
        // Optional members also take null (the reader treats null as absent): the string schema is the anyOf's first.
        let title: JSONValue? = schema?["properties"]?["title"]?["anyOf"]?[0]
        XCTAssertEqual(title?["maxLength"]?.intValue, Party.maxTitleLength)
        XCTAssertTrue(title?["description"]?.stringValue?.contains("\(Party.maxTitleLength) Unicode code points") == true, "\(String(describing: title))")
    }

    func testCreateReplaceGetDelete() throws {
        let (router, service) = try makeRouter(token: token)
        let bearer = "Bearer \(token)"
        let created = call(router, "PUT", "/v1/parties/gangnam-1", body: body(lon: 127.0276, lat: 37.4979, title: "강남역 → 판교"), auth: bearer)
        XCTAssertEqual(created.status, 201)
        XCTAssertEqual(created.json?["id"]?.stringValue, "gangnam-1")
        XCTAssertEqual(created.json?["seats_left"]?.intValue, 3)
        XCTAssertEqual(created.json?["title"]?.stringValue, "강남역 → 판교")
        XCTAssertEqual(created.json?["origin"]?[0]?.doubleValue, 127.0276)
        let replaced = call(router, "PUT", "/v1/parties/gangnam-1", body: body(lon: 127.0276, lat: 37.4979, taken: 3), auth: bearer)
        XCTAssertEqual(replaced.status, 200)
        XCTAssertEqual(replaced.json?["seats_left"]?.intValue, 1)
        XCTAssertNil(replaced.json?["title"])
        let got = call(router, "GET", "/v1/parties/gangnam-1")
        XCTAssertEqual(got.status, 200)
        XCTAssertEqual(got.json, replaced.json)
        XCTAssertEqual(service.party(id: "gangnam-1")?.seatsTaken, 3)
        XCTAssertEqual(call(router, "DELETE", "/v1/parties/gangnam-1", auth: bearer).status, 204)
        XCTAssertEqual(call(router, "GET", "/v1/parties/gangnam-1").status, 404)
        let again = call(router, "DELETE", "/v1/parties/gangnam-1", auth: bearer)
        XCTAssertEqual(again.status, 404)
        XCTAssertEqual(again.json?["error"]?["code"]?.stringValue, "party_not_found")
    }

    func testWritesNeedTheToken() throws {
        let (router, service) = try makeRouter(token: token)
        let b = body(lon: 127, lat: 37.5)
        for auth in [nil, "Bearer wrong", "Bearer s3cret-toke", "Bearer s3cret-token2", "Basic czNjcmV0", "bearer", "Bearer "] {
            let r = call(router, "PUT", "/v1/parties/x", body: b, auth: auth)
            XCTAssertEqual(r.status, 401, auth ?? "no header")
            XCTAssertEqual(r.json?["error"]?["code"]?.stringValue, "unauthorized")
            XCTAssertTrue(r.headers.contains { $0.0 == "WWW-Authenticate" })
            XCTAssertEqual(call(router, "DELETE", "/v1/parties/x", auth: auth).status, 401)
        }
        XCTAssertEqual(service.count, 0)
        XCTAssertEqual(call(router, "PUT", "/v1/parties/x", body: b, auth: "bearer \(token)").status, 201, "the scheme is case-insensitive")
        // Without a configured token, writes are off and the answer says how to turn them on.
        for configured in [nil, ""] as [String?] {
            let (closed, _) = try makeRouter(token: configured)
            let r = call(closed, "PUT", "/v1/parties/x", body: b, auth: "Bearer \(token)")
            XCTAssertEqual(r.status, 403)
            XCTAssertEqual(r.json?["error"]?["code"]?.stringValue, "writes_disabled")
            XCTAssertTrue(r.json?["error"]?["message"]?.stringValue?.contains("TAXIPOT_WRITE_TOKEN") ?? false)
            XCTAssertEqual(call(closed, "DELETE", "/v1/parties/x").status, 403)
            XCTAssertEqual(call(closed, "GET", "/v1/parties/x").status, 404, "reads stay open")
        }
    }

    func testBadPartiesAreRefusedWithTheField() throws {
        let (router, _) = try makeRouter(token: token)
        let bearer = "Bearer \(token)"
        let cases: [(String, String, Int, String, String)] = [
            ("bad id!", body(lon: 127, lat: 37.5), 400, "invalid_id", "id"),
            ("p", "not json", 400, "invalid_json", "JSON"),
            ("p", #"{"origin":[127,37.5]}"#, 400, "missing_field", "destination"),
            ("p", body(lon: 200, lat: 37.5), 400, "invalid_party", "origin"),
            // A rule between fields, stated in prose by the document (not as branches): 422.
            ("p", body(lon: 127, lat: 37.5, seats: 4, taken: 5), 422, "invalid_party", "seats_taken"),
            ("p", body(lon: 127, lat: 37.5, seats: 4, taken: 17), 400, "invalid_party", "seats_taken"),
            ("p", body(lon: 127, lat: 37.5, seats: 0, taken: 0), 400, "invalid_party", "seats_total"),
            ("p", body(lon: 127, lat: 37.5).replacingOccurrences(of: "\"seats_total\"", with: "\"seats\""), 400, "unknown_field", "seats"),
            ("p", body(lon: 127, lat: 37.5, departIn: -7200), 422, "party_expired", "expired"),
            ("p", #"{"id":"q","origin":[127,37.5],"destination":[127,37.6],"depart_at":"2030-01-01T00:00","seats_total":2}"#, 422, "id_mismatch", "path"),
            ("p", #"{"origin":[127,37.5],"destination":[127,37.6],"depart_at":"tomorrow","seats_total":2}"#, 400, "invalid_party", "depart_at"),
        ]
        for (id, b, status, code, needle) in cases {
            let r = call(router, "PUT", "/v1/parties/\(id)", body: b, auth: bearer)
            XCTAssertEqual(r.status, status, "\(code): \(r.json.map { "\($0)" } ?? "")")
            XCTAssertEqual(r.json?["error"]?["code"]?.stringValue, code)
            XCTAssertTrue(r.json?["error"]?["message"]?.stringValue?.contains(needle) ?? false, "\(code): \(r.json.map { "\($0)" } ?? "")")
        }
        // Unix seconds and {"lon","lat"} objects are accepted too.
        let t = Int(Date().timeIntervalSince1970) + 600
        let ok = call(router, "PUT", "/v1/parties/p", body: #"{"origin":{"lon":127,"lat":37.5},"destination":[127.1,37.6],"depart_at":\#(t),"seats_total":2}"#, auth: bearer)
        XCTAssertEqual(ok.status, 201)
        XCTAssertEqual(ok.json?["seats_taken"]?.intValue, 0)
    }

    func testClustersGeoJSONLeavesAndChildren() throws {
        let (router, service) = try makeRouter(token: token)
        // 200 parties around Seoul City Hall, 40 of them at one spot.
        var rng = SystemRandomNumberGenerator()
        let center = Coordinate(lon: 126.978, lat: 37.5665)
        for i in 0..<200 {
            let c = i < 40 ? center : center.offset(eastMeters: .random(in: -3000...3000, using: &rng), northMeters: .random(in: -3000...3000, using: &rng))
            let r = call(router, "PUT", "/v1/parties/p\(i)", body: body(lon: c.lon, lat: c.lat, departIn: Double(600 + i * 60), seats: 4, taken: i % 5 == 0 ? 4 : 1), auth: "Bearer \(token)")
            XCTAssertEqual(r.status, 201)
        }
        let bbox = "126.9,37.5,127.05,37.63"
        for zoom in [10, 13, 16] {
            let r = call(router, "GET", "/v1/clusters", query: [("bbox", bbox), ("zoom", "\(zoom)")])
            XCTAssertEqual(r.status, 200)
            let fc = try XCTUnwrap(r.json)
            XCTAssertEqual(fc["type"]?.stringValue, "FeatureCollection")
            let features = try XCTUnwrap(fc["features"]?.arrayValue)
            var total = 0
            for f in features {
                XCTAssertEqual(f["type"]?.stringValue, "Feature")
                XCTAssertEqual(f["geometry"]?["type"]?.stringValue, "Point")
                XCTAssertEqual(f["geometry"]?["coordinates"]?.arrayValue?.count, 2)
                let props = try XCTUnwrap(f["properties"])
                if props["cluster"]?.boolValue == true {
                    let count = try XCTUnwrap(props["point_count"]?.intValue)
                    let id = try XCTUnwrap(props["cluster_id"]?.stringValue)
                    XCTAssertGreaterThan(try XCTUnwrap(props["expansion_zoom"]?.intValue), zoom)
                    total += count
                    // Leaves page through the cluster; children add up to it.
                    let leaves = call(router, "GET", "/v1/clusters/\(id)/leaves", query: [("limit", "1000")])
                    XCTAssertEqual(leaves.status, 200)
                    XCTAssertEqual(leaves.json?["total"]?.intValue, count)
                    XCTAssertEqual(leaves.json?["features"]?.arrayValue?.count, count)
                    XCTAssertNotNil(leaves.json?["features"]?[0]?["properties"]?["destination"])
                    let page = call(router, "GET", "/v1/clusters/\(id)/leaves", query: [("limit", "2"), ("offset", "1")])
                    XCTAssertEqual(page.json?["features"]?.arrayValue?.count, min(2, count - 1))
                    let kids = call(router, "GET", "/v1/clusters/\(id)/children")
                    XCTAssertEqual(kids.status, 200)
                    XCTAssertEqual(kids.json?["features"]?.arrayValue?.reduce(0) { $0 + ($1["properties"]?["point_count"]?.intValue ?? 1) }, count)
                } else {
                    XCTAssertNotNil(props["party_id"]?.stringValue)
                    XCTAssertNotNil(props["depart_at"]?.stringValue)
                    XCTAssertNotNil(props["seats_left"]?.intValue)
                    total += 1
                }
            }
            XCTAssertEqual(total, 200, "zoom \(zoom): the box holds every party")
            // Filters: only parties with a free seat (the full ones are every fifth).
            let open = call(router, "GET", "/v1/clusters", query: [("bbox", bbox), ("zoom", "\(zoom)"), ("min_seats", "1")])
            let counts = open.json?["features"]?.arrayValue?.map { $0["properties"]?["point_count"]?.intValue ?? 1 }
            XCTAssertEqual(counts?.reduce(0, +), 160)
        }
        let before = SeoulTime.format(Date().timeIntervalSince1970 + 600 + 99 * 60 + 1)
        let early = call(router, "GET", "/v1/clusters", query: [("bbox", bbox), ("zoom", "12"), ("depart_before", before)])
        XCTAssertEqual(early.json?["features"]?.arrayValue?.map { $0["properties"]?["point_count"]?.intValue ?? 1 }.reduce(0, +), 100)
        // A PUT shows in the next query; a DELETE leaves it.
        let far = call(router, "GET", "/v1/clusters", query: [("bbox", "125,33,125.5,33.5"), ("zoom", "9")])
        XCTAssertEqual(far.json?["features"]?.arrayValue?.count, 0)
        XCTAssertEqual(call(router, "PUT", "/v1/parties/jeju", body: body(lon: 125.2, lat: 33.2), auth: "Bearer \(token)").status, 201)
        let shown = call(router, "GET", "/v1/clusters", query: [("bbox", "125,33,125.5,33.5"), ("zoom", "9")])
        XCTAssertEqual(shown.json?["features"]?[0]?["properties"]?["party_id"]?.stringValue, "jeju")
        XCTAssertEqual(call(router, "DELETE", "/v1/parties/jeju", auth: "Bearer \(token)").status, 204)
        XCTAssertEqual(call(router, "GET", "/v1/clusters", query: [("bbox", "125,33,125.5,33.5"), ("zoom", "9")]).json?["features"]?.arrayValue?.count, 0)
        XCTAssertEqual(service.count, 200)
    }

    func testNearbyList() throws {
        let (router, _) = try makeRouter(token: token)
        let center = Coordinate(lon: 127.0276, lat: 37.4979)
        for i in 0..<30 {
            let c = center.offset(eastMeters: Double(i * 100), northMeters: 0)
            XCTAssertEqual(call(router, "PUT", "/v1/parties/n\(i)", body: body(lon: c.lon, lat: c.lat, departIn: Double(3600 - i)), auth: "Bearer \(token)").status, 201)
        }
        var ids = [String]()
        var cursor: String?
        repeat {
            var q = [("near", "127.0276,37.4979"), ("radius_m", "1550"), ("limit", "4")]
            if let cursor { q.append(("cursor", cursor)) }
            let r = call(router, "GET", "/v1/parties", query: q)
            XCTAssertEqual(r.status, 200)
            let page = try XCTUnwrap(r.json?["parties"]?.arrayValue)
            ids += page.compactMap { $0["id"]?.stringValue }
            XCTAssertTrue(page.allSatisfy { ($0["distance_m"]?.doubleValue ?? 9e9) <= 1550 })
            cursor = r.json?["next_cursor"]?.stringValue
        } while cursor != nil
        XCTAssertEqual(ids, (0...15).map { "n\($0)" })
        for (q, code) in [([("near", "nowhere")], "invalid_parameter"), ([("radius_m", "10")], "missing_parameter"),
                          ([("near", "127,37"), ("radius_m", "0")], "invalid_parameter"), ([("near", "127,37"), ("cursor", "x")], "invalid_parameter"),
                          ([("near", "127,37"), ("limit", "101")], "invalid_parameter")] {
            let r = call(router, "GET", "/v1/parties", query: q)
            XCTAssertEqual(r.status, 400)
            XCTAssertEqual(r.json?["error"]?["code"]?.stringValue, code, "\(q)")
        }
    }

    func testClusterQueryErrors() throws {
        let (router, _) = try makeRouter(token: token)
        let cases: [([(String, String)], Int, String)] = [
            ([("zoom", "5")], 400, "missing_parameter"),
            ([("bbox", "1,2,3"), ("zoom", "5")], 400, "invalid_parameter"),
            ([("bbox", "0,10,1,5"), ("zoom", "5")], 422, "invalid_parameter"),  // in range, south > north: fits the pattern
            ([("bbox", "0,-95,1,5"), ("zoom", "5")], 400, "invalid_parameter"),
            ([("bbox", "0,0,1,1"), ("zoom", "21")], 400, "invalid_parameter"),
            ([("bbox", "0,0,1,1"), ("zoom", "x")], 400, "invalid_parameter"),
            ([("bbox", "0,0,1,1"), ("zoom", "3"), ("min_seats", "-1")], 400, "invalid_parameter"),
            ([("bbox", "0,0,1,1"), ("zoom", "3"), ("depart_after", "soon")], 400, "invalid_parameter"),
            ([("bbox", "-180,-85,180,85"), ("zoom", "16")], 422, "box_too_large"),
        ]
        for (q, status, code) in cases {
            let r = call(router, "GET", "/v1/clusters", query: q)
            XCTAssertEqual(r.status, status, "\(q)")
            XCTAssertEqual(r.json?["error"]?["code"]?.stringValue, code, "\(q)")
        }
        XCTAssertEqual(call(router, "GET", "/v1/clusters", query: [("bbox", "170,-10,-170,10"), ("zoom", "4.7")]).status, 200, "antimeridian box, fractional zoom")
        XCTAssertEqual(call(router, "GET", "/v1/clusters/nonsense/leaves").json?["error"]?["code"]?.stringValue, "invalid_cluster_id")
        XCTAssertEqual(call(router, "GET", "/v1/clusters/5.1.1/leaves").status, 404)
        XCTAssertEqual(call(router, "GET", "/v1/clusters/5.1.1/children").status, 404)
        XCTAssertEqual(call(router, "GET", "/v1/clusters/5.1.1/leaves", query: [("limit", "0")]).status, 400)
    }

    /// Through the service's own router and context: the routes are registered, the store lives
    /// in the state folder, and a new context (a restart) finds what was written.
    func testServiceContextServesAndKeepsParties() throws {
        let state = TestPaths.temporaryDirectory("parties-state").path
        let config = ServiceConfiguration(dataDir: try TestDataset.directory(), stateDir: state + "/nested", writeToken: token)
        do {
            let router = API.makeRouter(context: try TestDataset.context(config))
            // On the tests' network: the service refuses a party it cannot serve.
            let served = body(lon: 126.978, lat: 37.5665).replacingOccurrences(of: "127.1,37.6", with: "126.9882,37.5701")
            XCTAssertEqual(call(router, "PUT", "/v1/parties/kept", body: served, auth: "Bearer \(token)").status, 201)
            let doc = call(router, "GET", "/openapi.json")
            XCTAssertNotNil(doc.json?["paths"]?["/v1/clusters/{cluster_id}/leaves"])
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: state + "/nested/parties.db"))
        let router = API.makeRouter(context: try TestDataset.context(config))
        XCTAssertEqual(call(router, "GET", "/v1/parties/kept").json?["id"]?.stringValue, "kept")
        var closed = config
        closed.writeToken = nil
        XCTAssertEqual(call(API.makeRouter(context: try TestDataset.context(closed)), "DELETE", "/v1/parties/kept").status, 403)
    }

    /// The bytes of cluster answers are the GeoJSON of their features, exactly: the same text as
    /// the JSON tree built here and serialised by `JSONWriter`, for clusters of one cell and of
    /// several, lone parties, ids that need no escape and foreign members.
    func testClusterAnswerBytesAreTheirGeoJSON() throws {
        var rng = SplitMix64(seed: 11)
        let center = Coordinate(lon: 126.978, lat: 37.5665)
        var parties = [Party]()
        for i in 0..<600 {
            let c = i < 30 ? center : center.offset(eastMeters: .random(in: -20_000...20_000, using: &rng), northMeters: .random(in: -20_000...20_000, using: &rng))
            parties.append(Party(id: i % 3 == 0 ? "p-\(i)_x" : "P\(i)", origin: c, destination: center,
                                 departAt: 1_790_000_000 + Double(i) * 97.5, seatsTotal: 4, seatsTaken: i % 4))
        }
        let index = PartyIndex(parties: parties)
        let box = BoundingBox(west: 126.6, south: 37.3, east: 127.3, north: 37.8)
        var kinds = Set<String>()
        for zoom in [5, 9, 11, 13, 16, 20] {
            let features = index.clusters(in: box, zoom: zoom)
            for extra in [[], [("zoom", JSONValue.number(Double(zoom)))]] {
                let written = PartiesJSON.writeFeatureCollection(features, extra: extra)
                let expected = JSONWriter.bytes(Self.featureCollection(features, extra: extra))
                XCTAssertEqual(String(decoding: written, as: UTF8.self), String(decoding: expected, as: UTF8.self), "zoom \(zoom)")
                XCTAssertEqual(try JSONParser.parse(written), Self.featureCollection(features, extra: extra))
            }
            for f in features {
                switch f {
                case .party: kinds.insert("party")
                case .cluster(let c): kinds.insert(c.id.cellCount > 1 ? "merged cluster" : "one-cell cluster")
                }
            }
        }
        XCTAssertEqual(kinds, ["party", "merged cluster", "one-cell cluster"])
    }

    /// supercluster's habits (issue 37): numeric ids stable across answers and kinds kept apart,
    /// supercluster's abbreviations, and GeoJSON's media type on the cluster answers.
    func testFeatureNumbersAndAbbreviations() throws {
        XCTAssertEqual(FeatureNumber.abbreviated(999), .number(999))
        XCTAssertEqual(FeatureNumber.abbreviated(1000), .string("1k"))
        XCTAssertEqual(FeatureNumber.abbreviated(1250), .string("1.3k"))
        XCTAssertEqual(FeatureNumber.abbreviated(9999), .string("10k"))
        XCTAssertEqual(FeatureNumber.abbreviated(12_345), .string("12k"))
        let a = FeatureNumber.of(party: "P1")
        XCTAssertEqual(a, FeatureNumber.of(party: "P1"))
        XCTAssertTrue((1 << 52...9_007_199_254_740_991).contains(a), "a party's number is above every cluster's")
        XCTAssertNil(FeatureNumber.cluster(a))
        // A cluster's number names its zoom and least cell, up to zoom 20 at the smallest cells (16 px).
        for (zoom, x, y) in [(0, 0, 0), (0, 15, 3), (14, 13954, 6345), (20, (1 << 24) - 1, (1 << 24) - 1)] {
            let id = try XCTUnwrap(ClusterID("\(zoom).\(x).\(y).1.0"))
            let b = FeatureNumber.of(cluster: id)
            XCTAssertTrue((1..<(1 << 49)).contains(b), "\(id)")
            let head = try XCTUnwrap(FeatureNumber.cluster(b), "\(id)")
            XCTAssertEqual(head.zoom, zoom)
            XCTAssertEqual(head.cell, id.first)
        }
        var out: [UInt8] = []
        JSONWriter.writeNumber(Double(9_007_199_254_740_991), into: &out)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "9007199254740991", "53-bit ids are written as integers")
    }

    /// The GeoJSON of a cluster answer as a JSON tree (what `PartiesJSON.writeFeatureCollection` writes).
    static func featureCollection(_ features: [ClusterFeature], extra: [(String, JSONValue)]) -> JSONValue {
        let items: [JSONValue] = features.map { f in
            switch f {
            case .party(let p): return PartiesJSON.partyFeature(p)
            case .cluster(let c):
                let id = JSONValue.string(c.id.description)
                let number = JSONValue.number(Double(FeatureNumber.of(cluster: c.id)))
                return .object([
                    ("type", "Feature"), ("id", number),
                    ("geometry", .object([("type", "Point"), ("coordinates", .array([.number(c.coordinate.lon), .number(c.coordinate.lat)]))])),
                    ("properties", .object([("cluster", true), ("cluster_id", id), ("point_count", .number(Double(c.count))),
                                            ("point_count_abbreviated", FeatureNumber.abbreviated(c.count)),
                                            ("expansion_zoom", .number(Double(c.expansionZoom))), ("feature_id", number)])),
                ])
            }
        }
        return .object([("type", "FeatureCollection"), ("features", .array(items))] + extra)
    }

    func testConstantTimeComparison() {
        // Same answers as ==, for equal and unequal lengths.
        for (a, b) in [("abc", "abc"), ("abc", "abd"), ("ab", "abc"), ("abcd", "abc"), ("", "a")] {
            let r = Router()
            registerPartiesEndpoints(r, parties: try! PartyService(stateDirectory: TestPaths.temporaryDirectory("parties-api").path), writeToken: b)
            let status = r.handle(HTTPRequest(method: "DELETE", path: "/v1/parties/x", headers: ["authorization": "Bearer \(a)"])).response.status
            XCTAssertEqual(status, a == b ? 404 : 401, "\(a) vs \(b)")
        }
    }
}

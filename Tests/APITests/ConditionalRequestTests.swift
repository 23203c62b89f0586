import API
import Foundation
import Geo
import HTTPServer
import JSON
import Parties
import TestSupport
import XCTest

/// Conditional party writes over real HTTP (RFC 9110 §13): If-Match compares strongly and
/// evaluates its list, If-None-Match: * makes a PUT create-only, and join and leave honour
/// If-Match like every other write (issue 32).
final class ConditionalRequestTests: XCTestCase {
    static let token = "conditional-token"

    /// A server with the party endpoints over a fresh store.
    static let server: (HTTPServer, PartyService) = {
        let service = try! PartyService(stateDirectory: TestPaths.temporaryDirectory("conditional").path)
        let router = Router()
        registerPartiesEndpoints(router, parties: service, writeToken: token)
        var options = HTTPServerOptions()
        options.accessLog = false
        let s = HTTPServer(router: router, options: options)
        try! s.start(host: "127.0.0.1", port: 0)
        return (s, service)
    }()

    var service: PartyService { Self.server.1 }

    func request(_ method: String, _ path: String, body: String? = nil, headers: [String: String] = [:]) throws -> RawHTTPClient.Response {
        let c = try RawHTTPClient(port: Self.server.0.port)
        var h = headers
        h["Authorization"] = "Bearer \(Self.token)"
        return try c.request(method, path, headers: h, body: Array((body ?? "").utf8))
    }

    func partyBody(seats: Int = 4, taken: Int = 1) -> String {
        #"{"origin":[127.0276,37.4979],"destination":[127.1,37.6],"depart_at":"\#(SeoulTime.format(Date().timeIntervalSince1970 + 3600))","seats_total":\#(seats),"seats_taken":\#(taken)}"#
    }

    /// A party `id` at version 2 (created, then one rider joined).
    func partyAtVersion2(_ id: String) throws {
        XCTAssertEqual(try request("PUT", "/v1/parties/\(id)", body: partyBody()).status, 201)
        XCTAssertEqual(try request("POST", "/v1/parties/\(id)/riders", body: #"{"rider_id":"kim"}"#).status, 200)
        XCTAssertEqual(service.party(id: id)?.version, 2)
    }

    func errorCode(_ r: RawHTTPClient.Response) -> String? { (try? JSONParser.parse(r.body))?["error"]?["code"]?.stringValue }

    func testIfMatchComparesStrongly() throws {
        try partyAtVersion2("strong")
        // Today W/"2" matches version 2 and the write goes through.
        for tag in [#"W/"2""#, #"W/"1", W/"2""#] {
            let put = try request("PUT", "/v1/parties/strong", body: partyBody(taken: 2), headers: ["If-Match": tag])
            XCTAssertEqual(put.status, 412, "\(tag): \(put.text)")
            XCTAssertEqual(errorCode(put), "version_mismatch")
            XCTAssertEqual(try request("DELETE", "/v1/parties/strong", headers: ["If-Match": tag]).status, 412, tag)
        }
        XCTAssertEqual(service.party(id: "strong")?.version, 2, "a refused write changed nothing")
        XCTAssertEqual(try request("PUT", "/v1/parties/strong", body: partyBody(taken: 2), headers: ["If-Match": #""2""#]).status, 200)
    }

    func testIfMatchEvaluatesItsList() throws {
        try partyAtVersion2("listed")
        // Today a list is a 400.
        let put = try request("PUT", "/v1/parties/listed", body: partyBody(taken: 2), headers: ["If-Match": #""999", "2""#])
        XCTAssertEqual(put.status, 200, put.text)
        XCTAssertEqual(service.party(id: "listed")?.version, 3)
        let stale = try request("PUT", "/v1/parties/listed", body: partyBody(taken: 2), headers: ["If-Match": #""999", "2", "abc""#])
        XCTAssertEqual(stale.status, 412, stale.text)
        // A comma inside a tag's quotes is part of the tag, not a separator.
        XCTAssertEqual(try request("DELETE", "/v1/parties/listed", headers: ["If-Match": #""3,4""#]).status, 412)
        for garbage in ["nonsense", #""3"x"#, #""3", "#, #"W/3"#, #""3"#] {
            let r = try request("DELETE", "/v1/parties/listed", headers: ["If-Match": garbage])
            XCTAssertEqual(r.status, 400, "\(garbage): \(r.text)")
            XCTAssertEqual(errorCode(r), "invalid_if_match")
        }
        XCTAssertEqual(try request("DELETE", "/v1/parties/listed", headers: ["If-Match": #""1",  "3" "#]).status, 204)
    }

    func testIfNoneMatchStarMakesAPutCreateOnly() throws {
        try partyAtVersion2("create-only")
        // Today the PUT replaces the party (200).
        let again = try request("PUT", "/v1/parties/create-only", body: partyBody(), headers: ["If-None-Match": "*"])
        XCTAssertEqual(again.status, 412, again.text)
        XCTAssertEqual(errorCode(again), "version_mismatch")
        XCTAssertEqual(service.party(id: "create-only")?.version, 2)
        XCTAssertEqual(service.party(id: "create-only")?.riders.map(\.id), ["organiser", "kim"])
        // A new id is created; If-None-Match naming the current version (weakly) refuses too.
        XCTAssertEqual(try request("PUT", "/v1/parties/create-only-new", body: partyBody(), headers: ["If-None-Match": "*"]).status, 201)
        XCTAssertEqual(try request("PUT", "/v1/parties/create-only", body: partyBody(taken: 2), headers: ["If-None-Match": #"W/"2""#]).status, 412)
        XCTAssertEqual(try request("PUT", "/v1/parties/create-only", body: partyBody(taken: 2), headers: ["If-None-Match": #""1""#]).status, 200)
    }

    func testJoinAndLeaveHonourIfMatch() throws {
        try partyAtVersion2("riders")
        // Today a stale If-Match on a join is ignored and the rider joins.
        let staleJoin = try request("POST", "/v1/parties/riders/riders", body: #"{"rider_id":"lee"}"#, headers: ["If-Match": #""1""#])
        XCTAssertEqual(staleJoin.status, 412, staleJoin.text)
        XCTAssertEqual(errorCode(staleJoin), "version_mismatch")
        XCTAssertEqual(service.party(id: "riders")?.riders.map(\.id), ["organiser", "kim"])
        XCTAssertEqual(try request("POST", "/v1/parties/riders/riders", body: #"{"rider_id":"lee"}"#, headers: ["If-Match": #"W/"2""#]).status, 412)
        let join = try request("POST", "/v1/parties/riders/riders", body: #"{"rider_id":"lee"}"#, headers: ["If-Match": #""2""#])
        XCTAssertEqual(join.status, 200, join.text)
        XCTAssertEqual(join.headers["etag"], #""3""#)
        XCTAssertEqual(try request("DELETE", "/v1/parties/riders/riders/lee", headers: ["If-Match": #""2""#]).status, 412)
        XCTAssertEqual(try request("DELETE", "/v1/parties/riders/riders/lee", headers: ["If-Match": #"W/"3""#]).status, 412)
        XCTAssertEqual(try request("DELETE", "/v1/parties/riders/riders/lee", headers: ["If-Match": #""3""#]).status, 204)
        XCTAssertEqual(service.party(id: "riders")?.riders.map(\.id), ["organiser", "kim"])
        // A join with If-Match on no live party: 412, as for every other write.
        XCTAssertEqual(try request("POST", "/v1/parties/nobody/riders", body: #"{"rider_id":"lee"}"#, headers: ["If-Match": "*"]).status, 412)
    }
}

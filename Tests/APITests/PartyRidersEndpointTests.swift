import API
import Foundation
import Geo
import HTTPServer
import JSON
import Parties
import TestSupport
import XCTest

/// Riders in parties through the router: join, leave, versions, ETag and If-Match.
final class PartyRidersEndpointTests: XCTestCase {
    let bearer = "Bearer riders-token"

    func makeRouter() throws -> (Router, PartyService) {
        let service = try PartyService(stateDirectory: TestPaths.temporaryDirectory("riders-api").path)
        let router = Router()
        registerPartiesEndpoints(router, parties: service, writeToken: "riders-token")
        return (router, service)
    }

    func call(_ router: Router, _ method: String, _ path: String, body: String? = nil, auth: Bool = true,
              ifMatch: String? = nil) -> (status: Int, json: JSONValue?, headers: [String: String])
    {
        var headers = [String: String]()
        if auth { headers["authorization"] = bearer }
        if let ifMatch { headers["if-match"] = ifMatch }
        let r = router.handle(HTTPRequest(method: method, path: path, headers: headers, body: body.map { Array($0.utf8) } ?? [])).response
        return (r.status, r.body.isEmpty ? nil : try? JSONParser.parse(r.body), Dictionary(r.headers.map { ($0.0.lowercased(), $0.1) }, uniquingKeysWith: { a, _ in a }))
    }

    func partyBody(departIn: Double = 3600, seats: Int = 4, taken: Int? = 1, riders: String? = nil) -> String {
        let depart = SeoulTime.format(Date().timeIntervalSince1970 + departIn)
        var s = #"{"origin":[126.978,37.5665],"destination":[127.02,37.50],"depart_at":"\#(depart)","seats_total":\#(seats)"#
        if let taken { s += #","seats_taken":\#(taken)"# }
        if let riders { s += #","riders":\#(riders)"# }
        return s + "}"
    }

    func riderIDs(_ json: JSONValue?) -> [String] { json?["riders"]?.arrayValue?.compactMap { $0["rider_id"]?.stringValue } ?? [] }

    func testJoinLeaveAndTheirErrors() throws {
        let (router, service) = try makeRouter()
        let created = call(router, "PUT", "/v1/parties/p1", body: partyBody())
        XCTAssertEqual(created.status, 201)
        XCTAssertEqual(riderIDs(created.json), ["organiser"], "a body without riders implies the organiser")
        XCTAssertEqual(created.json?["version"]?.intValue, 1)
        XCTAssertEqual(created.headers["etag"], "\"1\"")

        let joined = call(router, "POST", "/v1/parties/p1/riders", body: #"{"rider_id":"kim","seats":2,"drop_off":{"lon":127.0,"lat":37.53}}"#)
        XCTAssertEqual(joined.status, 200)
        XCTAssertEqual(riderIDs(joined.json), ["organiser", "kim"])
        XCTAssertEqual(joined.json?["seats_taken"]?.intValue, 3)
        XCTAssertEqual(joined.json?["version"]?.intValue, 2)
        XCTAssertEqual(joined.json?["riders"]?[1]?["drop_off"]?["lat"]?.doubleValue, 37.53)
        XCTAssertEqual(joined.headers["etag"], "\"2\"")

        func code(_ r: (status: Int, json: JSONValue?, headers: [String: String])) -> String? { r.json?["error"]?["code"]?.stringValue }
        let twice = call(router, "POST", "/v1/parties/p1/riders", body: #"{"rider_id":"kim"}"#)
        XCTAssertEqual(twice.status, 409)
        XCTAssertEqual(code(twice), "already_joined")
        let full = call(router, "POST", "/v1/parties/p1/riders", body: #"{"rider_id":"lee","seats":2}"#)
        XCTAssertEqual(full.status, 409)
        XCTAssertEqual(code(full), "party_full")
        XCTAssertEqual(call(router, "POST", "/v1/parties/nope/riders", body: #"{"rider_id":"lee"}"#).status, 404)
        XCTAssertEqual(call(router, "POST", "/v1/parties/p1/riders", body: #"{"rider_id":"lee"}"#, auth: false).status, 401)
        let bad = call(router, "POST", "/v1/parties/p1/riders", body: #"{"rider_id":"lee","seats":0}"#)
        XCTAssertEqual(bad.status, 400)
        XCTAssertTrue(bad.json?["error"]?["message"]?.stringValue?.contains("seats") ?? false)
        XCTAssertEqual(call(router, "POST", "/v1/parties/p1/riders", body: #"{"rider_id":"a b"}"#).status, 400)
        XCTAssertEqual(call(router, "POST", "/v1/parties/p1/riders", body: #"{"rider_id":"lee","extra":1}"#).status, 400)
        XCTAssertEqual(service.party(id: "p1")?.seatsTaken, 3, "refused joins changed nothing")
        XCTAssertEqual(service.party(id: "p1")?.version, 2)

        XCTAssertEqual(call(router, "DELETE", "/v1/parties/p1/riders/kim").status, 204)
        let after = call(router, "GET", "/v1/parties/p1")
        XCTAssertEqual(riderIDs(after.json), ["organiser"])
        XCTAssertEqual(after.json?["seats_taken"]?.intValue, 1)
        XCTAssertEqual(after.headers["etag"], "\"3\"")
        let gone = call(router, "DELETE", "/v1/parties/p1/riders/kim")
        XCTAssertEqual(gone.status, 404)
        XCTAssertEqual(code(gone), "rider_not_found")

        // A party that has departed (still listed within the grace period): 410.
        XCTAssertEqual(call(router, "PUT", "/v1/parties/left", body: partyBody(departIn: -60)).status, 201)
        let late = call(router, "POST", "/v1/parties/left/riders", body: #"{"rider_id":"kim"}"#)
        XCTAssertEqual(late.status, 410)
        XCTAssertEqual(code(late), "departed")
    }

    func testStaleIfMatchIsRefusedAndChangesNothing() throws {
        let (router, _) = try makeRouter()
        XCTAssertEqual(call(router, "PUT", "/v1/parties/p2", body: partyBody()).status, 201)
        XCTAssertEqual(call(router, "POST", "/v1/parties/p2/riders", body: #"{"rider_id":"kim"}"#).status, 200)
        let before = call(router, "GET", "/v1/parties/p2")
        XCTAssertEqual(before.headers["etag"], "\"2\"")

        let stalePut = call(router, "PUT", "/v1/parties/p2", body: partyBody(seats: 3, taken: 2), ifMatch: "\"1\"")
        XCTAssertEqual(stalePut.status, 412)
        XCTAssertEqual(stalePut.json?["error"]?["code"]?.stringValue, "version_mismatch")
        let staleDelete = call(router, "DELETE", "/v1/parties/p2", ifMatch: "\"1\"")
        XCTAssertEqual(staleDelete.status, 412)
        let staleLeave = call(router, "DELETE", "/v1/parties/p2/riders/kim", ifMatch: "W/\"1\"")
        XCTAssertEqual(staleLeave.status, 412)
        let unchanged = call(router, "GET", "/v1/parties/p2")
        XCTAssertEqual(unchanged.json, before.json, "a refused write changed the party")
        XCTAssertEqual(unchanged.headers["etag"], "\"2\"")
        XCTAssertEqual(call(router, "PUT", "/v1/parties/p-new", body: partyBody(), ifMatch: "*").status, 412, "If-Match on no party")
        XCTAssertEqual(call(router, "PUT", "/v1/parties/p2", body: partyBody(), ifMatch: "nonsense").status, 400)

        // The current version goes through.
        let put = call(router, "PUT", "/v1/parties/p2", body: partyBody(seats: 3, taken: 2), ifMatch: "\"2\"")
        XCTAssertEqual(put.status, 200)
        XCTAssertEqual(put.headers["etag"], "\"3\"")
        XCTAssertEqual(riderIDs(put.json), ["organiser", "kim"], "a PUT without riders keeps those who joined")
        XCTAssertEqual(call(router, "DELETE", "/v1/parties/p2", ifMatch: "\"3\"").status, 204)
        XCTAssertEqual(call(router, "GET", "/v1/parties/p2").status, 404)
    }

    func testPutWithRidersAndWithoutThem() throws {
        let (router, service) = try makeRouter()
        let listed = call(router, "PUT", "/v1/parties/p3", body: partyBody(taken: nil, riders: #"[{"rider_id":"host","seats":2},{"rider_id":"park","drop_off":"127.0,37.53"}]"#))
        XCTAssertEqual(listed.status, 201)
        XCTAssertEqual(listed.json?["seats_taken"]?.intValue, 3)
        XCTAssertEqual(riderIDs(listed.json), ["host", "park"])
        let mismatch = call(router, "PUT", "/v1/parties/p3", body: partyBody(taken: 1, riders: #"[{"rider_id":"host","seats":2}]"#))
        XCTAssertEqual(mismatch.status, 422)  // riders' seats not adding up to seats_taken: the schema cannot say it
        XCTAssertTrue(mismatch.json?["error"]?["message"]?.stringValue?.contains("seats_taken") ?? false)
        XCTAssertEqual(call(router, "PUT", "/v1/parties/p3", body: partyBody(taken: nil, riders: #"[{"rider_id":"a"},{"rider_id":"a"}]"#)).status, 422)
        // Riders' seats over seats_total, seats_taken left out (it takes their sum): 422 as well.
        XCTAssertEqual(call(router, "PUT", "/v1/parties/p3", body: partyBody(taken: nil, riders: #"[{"rider_id":"a","seats":3},{"rider_id":"b","seats":15}]"#)).status, 422)
        // Without riders: the organiser gets seats_taken less the others' seats…
        let kept = call(router, "PUT", "/v1/parties/p3", body: partyBody(taken: 4))
        XCTAssertEqual(kept.status, 200)
        XCTAssertEqual(kept.json?["riders"]?[0]?["rider_id"]?.stringValue, "host")
        XCTAssertEqual(kept.json?["riders"]?[0]?["seats"]?.intValue, 3)
        XCTAssertEqual(riderIDs(kept.json), ["host", "park"])
        // …and a count that leaves no seat to the organiser is refused, nothing changed.
        let conflict = call(router, "PUT", "/v1/parties/p3", body: partyBody(taken: 1))
        XCTAssertEqual(conflict.status, 409)
        XCTAssertEqual(conflict.json?["error"]?["code"]?.stringValue, "seats_conflict")
        XCTAssertEqual(service.party(id: "p3")?.seatsTaken, 4)
        // The organiser leaving hands the party to the next rider.
        XCTAssertEqual(call(router, "DELETE", "/v1/parties/p3/riders/host").status, 204)
        XCTAssertEqual(service.party(id: "p3")?.riders.map(\.id), ["park"])
        XCTAssertEqual(service.party(id: "p3")?.seatsTaken, 1)
    }
}

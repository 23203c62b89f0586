import Foundation
import MapMatching
import Parties
import PartyModel
import PartyStores
import TaxiPotServer
import TestSupport
import XCTest

/// Issue 43: a write on one replica to a party created milliseconds earlier on the other
/// answered 404 (23 of 80): the settle read the replica's index, which the follower had not
/// brought up to date yet. A write now catches up with the shared store before a 404.
final class ReplicaSettleCatchUpTests: XCTestCase {
    func call(_ router: Router, _ method: String, _ path: String, _ body: String) -> (status: Int, text: String) {
        let r = router.handle(HTTPRequest(method: method, path: path, headers: ["authorization": "Bearer t"], body: Array(body.utf8))).response
        return (r.status, String(decoding: r.body, as: UTF8.self))
    }

    func testASettleOnAnotherReplicaRightAfterTheCreateFindsTheParty() throws {
        let url = try TemporaryPostgres.shared().createDatabase("settle_catch_up")
        let creator = try PartyService(storage: PostgresPartyStore(url: url))
        defer { _ = try? creator.close() }
        let context = try TestDataset.context(ServiceConfiguration(dataDir: TestDataset.directory(),
            stateDir: TestPaths.temporaryDirectory("catch-up-state").path, writeToken: "t", partyStore: url))
        let replica = makeRouter(context: context)
        let origin = Coordinate(lon: 126.978, lat: 37.5665), destination = Coordinate(lon: 126.9882, lat: 37.5701)
        let depart = (Date().timeIntervalSince1970 + 3600).rounded()
        let route = try context.routeEngine.route(RouteRequest(from: origin, to: destination, departAt: depart))
        let fixes = SyntheticTrace.make(route, intervalSeconds: 5, noiseMeters: 0, start: depart, seed: 3)
        let trace = fixes.map { "[\($0.coordinate.lon),\($0.coordinate.lat),\($0.time!)]" }.joined(separator: ",")
        let body = #"{"trace":[\#(trace)],"meter_total_krw":6000,"idempotency_key":"k"}"#
        for i in 0..<30 {
            let party = try creator.save(Party(id: "fresh\(i)", origin: origin, destination: destination, departAt: depart, seatsTotal: 4,
                                               riders: [PartyRider(id: "org", seats: 1)])).party
            let settled = call(replica, "POST", "/v1/parties/\(party.id)/settle", body)
            XCTAssertEqual(settled.status, 200, "party \(i): \(settled.text)")
        }
        XCTAssertEqual(call(replica, "POST", "/v1/parties/never/settle", body).status, 404)
    }
}

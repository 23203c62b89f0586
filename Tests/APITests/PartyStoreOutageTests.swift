import API
import Foundation
import Geo
import HTTPServer
import JSON
import Parties
import PartyModel
import PartyStores
import TestSupport
import XCTest

/// Issue 32: a replica over PostgreSQL started while the database is down serves everything
/// but the parties (503 with Retry-After for them), `/health` says the store is degraded and
/// why, and the parties are served once the database is back, without a restart.
final class PartyStoreOutageTests: XCTestCase {
    func call(_ router: Router, _ method: String, _ path: String, query: [(String, String)] = []) -> (status: Int, json: JSONValue?, headers: [(String, String)]) {
        let r = router.handle(HTTPRequest(method: method, path: path, query: query.map { (name: $0.0, value: $0.1) }, headers: [:], body: [])).response
        return (r.status, r.body.isEmpty ? nil : try? JSONParser.parse(r.body), r.headers)
    }

    func testReplicaStartedDuringAnOutageServesAllButPartiesUntilTheStoreIsBack() throws {
        let pg = try TemporaryPostgres()
        defer { pg.stop() }
        let url = try pg.createDatabase("replica_outage")
        let config = ServiceConfiguration(dataDir: try TestDataset.directory(), stateDir: TestPaths.temporaryDirectory("outage-state").path,
                                          writeToken: "t", partyStore: url)
        let now = Date().timeIntervalSince1970
        let writer = try PartyService(storage: PostgresPartyStore(url: url))
        let kept = try writer.save(Party(id: "kept", origin: Coordinate(lon: 126.978, lat: 37.5665), destination: Coordinate(lon: 127.0, lat: 37.55),
                                         departAt: now + 3600, seatsTotal: 4, seatsTaken: 1)).party
        try writer.close()
        try pg.pause()

        let router = API.makeRouter(context: try TestDataset.context(config))
        let health = call(router, "GET", "/health")
        XCTAssertEqual(health.status, 200)
        XCTAssertEqual(health.json?["status"]?.stringValue, "degraded")
        XCTAssertEqual(health.json?["party_store"]?["status"]?.stringValue, "degraded")
        XCTAssertEqual(health.json?["party_store"]?["kind"]?.stringValue, "postgresql")
        XCTAssertNotNil(health.json?["party_store"]?["reason"]?.stringValue)
        for (path, query) in [("/v1/parties/kept", []), ("/v1/parties", [("near", "126.978,37.5665")]),
                              ("/v1/clusters", [("bbox", "126.9,37.5,127.1,37.6"), ("zoom", "12")])] as [(String, [(String, String)])] {
            let r = call(router, "GET", path, query: query)
            XCTAssertEqual(r.status, 503, path)
            XCTAssertEqual(r.json?["error"]?["code"]?.stringValue, "storage_unavailable", path)
            XCTAssertTrue(r.headers.contains { $0.0.lowercased() == "retry-after" }, "\(path): \(r.headers)")
        }
        XCTAssertEqual(call(router, "GET", "/v1/coverage").status, 200, "the rest is served")

        try pg.resume()
        let deadline = Date().addingTimeInterval(20)
        while call(router, "GET", "/health").json?["status"]?.stringValue != "ok" && Date() < deadline { usleep(50_000) }
        let back = call(router, "GET", "/health")
        XCTAssertEqual(back.json?["status"]?.stringValue, "ok")
        XCTAssertEqual(back.json?["party_store"]?["status"]?.stringValue, "ok")
        let party = call(router, "GET", "/v1/parties/kept")
        XCTAssertEqual(party.status, 200)
        XCTAssertEqual(party.json?["version"]?.intValue, kept.version)
        XCTAssertEqual(call(router, "GET", "/v1/parties/absent").status, 404)
    }

    /// Issue 43 item 11: with the database away, neither the unauthenticated `/health` nor any
    /// 503 shows a secret of the store's connection string, in any form libpq reads one from.
    func testHealthAndUnavailableAnswersNeverShowTheStoresSecrets() throws {
        // Port 1 on loopback refuses at once; the last string is malformed, which libpq quotes whole.
        let stores = [
            "postgresql://app:userSecret1@127.0.0.1:1/taxipot?password=querySecret2&sslpassword=keySecret3&connect_timeout=2",
            "postgresql://app@127.0.0.1:1/taxipot?pass%77ord=encodedSecret4",
            "host=127.0.0.1 port=1 dbname=taxipot password='quoted Secret5' sslpassword=plainSecret6 connect_timeout=2",
            "postgresql://app@[::1:1/taxipot?password=bracketSecret7",
        ]
        for (n, store) in stores.enumerated() {
            let config = ServiceConfiguration(dataDir: try TestDataset.directory(), stateDir: TestPaths.temporaryDirectory("secret-state").path,
                                              writeToken: "t", partyStore: store)
            let context = try TestDataset.context(config)
            defer { _ = try? context.parties.close() }
            let router = API.makeRouter(context: context)
            var bodies: [(String, Int, String)] = []
            for (method, path, query) in [("GET", "/health", []), ("GET", "/v1/parties/kept", []), ("GET", "/v1/parties", [("near", "126.978,37.5665")]),
                                          ("GET", "/v1/clusters", [("bbox", "126.9,37.5,127.1,37.6"), ("zoom", "12")])] as [(String, String, [(String, String)])] {
                let r = router.handle(HTTPRequest(method: method, path: path, query: query.map { (name: $0.0, value: $0.1) }, headers: [:], body: [])).response
                bodies.append((path, r.status, String(decoding: r.body, as: UTF8.self)))
            }
            XCTAssertEqual(bodies.map(\.1), [200, 503, 503, 503], "store \(n): \(bodies)")
            XCTAssertTrue(bodies[0].2.contains("degraded"), bodies[0].2)
            for (path, _, body) in bodies {
                for secret in ["userSecret1", "querySecret2", "keySecret3", "encodedSecret4", "Secret5", "plainSecret6", "bracketSecret7"] {
                    XCTAssertFalse(body.contains(secret), "store \(n), \(path) shows \(secret): \(body)")
                }
            }
        }
    }
}

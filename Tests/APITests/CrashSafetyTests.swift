import XCTest
import Foundation
import Geo
import SQLiteKit
import TaxiPot
import TestSupport

/// kill -9 of the server during continuous party writes over HTTP: every write it
/// acknowledged (201) is there after a restart, and the store passes `integrity_check`.
final class CrashSafetyTests: XCTestCase {
    static var binary: String { TaxipotCLI.binary }

    func testKill9DuringWritesLosesNoAcknowledgedParty() throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: Self.binary), "build \(Self.binary) first")
        let data = try TestDataset.directory()
        let state = TestPaths.temporaryDirectory("crash-state").path
        let server = try ServerProcess(data: data, state: state, token: "crash-test-token")
        let port = server.port

        // Two writers PUT parties as fast as the server acknowledges them.
        final class Acks: @unchecked Sendable {
            let lock = NSLock()
            var ids: [String] = []
            func add(_ id: String) { lock.lock(); ids.append(id); lock.unlock() }
            var all: [String] { lock.lock(); defer { lock.unlock() }; return ids }
        }
        let acks = Acks()
        let stop = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        let depart = SeoulTime.format(Date().timeIntervalSince1970 + 7200)
        for w in 0..<2 {
            group.enter()
            Thread {
                defer { group.leave() }
                guard let client = try? RawHTTPClient(port: port, timeoutSeconds: 5) else { return }
                var i = 0
                while stop.wait(timeout: .now()) == .timedOut {
                    let id = "w\(w)-\(i)"
                    let body = #"{"origin":{"lon":\#(126.955 + Double(i % 50) * 0.001),"lat":37.56},"destination":{"lon":126.9882,"lat":37.5701},"depart_at":"\#(depart)","seats_total":4,"seats_taken":1}"#
                    guard let r = try? client.request("PUT", "/v1/parties/\(id)", headers: ["Authorization": "Bearer crash-test-token"],
                                                      body: Array(body.utf8)) else { return }  // the server died mid-request
                    if r.status == 201 { acks.add(id) }
                    i += 1
                }
            }.start()
        }
        // Kill -9 once writes are flowing.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if acks.all.count >= 200 { break }
            usleep(10_000)
        }
        server.kill9()
        stop.signal(); stop.signal()
        group.wait()
        let acked = acks.all
        XCTAssertGreaterThanOrEqual(acked.count, 200, "too few writes before the kill")

        // The store is intact, and a restarted server has every acknowledged party.
        let db = try SQLiteDatabase(path: state + "/parties.db", readOnly: true)
        XCTAssertEqual(try db.scalarText("PRAGMA integrity_check"), "ok")
        let restarted = try ServerProcess(data: data, state: state, token: "crash-test-token")
        defer { restarted.stop() }
        let client = try RawHTTPClient(port: restarted.port)
        var missing: [String] = []
        for id in acked where try client.request("GET", "/v1/parties/\(id)").status != 200 { missing.append(id) }
        XCTAssertEqual(missing, [], "\(missing.count) of \(acked.count) acknowledged parties lost")
        print("crash safety: kill -9 after \(acked.count) acknowledged writes; \(acked.count - missing.count) found after restart; integrity_check ok")
    }

    /// Issue 43: the state folder moved away under a running server. Writes are no longer
    /// acknowledged (a 201 would land in files the next start never reads) and `/health` says
    /// why; with the folder back, writes go on.
    func testStoreMovedUnderTheServerRefusesWritesAndDegradesHealth() throws {
        let root = TestPaths.temporaryDirectory("moved-state").path
        let state = root + "/state"
        // In process over the shared dataset: nothing here kills the server.
        let server = try InProcessServer(state: state, token: "moved-token")
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.port)
        let depart = SeoulTime.format(Date().timeIntervalSince1970 + 7200)
        let body = Array(#"{"origin":{"lon":126.97,"lat":37.56},"destination":{"lon":126.9882,"lat":37.5701},"depart_at":"\#(depart)","seats_total":4,"seats_taken":1}"#.utf8)
        let auth = ["Authorization": "Bearer moved-token"]
        XCTAssertEqual(try client.request("PUT", "/v1/parties/before", headers: auth, body: body).status, 201)
        XCTAssertTrue(try client.request("GET", "/health").text.contains(#""status":"ok""#))

        XCTAssertEqual(rename(state, root + "/moved"), 0)
        let refused = try client.request("PUT", "/v1/parties/while-moved", headers: auth, body: body)
        XCTAssertEqual(refused.status, 503, refused.text)
        XCTAssertTrue(refused.text.contains("storage_unavailable") && refused.text.contains("parties.db is gone"), refused.text)
        let health = try client.request("GET", "/health")
        XCTAssertEqual(health.status, 200)
        XCTAssertTrue(health.text.contains(#""status":"degraded""#) && health.text.contains("moved or deleted"), health.text)

        XCTAssertEqual(rename(root + "/moved", state), 0)
        XCTAssertEqual(try client.request("PUT", "/v1/parties/after", headers: auth, body: body).status, 201)
        XCTAssertTrue(try client.request("GET", "/health").text.contains(#""status":"ok""#))
    }

    /// Issue 43: a party whose row was refused at load answers 409 `party_quarantined` to a PUT
    /// (which would create a new party over the row `taxipot parties recover` restores).
    func testPutOntoARowRefusedAtLoadIsRefused() throws {
        let state = TestPaths.temporaryDirectory("quarantine-state").path
        let depart = SeoulTime.format(Date().timeIntervalSince1970 + 7200)
        let body = Array(#"{"origin":{"lon":126.97,"lat":37.56},"destination":{"lon":126.9882,"lat":37.5701},"depart_at":"\#(depart)","seats_total":4,"seats_taken":1,"title":"손님 q1 여정"}"#.utf8)
        let auth = ["Authorization": "Bearer q-token"]
        do {
            let store = try SQLitePartyDatabase(stateDirectory: state)
            try store.put(Party(id: "q1", origin: Coordinate(lon: 126.97, lat: 37.56), destination: Coordinate(lon: 126.9882, lat: 37.5701),
                                departAt: Date().timeIntervalSince1970 + 7200, seatsTotal: 4, seatsTaken: 1, title: "손님 q1 여정"))
            try store.close()
        }
        XCTAssertGreaterThan(try StoreDamage.flipLastBit(of: "q1 여정", inFile: state + "/parties.db"), 0)

        let server = try InProcessServer(state: state, token: "q-token")
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.port)
        let put = try client.request("PUT", "/v1/parties/q1", headers: auth, body: body)
        XCTAssertEqual(put.status, 409, put.text)
        XCTAssertTrue(put.text.contains("party_quarantined") && put.text.contains("taxipot parties recover"), put.text)
        XCTAssertEqual(try client.request("PUT", "/v1/parties/q2", headers: auth, body: body).status, 201)
    }
}

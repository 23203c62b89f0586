import Foundation
import Geo
import SQLiteKit
import TaxiPot
import TestSupport
import XCTest

/// `taxipot serve` and its party store, as a real process: SIGTERM closes the store cleanly
/// (no write-ahead log left behind, a backup copy saved); a damaged store stops the start with
/// a message naming the file and the way to recover; rows refused at load are logged.
final class StoreShutdownTests: XCTestCase {
    let token = "shutdown-test-token"

    /// Starts the server; returns it, its port and a pipe carrying its stderr.
    func start(state: String) throws -> (Process, Int, Pipe) {
        let port = try ServerProcess.freePort()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: TaxipotCLI.binary)
        p.arguments = ["serve", "--port", String(port), "--data", try TestDataset.directory(), "--state-dir", state, "--no-access-log"]
        var env = ProcessInfo.processInfo.environment
        env["TAXIPOT_WRITE_TOKEN"] = token
        p.environment = env
        let errors = Pipe()
        p.standardError = errors
        try p.run()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && p.isRunning {
            if let c = try? RawHTTPClient(port: port, timeoutSeconds: 2), (try? c.request("GET", "/health"))?.status == 200 { return (p, port, errors) }
            usleep(50_000)
        }
        return (p, port, errors)
    }

    func partyBody(_ i: Int) -> [UInt8] {
        let depart = SeoulTime.format(Date().timeIntervalSince1970 + 7200)
        return Array(#"{"origin":{"lon":\#(126.955 + Double(i % 50) * 0.001),"lat":37.56},"destination":{"lon":126.9882,"lat":37.5701},"depart_at":"\#(depart)","seats_total":4,"seats_taken":1,"title":"\#(String(repeating: "파티", count: 50))"}"#.utf8)
    }

    func testSIGTERMLeavesNoWriteAheadLogAndABackup() throws {
        let state = TestPaths.temporaryDirectory("sigterm-state").path
        let (server, port, errors) = try start(state: state)
        XCTAssertTrue(server.isRunning)
        let client = try RawHTTPClient(port: port)
        for i in 0..<400 {
            let r = try client.request("PUT", "/v1/parties/t\(i)", headers: ["Authorization": "Bearer \(token)"], body: partyBody(i))
            XCTAssertEqual(r.status, 201)
        }
        let walBefore = (try? FileManager.default.attributesOfItem(atPath: state + "/parties.db-wal")[.size] as? Int) ?? 0
        XCTAssertGreaterThan(walBefore, 100_000, "the writes went to the write-ahead log first")
        client.close()
        kill(server.processIdentifier, SIGTERM)
        server.waitUntilExit()
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(server.terminationStatus, 0, log)
        let wal = (try? FileManager.default.attributesOfItem(atPath: state + "/parties.db-wal")[.size] as? Int) ?? 0
        XCTAssertEqual(wal, 0, "a clean shutdown leaves no log (or an empty one): \(log)")
        XCTAssertTrue(log.contains("new state folder"), log)
        XCTAssertTrue(log.contains("parties.db.bak"), log)
        let backup = try SQLiteDatabase(path: state + "/parties.db.bak", readOnly: true)
        XCTAssertEqual(try backup.scalarText("SELECT count(*) FROM parties"), "400")

        // The store reopens with them all, and it is no news.
        let reopened = try PartyService(stateDirectory: state)
        XCTAssertEqual(reopened.count, 400)
        XCTAssertTrue(reopened.storeNotes.isEmpty, "\(reopened.storeNotes)")
    }

    func testDamagedStoreStopsTheStartAndRefusedRowsAreLogged() throws {
        // A 0-byte store: no start, a message naming the file and the recovery.
        let empty = TestPaths.temporaryDirectory("zero-state").path
        XCTAssertTrue(FileManager.default.createFile(atPath: empty + "/parties.db", contents: Data()))
        let (server, _, errors) = try start(state: empty)
        server.waitUntilExit()
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(server.terminationStatus, 1, log)
        XCTAssertTrue(log.contains(empty + "/parties.db"), log)
        XCTAssertTrue(log.contains("taxipot parties recover --state-dir \(empty)"), log)

        // A row changed behind the store's back: the server starts without it and logs why.
        let state = TestPaths.temporaryDirectory("refused-state").path
        let depart = Date().timeIntervalSince1970 + 7200
        do {
            let store = try SQLitePartyDatabase(stateDirectory: state)
            try store.put((0..<3).map { Party(id: "r\($0)", origin: Coordinate(lon: 126.97, lat: 37.56), destination: Coordinate(lon: 127.02, lat: 37.5),
                                              departAt: depart, seatsTotal: 4, seatsTaken: 1) })
            try store.close()
        }
        let db = try SQLiteDatabase(path: state + "/parties.db")
        try db.execute("UPDATE parties SET seats_taken = 3 WHERE id = 'r1'")
        try db.close()
        let (second, port2, secondErrors) = try start(state: state)
        let c2 = try RawHTTPClient(port: port2)
        XCTAssertEqual(try c2.request("GET", "/v1/parties/r0").status, 200)
        XCTAssertEqual(try c2.request("GET", "/v1/parties/r1").status, 404)
        c2.close()
        kill(second.processIdentifier, SIGTERM)
        second.waitUntilExit()
        let log2 = String(decoding: secondErrors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(log2.contains("party 'r1' refused: its row does not match its checksum"), log2)
        XCTAssertTrue(log2.contains("1 stored parties refused at load"), log2)
    }

    /// `taxipot parties recover` restores the backup a clean shutdown saved.
    func testRecoverCommandRestoresTheBackup() throws {
        let state = TestPaths.temporaryDirectory("recover-state").path
        let depart = Date().timeIntervalSince1970 + 7200
        do {
            let store = try SQLitePartyDatabase(stateDirectory: state)
            try store.put((0..<300).map { Party(id: "k\($0)", origin: Coordinate(lon: 126.97, lat: 37.56), destination: Coordinate(lon: 127.02, lat: 37.5),
                                                departAt: depart, seatsTotal: 4, seatsTaken: 1, title: String(repeating: "파티", count: 20)) })
            try store.close()
        }
        // Garbage over the store's second half.
        let path = state + "/parties.db"
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        for i in bytes.count / 2..<bytes.count { bytes[i] = UInt8(truncatingIfNeeded: i &* 31) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try PartyService(stateDirectory: state))
        let out = try TaxipotCLI.run(["parties", "recover", "--state-dir", state])
        XCTAssertEqual(out.status, 0, out.stderr)
        XCTAssertTrue(out.stderr.contains("restored the backup copy"), out.stderr)
        XCTAssertTrue(out.stderr.contains("recovered: 300 parties"), out.stderr)
        XCTAssertEqual(try PartyService(stateDirectory: state).count, 300)
    }
}

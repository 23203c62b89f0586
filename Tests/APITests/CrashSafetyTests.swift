import XCTest
import Foundation
import Geo
import SQLiteKit
import TestSupport

/// kill -9 of the server during continuous party writes over HTTP: every write it
/// acknowledged (201) is there after a restart, and the store passes `integrity_check`.
final class CrashSafetyTests: XCTestCase {
    static var binary: String { TaxipotCLI.binary }

    func startServer(data: String, state: String) throws -> (Process, Int) {
        let port = try freePort()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.binary)
        p.arguments = ["serve", "--port", String(port), "--data", data, "--state-dir", state, "--no-access-log"]
        var env = ProcessInfo.processInfo.environment
        env["TAXIPOT_WRITE_TOKEN"] = "crash-test-token"
        p.environment = env
        p.standardError = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let c = try? RawHTTPClient(port: port, timeoutSeconds: 2), (try? c.request("GET", "/health"))?.status == 200 { return (p, port) }
            guard p.isRunning else { break }
            usleep(50_000)
        }
        p.terminate()
        struct ServerDidNotStart: Error {}
        XCTFail("taxipot serve did not answer /health within 60 s")
        throw ServerDidNotStart()
    }

    func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    func testKill9DuringWritesLosesNoAcknowledgedParty() throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: Self.binary), "build \(Self.binary) first")
        let data = try TestDataset.directory()
        let state = TestPaths.temporaryDirectory("crash-state").path
        let (server, port) = try startServer(data: data, state: state)

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
                    let body = #"{"origin":{"lon":\#(126.97 + Double(i % 100) * 0.001),"lat":37.56},"destination":{"lon":127.02,"lat":37.50},"depart_at":"\#(depart)","seats_total":4,"seats_taken":1}"#
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
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
        stop.signal(); stop.signal()
        group.wait()
        let acked = acks.all
        XCTAssertGreaterThanOrEqual(acked.count, 200, "too few writes before the kill")

        // The store is intact, and a restarted server has every acknowledged party.
        let db = try SQLiteDatabase(path: state + "/parties.db", readOnly: true)
        XCTAssertEqual(try db.scalarText("PRAGMA integrity_check"), "ok")
        let (restarted, port2) = try startServer(data: data, state: state)
        defer { restarted.terminate(); restarted.waitUntilExit() }
        let client = try RawHTTPClient(port: port2)
        var missing: [String] = []
        for id in acked where try client.request("GET", "/v1/parties/\(id)").status != 200 { missing.append(id) }
        XCTAssertEqual(missing, [], "\(missing.count) of \(acked.count) acknowledged parties lost")
        print("crash safety: kill -9 after \(acked.count) acknowledged writes; \(acked.count - missing.count) found after restart; integrity_check ok")
    }
}

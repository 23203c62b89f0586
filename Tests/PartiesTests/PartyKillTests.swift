import Foundation
import Geo
@testable import Parties
@testable import PartyStores
import TestSupport
import XCTest

/// `kill -9` in the middle of writing: every acknowledged party survives, the file is sound.
final class PartyKillTests: XCTestCase {
    /// The `taxipot` executable built next to this test bundle.
    static var taxipot: URL? {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("taxipot"),
            URL(fileURLWithPath: TaxipotCLI.binary),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    func testKill9KeepsEveryAcknowledgedParty() throws {
        let exe = try XCTUnwrap(Self.taxipot, "the taxipot executable is not built next to the tests (swift build builds it)")
        signal(SIGPIPE, SIG_IGN)
        let dir = TestPaths.temporaryDirectory("parties-kill").path
        let child = Process()
        child.executableURL = exe
        // One durable transaction per row; each id is printed once its transaction committed.
        child.arguments = ["parties", "import", "-", "--state-dir", dir, "--batch", "1", "--echo"]
        let input = Pipe(), output = Pipe()
        child.standardInput = input
        child.standardOutput = output
        child.standardError = FileHandle.nullDevice
        try child.run()

        // A writer feeds rows continuously, far more than get acknowledged before the kill.
        let now = Date().timeIntervalSince1970
        let rows = RandomParties.make(20_000, seed: 77, now: now).map { PartyCSV.row($0) + "\n" }
        let writeFD = input.fileHandleForWriting.fileDescriptor
        let writer = Thread {
            for row in rows {
                let bytes = Array(row.utf8)
                let n = bytes.withUnsafeBytes { write(writeFD, $0.baseAddress, $0.count) }
                if n < 0 { return }  // the child is gone
            }
        }
        writer.start()

        // Read acknowledged ids until enough have come, then kill the child mid-stream.
        var acknowledged = [String]()
        var partial = [UInt8]()
        let readFD = output.fileHandleForReading.fileDescriptor
        let deadline = Date().addingTimeInterval(60)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while acknowledged.count < 60 && Date() < deadline {
            let n = buffer.withUnsafeMutableBytes { read(readFD, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            for b in buffer[0..<n] {
                if b == 10 {
                    acknowledged.append(String(decoding: partial, as: UTF8.self))
                    partial.removeAll()
                } else {
                    partial.append(b)
                }
            }
        }
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        XCTAssertEqual(child.terminationReason, .uncaughtSignal)
        XCTAssertEqual(child.terminationStatus, SIGKILL)
        // Ids printed after the last read were acknowledged too: collect them.
        while true {
            let n = buffer.withUnsafeMutableBytes { read(readFD, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            for b in buffer[0..<n] {
                if b == 10 { acknowledged.append(String(decoding: partial, as: UTF8.self)); partial.removeAll() } else { partial.append(b) }
            }
        }
        try? input.fileHandleForWriting.close()
        XCTAssertGreaterThanOrEqual(acknowledged.count, 60, "the child acknowledged too few parties before the deadline")
        XCTAssertLessThan(acknowledged.count, rows.count, "the child finished before the kill: nothing was cut short")

        // Reopen: the file is sound and holds every acknowledged party, exactly as written.
        let store = try SQLitePartyDatabase(stateDirectory: dir)
        XCTAssertEqual(try store.integrityCheck(), "ok")
        let stored = Dictionary(uniqueKeysWithValues: try store.load().parties.map { ($0.id, $0) })
        let sent = Dictionary(uniqueKeysWithValues: RandomParties.make(20_000, seed: 77, now: now).map { ($0.id, $0) })
        for id in acknowledged {
            XCTAssertEqual(stored[id], sent[id], "acknowledged party \(id) lost or changed after kill -9")
        }
        XCTAssertGreaterThanOrEqual(stored.count, acknowledged.count)
        let service = try PartyService(stateDirectory: dir)
        XCTAssertEqual(service.count, stored.count)
    }
}

import Foundation
import Geo
@testable import Parties
@testable import PartyModel
@testable import PartyStores
import SQLiteKit
import TestSupport
import XCTest

/// Issue 32: a damaged row never costs its only good copy, and a log cut or deleted after a
/// crash is refused instead of silently dropping acknowledged writes.
final class StoreLossTests: XCTestCase {
    let now = Date().timeIntervalSince1970

    func parties(_ n: Int, seed: UInt64) -> [Party] {
        RandomParties.make(n, seed: seed, now: now).map { p -> Party in
            var p = p
            p.title = "손님 \(p.id) 여정"
            return p
        }
    }

    /// Flips one bit of the title of `id` in the store file (the row's bytes on disk).
    func flipTitleBit(of id: String, in file: String) throws {
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: file)))
        let needle = Array("\(id) 여정".utf8)
        let hits = (0..<bytes.count - needle.count).filter { bytes[$0..<$0 + needle.count].elementsEqual(needle) }
        XCTAssertEqual(hits.count, 1, "the title is stored once")
        bytes[hits[0] + needle.count - 1] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: file))
    }

    func testRefusedRowKeepsTheBackupAndRecoverRestoresIt() throws {
        let dir = TestPaths.temporaryDirectory("refused-row-backup").path
        let list = parties(40, seed: 3201)
        let victim = list[17]
        do {
            let store = try SQLitePartyDatabase(stateDirectory: dir)
            try store.put(list)
            try store.close(backup: true)
        }
        let backupBytes = try Data(contentsOf: URL(fileURLWithPath: dir + "/parties.db.bak"))
        try flipTitleBit(of: victim.id, in: dir + "/parties.db")

        // Served without the damaged party, which is reported; the clean shutdown that follows
        // must not overwrite the backup holding its only good copy.
        do {
            let service = try PartyService(stateDirectory: dir, now: { [now] in now })
            XCTAssertEqual(service.count, list.count - 1)
            XCTAssertNil(service.party(id: victim.id))
            XCTAssertEqual(service.rejectedOnLoad.count, 1)
            let done = try service.close()
            XCTAssertTrue(done.contains { $0.contains("kept the backup copy") }, "\(done)")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/parties.db.bak")), backupBytes,
                       "a store with a refused row overwrote the good backup")
        XCTAssertTrue(PartyStoreRecovery.adviceForRefusedRows(stateDirectory: dir).contains("taxipot parties recover --state-dir \(dir)"))

        // recover puts the party back from the backup, exit 0, saying what it restored.
        let run = try TaxipotCLI.run(["parties", "recover", "--state-dir", dir])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("restored 1 of the 1 parties refused at load") && run.stderr.contains(victim.id), run.stderr)
        let service = try PartyService(stateDirectory: dir, now: { [now] in now })
        XCTAssertTrue(service.rejectedOnLoad.isEmpty, "\(service.rejectedOnLoad)")
        XCTAssertEqual(service.count, list.count)
        XCTAssertEqual(service.party(id: victim.id), victim)
        try service.close()
        let names = try FileManager.default.contentsOfDirectory(atPath: dir)
        XCTAssertTrue(names.contains { $0.hasPrefix("parties.db.damaged-") }, "the store as it was is kept aside: \(names)")
    }

    func testRecoverSaysSoWhenNothingCanBeRestored() throws {
        let dir = TestPaths.temporaryDirectory("refused-row-no-backup").path
        let list = parties(20, seed: 3202)
        do {
            let store = try SQLitePartyDatabase(stateDirectory: dir)
            try store.put(list)
            try store.close(backup: false)
        }
        try flipTitleBit(of: list[3].id, in: dir + "/parties.db")
        let run = try TaxipotCLI.run(["parties", "recover", "--state-dir", dir])
        XCTAssertNotEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("no backup copy") && run.stderr.contains("nothing restored"), run.stderr)
        XCTAssertTrue(run.stderr.contains("party '\(list[3].id)' refused at load and cannot be restored"), run.stderr)
    }

    // MARK: - A log cut or deleted after kill -9

    /// A real `taxipot parties import` killed with -9 after at least `count` acknowledged rows
    /// (one durable transaction each, all still in the log): its state folder and the ids.
    func killedImport(_ name: String, count: Int, seed: UInt64) throws -> (dir: String, acknowledged: [String], sent: [String: Party]) {
        signal(SIGPIPE, SIG_IGN)
        let dir = TestPaths.temporaryDirectory(name).path
        let child = Process()
        child.executableURL = URL(fileURLWithPath: TaxipotCLI.binary)
        child.arguments = ["parties", "import", "-", "--state-dir", dir, "--batch", "1", "--echo"]
        let input = Pipe(), output = Pipe()
        child.standardInput = input
        child.standardOutput = output
        child.standardError = FileHandle.nullDevice
        try child.run()
        let list = parties(5000, seed: seed)
        let writeFD = input.fileHandleForWriting.fileDescriptor
        let rows = list.map { PartyCSV.row($0) + "\n" }
        let writer = Thread {
            for row in rows {
                let bytes = Array(row.utf8)
                if bytes.withUnsafeBytes({ write(writeFD, $0.baseAddress, $0.count) }) < 0 { return }
            }
        }
        writer.start()
        var text = ""
        let readFD = output.fileHandleForReading.fileDescriptor
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(60)
        while text.filter({ $0 == "\n" }).count < count && Date() < deadline {
            let n = buffer.withUnsafeMutableBytes { read(readFD, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            text += String(decoding: buffer[0..<n], as: UTF8.self)
        }
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        XCTAssertEqual(child.terminationReason, .uncaughtSignal)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(readFD, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            text += String(decoding: buffer[0..<n], as: UTF8.self)
        }
        try? input.fileHandleForWriting.close()
        let acknowledged = text.split(separator: "\n").map(String.init)
        XCTAssertGreaterThanOrEqual(acknowledged.count, count)
        XCTAssertLessThan(acknowledged.count, list.count, "the import finished before the kill")
        return (dir, acknowledged, Dictionary(uniqueKeysWithValues: list.map { ($0.id, $0) }))
    }

    func testLogCutOrDeletedAfterKillIsRefusedAndNamed() throws {
        let cases: [(String, (String) throws -> Void)] = [
            ("truncated to 0 bytes", { wal in XCTAssertEqual(truncate(wal, 0), 0) }),
            ("cut in half", { wal in
                let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int)
                XCTAssertEqual(truncate(wal, off_t(size / 2)), 0)
            }),
            ("deleted, -shm left", { wal in XCTAssertEqual(unlink(wal), 0) }),
        ]
        for (i, (name, damage)) in cases.enumerated() {
            let run = try killedImport("lost-log-\(i)", count: 120, seed: 3210 + UInt64(i))
            let wal = run.dir + "/parties.db-wal"
            XCTAssertTrue(FileManager.default.fileExists(atPath: run.dir + "/parties.db-shm"), name)
            try damage(wal)
            XCTAssertThrowsError(try SQLitePartyDatabase(stateDirectory: run.dir), name) { error in
                let message = "\(error)"
                XCTAssertTrue(message.contains(wal) && message.contains("lost acknowledged writes"), "\(name): \(message)")
                XCTAssertTrue(message.contains("taxipot parties recover --state-dir \(run.dir)"), "\(name): \(message)")
            }
            // Refused again (nothing was changed by the refusal), until recover accepts the loss.
            XCTAssertThrowsError(try SQLitePartyDatabase(stateDirectory: run.dir), name)
            let recovered = try TaxipotCLI.run(["parties", "recover", "--state-dir", run.dir])
            XCTAssertEqual(recovered.status, 0, "\(name): \(recovered.stderr)")
            XCTAssertTrue(recovered.stderr.contains("accepting the loss"), "\(name): \(recovered.stderr)")
            let store = try SQLitePartyDatabase(stateDirectory: run.dir)
            XCTAssertEqual(try store.integrityCheck(), "ok")
            for p in try store.load().parties { XCTAssertEqual(p, run.sent[p.id], name) }
            try store.close(backup: false)
        }
    }

    /// Issue 43: a log deleted after a kill, then the store opened by another SQLite program
    /// (as the sqlite3 tool does), which rebuilds and removes the `-shm` evidence: still refused,
    /// from the commit record, until recover accepts the loss.
    func testLostLogIsRefusedAfterAnotherProgramOpenedTheStore() throws {
        let run = try killedImport("lost-log-sqlite3", count: 120, seed: 3230)
        XCTAssertEqual(unlink(run.dir + "/parties.db-wal"), 0)
        let other = try SQLiteDatabase(path: run.dir + "/parties.db")
        let left = try XCTUnwrap(Int(try other.scalarText("SELECT count(*) FROM parties")))
        XCTAssertLessThan(left, run.acknowledged.count, "the last parties were only in the log")
        try other.close()
        XCTAssertFalse(FileManager.default.fileExists(atPath: run.dir + "/parties.db-shm"), "the other program removed the index")
        XCTAssertNil(LostLogCheck.problem(storePath: run.dir + "/parties.db"), "the -shm witness is gone")
        XCTAssertThrowsError(try SQLitePartyDatabase(stateDirectory: run.dir)) { error in
            let message = "\(error)"
            XCTAssertTrue(message.contains("lost acknowledged writes") && message.contains("parties.db.commits counts"), message)
            XCTAssertTrue(message.contains("taxipot parties recover --state-dir \(run.dir)"), message)
        }
        let recovered = try TaxipotCLI.run(["parties", "recover", "--state-dir", run.dir])
        XCTAssertEqual(recovered.status, 0, recovered.stderr)
        XCTAssertTrue(recovered.stderr.contains("accepting the loss"), recovered.stderr)
        let store = try SQLitePartyDatabase(stateDirectory: run.dir)
        XCTAssertEqual(try store.storedCount(), left)
        try store.close(backup: false)
    }

    /// The check leaves normal crash recovery alone: an intact log after kill -9 opens with
    /// every acknowledged party.
    func testIntactLogAfterKillStillOpensWithEveryAcknowledgedParty() throws {
        let run = try killedImport("intact-log", count: 120, seed: 3220)
        XCTAssertTrue(FileManager.default.fileExists(atPath: run.dir + "/parties.db-shm"))
        let store = try SQLitePartyDatabase(stateDirectory: run.dir)
        let stored = Dictionary(uniqueKeysWithValues: try store.load().parties.map { ($0.id, $0) })
        for id in run.acknowledged { XCTAssertEqual(stored[id], run.sent[id], "acknowledged party \(id) lost after kill -9") }
        try store.close(backup: false)
    }
}

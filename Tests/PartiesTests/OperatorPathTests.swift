import Foundation
import Geo
@testable import Parties
@testable import PartyModel
@testable import PartyStores
import SQLiteKit
import TestSupport
import XCTest

/// Issue 43 item 12: the operator's paths (import, recover, a row quarantined at load, files
/// moved under a running service) never lose an acknowledged write.
final class OperatorPathTests: XCTestCase {
    let start = Date().timeIntervalSince1970.rounded()

    func party(_ id: String, title: String? = nil, riders: [PartyRider] = [PartyRider(id: "org", seats: 1)]) -> Party {
        Party(id: id, origin: Coordinate(lon: 126.978, lat: 37.5665), destination: Coordinate(lon: 127.02, lat: 37.50),
              departAt: start + 7200, seatsTotal: 4, riders: riders, title: title)
    }

    func writeCSV(_ parties: [Party], in dir: String) throws -> String {
        let path = dir + "/import.csv"
        try Data(parties.map { PartyCSV.row($0) + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    // MARK: - import

    /// Import never replaces a settled party, keeps the riders who joined a party it replaces,
    /// and goes on from the stored version (an old entity tag never matches the new party).
    func testImportKeepsSettlementsRidersAndVersions() throws {
        let dir = TestPaths.temporaryDirectory("import-over-settled").path
        let service = try PartyService(stateDirectory: dir)
        let settled = try service.save(party("settled")).party
        guard case .settled(let closed) = try service.settle(partyID: "settled", computedFrom: settled,
                                                             settlement: PartySettlement(key: "ride-1", record: .earlierAnswer(#"{"fare":9900}"#)))
        else { return XCTFail("not settled") }
        _ = try service.save(party("joined"))
        let joined = try service.join(partyID: "joined", rider: PartyRider(id: "kim", seats: 1))
        XCTAssertEqual(joined.version, 2)
        try service.close()

        // The CSV gives seats_taken 2 (organiser and kim), no rider list, a new title.
        let rows = [party("settled", title: "다시"), party("joined", title: "새 제목", riders: [PartyRider(id: "org", seats: 2)])]
        let run = try TaxipotCLI.run(["parties", "import", try writeCSV(rows, in: dir), "--state-dir", dir])
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertTrue(run.stderr.contains("import.csv:1: party 'settled' is settled"), run.stderr)
        XCTAssertTrue(run.stderr.contains("stored 1 parties") && run.stderr.contains("1 rows refused"), run.stderr)

        let again = try PartyService(stateDirectory: dir)
        defer { _ = try? again.close() }
        let kept = try XCTUnwrap(try again.kept(id: "settled"))  // the settlement's answer is read from the store
        XCTAssertEqual(kept, closed, "the settled party was replaced by the import")
        XCTAssertEqual(kept.version, 2)
        XCTAssertEqual(kept.settlement?.key, "ride-1")
        let replaced = try XCTUnwrap(again.party(id: "joined"))
        XCTAssertEqual(replaced.title, "새 제목")
        XCTAssertEqual(replaced.riders.map(\.id), ["org", "kim"], "the rider who joined was dropped by the import")
        XCTAssertEqual(replaced.version, 3, "the imported party goes back to an old version")
        // Settling it again under another key finds it settled.
        XCTAssertEqual(try again.settle(partyID: "settled", computedFrom: kept, settlement: PartySettlement(key: "other", record: .earlierAnswer("{}"))),
                       .alreadySettled(closed))
    }

    /// A store a live process holds (a running server) is refused by import and recover, naming
    /// the holder; once it is closed, both work.
    func testImportAndRecoverRefuseAStoreAServerHolds() throws {
        let dir = TestPaths.temporaryDirectory("import-live").path
        let service = try PartyService(stateDirectory: dir)
        try service.put(party("live"))
        let csv = try writeCSV([party("other")], in: dir)
        for args in [["parties", "import", csv, "--state-dir", dir], ["parties", "recover", "--state-dir", dir]] {
            let run = try TaxipotCLI.run(args)
            XCTAssertEqual(run.status, 1, "\(args[1]): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("in use by another process (process \(getpid())"), run.stderr)
            XCTAssertTrue(run.stderr.contains("stop it first"), run.stderr)
        }
        XCTAssertNil(service.party(id: "other"))
        XCTAssertEqual(service.count, 1)
        try service.close()
        let run = try TaxipotCLI.run(["parties", "import", csv, "--state-dir", dir])
        XCTAssertEqual(run.status, 0, run.stderr)
    }

    // MARK: - a damaged log frame

    /// `recover` after one damaged frame of the log keeps the store file and every transaction
    /// committed before the damage, not just the backup.
    func testRecoverKeepsTheTransactionsBeforeADamagedLogFrame() throws {
        let live = TestPaths.temporaryDirectory("wal-frame-live").path
        let list = RandomParties.make(180, seed: 4312, now: start)
        do {
            let store = try SQLitePartyDatabase(stateDirectory: live)
            try store.put(list[0..<30])
            try store.close(backup: true)
        }
        let store = try SQLitePartyDatabase(stateDirectory: live)
        let frameSize = 24 + 4096
        var lastFrame: [Int] = []  // after each put: the log's frame count
        for p in list[30...] {
            try store.put(p)
            let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: live + "/parties.db-wal")[.size] as? Int)
            lastFrame.append((size - 32) / frameSize)
        }
        // The files as a kill leaves them, then one bit of a frame in the middle of the log flipped.
        let dir = TestPaths.temporaryDirectory("wal-frame").path
        for suffix in ["", "-wal", ".bak", ".commits"] where FileManager.default.fileExists(atPath: live + "/parties.db" + suffix) {
            try FileManager.default.copyItem(atPath: live + "/parties.db" + suffix, toPath: dir + "/parties.db" + suffix)
        }
        let damaged = lastFrame[99] + 2  // inside the 101st put's transaction
        XCTAssertLessThan(damaged, lastFrame[100] + 1)
        var wal = try Array(Data(contentsOf: URL(fileURLWithPath: dir + "/parties.db-wal")))
        wal[32 + (damaged - 1) * frameSize + 24 + 1000] ^= 0x08
        try Data(wal).write(to: URL(fileURLWithPath: dir + "/parties.db-wal"))
        XCTAssertThrowsError(try SQLitePartyDatabase(stateDirectory: dir)) { XCTAssertTrue("\($0)".contains("damaged at frame \(damaged)"), "\($0)") }

        let run = try TaxipotCLI.run(["parties", "recover", "--state-dir", dir])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("salvaged the log") && run.stderr.contains("lost the 50 transactions"), run.stderr)
        let after = try PartyService(stateDirectory: dir)
        defer { _ = try? after.close() }
        // The first 30 (in the store file) and the 100 puts committed before the damaged frame.
        let kept = list[0..<130]
        XCTAssertEqual(after.count, kept.count)
        for p in kept { XCTAssertEqual(after.party(id: p.id), p, "acknowledged party \(p.id) lost though its frames were intact") }
        try store.close(backup: false)
    }

    // MARK: - a row quarantined at load

    /// A row refused at load cannot be written over (which would lose its join for good); the
    /// refusal names the quarantine, and recover then restores the row with its join.
    func testWritesToARowRefusedAtLoadWaitForRecover() throws {
        let dir = TestPaths.temporaryDirectory("quarantine").path
        let joined: Party
        do {
            let service = try PartyService(stateDirectory: dir)
            _ = try service.save(party("victim", title: "손님 victim 여정"))
            joined = try service.join(partyID: "victim", rider: PartyRider(id: "kim"))
            _ = try service.save(party("other"))
            try service.close()
        }
        // One bit of the title flipped on disk (every copy in the file: a rewritten row may leave its old bytes behind).
        XCTAssertGreaterThan(try StoreDamage.flipLastBit(of: "victim 여정", inFile: dir + "/parties.db"), 0)

        let service = try PartyService(stateDirectory: dir)
        XCTAssertEqual(service.rejectedOnLoad.count, 1)
        let quarantined = PartyWriteError.quarantined(id: "victim")
        XCTAssertThrowsError(try service.save(party("victim"))) { XCTAssertEqual($0 as? PartyWriteError, quarantined) }
        XCTAssertThrowsError(try service.join(partyID: "victim", rider: PartyRider(id: "lee"))) { XCTAssertEqual($0 as? PartyWriteError, quarantined) }
        XCTAssertThrowsError(try service.delete(id: "victim", precondition: .none)) { XCTAssertEqual($0 as? PartyWriteError, quarantined) }
        XCTAssertTrue(quarantined.description.contains("taxipot parties recover"))
        _ = try service.save(party("fresh"))  // the others are written as ever
        try service.close()

        let report = try PartyStoreRecovery.recover(stateDirectory: dir)
        XCTAssertEqual(report.restored, 1, "\(report.steps)")
        let after = try PartyService(stateDirectory: dir)
        defer { _ = try? after.close() }
        XCTAssertEqual(after.party(id: "victim"), joined)
        XCTAssertEqual(after.party(id: "victim")?.riders.map(\.id), ["org", "kim"])
        XCTAssertNotNil(after.party(id: "fresh"))
    }

    // MARK: - the store's files moved under a running service

    /// The store file moved away or replaced under an open service: writes are refused and the
    /// service says why (`/health` shows `storeProblem`), instead of acknowledging writes into a
    /// file no later start will read.
    func testStoreMovedOrReplacedUnderTheServiceRefusesWrites() throws {
        let root = TestPaths.temporaryDirectory("moved-store").path
        let dir = root + "/state"
        let service = try PartyService(stateDirectory: dir)
        try service.put(party("before"))
        XCTAssertNil(service.storeProblem)

        XCTAssertEqual(rename(dir, root + "/moved"), 0)
        XCTAssertThrowsError(try service.put(party("while-moved"))) { error in
            XCTAssertTrue("\(error)".contains("\(dir)/parties.db is gone"), "\(error)")
        }
        XCTAssertTrue(service.storeProblem?.contains("moved or deleted while this process had it open") == true, "\(service.storeProblem ?? "nil")")
        XCTAssertNil(service.party(id: "while-moved"))

        // Back in place: writes go on. A file renamed over it: refused again.
        XCTAssertEqual(rename(root + "/moved", dir), 0)
        try service.put(party("back"))
        XCTAssertNil(service.storeProblem)
        try FileManager.default.copyItem(atPath: dir + "/parties.db", toPath: root + "/copy.db")
        XCTAssertEqual(rename(root + "/copy.db", dir + "/parties.db"), 0)
        XCTAssertThrowsError(try service.put(party("replaced"))) { XCTAssertTrue("\($0)".contains("no longer the file this process opened"), "\($0)") }
        XCTAssertNotNil(service.storeProblem)
    }
}

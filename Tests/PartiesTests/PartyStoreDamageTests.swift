import Foundation
import Geo
@testable import Parties
@testable import PartyModel
@testable import PartyStores
import SQLiteKit
import TestSupport
import XCTest

/// A damaged party store is never served silently: every damaged variant either starts with
/// each party it serves equal to what was written (the others reported as refused at load),
/// or is refused with a message naming the file and saying how to recover.
final class PartyStoreDamageTests: XCTestCase {
    let start = 1_700_000_000.0
    let pageSize = 4096

    /// A store closed cleanly (all in the main file) and a live one (its last 1,000 parties
    /// only in the write-ahead log, as `kill -9` leaves it), both holding `parties`.
    struct Base {
        let parties: [String: Party]
        let clean: [UInt8]
        let liveDB: [UInt8]
        let liveWAL: [UInt8]
        let indexRootPage: Int
    }

    lazy var base: Base = {
        let list = RandomParties.make(2000, seed: 2121, now: start).map { p -> Party in
            var p = p
            p.title = "파티 \(p.id) " + String(repeating: "x", count: p.id.count)
            return p
        }
        let cleanDir = TestPaths.temporaryDirectory("damage-base").path
        let cleanStore = try! SQLitePartyDatabase(stateDirectory: cleanDir)
        for i in stride(from: 0, to: list.count, by: 100) { try! cleanStore.put(list[i..<i + 100]) }
        let root = Int(try! cleanStore.db.scalarText("SELECT rootpage FROM sqlite_schema WHERE name = 'parties_by_departure'"))!
        try! cleanStore.close(backup: false)
        let clean = try! Array(Data(contentsOf: URL(fileURLWithPath: cleanDir + "/parties.db")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: cleanDir + "/parties.db-wal"), "a clean close leaves no log")

        let liveDir = TestPaths.temporaryDirectory("damage-live").path
        do {
            let first = try! SQLitePartyDatabase(stateDirectory: liveDir)
            try! first.put(list[0..<1000])
            try! first.close(backup: false)
        }
        let live = try! SQLitePartyDatabase(stateDirectory: liveDir)
        for i in stride(from: 1000, to: list.count, by: 50) { try! live.put(list[i..<i + 50]) }
        // Copied while open, as a kill leaves the files: every commit is in the log on disk.
        let liveDB = try! Array(Data(contentsOf: URL(fileURLWithPath: liveDir + "/parties.db")))
        let liveWAL = try! Array(Data(contentsOf: URL(fileURLWithPath: liveDir + "/parties.db-wal")))
        XCTAssertGreaterThan(liveWAL.count, 100 * pageSize, "the live store's last parties are only in its log")
        return Base(parties: Dictionary(uniqueKeysWithValues: list.map { ($0.id, $0) }), clean: clean, liveDB: liveDB,
                    liveWAL: liveWAL, indexRootPage: root)
    }()

    func flipped(_ bytes: [UInt8], at offset: Int, bit: Int = 0) -> [UInt8] {
        var b = bytes
        b[offset] ^= UInt8(1 << bit)
        return b
    }

    func noise(_ n: Int, seed: UInt64) -> [UInt8] {
        var rng = SplitMix64(seed: seed)
        return (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }

    /// The damaged variants: name and the files of the state folder (suffix after parties.db).
    func variants() -> [(String, [String: [UInt8]])] {
        let b = base
        let c = b.clean
        let pages = c.count / pageSize
        var zeroedPage = c
        for i in (pages / 2) * pageSize..<(pages / 2 + 1) * pageSize { zeroedPage[i] = 0 }
        let walFrame = 24 + pageSize
        // Where party p1234's id is stored: its title ("파티 p1234 xxxxx"), its row's key and
        // its departure index entry.
        let needle = Array("p1234".utf8)
        let hits = (0..<c.count - 7).filter { i in c[i..<i + 5].elementsEqual(needle) }
        let titleHit = hits.first { i in c[i + 5] == 0x20 && c[i + 6] == 0x78 }!
        let keyHits = hits.filter { $0 != titleHit }
        XCTAssertEqual(keyHits.count, 2, "the id is stored in the row and in the index")
        return [
            ("0-byte parties.db", ["": []]),
            ("0-byte parties.db beside a backup", ["": [], ".bak": c]),
            ("log without its database", ["-wal": b.liveWAL]),
            ("backup without its database", [".bak": c]),
            ("garbage of the same size", ["": noise(c.count, seed: 1)]),
            ("cut to half its pages", ["": Array(c.prefix(pages / 2 * pageSize))]),
            ("cut inside a page", ["": Array(c.prefix(c.count - 1000))]),
            ("cut to its first page", ["": Array(c.prefix(pageSize))]),
            ("cut to 100 bytes", ["": Array(c.prefix(100))]),
            ("header magic bit", ["": flipped(c, at: 3)]),
            ("header page-size bit", ["": flipped(c, at: 16, bit: 3)]),
            ("header database-size bit", ["": flipped(c, at: 31, bit: 1)]),
            ("schema text bit", ["": flipped(c, at: pageSize - 40, bit: 2)]),
            ("page-type byte of page 2", ["": flipped(c, at: pageSize, bit: 1)]),
            ("cell pointer of page 3", ["": flipped(c, at: 2 * pageSize + 9, bit: 4)]),
            ("row bit in a middle page", ["": flipped(c, at: (pages / 2) * pageSize + 3000, bit: 5)]),
            ("row bit in the last page", ["": flipped(c, at: (pages - 1) * pageSize + pageSize - 200, bit: 0)]),
            ("index root page bit", ["": flipped(c, at: (b.indexRootPage - 1) * pageSize + pageSize - 30, bit: 6)]),
            ("a middle page zeroed", ["": zeroedPage]),
            ("title byte of a row", ["": flipped(c, at: titleHit + 3, bit: 0)]),
            ("id byte, first copy (row or index)", ["": flipped(c, at: keyHits[0] + 4, bit: 1)]),
            ("id byte, second copy (row or index)", ["": flipped(c, at: keyHits[1] + 4, bit: 1)]),
            ("log frame bit", ["": b.liveDB, "-wal": flipped(b.liveWAL, at: 32 + 3 * walFrame + 24 + 2000, bit: 3)]),
            ("log garbage", ["": b.liveDB, "-wal": noise(b.liveWAL.count, seed: 2)]),
            ("shared-memory index garbage", ["": b.liveDB, "-wal": b.liveWAL, "-shm": noise(32768, seed: 3)]),
        ]
    }

    func testEveryDamagedVariantIsRefusedOrServedVerified() throws {
        var outcomes: [String] = []
        var refusedCount = 0
        for (name, files) in variants() {
            let dir = TestPaths.temporaryDirectory("damaged").path
            for (suffix, bytes) in files {
                try Data(bytes).write(to: URL(fileURLWithPath: dir + "/parties.db" + suffix))
            }
            let path = dir + "/parties.db"
            do {
                let service = try PartyService(stateDirectory: dir, now: { 1_700_000_000 })
                // Started: everything served is exactly what was written, everything missing was reported.
                // (A row whose id itself was damaged is reported under the damaged id.)
                var served = 0, missing = 0
                for (id, original) in base.parties {
                    if let p = service.party(id: id) {
                        XCTAssertEqual(p, original, "\(name): party \(id) served with other values than written")
                        served += 1
                    } else {
                        missing += 1
                    }
                }
                XCTAssertEqual(service.count, served, "\(name): served parties that were never written")
                XCTAssertLessThanOrEqual(missing, service.rejectedOnLoad.count, "\(name): parties dropped without a word: \(service.rejectedOnLoad)")
                // The file is sound for writes, and writes land.
                let store = try SQLitePartyDatabase(path: path)
                XCTAssertEqual(try store.integrityCheck(), "ok", "\(name): started on a file SQLite finds malformed")
                var extra = base.parties["p1"]!
                extra.id = "after-start"
                try service.put(extra)
                try service.close()
                outcomes.append("\(name): started, \(served) served, \(service.rejectedOnLoad.count) refused rows logged")
            } catch let e as PartyStoreError {
                refusedCount += 1
                XCTAssertTrue(e.message.contains(path), "\(name): the refusal names the file: \(e.message)")
                XCTAssertTrue(e.message.contains("taxipot parties recover"), "\(name): the refusal says how to recover: \(e.message)")
                XCTAssertFalse(e.message.unicodeScalars.contains { $0.value < 0x20 }, "\(name): no control characters: \(e.message)")
                outcomes.append("\(name): refused: \(e.message.prefix(160))")
            }
        }
        print(outcomes.joined(separator: "\n"))
        XCTAssertEqual(outcomes.count, 25)
        XCTAssertGreaterThanOrEqual(refusedCount, 15, "most variants are damage SQLite or the checks see")
    }

    func testNewFolderStartsEmptyAndSaysSo() throws {
        let dir = TestPaths.temporaryDirectory("new-state").path + "/state"
        let service = try PartyService(stateDirectory: dir, now: { 1_700_000_000 })
        XCTAssertEqual(service.count, 0)
        XCTAssertEqual(service.storeNotes.count, 1)
        XCTAssertTrue(service.storeNotes[0].contains("new state folder"), service.storeNotes[0])
        try service.put(base.parties["p1"]!)
        try service.close()
        // A clean close: the log merged and removed, a backup copy saved.
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/parties.db-wal"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/parties.db.bak"))
        let again = try PartyService(stateDirectory: dir, now: { 1_700_000_000 })
        XCTAssertEqual(again.count, 1)
        XCTAssertTrue(again.storeNotes.isEmpty, "an existing store is no news: \(again.storeNotes)")
    }

    /// A row edited behind the store's back (its checksum no longer matches) and a row that
    /// fails validation are refused at load, each reported with its reason.
    func testRowsRefusedAtLoadAreReportedWithTheirReason() throws {
        let dir = TestPaths.temporaryDirectory("refused-rows").path
        let ids = Array(base.parties.keys.sorted().prefix(10))
        do {
            let store = try SQLitePartyDatabase(stateDirectory: dir)
            try store.put(ids.map { base.parties[$0]! })
            try store.close(backup: false)
        }
        let db = try SQLiteDatabase(path: dir + "/parties.db")
        try db.execute("UPDATE parties SET seats_taken = seats_taken + 1 WHERE id = '\(ids[0])'")
        try db.execute("UPDATE parties SET origin_lat = 123.0 WHERE id = '\(ids[1])'")
        try db.close()
        let service = try PartyService(stateDirectory: dir, now: { 1_700_000_000 })
        XCTAssertEqual(service.count, 8)
        XCTAssertEqual(service.rejectedOnLoad.count, 2)
        XCTAssertTrue(service.rejectedOnLoad.contains { $0.contains("party '\(ids[0])'") && $0.contains("checksum") }, "\(service.rejectedOnLoad)")
        XCTAssertTrue(service.rejectedOnLoad.contains { $0.contains("party '\(ids[1])'") && $0.contains("checksum") }, "\(service.rejectedOnLoad)")
    }

    /// A store written before rows had checksums is upgraded once, keeping every party.
    func testStoreWithoutChecksumsIsUpgraded() throws {
        let dir = TestPaths.temporaryDirectory("old-store").path
        let db = try SQLiteDatabase(path: dir + "/parties.db")
        _ = try db.scalarText("PRAGMA journal_mode=WAL")
        try db.execute("CREATE TABLE parties(\(SQLitePartyDatabase.columns)) WITHOUT ROWID; CREATE INDEX parties_by_departure ON parties(depart_at);")
        let parties = Array(base.parties.values.prefix(50))
        for p in parties {
            try db.execute("""
                INSERT INTO parties VALUES('\(p.id)', \(p.origin.lon), \(p.origin.lat), \(p.destination.lon), \(p.destination.lat),
                \(p.departAt), \(p.seatsTotal), \(p.seatsTaken), NULL)
                """)
        }
        try db.close()
        let service = try PartyService(stateDirectory: dir, now: { 1_700_000_000 })
        XCTAssertEqual(service.count, 50)
        XCTAssertTrue(service.rejectedOnLoad.isEmpty, "\(service.rejectedOnLoad)")
        XCTAssertTrue(service.storeNotes.contains { $0.contains("upgraded") }, "\(service.storeNotes)")
    }

    /// `PartyStoreRecovery`: with a backup it restores it; without one it salvages the rows
    /// that can still be read; a sound store is left alone.
    func testRecoveryRestoresTheBackupOrSalvages() throws {
        let c = base.clean
        let pages = c.count / pageSize
        // With a backup: a damaged store becomes the backup's parties.
        let withBackup = TestPaths.temporaryDirectory("recover-bak").path
        try Data(c.prefix(pages / 2 * pageSize)).write(to: URL(fileURLWithPath: withBackup + "/parties.db"))
        try Data(c).write(to: URL(fileURLWithPath: withBackup + "/parties.db.bak"))
        XCTAssertThrowsError(try PartyService(stateDirectory: withBackup, now: { 1_700_000_000 }))
        let restored = try PartyStoreRecovery.recover(stateDirectory: withBackup)
        XCTAssertTrue(restored.changed)
        XCTAssertEqual(restored.parties, base.parties.count)
        let names = try FileManager.default.contentsOfDirectory(atPath: withBackup)
        XCTAssertTrue(names.contains { $0.hasPrefix("parties.db.damaged-") }, "the damaged file is kept aside: \(names)")
        let service = try PartyService(stateDirectory: withBackup, now: { 1_700_000_000 })
        XCTAssertEqual(service.count, base.parties.count)
        for (id, p) in base.parties { XCTAssertEqual(service.party(id: id), p) }
        try service.close()

        // Without a backup: every readable, verified row is salvaged, nothing altered.
        let noBackup = TestPaths.temporaryDirectory("recover-salvage").path
        try Data(flipped(c, at: (pages / 2) * pageSize, bit: 1)).write(to: URL(fileURLWithPath: noBackup + "/parties.db"))
        XCTAssertThrowsError(try PartyService(stateDirectory: noBackup, now: { 1_700_000_000 }))
        let salvaged = try PartyStoreRecovery.recover(stateDirectory: noBackup)
        XCTAssertTrue(salvaged.changed)
        XCTAssertGreaterThan(salvaged.parties, base.parties.count / 2, "\(salvaged.steps)")
        let after = try PartyService(stateDirectory: noBackup, now: { 1_700_000_000 })
        XCTAssertEqual(after.count, salvaged.parties)
        for (id, p) in base.parties { if let q = after.party(id: id) { XCTAssertEqual(q, p) } }
        try after.close()

        // A sound store: nothing done.
        let sound = try PartyStoreRecovery.recover(stateDirectory: noBackup)
        XCTAssertFalse(sound.changed)
        XCTAssertEqual(sound.parties, salvaged.parties)
    }
}

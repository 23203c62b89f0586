import Foundation
import Geo
@testable import Parties
@testable import PartyModel
@testable import PartyStores
import SQLiteKit
import TestSupport
import XCTest

/// A party's settlement in the embedded store (issue 38): part of the party's row, so the party
/// stays settled (closed to joins, leaves and replacement) after a reopen; a store of the earlier
/// schema gains the columns; a settlement edited on disk is refused like any damaged row.
final class PartySettlementStoreTests: XCTestCase {
    let start = 1_800_000_000.0

    func party(_ id: String) -> Party {
        Party(id: id, origin: Coordinate(lon: 126.978, lat: 37.5665), destination: Coordinate(lon: 127.02, lat: 37.50),
              departAt: start + 3600, seatsTotal: 4, riders: [PartyRider(id: "org", seats: 1), PartyRider(id: "kim", seats: 1)])
    }

    let settlement = PartySettlement(key: "ride-1", answer: #"{"party_id":"p","fare":{"total_krw":9900}}"#)

    func testSettledPartyIsClosedAndStaysSoAfterAReopen() throws {
        let dir = TestPaths.temporaryDirectory("settled-store").path
        let clock = TestClock(start)
        let service = try PartyService(stateDirectory: dir, now: { clock.now })
        let created = try service.save(party("p")).party
        guard case .settled(let settled) = try service.settle(partyID: "p", computedFrom: created, settlement: settlement) else {
            return XCTFail("not settled")
        }
        XCTAssertEqual(settled.version, 2)
        XCTAssertTrue(settled.isSettled)
        // The listing holds the key in memory, not the answer (the store does).
        XCTAssertEqual(service.party(id: "p")?.settlement, PartySettlement(key: "ride-1", answer: ""))
        XCTAssertEqual(try service.kept(id: "p")?.settlement, settlement)
        func assertClosed(_ s: PartyService) {
            XCTAssertThrowsError(try s.join(partyID: "p", rider: PartyRider(id: "lee"))) { XCTAssertEqual($0 as? PartyWriteError, .settled(id: "p")) }
            XCTAssertThrowsError(try s.leave(partyID: "p", riderID: "kim")) { XCTAssertEqual($0 as? PartyWriteError, .settled(id: "p")) }
            XCTAssertThrowsError(try s.save(party("p"))) { XCTAssertEqual($0 as? PartyWriteError, .settled(id: "p")) }
        }
        assertClosed(service)
        // Settled again (another key, or the same): the settlement stored, unchanged.
        let again = try service.settle(partyID: "p", computedFrom: created, settlement: PartySettlement(key: "other", answer: "{}"))
        XCTAssertEqual(again, .alreadySettled(settled))
        // A party changed since the settlement was computed is not settled from the old state.
        let other = try service.save(party("q")).party
        let joined = try service.join(partyID: "q", rider: PartyRider(id: "lee"))
        XCTAssertEqual(try service.settle(partyID: "q", computedFrom: other, settlement: settlement), .changed(joined))
        XCTAssertFalse(try XCTUnwrap(service.party(id: "q")).isSettled)
        _ = try service.close()

        let reopened = try PartyService(stateDirectory: dir, now: { clock.now })
        XCTAssertEqual(try reopened.kept(id: "p")?.settlement, settlement)
        XCTAssertEqual(reopened.party(id: "p")?.version, 2)
        XCTAssertTrue(reopened.rejectedOnLoad.isEmpty, "\(reopened.rejectedOnLoad)")
        assertClosed(reopened)
        // Deleting it is still allowed; a new party of that id starts unsettled.
        XCTAssertTrue(try reopened.delete(id: "p"))
        XCTAssertFalse(try reopened.save(party("p")).party.isSettled)
        _ = try reopened.close()
    }

    /// A `parties.db` of schema 2 (riders and versions, no settlement columns) with a row as that
    /// build wrote it: it loads with its checksum intact, gains the columns, and settles.
    func testStoreOfSchema2GainsTheSettlementColumns() throws {
        let dir = TestPaths.temporaryDirectory("schema2-store").path
        var old = party("old")
        old.version = 3
        do {
            let db = try SQLiteDatabase(path: dir + "/parties.db")
            try db.execute("""
                PRAGMA journal_mode=WAL;
                CREATE TABLE parties(\(SQLitePartyDatabase.columns), row_sum INTEGER, riders TEXT, version INTEGER NOT NULL DEFAULT 1) WITHOUT ROWID;
                CREATE INDEX parties_by_departure ON parties(depart_at);
                INSERT INTO parties VALUES('old', 126.978, 37.5665, 127.02, 37.50, \(old.departAt), 4, 2, NULL,
                    \(SQLitePartyDatabase.rowSum(old)), '\(SQLitePartyDatabase.encode(old.riders))', 3);
                PRAGMA user_version=2;
                """)
            try db.close()
        }
        let clock = TestClock(start)
        let service = try PartyService(stateDirectory: dir, now: { clock.now })
        XCTAssertTrue(service.storeNotes.contains { $0.contains("added the settlement columns") }, "\(service.storeNotes)")
        XCTAssertTrue(service.rejectedOnLoad.isEmpty, "\(service.rejectedOnLoad)")
        let loaded = try XCTUnwrap(service.party(id: "old"))
        XCTAssertEqual(loaded, old)
        XCTAssertFalse(loaded.isSettled)
        guard case .settled = try service.settle(partyID: "old", computedFrom: loaded, settlement: settlement) else { return XCTFail("not settled") }
        _ = try service.close()
        let db = try SQLiteDatabase(path: dir + "/parties.db")
        XCTAssertEqual(try db.scalarText("PRAGMA user_version"), "3")
        XCTAssertEqual(try db.scalarText("SELECT settled_key FROM parties WHERE id = 'old'"), "ride-1")
        try db.close()
        let reopened = try PartyService(stateDirectory: dir, now: { clock.now })
        XCTAssertEqual(try reopened.kept(id: "old")?.settlement, settlement)
        _ = try reopened.close()
    }

    /// The settlement is under the row's checksum: an answer edited outside taxipot (or a key
    /// without its answer) is refused at load, not served as the settled answer.
    func testEditedSettlementIsRefusedAtLoad() throws {
        let dir = TestPaths.temporaryDirectory("settled-edited").path
        let clock = TestClock(start)
        let service = try PartyService(stateDirectory: dir, now: { clock.now })
        for id in ["a", "b"] {
            let p = try service.save(party(id)).party
            _ = try service.settle(partyID: id, computedFrom: p, settlement: settlement)
        }
        _ = try service.close(backup: false)
        do {
            let db = try SQLiteDatabase(path: dir + "/parties.db")
            try db.execute("UPDATE parties SET settlement = '{\"fare\":{\"total_krw\":1}}' WHERE id = 'a'; UPDATE parties SET settlement = NULL WHERE id = 'b'")
            try db.close()
        }
        let reopened = try PartyService(stateDirectory: dir, now: { clock.now })
        XCTAssertNil(reopened.party(id: "a"))
        XCTAssertNil(reopened.party(id: "b"))
        XCTAssertEqual(reopened.rejectedOnLoad.count, 2, "\(reopened.rejectedOnLoad)")
        XCTAssertTrue(reopened.rejectedOnLoad.contains { $0.contains("'a' refused: its row does not match its checksum") }, "\(reopened.rejectedOnLoad)")
        XCTAssertTrue(reopened.rejectedOnLoad.contains { $0.contains("'b' refused") && $0.contains("half a settlement") }, "\(reopened.rejectedOnLoad)")
        _ = try reopened.close(backup: false)
    }
}

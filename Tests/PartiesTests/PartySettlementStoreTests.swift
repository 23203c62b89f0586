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

    let settlement = PartySettlement(key: "ride-1", record: .earlierAnswer(#"{"party_id":"p","fare":{"total_krw":9900}}"#))

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
        XCTAssertEqual(service.party(id: "p")?.settlement, PartySettlement(key: "ride-1", record: nil))
        XCTAssertEqual(try service.kept(id: "p")?.settlement, settlement)
        func assertClosed(_ s: PartyService) {
            XCTAssertThrowsError(try s.join(partyID: "p", rider: PartyRider(id: "lee"))) { XCTAssertEqual($0 as? PartyWriteError, .settled(id: "p")) }
            XCTAssertThrowsError(try s.leave(partyID: "p", riderID: "kim")) { XCTAssertEqual($0 as? PartyWriteError, .settled(id: "p")) }
            XCTAssertThrowsError(try s.save(party("p"))) { XCTAssertEqual($0 as? PartyWriteError, .settled(id: "p")) }
        }
        assertClosed(service)
        // Settled again (another key, or the same): the settlement stored, unchanged.
        let again = try service.settle(partyID: "p", computedFrom: created, settlement: PartySettlement(key: "other", record: .earlierAnswer("{}")))
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

    /// A settled ride with every kind of value: text needing escapes, absent numbers, empty
    /// lists, an unmatched fix.
    static let ride = SettledRide(
        reading: .init(fixCount: 3, firstTime: nil, lastTime: 1_800_003_600.25, members: ["trace", "a\tb,c:d%e\nf", "-", "", "서울"],
                       keyFrom: "header", outlierFixes: []),
        distanceMeters: 0.1 + 0.2, durationSeconds: 412, region: "seoul", split: "by_leg",
        fare: .init(scheduleID: "seoul-2023", totalKrw: 9900, baseKrw: 4800, distanceKrw: 4000, timeKrw: 1100, nightKrw: 0, outOfCityKrw: 0,
                    roundingKrw: -10, legKrw: [6100, 3800]),
        riders: [.init(id: "org", seats: 1, stop: 1, fix: 2, dropOff: Coordinate(lon: 127.02, lat: 37.5), meteredKrw: 4950, settledKrw: 4950),
                 .init(id: "kim-2", seats: 1, stop: 0, fix: 1, dropOff: Coordinate(lon: 126.9769001, lat: 1e-7), meteredKrw: 4950, settledKrw: 4950)],
        meterTotalKrw: nil, differenceKrw: nil,
        matchings: [.init(distanceMeters: 3374.3700000000003, durationSeconds: 412, confidence: 0.987654321, fixes: [0, 2],
                          geometry: [Coordinate(lon: 126.978, lat: 37.5665), Coordinate(lon: 127.02, lat: 37.5)],
                          legs: [.init(distanceMeters: 1000.05, durationSeconds: 100), .init(distanceMeters: 2374.32, durationSeconds: 312)]),
                    .init(distanceMeters: 0, durationSeconds: 0, confidence: 0, fixes: [], geometry: [], legs: [])],
        tracepoints: [.matched(location: Coordinate(lon: 126.978, lat: 37.5665), distanceMeters: 1.5, matching: 0, waypoint: 0),
                      .unmatched(reason: "too_far"),
                      .matched(location: Coordinate(lon: 127.02, lat: 37.5), distanceMeters: 0, matching: 0, waypoint: nil)])

    /// This build stores a settlement as values (not an answer's text) that read back exactly,
    /// after a reopen too; an earlier build's answer text is read as it was; text that is
    /// neither is not taken for a settlement.
    func testSettledRideIsStoredAsValuesAndReadBackExactly() throws {
        let dir = TestPaths.temporaryDirectory("settled-values").path
        let clock = TestClock(start)
        let service = try PartyService(stateDirectory: dir, now: { clock.now })
        let values = PartySettlement(key: "ride-values", record: .ride(Self.ride))
        let created = try service.save(party("v")).party
        guard case .settled = try service.settle(partyID: "v", computedFrom: created, settlement: values) else { return XCTFail("not settled") }
        XCTAssertEqual(try service.kept(id: "v")?.settlement, values)
        _ = try service.close(backup: false)
        let column = try SQLiteDatabase(path: dir + "/parties.db").scalarText("SELECT settlement FROM parties WHERE id = 'v'")
        XCTAssertTrue(column.hasPrefix(SettlementColumn.header + "\n"), column)
        XCTAssertFalse(column.contains("{"), "values, not JSON text: \(column)")
        let reopened = try PartyService(stateDirectory: dir, now: { clock.now })
        XCTAssertEqual(reopened.rejectedOnLoad, [])
        XCTAssertEqual(try reopened.kept(id: "v")?.settlement, values)
        _ = try reopened.close(backup: false)

        XCTAssertEqual(SettlementColumn.settlement(key: "k", text: #"{"party_id":"p"}"#), PartySettlement(key: "k", record: .earlierAnswer(#"{"party_id":"p"}"#)))
        let text = SettlementColumn.text(values)
        XCTAssertNil(SettlementColumn.settlement(key: "k", text: "settled-ride 2" + text.dropFirst(SettlementColumn.header.count)))
        XCTAssertNil(SettlementColumn.settlement(key: "k", text: text.replacingOccurrences(of: "\tseoul\t", with: "\t")))
        XCTAssertNil(SettlementColumn.settlement(key: "k", text: text + "\nrider\tx"))
        XCTAssertNil(SettlementColumn.settlement(key: "k", text: "9900"))
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

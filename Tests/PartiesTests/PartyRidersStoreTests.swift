import Foundation
import Geo
@testable import Parties
@testable import PartyModel
@testable import PartyStores
import SQLiteKit
import TestSupport
import XCTest

/// Riders and versions in the party store: a file written before they existed loads, and
/// joins and leaves survive a reopen.
final class PartyRidersStoreTests: XCTestCase {
    let start = 1_800_000_000.0

    func testStoreOfTheEarlierSchemaLoadsAndMigrates() throws {
        let dir = TestPaths.temporaryDirectory("old-store").path
        // A parties.db as the engine wrote it before riders and versions.
        do {
            let db = try SQLiteDatabase(path: dir + "/parties.db")
            try db.execute("""
                PRAGMA journal_mode=WAL;
                CREATE TABLE parties(
                    id TEXT PRIMARY KEY NOT NULL,
                    origin_lon REAL NOT NULL, origin_lat REAL NOT NULL,
                    dest_lon REAL NOT NULL, dest_lat REAL NOT NULL,
                    depart_at REAL NOT NULL,
                    seats_total INTEGER NOT NULL, seats_taken INTEGER NOT NULL,
                    title TEXT
                ) WITHOUT ROWID;
                CREATE INDEX parties_by_departure ON parties(depart_at);
                INSERT INTO parties VALUES('old-1', 126.978, 37.5665, 127.02, 37.50, \(start + 3600), 4, 2, '시청 → 강남');
                INSERT INTO parties VALUES('old-2', 126.99, 37.56, 127.03, 37.51, \(start + 3600), 3, 0, NULL);
                """)
        }
        let clock = TestClock(start)
        let service = try PartyService(stateDirectory: dir, now: { clock.now })
        XCTAssertEqual(service.count, 2)
        XCTAssertTrue(service.rejectedOnLoad.isEmpty, "\(service.rejectedOnLoad)")
        let old = try XCTUnwrap(service.party(id: "old-1"))
        XCTAssertEqual(old.version, 1)
        XCTAssertEqual(old.title, "시청 → 강남")
        XCTAssertEqual(old.seatedRiders, [PartyRider(id: "organiser", seats: 2)])
        XCTAssertEqual(service.party(id: "old-2")?.seatedRiders, [])

        let joined = try service.join(partyID: "old-1", rider: PartyRider(id: "kim", seats: 1, dropOff: Coordinate(lon: 127.0, lat: 37.53)))
        XCTAssertEqual(joined.version, 2)
        XCTAssertEqual(joined.riders.map(\.id), ["organiser", "kim"])
        XCTAssertThrowsError(try service.join(partyID: "old-1", rider: PartyRider(id: "lee", seats: 2))) {
            XCTAssertEqual($0 as? PartyWriteError, .full(id: "old-1", seatsLeft: 1, asked: 2))
        }
        try service.join(partyID: "old-2", rider: PartyRider(id: "first"))
        try service.leave(partyID: "old-2", riderID: "first")

        let reopened = try PartyService(stateDirectory: dir, now: { clock.now })
        XCTAssertEqual(reopened.party(id: "old-1"), joined)
        XCTAssertEqual(reopened.party(id: "old-1")?.version, 2)
        XCTAssertEqual(reopened.party(id: "old-1")?.riders.last?.dropOff, Coordinate(lon: 127.0, lat: 37.53))
        XCTAssertEqual(reopened.party(id: "old-2")?.seatsTaken, 0)
        XCTAssertEqual(reopened.party(id: "old-2")?.version, 3)
        XCTAssertEqual(try SQLitePartyDatabase(stateDirectory: dir).integrityCheck(), "ok")
    }

    func testRacingJoinsInProcessNeverOversell() throws {
        let clock = TestClock(start)
        let service = try PartyService(stateDirectory: TestPaths.temporaryDirectory("race").path, now: { clock.now })
        try service.put(Party(id: "r", origin: Coordinate(lon: 127, lat: 37.5), destination: Coordinate(lon: 127.1, lat: 37.6),
                              departAt: start + 3600, seatsTotal: 5, seatsTaken: 1))
        final class Count: @unchecked Sendable {
            let lock = NSLock()
            var ok = 0, full = 0
        }
        let count = Count()
        DispatchQueue.concurrentPerform(iterations: 64) { i in
            do {
                try service.join(partyID: "r", rider: PartyRider(id: "x\(i)", seats: 1 + i % 2))
                count.lock.lock(); count.ok += 1; count.lock.unlock()
            } catch PartyWriteError.full {
                count.lock.lock(); count.full += 1; count.lock.unlock()
            } catch {
                XCTFail("\(error)")
            }
        }
        let p = try XCTUnwrap(service.party(id: "r"))
        XCTAssertEqual(count.ok + count.full, 64)
        XCTAssertLessThanOrEqual(p.seatsTaken, 5)
        XCTAssertEqual(p.riders.count, 1 + count.ok)
        XCTAssertEqual(p.riders.reduce(0) { $0 + $1.seats }, p.seatsTaken)
        XCTAssertEqual(p.version, 1 + count.ok)
    }
}

import Foundation
import Geo
@testable import Parties
@testable import PartyModel
@testable import PartyStores
import TestSupport
import XCTest

/// A party's drop-off order (issue 43: fixed by its joins) in both stores: written with its
/// riders, summed in its row checksum, read back equal; rows without one are as before.
final class StopOrderStoreTests: XCTestCase {
    static let now = 1_796_166_000.0

    func ordered(_ id: String) -> Party {
        let o = Coordinate(lon: 126.9829, lat: 37.5700)
        var p = Party(id: id, origin: o, destination: Coordinate(lon: 126.9720, lat: 37.5547), departAt: Self.now + 3600, seatsTotal: 4,
                      riders: [PartyRider(id: "host"), PartyRider(id: "a", dropOff: Coordinate(lon: 126.9780, lat: 37.5665)),
                               PartyRider(id: "b", dropOff: Coordinate(lon: 126.9760, lat: 37.5600))])
        p.stopOrder = [2, 1]
        p.version = 3
        return p
    }

    func testSQLiteRoundTripAndChecksum() throws {
        let dir = TestPaths.temporaryDirectory("stop-order-sqlite").path
        let db = try SQLitePartyDatabase(stateDirectory: dir)
        var plain = ordered("plain")
        plain.stopOrder = nil
        try db.put([ordered("kept"), plain])
        let loaded = try db.load()
        XCTAssertEqual(loaded.rejected, [])
        let byID = Dictionary(uniqueKeysWithValues: loaded.parties.map { ($0.id, $0) })
        XCTAssertEqual(byID["kept"], ordered("kept"))
        XCTAssertEqual(byID["kept"]?.stopOrder, [2, 1])
        XCTAssertEqual(byID["plain"], plain)
        XCTAssertNil(byID["plain"]?.stopOrder)
        // A row without an order is written and summed as before orders existed.
        XCTAssertEqual(SQLitePartyDatabase.riderColumn(plain), SQLitePartyDatabase.encode(plain.riders))
        XCTAssertEqual(SQLitePartyDatabase.riderColumn(ordered("x")), SQLitePartyDatabase.encode(plain.riders) + "|2,1")
        XCTAssertNotEqual(SQLitePartyDatabase.rowSum(ordered("x")), SQLitePartyDatabase.rowSum({ var p = ordered("x"); p.stopOrder = [1, 2]; return p }()))
        var text = SQLitePartyDatabase.riderColumn(ordered("x"))!
        var read = plain
        XCTAssertTrue(SQLitePartyDatabase.read(riderColumn: text, into: &read))
        XCTAssertEqual(read.stopOrder, [2, 1])
        for bad in ["|2,", "|x,1", "|2"] {
            text = SQLitePartyDatabase.encode(plain.riders) + bad
            XCTAssertFalse(SQLitePartyDatabase.read(riderColumn: text, into: &read), bad)
        }
        _ = try db.close(backup: false)
    }

    func testAnOrderThatIsNotThePartysIsRefused() throws {
        var p = ordered("bad")
        p.stopOrder = [1, 3]
        XCTAssertThrowsError(try p.validate()) { XCTAssertEqual(($0 as? PartyValidationError)?.field, "stop_order") }
        p.stopOrder = [1]
        XCTAssertThrowsError(try p.validate())
        p.stopOrder = [2, 1]
        XCTAssertNoThrow(try p.validate())
    }

    /// Leaving keeps the order of the drop-offs that remain; a replacement that adds a drop-off
    /// plans the fastest order again, one that keeps them keeps it.
    func testLeaveAndReplaceCarryTheOrder() throws {
        let service = try PartyService(stateDirectory: TestPaths.temporaryDirectory("stop-order-service").path, now: { Self.now })
        var p = ordered("p")
        p.riders.append(PartyRider(id: "c", dropOff: Coordinate(lon: 126.9740, lat: 37.5580)))
        p.seatsTaken = 4
        p.stopOrder = [3, 1, 2]
        try service.put(p)
        try service.leave(partyID: "p", riderID: "a")
        XCTAssertEqual(service.party(id: "p")?.stopOrder, [2, 1], "c then b")
        var same = try XCTUnwrap(service.party(id: "p"))
        same.stopOrder = nil
        same.title = "renamed"
        XCTAssertEqual(try service.save(same).party.stopOrder, [2, 1])
        same.riders.append(PartyRider(id: "d", dropOff: Coordinate(lon: 126.9800, lat: 37.5690)))
        same.seatsTaken += 1
        XCTAssertNil(try service.save(same).party.stopOrder)
    }

    func testPostgresRoundTrip() throws {
        let pg = try TemporaryPostgres()
        defer { pg.stop() }
        let url = try pg.createDatabase("stoporder")
        let service = try PartyService(storage: PostgresPartyStore(url: url), now: { Self.now })
        let saved = try service.save(ordered("pg")).party
        XCTAssertEqual(saved.stopOrder, [2, 1])
        let store = try PostgresPartyStore(url: url)
        let loaded = try store.load(departingAfter: 0)
        XCTAssertEqual(loaded.rejected, [])
        XCTAssertEqual(loaded.parties.first { $0.id == "pg" }, saved)
        XCTAssertEqual(loaded.parties.first { $0.id == "pg" }?.stopOrder, [2, 1])
        _ = try store.close(backup: false)
        _ = try service.close(backup: false)
    }
}

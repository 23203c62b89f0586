import Foundation
import Geo
@testable import Parties
@testable import PartyModel
@testable import PartyStores
import TestSupport
import XCTest

/// When a party can be settled and how long its settlement stays (issue 43 item 7), on both
/// stores: an unsettled party can be settled up to the settle window after its departure (past
/// its 30-minute listing), a settled one stays readable and replayable for the settled retention,
/// also after a restart, and its id is not taken over meanwhile; after that both are purged.
final class SettlementRetentionTests: XCTestCase {
    let start = Date().timeIntervalSince1970.rounded()
    let settlement = PartySettlement(key: "ride-1", record: .earlierAnswer(#"{"party_id":"p","fare":{"total_krw":9900}}"#))

    func party(_ id: String, departAt: Double) -> Party {
        Party(id: id, origin: Coordinate(lon: 126.978, lat: 37.5665), destination: Coordinate(lon: 127.02, lat: 37.50),
              departAt: departAt, seatsTotal: 4, riders: [PartyRider(id: "org", seats: 1), PartyRider(id: "kim", seats: 1)])
    }

    func check(_ open: (TestClock) throws -> PartyService) throws {
        let clock = TestClock(start)
        let departAt = start + 600
        var service = try open(clock)
        let p = try service.save(party("p", departAt: departAt)).party
        let q = try service.save(party("q", departAt: departAt)).party
        // A 2-hour ride: unlisted after 30 minutes, still settleable when it ends.
        clock.now = departAt + 2 * 3600
        XCTAssertNil(service.party(id: "p"), "no longer listed")
        XCTAssertEqual(try service.kept(id: "p"), p)
        guard case .settled(let settled) = try service.settle(partyID: "p", computedFrom: p, settlement: settlement) else {
            return XCTFail("a party 2 h after its departure is settled")
        }
        XCTAssertNil(service.party(id: "p"), "settling does not list it again")
        // Three days on, after a restart: readable, replayable, its id not taken over.
        _ = try service.close()
        clock.now = departAt + 3 * 86_400
        service = try open(clock)
        XCTAssertEqual(try service.kept(id: "p")?.settlement, settlement)
        XCTAssertEqual(try service.settle(partyID: "p", computedFrom: p, settlement: PartySettlement(key: "again", record: .earlierAnswer("{}"))), .alreadySettled(settled))
        XCTAssertThrowsError(try service.save(party("p", departAt: clock.now + 3600))) { XCTAssertEqual($0 as? PartyWriteError, .settled(id: "p")) }
        // The unsettled one is past its 12-hour settle window: gone.
        XCTAssertNil(try service.kept(id: "q"))
        XCTAssertThrowsError(try service.settle(partyID: "q", computedFrom: q, settlement: settlement)) {
            XCTAssertEqual($0 as? PartyWriteError, .notFound(id: "q"))
        }
        // Past the 7-day retention the settled one goes too, and its id is free again.
        clock.now = departAt + 7 * 86_400 + 1
        XCTAssertNil(try service.kept(id: "p"))
        XCTAssertEqual(try service.purgeExpired(), 1)
        XCTAssertEqual(try service.save(party("p", departAt: clock.now + 3600)).outcome, .created)
        _ = try service.close()
    }

    func testSQLiteStoreKeepsSettlementsForTheRetention() throws {
        let dir = TestPaths.temporaryDirectory("settle-retention").path
        try check { clock in try PartyService(stateDirectory: dir, now: { clock.now }) }
    }

    func testPostgresStoreKeepsSettlementsForTheRetention() throws {
        let url = try TemporaryPostgres.shared().createDatabase("settle_retention")
        try check { clock in try PartyService(storage: PostgresPartyStore(url: url), now: { clock.now }) }
    }
}

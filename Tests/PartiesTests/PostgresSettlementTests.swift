import Foundation
import Geo
@testable import Parties
@testable import PartyModel
@testable import PartyStores
import PostgresKit
import TestSupport
import XCTest

/// A party's settlement in the PostgreSQL store shared by replicas (issue 38): every replica
/// sees the party settled and refuses its joins, two replicas settling at once settle it once,
/// and a database of schema 1 gains the settlement columns.
final class PostgresSettlementTests: XCTestCase {
    let now = Date().timeIntervalSince1970

    func party(_ id: String) -> Party {
        Party(id: id, origin: Coordinate(lon: 126.978, lat: 37.5665), destination: Coordinate(lon: 127.02, lat: 37.50),
              departAt: now + 3600, seatsTotal: 4, riders: [PartyRider(id: "org", seats: 1)])
    }

    /// Waits (up to 10 s) until `condition` holds.
    func eventually(_ what: String, _ condition: () -> Bool) {
        let end = Date().addingTimeInterval(10)
        while !condition() && Date() < end { usleep(2000) }
        XCTAssertTrue(condition(), what)
    }

    func testSettlementOnOneReplicaClosesThePartyOnTheOthers() throws {
        let url = try TemporaryPostgres.shared().createDatabase("settle_replicas")
        let a = try PartyService(storage: PostgresPartyStore(url: url))
        defer { _ = try? a.close() }
        let b = try PartyService(storage: PostgresPartyStore(url: url))
        defer { _ = try? b.close() }
        let created = try a.save(party("p")).party
        eventually("b hears of the party") { b.party(id: "p") == created }
        let mark = PartySettlement(key: "k-b", record: .earlierAnswer(#"{"by":"b"}"#))
        guard case .settled(let settled) = try b.settle(partyID: "p", computedFrom: created, settlement: mark) else { return XCTFail("not settled") }
        // At once on a (its index may not have heard yet: the store's check catches it).
        XCTAssertEqual(try a.settle(partyID: "p", computedFrom: created, settlement: PartySettlement(key: "k-a", record: .earlierAnswer("{}"))),
                       .alreadySettled(settled))
        XCTAssertThrowsError(try a.join(partyID: "p", rider: PartyRider(id: "late"))) { XCTAssertEqual($0 as? PartyWriteError, .settled(id: "p")) }
        eventually("a shows the party settled") { a.party(id: "p")?.isSettled == true }
        XCTAssertEqual(try a.kept(id: "p")?.settlement, mark)
        // A replica started afterwards loads it settled.
        let c = try PartyService(storage: PostgresPartyStore(url: url))
        defer { _ = try? c.close() }
        XCTAssertEqual(try c.kept(id: "p")?.settlement, mark)
        XCTAssertNil(c.party(id: "p")?.settlement?.record, "the listing keeps the key, not the settlement")
        XCTAssertThrowsError(try c.join(partyID: "p", rider: PartyRider(id: "late"))) { XCTAssertEqual($0 as? PartyWriteError, .settled(id: "p")) }
    }

    /// Two replicas settle the same party at the same moment under different keys: one settles
    /// it, the other is told it was settled (with the winner's settlement), never both.
    func testRacingSettlementsOnTwoReplicasSettleOnce() throws {
        let url = try TemporaryPostgres.shared().createDatabase("settle_race")
        let a = try PartyService(storage: PostgresPartyStore(url: url))
        defer { _ = try? a.close() }
        let b = try PartyService(storage: PostgresPartyStore(url: url))
        defer { _ = try? b.close() }
        for round in 0..<10 {
            let created = try a.save(party("race\(round)")).party
            eventually("b hears of the party") { b.party(id: created.id) == created }
            let outcomes = Outcomes()
            let group = DispatchGroup()
            for (i, replica) in [a, b].enumerated() {
                group.enter()
                Thread {
                    outcomes.set(i, Result { try replica.settle(partyID: created.id, computedFrom: created,
                                                               settlement: PartySettlement(key: "k\(i)", record: .earlierAnswer("{\"by\":\(i)}"))) })
                    group.leave()
                }.start()
            }
            group.wait()
            let results = try (0..<2).map { try XCTUnwrap(outcomes.get($0)).get() }
            let winners = results.compactMap { if case .settled(let p) = $0 { p } else { nil } }
            XCTAssertEqual(winners.count, 1, "round \(round): \(results)")
            for r in results {
                if case .alreadySettled(let p) = r { XCTAssertEqual(p.settlement, winners.first?.settlement) }
            }
        }
    }

    /// A database whose schema is at version 1 (before settlements), with a party row as that
    /// build wrote it: opening it upgrades the schema to 2, the party loads unchanged (its
    /// checksum holds) and can be settled.
    func testSchema1DatabaseGainsTheSettlementColumns() throws {
        let pg = try TemporaryPostgres.shared()
        let url = try pg.createDatabase("settle_schema1")
        let name = String(url.split(separator: "/").last!)
        var old = party("old")
        old.version = 1
        var setup = ["CREATE TABLE taxipot_schema(version integer NOT NULL)", "INSERT INTO taxipot_schema VALUES (1)"]
        setup += PostgresPartyStore.migrations[0]
        let v = PostgresPartyStore.values(old).prefix(12).map { $0.map { "'\($0)'" } ?? "NULL" }
        setup.append("INSERT INTO parties(id, origin_lon, origin_lat, dest_lon, dest_lat, depart_at, seats_total, seats_taken, title, riders, version, row_sum) "
            + "VALUES (\(v.joined(separator: ", ")))")
        for sql in setup { try pg.psql(sql, database: name) }

        let store = try PostgresPartyStore(url: url)
        XCTAssertTrue(store.notes.contains { $0.contains("upgraded the party schema from version 1 to 2") }, "\(store.notes)")
        let service = try PartyService(storage: store)
        defer { _ = try? service.close() }
        XCTAssertTrue(service.rejectedOnLoad.isEmpty, "\(service.rejectedOnLoad)")
        let loaded = try XCTUnwrap(service.party(id: "old"))
        XCTAssertEqual(loaded, old)
        guard case .settled = try service.settle(partyID: "old", computedFrom: loaded, settlement: PartySettlement(key: "k", record: .earlierAnswer("{}"))) else {
            return XCTFail("not settled")
        }
        XCTAssertEqual(try pg.psql("SELECT settled_key FROM parties WHERE id = 'old'", database: name), ["k"])
        XCTAssertEqual(try pg.psql("SELECT version FROM taxipot_schema", database: name), ["2"])
    }
}

/// Answers of settlements made on several threads.
private final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Result<PartySettleOutcome, any Error>?] = [nil, nil]
    func set(_ i: Int, _ r: Result<PartySettleOutcome, any Error>) { lock.lock(); values[i] = r; lock.unlock() }
    func get(_ i: Int) -> Result<PartySettleOutcome, any Error>? { lock.lock(); defer { lock.unlock() }; return values[i] }
}

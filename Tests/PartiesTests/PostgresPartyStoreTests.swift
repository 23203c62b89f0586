import Foundation
import Parties
import PartyStores
import TestSupport
import XCTest

/// The PostgreSQL store without its server: at start (the replica comes up without parties and
/// loads them when the database answers) and during use (its health says so).
final class PostgresPartyStoreTests: XCTestCase {
    func testUnreachableDatabaseAtStartIsReportedWithoutThePassword() throws {
        let store = try PostgresPartyStore(url: "postgresql://app:s3cret@127.0.0.1:1/taxipot")
        XCTAssertTrue(store.notes.contains { $0.hasPrefix("postgresql://app:***@127.0.0.1:1/taxipot: the party database cannot be reached") }, "\(store.notes)")
        XCTAssertNotNil(store.health)
        XCTAssertThrowsError(try store.load(departingAfter: 0)) { error in
            guard let e = error as? PartyStoreUnavailableError else { return XCTFail("got \(error)") }
            XCTAssertFalse(e.message.contains("s3cret"), e.message)
        }
        XCTAssertFalse(store.notes.joined().contains("s3cret"))
        _ = try store.close(backup: false)
    }

    /// Waits up to 20 s for `condition`.
    func eventually(_ what: String, _ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(20)
        while !condition() && Date() < deadline { usleep(50_000) }
        XCTAssertTrue(condition(), what)
    }

    /// `body`, retried while it throws `PartyStoreUnavailableError` (for up to 10 s).
    func retrying<T>(_ body: () throws -> T) throws -> T {
        let deadline = Date().addingTimeInterval(10)
        while true {
            do { return try body() } catch is PartyStoreUnavailableError where Date() < deadline { usleep(100_000) }
        }
    }

    /// A replica started while its database is down comes up without parties, refuses party
    /// requests as unavailable (not as absent), reports the store degraded, and serves the
    /// parties once the database is back, without a restart; a replica that loses its database
    /// later reports it too.
    func testReplicaStartedDuringAnOutageServesThePartiesWhenTheDatabaseIsBack() throws {
        let pg = try TemporaryPostgres()
        defer { pg.stop() }
        let url = try pg.createDatabase("outage")
        let now = Date().timeIntervalSince1970
        let list = RandomParties.make(30, seed: 3240, now: now)
        let first = try PartyService(storage: PostgresPartyStore(url: url), now: { now })
        let stored = try list.map { try first.save($0).party }
        XCTAssertNil(first.storeProblem)
        try pg.pause()
        eventually("a running replica reports the lost database") { first.storeProblem != nil }

        let replica = try PartyService(storage: PostgresPartyStore(url: url), now: { now })
        XCTAssertNotNil(replica.storeProblem)
        XCTAssertThrowsError(try replica.requireLoaded()) { XCTAssertTrue($0 is PartyStoreUnavailableError, "\($0)") }
        var extra = list[0]
        extra.id = "during-outage"
        XCTAssertThrowsError(try replica.put(extra)) { XCTAssertTrue($0 is PartyStoreUnavailableError, "\($0)") }

        try pg.resume()
        eventually("the replica loads the parties once the database is back") { (try? replica.requireLoaded()) != nil }
        eventually("its store is ok again") { replica.storeProblem == nil && first.storeProblem == nil }
        XCTAssertEqual(replica.count, list.count)
        for p in stored { XCTAssertEqual(replica.party(id: p.id), p) }
        // It follows the others' writes, and writes itself.
        var changed = stored[1]
        changed.title = "after the outage"
        // The first write on a connection the outage cut answers unavailable (retry), as before.
        _ = try retrying { try first.save(changed) }
        eventually("the replica follows a write of the other") { replica.party(id: changed.id)?.title == "after the outage" }
        _ = try retrying { try replica.put(extra) }
        eventually("the other follows the replica's write") { first.party(id: extra.id) != nil }
        try replica.close()
        try first.close()
    }
}

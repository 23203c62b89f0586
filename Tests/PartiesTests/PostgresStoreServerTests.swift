import Foundation
import Geo
@testable import Parties
@testable import PartyModel
@testable import PartyStores
import PostgresKit
import TestSupport
import XCTest

/// The PostgreSQL store against a real PostgreSQL server (the tests' own, in a temporary
/// folder; one database per test): a group commit in which one write fails, and a
/// replica further behind than the change log keeps.
final class PostgresStoreServerTests: XCTestCase {
    /// A fresh database on the test process's PostgreSQL server.
    func database(_ name: String) throws -> (TemporaryPostgres, String) {
        let server = try TemporaryPostgres.shared()
        return (server, try server.createDatabase(name))
    }

    let now = Date().timeIntervalSince1970

    func party(_ id: String, _ i: Int, version: Int = 1) -> Party {
        Party(id: id, origin: Coordinate(lon: 126.97 + 0.001 * Double(i), lat: 37.56), destination: Coordinate(lon: 127.02, lat: 37.50),
              departAt: now + 3600, seatsTotal: 4, seatsTaken: 1, version: version)
    }

    /// Waits (up to 10 s) until `condition` holds.
    func eventually(_ what: String, _ condition: () -> Bool) {
        let end = Date().addingTimeInterval(10)
        while !condition() && Date() < end { usleep(2000) }
        XCTAssertTrue(condition(), what)
    }

    // MARK: Group commit

    /// Five writes wait together behind a commit in flight, so they commit as one group; one of
    /// them fails in SQL (a version beyond the column's integer range). The four others still
    /// commit and are acknowledged with their own consecutive change numbers, the failing one
    /// gets its own error, and the database and its change log hold exactly what was acknowledged.
    func testGroupCommitWithOneFailingWriteCommitsAndAcknowledgesTheOthers() throws {
        let (_, url) = try database("group_commit")
        let store = try PostgresPartyStore(url: url)
        defer { _ = try? store.close(backup: false) }

        // Hold the change counter from another connection: the first write waits in flight on it.
        let blocker = try PostgresConnection(conninfo: url)
        try blocker.query("BEGIN")
        try blocker.query("SELECT last FROM party_change_counter FOR UPDATE")
        let watcher = try PostgresConnection(conninfo: url)

        let ids = ["first", "g1", "g2", "bad", "g3", "g4"]
        let answers = Answers(count: ids.count)
        func start(_ i: Int) -> Thread {
            let p = party(ids[i], i, version: ids[i] == "bad" ? Int(Int32.max) + 1 : 1)
            let t = Thread {
                answers.set(i, Result { try store.write(PartyStoreWrite(.put(p), expected: .absent(expiredBefore: 0))) })
            }
            t.start()
            return t
        }
        var threads = [start(0)]
        eventually("the first write waits on the held counter") {
            let rows = try? watcher.query("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'WITH %'")
            return rows?[0, 0] == "1"
        }
        threads += (1..<ids.count).map(start)
        eventually("the five others wait behind it for one group commit") { store.waitingWrites == 5 }
        try blocker.query("COMMIT")
        for t in threads { while !t.isFinished { usleep(1000) } }

        var acknowledged: [String: Int64] = [:]
        for (i, id) in ids.enumerated() {
            switch answers.get(i) {
            case .success(.committed(let change))?: acknowledged[id] = change
            case .success(let other)?: XCTFail("\(id): answered \(other)")
            case .failure(let e)?:
                XCTAssertEqual(id, "bad", "\(id) failed: \(e)")
                XCTAssertTrue(e is PartyStoreError, "\(id): \(e)")
                XCTAssertTrue("\(e)".contains("out of range for type integer"), "\(id): \(e)")
            case nil: XCTFail("\(id): no answer")
            }
        }
        XCTAssertEqual(Set(acknowledged.keys), ["first", "g1", "g2", "g3", "g4"])
        XCTAssertEqual(acknowledged["first"], 1)
        XCTAssertEqual(Set(acknowledged.values), Set(1...5), "each acknowledged write has its own number, without gaps")

        // What was acknowledged is stored and logged under the number it was given; nothing else.
        let reader = try PostgresPartyStore(url: url)
        defer { _ = try? reader.close(backup: false) }
        let loaded = try reader.load(departingAfter: 0)
        XCTAssertEqual(Set(loaded.parties.map(\.id)), Set(acknowledged.keys))
        XCTAssertEqual(loaded.change, 5)
        guard case .changes(let log) = try reader.changes(after: 0) else { return XCTFail("the log starts at 1: no snapshot expected") }
        XCTAssertEqual(log.map(\.change), [1, 2, 3, 4, 5])
        for c in log { XCTAssertEqual(acknowledged[c.id], c.change, "change \(c.change) logs \(c.id)") }
    }

    // MARK: Lock order

    /// A write locks the change counter before the party's row, as every write does, so writes
    /// of several replicas never deadlock (a group commit holding the counter and waiting for a
    /// party row, while the write holding that row waits for the counter). Checked while a write
    /// of an existing party waits for the counter (held from another connection): its party's
    /// row is still free. (Before, the row was locked first: measured with two replicas writing
    /// the same 40 parties, 6 deadlocks in 8 s, each a write stalled 1 s, then failed or retried.)
    func testAWriteWaitingForTheCounterHoldsNoPartyRow() throws {
        let (_, url) = try database("lock_order")
        let store = try PostgresPartyStore(url: url)
        defer { _ = try? store.close(backup: false) }
        let old = party("p", 0)
        XCTAssertEqual(try store.write(PartyStoreWrite(.put(old), expected: .absent(expiredBefore: 0))), .committed(change: 1))
        let gone = party("q", 1)
        XCTAssertEqual(try store.write(PartyStoreWrite(.put(gone), expected: .absent(expiredBefore: 0))), .committed(change: 2))

        let blocker = try PostgresConnection(conninfo: url)
        let watcher = try PostgresConnection(conninfo: url)
        var new = old
        new.seatsTaken = 2
        new.version = 2
        let writes: [(String, PartyStoreWrite)] = [
            ("p", PartyStoreWrite(.put(new), expected: .present(old))),
            ("q", PartyStoreWrite(.delete(id: "q"), expected: .present(gone))),
        ]
        for (n, (id, write)) in writes.enumerated() {
            try blocker.query("BEGIN")
            try blocker.query("SELECT last FROM party_change_counter FOR UPDATE")
            let answers = Answers(count: 1)
            let t = Thread { answers.set(0, Result { try store.write(write) }) }
            t.start()
            eventually("the write of \(id) waits for the counter") {
                (try? watcher.query("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'WITH %'"))?[0, 0] == "1"
            }
            // The party's row is not held by the waiting write.
            try watcher.query("BEGIN")
            XCTAssertNoThrow(try watcher.query("SELECT id FROM parties WHERE id = $1 FOR UPDATE NOWAIT", [id]), "\(id)'s row is locked by a write still waiting for the counter")
            try watcher.query("ROLLBACK")
            try blocker.query("COMMIT")
            while !t.isFinished { usleep(1000) }
            XCTAssertEqual(try answers.get(0)?.get(), .committed(change: Int64(3 + n)), id)
        }
    }

    // MARK: Log cut-off

    /// A replica that stopped following (a long outage on its side) while another wrote more
    /// changes than the log keeps: its catch-up finds the log cut past its last change and
    /// reloads every party, so it ends with exactly what the database holds: parties created,
    /// replaced and deleted in the part of the log that was cut included.
    func testReplicaBehindTheCutLogReloadsEveryParty() throws {
        let (_, url) = try database("log_cut")
        let writer = try PartyService(storage: PostgresPartyStore(url: url, logKept: 5))
        defer { _ = try? writer.close() }
        for i in 0..<3 { try writer.put(party("old\(i)", i)) }

        let followerStore = HeldFollowing(try PostgresPartyStore(url: url))
        let follower = try PartyService(storage: followerStore)
        defer { _ = try? follower.close() }
        let joiningStore = HeldFollowing(try PostgresPartyStore(url: url))
        let joining = try PartyService(storage: joiningStore)
        defer { _ = try? joining.close() }
        XCTAssertEqual(follower.count, 3)
        XCTAssertEqual(follower.currentChange, 3)

        // 25 changes while neither follows, then the log is cut to its last 5.
        for i in 0..<20 { try writer.put(party("new\(i)", 10 + i)) }
        var moved = party("old0", 40)
        moved.seatsTaken = 2
        try writer.put(moved)
        XCTAssertTrue(try writer.delete(id: "old1"))
        _ = try writer.join(partyID: "old2", rider: PartyRider(id: "late", seats: 2))
        _ = try writer.join(partyID: "new0", rider: PartyRider(id: "early", seats: 1))
        try writer.put(party("last", 60))
        XCTAssertEqual(writer.currentChange, 28)
        _ = try writer.purgeExpired()
        let cut = try PostgresPartyStore(url: url)
        defer { _ = try? cut.close(backup: false) }
        guard case .snapshot(let s) = try cut.changes(after: 3) else { return XCTFail("a cursor before the cut log's start must get a snapshot") }
        XCTAssertEqual(s.change, 28)
        guard case .changes(let tail) = try cut.changes(after: 23) else { return XCTFail("the log keeps its last 5 changes") }
        XCTAssertEqual(tail.map(\.change), [24, 25, 26, 27, 28])

        func same(_ replica: PartyService) -> Bool {
            let want = Dictionary(uniqueKeysWithValues: (["old0", "old2", "last"] + (0..<20).map { "new\($0)" }).map { ($0, writer.party(id: $0)) })
            return replica.count == 23 && replica.party(id: "old1") == nil
                && want.allSatisfy { id, p in p != nil && replica.party(id: id) == p && replica.party(id: id)?.version == p?.version }
        }
        // The follower, once it follows again.
        XCTAssertFalse(same(follower))
        followerStore.resume()
        eventually("the follower reloads every party and ends at change 28") { follower.currentChange == 28 && same(follower) }
        // A write's catch-up: a join to a party this replica never heard of (created in the cut
        // part of the log) catches up first, so it finds the party instead of answering 404.
        let joined = try joining.join(partyID: "new5", rider: PartyRider(id: "r", seats: 1))
        XCTAssertEqual(joined.seatsTaken, 2)
        XCTAssertEqual(joining.currentChange, 29)
        eventually("both replicas hold the join") { writer.party(id: "new5")?.seatsTaken == 2 && follower.party(id: "new5")?.seatsTaken == 2 }
        XCTAssertEqual(joining.count, 23)
        XCTAssertNil(joining.party(id: "old1"))
        XCTAssertEqual(joining.party(id: "old2"), writer.party(id: "old2"))
    }
}

/// Answers of writes made on several threads.
private final class Answers: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Result<PartyStoreCommit, any Error>?]
    init(count: Int) { values = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ r: Result<PartyStoreCommit, any Error>) { lock.lock(); values[i] = r; lock.unlock() }
    func get(_ i: Int) -> Result<PartyStoreCommit, any Error>? { lock.lock(); defer { lock.unlock() }; return values[i] }
}

/// A store whose following starts only on `resume()`: a replica that stopped hearing the others.
private final class HeldFollowing: PartyStore, @unchecked Sendable {
    let inner: PostgresPartyStore
    private let lock = NSLock()
    private var held: (cursor: @Sendable () -> Int64, deliver: @Sendable (PartyChangeBatch) -> Void)?
    init(_ inner: PostgresPartyStore) { self.inner = inner }

    var location: String { inner.location }
    var notes: [String] { inner.notes }
    var isShared: Bool { inner.isShared }
    func load(departingAfter instant: Double) throws -> PartyStoreSnapshot { try inner.load(departingAfter: instant) }
    func write(_ write: PartyStoreWrite) throws -> PartyStoreCommit { try inner.write(write) }
    func purge(departingAtOrBefore instant: Double, settledDepartingAtOrBefore settled: Double) throws -> Int {
        try inner.purge(departingAtOrBefore: instant, settledDepartingAtOrBefore: settled)
    }
    func party(id: String) throws -> Party? { try inner.party(id: id) }
    func changes(after: Int64) throws -> PartyChangeBatch { try inner.changes(after: after) }
    func follow(cursor: @escaping @Sendable () -> Int64, deliver: @escaping @Sendable (PartyChangeBatch) -> Void) {
        lock.lock()
        held = (cursor, deliver)
        lock.unlock()
    }
    func resume() {
        lock.lock()
        let h = held
        lock.unlock()
        if let h { inner.follow(cursor: h.cursor, deliver: h.deliver) }
    }
    func close(backup: Bool) throws -> [String] { try inner.close(backup: backup) }
}

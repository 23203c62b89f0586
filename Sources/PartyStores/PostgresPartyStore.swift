import Foundation
import Geo
import PartyModel
import PostgresKit

/// Parties in a PostgreSQL database shared by several `taxipot serve` replicas
/// (`serve --party-store postgresql://…`).
///
/// - The schema is created and migrated when a store opens (`taxipot_schema` holds its
///   version; replicas opening at once take turns on an advisory lock).
/// - Every write is one statement: the check of the stored party (its version and values, or
///   its absence) and the write happen together, so racing writes on different replicas never
///   both apply; a write that returned is committed (PostgreSQL's own durability). Writes that
///   arrive while a commit is in flight are committed together in one transaction (each still
///   its own conditional statement), so they share one flush of the database's log.
/// - Each write also takes the next number of the change sequence (one counter row, locked
///   until commit, so numbers commit in order and without gaps), logs the party id under it
///   (`party_changes`) and sends a notification. Replicas `LISTEN` on their own connection and
///   read the log after the last number they applied, on each notification, every half second,
///   and after a lost connection returns. The log keeps the last `logKept` changes (cut
///   when expired parties are purged); a replica further behind reloads every party instead.
/// - A lost connection makes writes throw `PartyStoreUnavailableError` (retry later) until a
///   new one is made, which each write tries at most every `reconnectInterval` seconds.
public final class PostgresPartyStore: PartyStore, @unchecked Sendable {
    /// The notification channel of the change log.
    public static let channel = "taxipot_party_changes"
    /// The schema version this build creates and reads: 2 added the settlement columns.
    public static let schemaVersion = 2
    /// Changes the log keeps by default (a replica further behind reloads everything).
    public static let defaultLogKept: Int64 = 100_000
    /// Changes one read of the log returns at most.
    static let batchLimit = 10_000
    /// Least seconds between two connection attempts of the writer.
    static let reconnectInterval = 0.25

    public let location: String
    /// Changes the log keeps at least when cut: a replica further behind than that reloads
    /// every party instead of reading the log.
    public let logKept: Int64
    public private(set) var notes: [String] = []
    public var isShared: Bool { true }

    private let conninfo: String
    /// The writer's connection (nil while lost), guarded by `lock`.
    private var writer: PostgresConnection?
    private var lastAttempt = 0.0
    private var closed = false
    /// Whether the schema was created or migrated (false after an outage at start, until the
    /// first connection).
    private var migrated = false
    private let lock = NSLock()
    /// Guards `problem`.
    private let stateLock = NSLock()
    private var problem: String?
    /// Writes waiting for the group commit in flight (`commitTogether`), guarded by `queueLock`.
    private let queueLock = NSCondition()
    private var queue: [WriteSlot] = []
    private var committing = false
    /// The follower thread's state, guarded by `followLock`.
    private let followLock = NSCondition()
    private var following = false
    private var followerRunning = false
    private var followerThread: Thread?

    /// Connects to `url` (a libpq connection string: `postgresql://user@host:port/db` or
    /// `host=… dbname=…`) and creates or migrates the schema. Throws `PartyStoreError` naming
    /// the store (without its password) when it cannot. `logKept`: see the property (tests give a
    /// small one to put a replica behind the log's start without 100,000 writes).
    public init(url: String, logKept: Int64 = PostgresPartyStore.defaultLogKept) throws {
        conninfo = url
        self.logKept = max(1, logKept)
        location = PostgresConnection.redacted(url)
        // A server that does not answer fails a connection attempt within 2 s, not libpq's
        // default of waiting for ever (an explicit connect_timeout in the URL wins).
        setenv("PGCONNECT_TIMEOUT", "2", 0)
        let first: PostgresConnection
        do {
            first = try PostgresConnection(conninfo: url)
        } catch let e {
            // An outage at start: the replica comes up without its parties, and connects (and
            // creates or migrates the schema) when the database answers again.
            notes = ["\(location): the party database cannot be reached (\(e.message)); serving everything but the parties "
                + "(503 with Retry-After) until it answers, then loading them"]
            problem = e.message
            return
        }
        do {
            notes = try PostgresPartyStore.migrate(first, location: location)
            writer = first
            migrated = true
        } catch let e as PostgresError {
            first.close()
            throw PartyStoreError(message: "\(location): \(e.message)")
        }
    }

    /// Why the database cannot be reached now (nil: it answered at the last contact); the
    /// writer and the follower set and clear it.
    public var health: String? {
        stateLock.lock()
        defer { stateLock.unlock() }
        return problem
    }

    private func setProblem(_ reason: String?) {
        stateLock.lock()
        problem = reason
        stateLock.unlock()
    }

    // MARK: Schema

    /// The statements that bring a schema from version i to i + 1, by i.
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE parties(
                id text PRIMARY KEY,
                origin_lon double precision NOT NULL, origin_lat double precision NOT NULL,
                dest_lon double precision NOT NULL, dest_lat double precision NOT NULL,
                depart_at double precision NOT NULL,
                seats_total integer NOT NULL, seats_taken integer NOT NULL,
                title text, riders text, version integer NOT NULL, row_sum bigint NOT NULL)
            """,
            "CREATE INDEX parties_by_departure ON parties(depart_at)",
            "CREATE TABLE party_change_counter(last bigint NOT NULL)",
            "INSERT INTO party_change_counter VALUES (0)",
            "CREATE TABLE party_changes(change_id bigint PRIMARY KEY, party_id text NOT NULL)",
        ],
        // A settled party's idempotency key and answer (NULL while unsettled; rows keep their checksums).
        ["ALTER TABLE parties ADD COLUMN settled_key text, ADD COLUMN settlement text"],
    ]

    /// Creates or upgrades the schema in one transaction, under an advisory lock so replicas
    /// starting together do it once. Returns what it did, one line each.
    static func migrate(_ c: PostgresConnection, location: String) throws -> [String] {
        try c.query("BEGIN")
        do {
            try c.query("SELECT pg_advisory_xact_lock(7274876)")  // "taxipot" on a phone keypad, shortened
            try c.query("CREATE TABLE IF NOT EXISTS taxipot_schema(version integer NOT NULL)")
            let rows = try c.query("SELECT version FROM taxipot_schema")
            var version = rows.count > 0 ? Int(rows[0, 0] ?? "") ?? 0 : 0
            if rows.count == 0 { try c.query("INSERT INTO taxipot_schema VALUES (0)") }
            guard version <= schemaVersion else {
                throw PartyStoreError(message: "\(location): the party schema is at version \(version), newer than this taxipot's \(schemaVersion): run a newer taxipot")
            }
            var notes: [String] = []
            let from = version
            while version < schemaVersion {
                for sql in migrations[version] { try c.query(sql) }
                version += 1
            }
            if version != from {
                try c.query("UPDATE taxipot_schema SET version = $1", [String(version)])
                notes.append(from == 0 ? "\(location): created the party schema (version \(version))"
                                       : "\(location): upgraded the party schema from version \(from) to \(version)")
            }
            try c.query("COMMIT")
            return notes
        } catch {
            if c.isOpen { _ = try? c.query("ROLLBACK") }
            throw error
        }
    }

    // MARK: Rows

    static let columns = "id, origin_lon, origin_lat, dest_lon, dest_lat, depart_at, seats_total, seats_taken, title, riders, version, row_sum, "
        + "settled_key, settlement"

    /// The values of `p` for the fourteen columns above, in order.
    static func values(_ p: Party) -> [String?] {
        [p.id, "\(p.origin.lon)", "\(p.origin.lat)", "\(p.destination.lon)", "\(p.destination.lat)", "\(p.departAt)",
         String(p.seatsTotal), String(p.seatsTaken), p.title, SQLitePartyDatabase.riderColumn(p),
         String(p.version), String(SQLitePartyDatabase.rowSum(p)), p.settlement?.key, p.settlement.map(SettlementColumn.text)]
    }

    /// The party in `row` from column `at` on (the fourteen columns), or why it is refused.
    func party(_ row: [String?], at i: Int) -> Result<Party, PartyStoreError> {
        let id = row[i] ?? ""
        let shown = Escaped.excerpt(id, limit: 80)
        func number(_ k: Int) -> Double? { row[i + k].flatMap { Double($0) } }
        guard let olon = number(1), let olat = number(2), let dlon = number(3), let dlat = number(4), let at = number(5),
              let total = row[i + 6].flatMap({ Int($0) }), let taken = row[i + 7].flatMap({ Int($0) }),
              let version = row[i + 10].flatMap({ Int($0) }), let sum = row[i + 11].flatMap({ Int64($0) })
        else { return .failure(PartyStoreError(message: "\(location): party '\(shown)' refused: a value is missing or not a number")) }
        var p = Party(id: id, origin: Coordinate(lon: olon, lat: olat), destination: Coordinate(lon: dlon, lat: dlat), departAt: at,
                      seatsTotal: total, seatsTaken: taken, title: row[i + 8], version: version)
        if let text = row[i + 9] {
            guard SQLitePartyDatabase.read(riderColumn: text, into: &p) else {
                return .failure(PartyStoreError(message: "\(location): party '\(shown)' refused: its riders column is not a rider list this store wrote"))
            }
        }
        switch (row[i + 12], row[i + 13]) {
        case (nil, nil): break
        case let (key?, text?):
            guard let settled = SettlementColumn.settlement(key: key, text: text) else {
                return .failure(PartyStoreError(message: "\(location): party '\(shown)' refused: its settlement is not one this store wrote"))
            }
            p.settlement = settled
        default: return .failure(PartyStoreError(message: "\(location): party '\(shown)' refused: it has a settlement key without an answer, or an answer without a key"))
        }
        guard sum == SQLitePartyDatabase.rowSum(p) else {
            return .failure(PartyStoreError(message: "\(location): party '\(shown)' refused: its row does not match its checksum (edited outside taxipot)"))
        }
        do throws(PartyValidationError) {
            guard p.version >= 1 else { throw PartyValidationError(field: "version", message: "must be at least 1, got \(p.version)") }
            try p.validate()
        } catch {
            return .failure(PartyStoreError(message: "\(location): party '\(shown)' refused: \(error.description)"))
        }
        return .success(p)
    }

    // MARK: PartyStore

    public func load(departingAfter instant: Double) throws -> PartyStoreSnapshot {
        try withWriter { c in try snapshot(c, departingAfter: instant) }
    }

    /// Every party departing after `instant` and the change number they are current with, read
    /// in one repeatable-read transaction.
    private func snapshot(_ c: PostgresConnection, departingAfter instant: Double) throws -> PartyStoreSnapshot {
        try c.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do {
            let last = try c.query("SELECT last FROM party_change_counter")
            let rows = try c.query("SELECT \(PostgresPartyStore.columns) FROM parties WHERE depart_at > $1", ["\(instant)"])
            try c.query("COMMIT")
            var parties: [Party] = []
            var rejected: [String] = []
            for row in rows.rows {
                switch party(row, at: 0) {
                case .success(let p): parties.append(p)
                case .failure(let e): rejected.append(e.message)
                }
            }
            return PartyStoreSnapshot(parties: parties, rejected: rejected, change: last.count > 0 ? Int64(last[0, 0] ?? "") ?? 0 : 0)
        } catch {
            if c.isOpen { _ = try? c.query("ROLLBACK") }
            throw error
        }
    }

    /// The head of every write: the change counter's row, locked before the party's row. Every
    /// write takes its locks in that order (the counter, then the party), so writes of several
    /// replicas never wait for each other in a cycle. With the party's row first, a group commit
    /// holding the counter and waiting for a party row that another replica's write had locked
    /// while that write waited for the counter was a deadlock, which PostgreSQL broke after a
    /// second by failing one side. `w` reads from `k`, so the counter is locked before `w` runs.
    private static let counterFirst = "WITH k AS MATERIALIZED (SELECT last FROM party_change_counter FOR UPDATE),"

    /// The tail of every write: the next change number (the counter row stays locked until
    /// commit) when the write applied, its log entry, and the notification. `$1` is the party id.
    private static let logTail = """
        , c AS (UPDATE party_change_counter SET last = last + 1 WHERE EXISTS (SELECT 1 FROM w) RETURNING last),
        l AS (INSERT INTO party_changes(change_id, party_id) SELECT last, $1 FROM c RETURNING change_id)
        SELECT change_id, pg_notify('\(channel)', change_id::text) FROM l
        """

    private static let assignments = "origin_lon=$2, origin_lat=$3, dest_lon=$4, dest_lat=$5, depart_at=$6, seats_total=$7, seats_taken=$8, title=$9, riders=$10, version=$11, row_sum=$12, settled_key=$13, settlement=$14"

    private static let insertSQL = """
        \(counterFirst) w AS (INSERT INTO parties(\(columns))
            SELECT $1::text, $2::double precision, $3::double precision, $4::double precision, $5::double precision,
                $6::double precision, $7::integer, $8::integer, $9::text, $10::text, $11::integer, $12::bigint, $13::text, $14::text FROM k
            ON CONFLICT (id) DO UPDATE SET \(assignments) WHERE parties.depart_at <= $15::double precision AND parties.settled_key IS NULL RETURNING parties.id)
        """ + logTail
    private static let updateSQL = """
        \(counterFirst) w AS (UPDATE parties SET \(assignments) FROM k
            WHERE parties.id = $1 AND parties.version = $15 AND parties.row_sum = $16 RETURNING parties.id)
        """ + logTail
    private static let deleteSQL = """
        \(counterFirst) w AS (DELETE FROM parties USING k
            WHERE parties.id = $1 AND parties.version = $2 AND parties.row_sum = $3 RETURNING parties.id)
        """ + logTail

    public func write(_ write: PartyStoreWrite) throws -> PartyStoreCommit {
        let sql: String
        var parameters: [String?]
        switch (write.action, write.expected) {
        case let (.put(p), .absent(expiredBefore)):
            sql = PostgresPartyStore.insertSQL
            parameters = PostgresPartyStore.values(p) + ["\(expiredBefore)"]
        case let (.put(p), .present(old)):
            sql = PostgresPartyStore.updateSQL
            parameters = PostgresPartyStore.values(p) + [String(old.version), String(SQLitePartyDatabase.rowSum(old))]
        case let (.delete(id), .present(old)):
            sql = PostgresPartyStore.deleteSQL
            parameters = [id, String(old.version), String(SQLitePartyDatabase.rowSum(old))]
        case (.delete, .absent):
            return .committed(change: 0)  // nothing live to delete: nothing to write
        }
        return try commitTogether(WriteSlot(sql: sql, parameters: parameters))
    }

    /// Writes waiting for the commit in flight to end (for tests that line up a group commit).
    var waitingWrites: Int {
        queueLock.lock()
        defer { queueLock.unlock() }
        return committing ? queue.count : 0
    }

    /// One write waiting for a commit, and its answer once committed or refused.
    private final class WriteSlot: @unchecked Sendable {
        let sql: String
        let parameters: [String?]
        var answer: Result<PartyStoreCommit, any Error>?
        init(sql: String, parameters: [String?]) {
            self.sql = sql
            self.parameters = parameters
        }
    }

    /// Group commit: writes that arrive while a commit is in flight wait, then the first of them
    /// commits all of them in one transaction (one flush of the database's log for all), each
    /// still its own conditional statement with its own answer. Returns `slot`'s answer.
    private func commitTogether(_ slot: WriteSlot) throws -> PartyStoreCommit {
        queueLock.lock()
        queue.append(slot)
        while slot.answer == nil {
            if committing {
                queueLock.wait()
                continue
            }
            committing = true
            let batch = queue
            queue.removeAll()
            queueLock.unlock()
            let answers = runBatch(batch)
            queueLock.lock()
            for (s, a) in zip(batch, answers) { s.answer = a }
            committing = false
            queueLock.broadcast()
        }
        queueLock.unlock()
        return try slot.answer!.get()
    }

    /// Runs `batch` in one transaction (a single write on its own); on an error that is not a
    /// lost connection, runs each write alone so one bad write fails only itself.
    private func runBatch(_ batch: [WriteSlot]) -> [Result<PartyStoreCommit, any Error>] {
        func run(_ c: PostgresConnection, _ w: WriteSlot) throws -> PartyStoreCommit {
            let rows = try c.query(w.sql, w.parameters)
            guard rows.count == 1, let change = rows[0, 0].flatMap({ Int64($0) }) else { return .conflict }
            return .committed(change: change)
        }
        if batch.count == 1 {
            return [Result { try withWriter { c in try run(c, batch[0]) } }]
        }
        do {
            return try withWriter { c in
                try c.query("BEGIN")
                do {
                    let answers = try batch.map { try run(c, $0) }
                    try c.query("COMMIT")
                    return answers.map { .success($0) }
                } catch {
                    if c.isOpen { _ = try? c.query("ROLLBACK") }
                    throw error
                }
            }
        } catch let e as PartyStoreUnavailableError {
            return batch.map { _ in .failure(e) }
        } catch {
            return batch.map { w in Result { try withWriter { c in try run(c, w) } } }
        }
    }

    public func party(id: String) throws -> Party? {
        try withWriter { c in
            let rows = try c.query("SELECT \(PostgresPartyStore.columns) FROM parties WHERE id = $1", [id])
            guard rows.count > 0 else { return nil }
            return try party(rows.rows[0], at: 0).get()
        }
    }

    public func purge(departingAtOrBefore instant: Double, settledDepartingAtOrBefore settledInstant: Double) throws -> Int {
        try withWriter { c in
            let n = try c.query("DELETE FROM parties WHERE depart_at <= $1 AND (settled_key IS NULL OR depart_at <= $2)",
                                ["\(instant)", "\(min(instant, settledInstant))"]).affected
            try c.query("DELETE FROM party_changes WHERE change_id <= (SELECT last FROM party_change_counter) - $1",
                        [String(logKept)])
            return n
        }
    }

    public func changes(after: Int64) throws -> PartyChangeBatch {
        try withWriter { c in try readChanges(c, after: after) }
    }

    /// The log after `after` with each party as it is now, read in one statement (one
    /// snapshot); a snapshot of every party when the log no longer reaches back to `after + 1`.
    private func readChanges(_ c: PostgresConnection, after: Int64) throws -> PartyChangeBatch {
        let rows = try c.query("""
            SELECT l.change_id, l.party_id, \(PostgresPartyStore.columns.split(separator: ",").map { "p." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", "))
            FROM party_changes l LEFT JOIN parties p ON p.id = l.party_id
            WHERE l.change_id > $1 ORDER BY l.change_id LIMIT \(PostgresPartyStore.batchLimit)
            """, [String(after)])
        var out: [PartyChange] = []
        out.reserveCapacity(rows.count)
        for row in rows.rows {
            guard let change = row[0].flatMap({ Int64($0) }), let id = row[1] else { continue }
            if out.isEmpty && change != after + 1 {
                // The log was cut past `after`: start again from every live party.
                return .snapshot(try snapshot(c, departingAfter: -Double.infinity))
            }
            // A row refused on reading (edited by hand) leaves the index like a deleted one.
            let p: Party? = row[2] == nil ? nil : (try? party(row, at: 2).get())
            out.append(PartyChange(change: change, id: id, party: p))
        }
        return .changes(out)
    }

    /// Runs `body` on the writer's connection, reconnecting first when it was lost (at most
    /// every `reconnectInterval` seconds). A lost connection throws
    /// `PartyStoreUnavailableError`; other failures `PartyStoreError`.
    private func withWriter<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { throw PartyStoreError(message: "\(location): the party store is closed") }
        if writer == nil || !(writer?.isOpen ?? false) {
            writer?.close()
            writer = nil
            let t = Date().timeIntervalSince1970
            guard t - lastAttempt >= PostgresPartyStore.reconnectInterval else {
                throw PartyStoreUnavailableError(message: "\(location): no connection to the party database (reconnecting)")
            }
            lastAttempt = t
            do {
                writer = try PostgresConnection(conninfo: conninfo)
            } catch {
                setProblem(error.message)
                throw PartyStoreUnavailableError(message: "\(location): \(error.message)")
            }
            if !migrated {
                do {
                    notes += try PostgresPartyStore.migrate(writer!, location: location)
                    migrated = true
                } catch let e as PostgresError {
                    writer?.close()
                    writer = nil
                    throw PartyStoreError(message: "\(location): \(e.message)")
                }
            }
        }
        do {
            let answer = try body(writer!)
            setProblem(nil)
            return answer
        } catch let e as PostgresError {
            if e.connectionLost || !(writer?.isOpen ?? false) {
                writer?.close()
                writer = nil
                setProblem("lost the connection: \(e.message)")
                throw PartyStoreUnavailableError(message: "\(location): lost the connection to the party database: \(e.message)")
            }
            throw PartyStoreError(message: "\(location): \(e.message)")
        }
    }

    // MARK: Following the others

    public func follow(cursor: @escaping @Sendable () -> Int64, deliver: @escaping @Sendable (PartyChangeBatch) -> Void) {
        followLock.lock()
        defer { followLock.unlock() }
        guard !following else { return }
        following = true
        followerRunning = true
        let thread = Thread { [self] in
            runFollower(cursor: cursor, deliver: deliver)
            followLock.lock()
            followerRunning = false
            followLock.broadcast()
            followLock.unlock()
        }
        thread.name = "party-store-follower"
        followerThread = thread
        thread.start()
    }

    private var shouldFollow: Bool {
        followLock.lock()
        defer { followLock.unlock() }
        return following
    }

    /// The follower's loop: connect and LISTEN, read the log after the cursor, wait for a
    /// notification (or half a second), again; on a lost connection wait and connect again.
    private func runFollower(cursor: @Sendable () -> Int64, deliver: @Sendable (PartyChangeBatch) -> Void) {
        var listener: PostgresConnection?
        var pause = 0.05
        while shouldFollow {
            do {
                if listener == nil {
                    let c = try PostgresConnection(conninfo: conninfo)
                    try c.query("LISTEN \(PostgresPartyStore.channel)")
                    listener = c
                    pause = 0.05
                }
                guard let c = listener else { continue }
                // Read until the log is drained (a batch shorter than the limit).
                while true {
                    let batch = try readChanges(c, after: cursor())
                    deliver(batch)
                    setProblem(nil)
                    if case .changes(let list) = batch, list.count >= PostgresPartyStore.batchLimit { continue }
                    break
                }
                // Notifications that came in during the read are already in libpq's queue (the
                // server sends them at the end of a statement): waiting on the socket alone would
                // leave their changes unread until the next notification or the half second.
                _ = try c.awaitNotifications(milliseconds: 500)
            } catch {
                setProblem(listener == nil ? "\(error)" : "lost the connection: \(error)")
                listener?.close()
                listener = nil
                Thread.sleep(forTimeInterval: pause)
                pause = min(1, pause * 2)
            }
        }
        listener?.close()
    }

    public func close(backup: Bool) throws -> [String] {
        followLock.lock()
        following = false
        // Closed from the follower itself (its service went away during a delivery): it ends
        // after this call instead of being waited for.
        while followerRunning && Thread.current !== followerThread { followLock.wait() }
        followLock.unlock()
        lock.lock()
        defer { lock.unlock() }
        closed = true
        writer?.close()
        writer = nil
        return []
    }
}

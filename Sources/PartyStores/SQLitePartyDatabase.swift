import Foundation
import Geo
import PartyModel
import SQLiteKit

/// The durable home of parties: one SQLite file (`parties.db`) in the state directory.
///
/// Opened in WAL mode with `synchronous=FULL`, so a write that returned has reached the disk
/// and survives `kill -9` and power loss. Expired parties (departure plus the grace period)
/// are not loaded and are purged with `purge(expiringBefore:)`.
///
/// A damaged store is never served: opening checks the file (`StoreCheck`: its header, SQLite's
/// `PRAGMA quick_check`, the schema) and refuses a damaged one with a `PartyStoreError` that
/// names the file and says how to recover (`taxipot parties recover`). Every row carries a
/// checksum of its values, so a row whose bytes changed on disk is refused at load (and
/// reported) instead of being served with wrong values. A missing store is created only in a
/// new state folder (no backup, log or journal of an earlier store next to it). Once SQLite
/// reports the file damaged during use, every later write is refused. `close()` checkpoints
/// the write-ahead log away and saves a backup copy (`parties.db.bak`) for recovery.
///
/// One connection, not thread-safe: `PartyService` serialises access.
public final class SQLitePartyDatabase {
    /// The file name inside the state directory.
    public static let fileName = "parties.db"
    /// The backup copy saved at each clean close, next to the store.
    public static let backupSuffix = ".bak"
    /// `PRAGMA user_version` of a store of today's schema: 1 added the row checksum, 2 the
    /// riders and version columns, 3 the settlement columns (their text: `SettlementColumn`).
    static let schemaVersion = 3
    /// The database file.
    public let path: String
    /// The backup copy's path (`parties.db.bak`).
    public var backupPath: String { path + SQLitePartyDatabase.backupSuffix }
    /// What opening did that the operator should hear of (a new store created, a store
    /// upgraded); one line each, naming the file.
    public private(set) var notes: [String] = []
    let db: SQLiteDatabase
    private let upsertStatement: SQLiteStatement
    private let deleteStatement: SQLiteStatement
    private let purgeStatement: SQLiteStatement
    private let lookupStatement: SQLiteStatement
    private let countStatement: SQLiteStatement
    /// The store's count of committed write transactions (`store_meta`'s `commits`).
    private var commits: Int64
    /// The owner's lock and commit record (nil for a plain open of a file: see `init(path:)`).
    private let lock: StoreLock?
    private let record: CommitRecord?
    /// The store file and its log as opened, to notice them moved or replaced (`fileProblem`).
    private let identity: FileIdentity?
    private let logIdentity: FileIdentity?
    /// Set when SQLite reported the file damaged during use: later writes are refused.
    private var damage: String?
    /// The ids of the rows the last `load` refused (damaged or invalid). While there are any,
    /// `close` keeps the backup copy as it is: it may hold their only good copies, which
    /// `taxipot parties recover` restores.
    public private(set) var refusedAtLoad: [String] = []
    private var closed = false

    /// Opens (creating it in a new folder) `parties.db` in `stateDirectory`, creating the
    /// directory too, as its owner: takes the store's lock (`StoreLock`: refused while another
    /// process holds the store) and checks and keeps its commit record (`CommitRecord`: a store
    /// that lost acknowledged transactions is refused, unless `acceptingLostCommits`, which
    /// `taxipot parties recover` uses and which says so in `notes`).
    public convenience init(stateDirectory: String, acceptingLostCommits: Bool = false) throws {
        do {
            try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
        } catch {
            throw PartyStoreError(message: "cannot create the state directory \(stateDirectory): \(error.localizedDescription)")
        }
        try self.init(path: (stateDirectory as NSString).appendingPathComponent(SQLitePartyDatabase.fileName), owner: true,
                      acceptingLostCommits: acceptingLostCommits)
    }

    /// Opens the store file at `path` after checking it (see the type's documentation); creates
    /// it when absent and nothing of an earlier store lies next to it. A plain open (copies,
    /// tests): no lock, no commit record.
    public convenience init(path: String) throws {
        try self.init(path: path, owner: false, acceptingLostCommits: false)
    }

    /// Opens the store at `path`; `owner`: as `init(stateDirectory:)` does.
    init(path: String, owner: Bool, acceptingLostCommits: Bool) throws {
        self.path = path
        lock = owner ? try StoreLock(storePath: path) : nil
        var notes: [String] = []
        do {
            switch try StoreCheck.inspectFiles(path) {
            case .absent:
                try SQLitePartyDatabase.create(at: path)
                notes.append("\(path): new state folder (no store, backup or log here): created an empty party store")
            case .present:
                break
            }
            db = try SQLiteDatabase(path: path)
            try StoreCheck.checkContent(db, path: path)
            let version = Int(try db.scalarText("PRAGMA user_version")) ?? 0
            let mode = try db.scalarText("PRAGMA journal_mode=WAL")
            guard mode.lowercased() == "wal" else {
                throw PartyStoreError(message: "\(path): cannot switch to WAL journaling (got '\(mode)')")
            }
            try db.execute("""
                PRAGMA synchronous=FULL;
                PRAGMA mmap_size=1073741824;
                PRAGMA cache_size=-65536;
                """)
            if version < 1 {
                let n = try SQLitePartyDatabase.upgrade(db)
                notes.append("\(path): upgraded the party store: added a checksum to each of its \(n) rows")
            }
            if version < 2 {
                try SQLitePartyDatabase.addRiderColumns(db)
                notes.append("\(path): upgraded the party store: added the riders and version columns (rows as they were: no rider list, version 1)")
            }
            if version < 3 {
                try SQLitePartyDatabase.addSettlementColumns(db)
                notes.append("\(path): upgraded the party store: added the settlement columns (rows as they were: not settled)")
            }
            if try db.scalarText("SELECT count(*) FROM sqlite_schema WHERE name = 'store_meta'") != "1" {
                try SQLitePartyDatabase.addCommitCounter(db)
            }
            commits = Int64(try db.scalarText("SELECT value FROM store_meta WHERE name = 'commits'")) ?? 0
            if owner {
                if let recorded = CommitRecord.read(storePath: path), recorded > commits {
                    let problem = "its commit record \(path)\(CommitRecord.suffix) counts \(recorded) acknowledged write transactions, but the store "
                        + "holds \(commits): the last \(recorded - commits) were lost with its log (deleted, cut or replaced after a crash, "
                        + "also when another program such as the sqlite3 tool opened the store in between and removed the evidence)"
                    guard acceptingLostCommits else { throw StoreCheck.lostLog(path, problem) }
                    notes.append("\(path): \(problem); accepting the loss")
                }
                let record = try CommitRecord(storePath: path)
                record.write(commits)
                self.record = record
            } else {
                record = nil
            }
            upsertStatement = try db.prepare("""
                INSERT INTO parties(id, origin_lon, origin_lat, dest_lon, dest_lat, depart_at, seats_total, seats_taken, title, row_sum, riders, version,
                    settled_key, settlement)
                VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
                ON CONFLICT(id) DO UPDATE SET origin_lon=?2, origin_lat=?3, dest_lon=?4, dest_lat=?5,
                    depart_at=?6, seats_total=?7, seats_taken=?8, title=?9, row_sum=?10, riders=?11, version=?12,
                    settled_key=?13, settlement=?14
                """)
            deleteStatement = try db.prepare("DELETE FROM parties WHERE id = ?1")
            purgeStatement = try db.prepare("DELETE FROM parties WHERE depart_at <= ?1 AND (settled_key IS NULL OR depart_at <= ?2)")
            lookupStatement = try db.prepare("SELECT \(SQLitePartyDatabase.selectColumns) FROM parties WHERE id = ?1")
            countStatement = try db.prepare("UPDATE store_meta SET value = value + 1 WHERE name = 'commits'")
        } catch let e as SQLiteError {
            // Damage, or a schema SQLite cannot use (SQLITE_ERROR) in a file that passed its checks.
            throw e.isDamage || e.code == 1 ? StoreCheck.damaged(path, e.message) : PartyStoreError(message: e.message)
        }
        self.notes = notes
        identity = FileIdentity(path: path)
        logIdentity = FileIdentity(path: path + "-wal")
    }

    /// The SELECT list `party(_:)` and `verified(_:)` read: a party's values, `row_sum` and
    /// the settlement columns.
    static let selectColumns = "id, origin_lon, origin_lat, dest_lon, dest_lat, depart_at, seats_total, seats_taken, title, riders, version, row_sum, "
        + "settled_key, settlement"

    /// Adds the commit counter (`store_meta`, see `CommitRecord`) to a store without one; it
    /// counts from 0. Needs no schema version: a store without the table simply gets it.
    static func addCommitCounter(_ db: SQLiteDatabase) throws {
        try db.transaction {
            try db.execute("""
                CREATE TABLE IF NOT EXISTS store_meta(name TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL) WITHOUT ROWID;
                INSERT OR IGNORE INTO store_meta VALUES('commits', 0);
                """)
        }
    }

    /// Why the files at the store's path are no longer the ones this store opened (the file or
    /// its log moved away, deleted or replaced while open: writes would land in files no longer
    /// at that path, which the next start does not see), or nil. Reads only what `init` set,
    /// so any thread may ask.
    public func fileProblem() -> String? {
        guard let identity else { return nil }
        let advice = "refusing writes; stop the service, put the store's files back (or point --state-dir at them) and start again"
        guard let current = FileIdentity(path: path) else {
            return "\(path) is gone: the store file was moved or deleted while this process had it open; \(advice)"
        }
        guard current == identity else { return "\(path) is no longer the file this process opened (replaced while open); \(advice)" }
        if let logIdentity, FileIdentity(path: path + "-wal") != logIdentity {
            return "\(path)-wal, the store's log, was moved, deleted or replaced while this process had it open; \(advice)"
        }
        return nil
    }

    static let columns = """
        id TEXT PRIMARY KEY NOT NULL,
        origin_lon REAL NOT NULL, origin_lat REAL NOT NULL,
        dest_lon REAL NOT NULL, dest_lat REAL NOT NULL,
        depart_at REAL NOT NULL,
        seats_total INTEGER NOT NULL, seats_taken INTEGER NOT NULL,
        title TEXT
        """

    /// Creates an empty store at `path` whole: built under a temporary name, then renamed,
    /// so a `parties.db` that exists always has its schema (an empty file is never ours).
    static func create(at path: String) throws {
        let temporary = path + ".new-\(getpid())"
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) }
        do {
            let db = try SQLiteDatabase(path: temporary)
            _ = try db.scalarText("PRAGMA journal_mode=WAL")
            try db.execute("""
                PRAGMA synchronous=FULL;
                CREATE TABLE parties(\(columns), row_sum INTEGER, \(riderColumns), \(settlementColumns)) WITHOUT ROWID;
                CREATE INDEX parties_by_departure ON parties(depart_at);
                PRAGMA user_version=\(schemaVersion);
                """)
            try addCommitCounter(db)
            try db.close()
        } catch {
            throw PartyStoreError(message: "\(path): cannot create the party store: \(error)")
        }
        guard rename(temporary, path) == 0 else {
            throw PartyStoreError(message: "\(path): cannot create the party store: \(String(cString: strerror(errno)))")
        }
        StoreCheck.syncDirectory(of: path)
    }

    /// The columns schema version 2 added: the rider list (NULL: none, the implied organiser)
    /// and the version (1 for rows written before).
    static let riderColumns = "riders TEXT, version INTEGER NOT NULL DEFAULT 1"

    /// Adds the riders and version columns to a store of schema version 1 (after `upgrade`
    /// for one of version 0). Rows keep their checksums: a row without riders at version 1 sums
    /// as it did (see `rowSum`).
    static func addRiderColumns(_ db: SQLiteDatabase) throws {
        try db.transaction {
            let present = try db.scalarText("SELECT group_concat(name) FROM pragma_table_info('parties')").split(separator: ",")
            if !present.contains("riders") { try db.execute("ALTER TABLE parties ADD COLUMN riders TEXT") }
            if !present.contains("version") { try db.execute("ALTER TABLE parties ADD COLUMN version INTEGER NOT NULL DEFAULT 1") }
            try db.execute("PRAGMA user_version=2")
        }
    }

    /// The columns schema version 3 added: a settled party's idempotency key and answer (both
    /// NULL while unsettled).
    static let settlementColumns = "settled_key TEXT, settlement TEXT"

    /// Adds the settlement columns to a store of schema version 2 (after `addRiderColumns` for
    /// an older one). Rows keep their checksums: an unsettled party sums as it did (see `rowSum`).
    static func addSettlementColumns(_ db: SQLiteDatabase) throws {
        try db.transaction {
            let present = try db.scalarText("SELECT group_concat(name) FROM pragma_table_info('parties')").split(separator: ",")
            if !present.contains("settled_key") { try db.execute("ALTER TABLE parties ADD COLUMN settled_key TEXT") }
            if !present.contains("settlement") { try db.execute("ALTER TABLE parties ADD COLUMN settlement TEXT") }
            try db.execute("PRAGMA user_version=3")
        }
    }

    /// The SELECT list of a party row as `party(_:)` reads it, then `row_sum` (NULL when the
    /// store has none) and the settlement columns, for a store with the columns `present`.
    static func rowColumns(_ db: SQLiteDatabase) throws -> String {
        let present = Set(try db.scalarText("SELECT group_concat(name) FROM pragma_table_info('parties')").split(separator: ",").map(String.init))
        return "id, origin_lon, origin_lat, dest_lon, dest_lat, depart_at, seats_total, seats_taken, title, "
            + (present.contains("riders") ? "riders" : "NULL") + ", " + (present.contains("version") ? "version" : "1") + ", "
            + (present.contains("row_sum") ? "row_sum" : "NULL") + ", "
            + (present.contains("settlement") ? "settled_key, settlement" : "NULL, NULL")
    }

    /// Brings a store of version 0 to version 1: adds the row checksum column and fills it
    /// for every row as stored. Returns the rows summed.
    private static func upgrade(_ db: SQLiteDatabase) throws -> Int {
        try db.transaction {
            let hasSum = try db.scalarText("SELECT count(*) FROM pragma_table_info('parties') WHERE name = 'row_sum'") == "1"
            if !hasSum { try db.execute("ALTER TABLE parties ADD COLUMN row_sum INTEGER") }
            let read = try db.prepare("""
                SELECT id, origin_lon, origin_lat, dest_lon, dest_lat, depart_at, seats_total, seats_taken, title, NULL, 1, NULL, NULL, NULL FROM parties
                """)
            var rows: [Party] = []
            while try read.step() { if let p = party(read) { rows.append(p) } }  // no rider list: always read
            read.finalize()
            let update = try db.prepare("UPDATE parties SET row_sum = ?2 WHERE id = ?1")
            for p in rows {
                update.bind(1, p.id)
                update.bind(2, rowSum(p))
                try update.run()
            }
            update.finalize()
            try db.execute("PRAGMA user_version=1")
            return rows.count
        }
    }

    /// The checksum stored with a party's row: its values as the store keeps them. A party
    /// with no rider list at version 1 sums as before riders and versions existed, so rows of
    /// a version-1 store keep their checksums; the others also sum their riders and version.
    static func rowSum(_ p: Party) -> Int64 {
        var c = Checksum()
        let fixed: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (
            UInt64(p.id.utf8.count), p.origin.lon.bitPattern, p.origin.lat.bitPattern, p.destination.lon.bitPattern,
            p.destination.lat.bitPattern, p.departAt.bitPattern, UInt64(bitPattern: Int64(p.seatsTotal)),
            UInt64(bitPattern: Int64(p.seatsTaken)), p.title.map { UInt64($0.utf8.count) } ?? UInt64.max)
        withUnsafeBytes(of: fixed) { c.add($0) }
        var id = p.id
        id.withUTF8 { c.add(UnsafeRawBufferPointer($0)) }
        if var title = p.title { title.withUTF8 { c.add(UnsafeRawBufferPointer($0)) } }
        if !p.riders.isEmpty || p.version != 1 {
            var riders = riderColumn(p) ?? ""
            withUnsafeBytes(of: (UInt64(riders.utf8.count), UInt64(bitPattern: Int64(p.version)))) { c.add($0) }
            riders.withUTF8 { c.add(UnsafeRawBufferPointer($0)) }
        }
        if let settled = p.settlement {
            // Only settled rows sum these: an unsettled row sums as it did before schema 3.
            var (key, answer) = (settled.key, SettlementColumn.text(settled))
            withUnsafeBytes(of: (UInt64(0x5E77_1ED), UInt64(key.utf8.count), UInt64(answer.utf8.count))) { c.add($0) }
            key.withUTF8 { c.add(UnsafeRawBufferPointer($0)) }
            answer.withUTF8 { c.add(UnsafeRawBufferPointer($0)) }
        }
        return Int64(bitPattern: c.value)
    }

    /// The party in the current row of a `SELECT id, origin_lon, …, title, riders, version,
    /// row_sum, settled_key, settlement` statement (see `rowColumns`); nil when its rider list
    /// is not one this store wrote, only one of the settlement columns is set, or the settlement
    /// is not one this store wrote (`SettlementColumn`).
    static func party(_ s: SQLiteStatement) -> Party? {
        var p = Party(id: s.text(0), origin: Coordinate(lon: s.double(1), lat: s.double(2)),
                      destination: Coordinate(lon: s.double(3), lat: s.double(4)), departAt: s.double(5),
                      seatsTotal: Int(s.int(6)), seatsTaken: Int(s.int(7)), title: s.optionalText(8), version: Int(s.int(10)))
        if let text = s.optionalText(9) {
            guard read(riderColumn: text, into: &p) else { return nil }
        }
        switch (s.optionalText(12), s.optionalText(13)) {
        case (nil, nil): break
        case let (key?, text?):
            guard let settled = SettlementColumn.settlement(key: key, text: text) else { return nil }
            p.settlement = settled
        default: return nil
        }
        return p
    }

    /// A rider list as the `riders` column holds it: `id,seats[,lon,lat]` per rider, joined by
    /// `;` (ids never contain either separator). Numbers round-trip exactly.
    static func encode(_ riders: [PartyRider]) -> String {
        riders.map { r in
            var s = "\(r.id),\(r.seats)"
            if let d = r.dropOff { s += ",\(d.lon),\(d.lat)" }
            return s
        }.joined(separator: ";")
    }

    /// The `riders` column of `p`: its rider list (`encode`), then, when the joins fixed its
    /// drop-off order, `|` and that order (`Party.stopOrder`, comma-separated); nil without
    /// riders. A party without an order writes the column as before orders existed.
    static func riderColumn(_ p: Party) -> String? {
        guard !p.riders.isEmpty else { return nil }
        return encode(p.riders) + (p.stopOrder.map { "|" + $0.map(String.init).joined(separator: ",") } ?? "")
    }

    /// Reads a `riders` column (`riderColumn`) into `p`; false when the text is not one.
    static func read(riderColumn text: String, into p: inout Party) -> Bool {
        let parts = text.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
        guard let riders = decodeRiders(String(parts[0])) else { return false }
        p.riders = riders
        if parts.count == 2 {
            let fields = parts[1].split(separator: ",", omittingEmptySubsequences: false)
            let order = fields.compactMap { Int($0) }
            guard order.count == fields.count, order.count >= 2 else { return false }
            p.stopOrder = order
        }
        return true
    }

    /// The rider list `encode` wrote; nil when the text is not one.
    static func decodeRiders(_ text: String) -> [PartyRider]? {
        var out: [PartyRider] = []
        for item in text.split(separator: ";", omittingEmptySubsequences: false) {
            let f = item.split(separator: ",", omittingEmptySubsequences: false)
            guard f.count == 2 || f.count == 4, let seats = Int(f[1]) else { return nil }
            var drop: Coordinate?
            if f.count == 4 {
                guard let lon = Double(f[2]), let lat = Double(f[3]) else { return nil }
                drop = Coordinate(lon: lon, lat: lat)
            }
            out.append(PartyRider(id: String(f[0]), seats: seats, dropOff: drop))
        }
        return out
    }

    /// Saves `party` (insert or replace) in its own durable transaction.
    public func put(_ party: Party) throws {
        try put([party])
    }

    /// Saves `parties` in one durable transaction: all or none.
    public func put<C: Collection>(_ parties: C) throws where C.Element == Party {
        try write {
            for p in parties { try upsert(p) }
        }
    }

    /// Saves imported parties (`taxipot parties import`) in one durable transaction, each over
    /// the stored party of its id, if any, by the import rules: a settled party is never
    /// replaced (its settlement would be lost), nor a row refused at load (its good copy may
    /// still be restored); the riders who joined are kept as a PUT without a rider list keeps
    /// them (`Party.keepingRiders(of:)`); and the version goes on from the stored one (stored
    /// + 1, so an entity tag of the old party never matches the new one). Returns the parties
    /// not stored, by their index in `parties`, with why.
    public func putImported(_ parties: [Party]) throws -> [(index: Int, reason: String)] {
        try write {
            var refused: [(index: Int, reason: String)] = []
            for (i, var p) in parties.enumerated() {
                let s = lookupStatement
                s.bind(1, p.id)
                defer { s.reset() }
                let shown = Escaped.excerpt(p.id, limit: 80)
                if try s.step() {
                    switch SQLitePartyDatabase.verified(s) {
                    case .failure(let refusal):
                        refused.append((i, "party '\(shown)' is stored in a row refused at load (\(refusal.reason)): import does not "
                            + "replace it; run 'taxipot parties recover' first, which restores it from the backup copy"))
                        continue
                    case .success(let old):
                        if let settled = old.settlement {
                            refused.append((i, "party '\(shown)' is settled (key '\(Escaped.excerpt(settled.key, limit: 80))'): import never "
                                + "replaces a settled party, whose settlement would be lost"))
                            continue
                        }
                        do {
                            p = try p.keepingRiders(of: old)
                        } catch {
                            refused.append((i, "\(error)"))
                            continue
                        }
                        p.version = old.version + 1
                    }
                } else {
                    p.version = 1
                }
                try upsert(p)
            }
            return refused
        }
    }

    /// Inserts or replaces the row of `p` (inside a transaction of `write`).
    private func upsert(_ party: Party) throws {
        var p = party
        p.version = max(1, p.version)
        let s = upsertStatement
        s.bind(1, p.id)
        s.bind(2, p.origin.lon)
        s.bind(3, p.origin.lat)
        s.bind(4, p.destination.lon)
        s.bind(5, p.destination.lat)
        s.bind(6, p.departAt)
        s.bind(7, p.seatsTotal)
        s.bind(8, p.seatsTaken)
        s.bind(9, p.title)
        s.bind(10, SQLitePartyDatabase.rowSum(p))
        s.bind(11, SQLitePartyDatabase.riderColumn(p))
        s.bind(12, p.version)
        s.bind(13, p.settlement?.key)
        s.bind(14, p.settlement.map(SettlementColumn.text))
        defer { s.reset() }
        try s.run()
    }

    /// Deletes the party `id`; true when there was one.
    @discardableResult
    public func delete(id: String) throws -> Bool {
        try write {
            deleteStatement.bind(1, id)
            try deleteStatement.run()
            deleteStatement.reset()
            return db.changes > 0
        }
    }

    /// Deletes every party departing at or before `instant`, a settled one only when it departed
    /// at or before `settledInstant` too (nil: the same); returns how many.
    @discardableResult
    public func purge(departingAtOrBefore instant: Double, settledDepartingAtOrBefore settledInstant: Double? = nil) throws -> Int {
        try write {
            purgeStatement.bind(1, instant)
            purgeStatement.bind(2, min(instant, settledInstant ?? instant))
            try purgeStatement.run()
            purgeStatement.reset()
            return db.changes
        }
    }

    /// The stored party `id` (whatever its departure), checked against its checksum; nil when
    /// there is none. Throws `PartyStoreError` when its row is damaged or invalid.
    public func party(id: String) throws -> Party? {
        let s = try sqlite { () throws(SQLiteError) in
            try db.prepare("SELECT id, origin_lon, origin_lat, dest_lon, dest_lat, depart_at, seats_total, seats_taken, title, riders, version, row_sum, "
                           + "settled_key, settlement FROM parties WHERE id = ?1")
        }
        defer { s.finalize() }
        s.bind(1, id)
        guard try sqlite({ () throws(SQLiteError) in try s.step() }) else { return nil }
        let shownID = Escaped.excerpt(id, limit: 80)
        guard let p = SQLitePartyDatabase.party(s), !s.isNull(11), s.int(11) == SQLitePartyDatabase.rowSum(p) else {
            throw PartyStoreError(message: "\(path): party '\(shownID)' refused: its row does not match its checksum or is not one this store wrote")
        }
        do throws(PartyValidationError) { try p.validate() } catch {
            throw PartyStoreError(message: "\(path): party '\(shownID)' refused: \(error.description)")
        }
        return p
    }

    /// Every stored party departing after `instant` (all when nil), in no set order.
    ///
    /// A row whose values no longer match its checksum (damaged on disk) or that no longer
    /// passes validation (edited by hand) is skipped and reported in `rejected`, one line
    /// each naming the file, the party and the reason. The departure index is checked
    /// against the table on the way (the one thing `quick_check` leaves out): when they
    /// differ, the store is damaged and this throws, before anything is purged through it.
    public func load(departingAfter instant: Double? = nil) throws -> (parties: [Party], rejected: [String]) {
        // A plain scan of the table in id order, every row (the index check needs them all).
        let s = try sqlite { () throws(SQLiteError) in
            try db.prepare("SELECT \(SQLitePartyDatabase.selectColumns) FROM parties NOT INDEXED ORDER BY id")
        }
        defer { s.finalize() }
        let after = instant ?? -Double.infinity
        var out = [Party]()
        var rejected = [String]()
        var refusedIDs = [String]()
        var tableEntries = IndexEntrySum()
        while try sqlite({ () throws(SQLiteError) in try s.step() }) {
            let departAt = s.double(5)
            s.withTextBytes(0) { tableEntries.add(departAt, $0) }
            guard departAt > after else { continue }
            switch SQLitePartyDatabase.verified(s) {
            case .success(let p): out.append(p)
            case .failure(let refusal):
                rejected.append("\(path): party '\(Escaped.excerpt(s.text(0), limit: 80))' refused: \(refusal.reason)")
                refusedIDs.append(s.text(0))
            }
        }
        try checkIndex(against: tableEntries)
        refusedAtLoad = refusedIDs
        return (out, rejected)
    }

    /// Why a row is not served.
    struct RowRefusal: Error {
        let reason: String
    }

    /// The party in the current row of a `SELECT selectColumns` statement when it is one this
    /// store wrote: its rider and settlement columns readable, its checksum matching, its
    /// values valid.
    static func verified(_ s: SQLiteStatement) -> Result<Party, RowRefusal> {
        guard let p = party(s) else {
            return .failure(RowRefusal(reason: "its riders column is not a rider list this store wrote, or it has half a settlement or a settlement this store did not write"))
        }
        guard !s.isNull(11), s.int(11) == rowSum(p) else {
            return .failure(RowRefusal(reason: (s.isNull(11) ? "its row has no checksum" : "its row does not match its checksum")
                + " (damaged on disk, or edited outside taxipot)"))
        }
        do throws(PartyValidationError) {
            guard p.version >= 1 else { throw PartyValidationError(field: "version", message: "must be at least 1, got \(p.version)") }
            try p.validate()
            return .success(p)
        } catch {
            return .failure(RowRefusal(reason: error.description))
        }
    }

    /// Compares the departure index's entries with the table's (depart_at, id) pairs.
    private func checkIndex(against table: IndexEntrySum) throws {
        var entries = IndexEntrySum()
        do {
            let s = try db.prepare("SELECT depart_at, id FROM parties INDEXED BY parties_by_departure ORDER BY depart_at")
            defer { s.finalize() }
            while try s.step() {
                let departAt = s.double(0)
                s.withTextBytes(1) { entries.add(departAt, $0) }
            }
        } catch {
            throw error.isDamage ? StoreCheck.damaged(path, error.message) : PartyStoreError(message: error.message)
        }
        guard entries == table else {
            throw StoreCheck.damaged(path, "its departure index does not match its table (\(entries.count) index entries for \(table.count) rows, "
                + "or entries that differ from their rows)")
        }
    }

    /// Number of stored parties, expired ones included until purged.
    public func storedCount() throws -> Int {
        Int(try sqlite { () throws(SQLiteError) in try db.scalarText("SELECT count(*) FROM parties") }) ?? 0
    }

    /// SQLite's `PRAGMA integrity_check` answer ("ok" when the file is sound).
    public func integrityCheck() throws -> String {
        try sqlite { () throws(SQLiteError) in try db.scalarText("PRAGMA integrity_check") }
    }

    /// Closes the store cleanly: moves the write-ahead log into the file and truncates it
    /// (`wal_checkpoint(TRUNCATE)`), saves the backup copy `parties.db.bak` when `backup`
    /// (never from a store found damaged, nor over an existing backup while rows refused at
    /// load remain: see `refusedAtLoad`) and closes the file, which removes the log.
    /// Returns what it did, one line each. The store must not be used afterwards.
    @discardableResult
    public func close(backup: Bool = true) throws -> [String] {
        guard !closed else { return [] }
        closed = true
        var done: [String] = []
        upsertStatement.finalize()
        deleteStatement.finalize()
        purgeStatement.finalize()
        lookupStatement.finalize()
        countStatement.finalize()
        defer { lock?.release() }
        do {
            if damage == nil {
                _ = try db.scalarText("PRAGMA wal_checkpoint(TRUNCATE)")
                if backup && !refusedAtLoad.isEmpty && FileManager.default.fileExists(atPath: backupPath) {
                    done.append("\(path): kept the backup copy \(backupPath) as it was, not overwritten: \(refusedAtLoad.count) rows of this "
                        + "store were refused at load and it may hold their good copies (run 'taxipot parties recover --state-dir "
                        + "\(StoreCheck.stateDirectory(of: path))' to restore them)")
                } else if backup {
                    try saveBackup()
                    done.append("\(path): saved a backup copy in \(backupPath)")
                }
            }
            try db.close()
        } catch let e as SQLiteError {
            throw PartyStoreError(message: e.message)
        }
        return done
    }

    /// Copies the store as it is (the log included) to a new file at `destination`.
    func copy(to destination: String) throws {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(destination + suffix) }
        do { try db.backup(to: destination) } catch { throw PartyStoreError(message: "\(destination): cannot copy the store: \(error.message)") }
        StoreCheck.syncDirectory(of: destination)
    }

    /// Writes the backup under a temporary name, then renames it over the previous one.
    private func saveBackup() throws {
        let temporary = backupPath + ".tmp-\(getpid())"
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(temporary + suffix) }
        try db.backup(to: temporary)
        guard rename(temporary, backupPath) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw PartyStoreError(message: "\(backupPath): cannot save the backup copy: \(reason)")
        }
        StoreCheck.syncDirectory(of: backupPath)
    }

    /// Runs `body`, turning an SQLite failure into a `PartyStoreError`.
    private func sqlite<T>(_ body: () throws(SQLiteError) -> T) throws(PartyStoreError) -> T {
        do { return try body() } catch { throw PartyStoreError(message: error.message) }
    }

    private func write<T>(_ body: () throws -> T) throws -> T {
        if let damage {
            throw PartyStoreError(message: "\(path): writes are refused since SQLite found the file damaged (\(damage)); "
                + "stop the service and run 'taxipot parties recover'")
        }
        guard !closed else { throw PartyStoreError(message: "\(path): the store is closed") }
        if let problem = fileProblem() { throw PartyStoreError(message: problem) }
        do {
            let answer = try db.transaction {
                let answer = try body()
                defer { countStatement.reset() }
                try countStatement.run()
                return answer
            }
            commits += 1
            record?.write(commits)
            return answer
        } catch let e as SQLiteError {
            if e.isDamage { damage = e.message }
            throw PartyStoreError(message: e.message)
        }
    }
}

/// The party store could not read or write its file; the message names it.
public struct PartyStoreError: Error, Sendable, CustomStringConvertible {
    /// What failed, naming the file.
    public let message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}

/// An order-independent sum of (departure, id) pairs: equal for the table and its departure
/// index exactly when they hold the same pairs (up to a 64-bit hash collision).
struct IndexEntrySum: Equatable {
    private(set) var count = 0
    private var sum: UInt64 = 0

    mutating func add(_ departAt: Double, _ id: UnsafeRawBufferPointer) {
        var c = Checksum()
        withUnsafeBytes(of: departAt.bitPattern) { c.add($0) }
        c.add(id)
        sum &+= c.value
        count += 1
    }
}

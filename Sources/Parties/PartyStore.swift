import Foundation
import Geo
import SQLiteKit

/// The durable home of parties: one SQLite file (`parties.db`) in the state directory.
///
/// Opened in WAL mode with `synchronous=FULL`, so a write that returned has reached the disk
/// and survives `kill -9` and power loss. Expired parties (departure plus the grace period)
/// are not loaded and are purged with `purge(expiringBefore:)`.
///
/// One connection, not thread-safe: `PartyService` serialises access.
public final class PartyStore {
    /// The file name inside the state directory.
    public static let fileName = "parties.db"
    /// The database file.
    public let path: String
    let db: SQLiteDatabase
    private let upsertStatement: SQLiteStatement
    private let deleteStatement: SQLiteStatement
    private let purgeStatement: SQLiteStatement

    /// Opens (creating if absent) `parties.db` in `stateDirectory`, creating the directory too.
    public convenience init(stateDirectory: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
        } catch {
            throw PartyStoreError(message: "cannot create the state directory \(stateDirectory): \(error.localizedDescription)")
        }
        try self.init(path: (stateDirectory as NSString).appendingPathComponent(PartyStore.fileName))
    }

    /// Opens (creating if absent) the database file at `path`.
    public init(path: String) throws {
        self.path = path
        do {
            db = try SQLiteDatabase(path: path)
            let mode = try db.scalarText("PRAGMA journal_mode=WAL")
            guard mode.lowercased() == "wal" else {
                throw PartyStoreError(message: "\(path): cannot switch to WAL journaling (got '\(mode)')")
            }
            try db.execute("""
                PRAGMA synchronous=FULL;
                PRAGMA mmap_size=1073741824;
                PRAGMA cache_size=-65536;
                CREATE TABLE IF NOT EXISTS parties(
                    id TEXT PRIMARY KEY NOT NULL,
                    origin_lon REAL NOT NULL, origin_lat REAL NOT NULL,
                    dest_lon REAL NOT NULL, dest_lat REAL NOT NULL,
                    depart_at REAL NOT NULL,
                    seats_total INTEGER NOT NULL, seats_taken INTEGER NOT NULL,
                    title TEXT
                ) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS parties_by_departure ON parties(depart_at);
                """)
            upsertStatement = try db.prepare("""
                INSERT INTO parties(id, origin_lon, origin_lat, dest_lon, dest_lat, depart_at, seats_total, seats_taken, title)
                VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                ON CONFLICT(id) DO UPDATE SET origin_lon=?2, origin_lat=?3, dest_lon=?4, dest_lat=?5,
                    depart_at=?6, seats_total=?7, seats_taken=?8, title=?9
                """)
            deleteStatement = try db.prepare("DELETE FROM parties WHERE id = ?1")
            purgeStatement = try db.prepare("DELETE FROM parties WHERE depart_at <= ?1")
        } catch let e as SQLiteError {
            throw PartyStoreError(message: e.message)
        }
    }

    /// Saves `party` (insert or replace) in its own durable transaction.
    public func put(_ party: Party) throws {
        try put([party])
    }

    /// Saves `parties` in one durable transaction: all or none.
    public func put<C: Collection>(_ parties: C) throws where C.Element == Party {
        try write {
            for p in parties {
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
                try s.run()
                s.reset()
            }
        }
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

    /// Deletes every party departing at or before `instant`; returns how many.
    @discardableResult
    public func purge(departingAtOrBefore instant: Double) throws -> Int {
        try write {
            purgeStatement.bind(1, instant)
            try purgeStatement.run()
            purgeStatement.reset()
            return db.changes
        }
    }

    /// Every stored party departing after `instant` (all when nil), in no set order.
    ///
    /// A row that no longer passes validation (edited by hand) is skipped and reported in
    /// `rejected` with its id and problem.
    public func load(departingAfter instant: Double? = nil) throws -> (parties: [Party], rejected: [String]) {
        // A plain scan of the table in id order ('+' keeps SQLite from walking the departure
        // index and seeking every row).
        let s = try sqlite { () throws(SQLiteError) in
            try db.prepare("""
                SELECT id, origin_lon, origin_lat, dest_lon, dest_lat, depart_at, seats_total, seats_taken, title
                FROM parties WHERE +depart_at > ?1 ORDER BY id
                """)
        }
        s.bind(1, instant ?? -Double.infinity)
        var out = [Party]()
        var rejected = [String]()
        while try sqlite({ () throws(SQLiteError) in try s.step() }) {
            let p = Party(id: s.text(0), origin: Coordinate(lon: s.double(1), lat: s.double(2)),
                          destination: Coordinate(lon: s.double(3), lat: s.double(4)), departAt: s.double(5),
                          seatsTotal: Int(s.int(6)), seatsTaken: Int(s.int(7)), title: s.optionalText(8))
            do {
                try p.validate()
                out.append(p)
            } catch {
                rejected.append("\(path): party '\(p.id.prefix(80))': \(error.description)")
            }
        }
        return (out, rejected)
    }

    /// Number of stored parties, expired ones included until purged.
    public func storedCount() throws -> Int {
        Int(try sqlite { () throws(SQLiteError) in try db.scalarText("SELECT count(*) FROM parties") }) ?? 0
    }

    /// SQLite's `PRAGMA integrity_check` answer ("ok" when the file is sound).
    public func integrityCheck() throws -> String {
        try sqlite { () throws(SQLiteError) in try db.scalarText("PRAGMA integrity_check") }
    }

    /// Runs `body`, turning an SQLite failure into a `PartyStoreError`.
    private func sqlite<T>(_ body: () throws(SQLiteError) -> T) throws(PartyStoreError) -> T {
        do { return try body() } catch { throw PartyStoreError(message: error.message) }
    }

    private func write<T>(_ body: () throws -> T) throws -> T {
        do {
            return try db.transaction(body)
        } catch let e as SQLiteError {
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

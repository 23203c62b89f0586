import Foundation
import PartyModel

/// The embedded store of one process: `SQLitePartyDatabase` (`parties.db` in the state folder) behind
/// the `PartyStore` seam, its calls serialised by a lock.
///
/// One process writes it, and `PartyService` decides every write under its writer lock against
/// its own index, which is then the truth: writes are applied without comparing the stored row
/// (as before the seam), there is no change sequence and nothing to follow.
public final class SQLitePartyStore: PartyStore, @unchecked Sendable {
    /// The SQLite store (guarded by `lock`).
    private let store: SQLitePartyDatabase
    private let lock = NSLock()

    /// Opens (creating it in a new folder) `parties.db` in `stateDirectory`; see `SQLitePartyDatabase`.
    public init(stateDirectory: String) throws {
        store = try SQLitePartyDatabase(stateDirectory: stateDirectory)
    }

    public var location: String { store.path }
    public var notes: [String] { store.notes }
    public var isShared: Bool { false }
    /// The store's files moved away or replaced under this process (writes are then refused).
    public var health: String? { store.fileProblem() }

    public func load(departingAfter instant: Double) throws -> PartyStoreSnapshot {
        try locked {
            let loaded = try store.load(departingAfter: instant)
            return PartyStoreSnapshot(parties: loaded.parties, rejected: loaded.rejected, change: 0, refusedIDs: store.refusedAtLoad)
        }
    }

    public func write(_ write: PartyStoreWrite) throws -> PartyStoreCommit {
        try locked {
            switch write.action {
            case .put(let p): try store.put(p)
            case .delete(let id): try store.delete(id: id)
            }
            return .committed(change: 0)
        }
    }

    public func purge(departingAtOrBefore instant: Double, settledDepartingAtOrBefore settledInstant: Double) throws -> Int {
        try locked { try store.purge(departingAtOrBefore: instant, settledDepartingAtOrBefore: settledInstant) }
    }

    public func party(id: String) throws -> Party? {
        try locked { try store.party(id: id) }
    }

    public func changes(after: Int64) throws -> PartyChangeBatch { .changes([]) }

    public func follow(cursor: @escaping @Sendable () -> Int64, deliver: @escaping @Sendable (PartyChangeBatch) -> Void) {}

    public func close(backup: Bool) throws -> [String] {
        try locked { try store.close(backup: backup) }
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}

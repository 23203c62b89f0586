import Foundation
import PartyModel

/// Where a `PartyService` keeps its parties durably: the embedded SQLite file of one process
/// (`SQLitePartyStore`, the default) or a PostgreSQL database shared by replicas
/// (`PostgresPartyStore`).
///
/// Writes are conditional: each names the state of the party it was computed from
/// (`PartyStoreWrite.expected`), and a store shared with other writers applies it only when
/// the stored party is still that one, in the same statement as the check, so a join that a
/// replica checked against its index can never oversell a party another replica just filled.
/// A store with a single writer may apply writes without the comparison (the service's own
/// lock already orders them). A write that returned `.committed` is durable.
///
/// A shared store numbers its writes (a change sequence without gaps) and tells the service of
/// the writes of others (`follow`), so each replica keeps its own live index in step.
public protocol PartyStore: AnyObject, Sendable {
    /// Where the parties live, for messages (a file path, or a URL without its password).
    var location: String { get }
    /// What opening did that the operator should hear of, one line each.
    var notes: [String] { get }
    /// Whether other processes write to this store too (then the service follows their writes).
    var isShared: Bool { get }
    /// Every stored party departing after `instant`, the rows refused (one line each), and the
    /// change number the answer is current with (0 for a store without a change sequence).
    func load(departingAfter instant: Double) throws -> PartyStoreSnapshot
    /// Applies `write` durably when its expectation holds.
    /// Throws `PartyStoreError`, or `PartyStoreUnavailableError` when the store cannot be
    /// reached (nothing was acknowledged; retry later).
    func write(_ write: PartyStoreWrite) throws -> PartyStoreCommit
    /// Deletes every unsettled party departing at or before `instant` and every settled one
    /// departing at or before `settledInstant` (kept longer: see `PartyServiceOptions`); returns how many.
    func purge(departingAtOrBefore instant: Double, settledDepartingAtOrBefore settledInstant: Double) throws -> Int
    /// The stored party `id`, whatever its departure (a party past its listing is still kept
    /// for settling, and a settled one for replaying its settlement); nil when none.
    func party(id: String) throws -> Party?
    /// The changes after change number `after`, in order (or a fresh snapshot when the log no
    /// longer reaches back that far); empty for a store without a change sequence.
    func changes(after: Int64) throws -> PartyChangeBatch
    /// Starts telling `deliver` of every change after `cursor()`, as other writers make them
    /// (within milliseconds), and again after a lost connection comes back. Does nothing for a
    /// store with a single writer.
    func follow(cursor: @escaping @Sendable () -> Int64, deliver: @escaping @Sendable (PartyChangeBatch) -> Void)
    /// Stops following and closes the store; returns what it did, one line each.
    func close(backup: Bool) throws -> [String]
    /// Why the store cannot be reached now (nil: fine), for `/health`.
    var health: String? { get }
}

extension PartyStore {
    /// A store in this process's own file has no outage to report.
    public var health: String? { nil }
}

/// What a store answered a load with.
public struct PartyStoreSnapshot: Sendable {
    /// The live parties.
    public var parties: [Party]
    /// Rows refused (damaged or invalid), one line each naming the store and the party.
    public var rejected: [String]
    /// The last change number the parties include (0: no change sequence).
    public var change: Int64
    /// The ids of the refused rows (writes to them are refused until they are restored).
    public var refusedIDs: [String]

    public init(parties: [Party], rejected: [String], change: Int64, refusedIDs: [String] = []) {
        self.parties = parties
        self.rejected = rejected
        self.change = change
        self.refusedIDs = refusedIDs
    }
}

/// One durable write, conditional on the party's stored state.
public struct PartyStoreWrite: Sendable {
    /// Save `party` (insert or replace), or delete the party `id`.
    public enum Action: Sendable {
        case put(Party)
        case delete(id: String)
    }
    /// What the write expects to find stored.
    public enum Expectation: Sendable {
        /// No live party of that id (a row that expired at or before `expiredBefore`, still
        /// unpurged, counts as none).
        case absent(expiredBefore: Double)
        /// Exactly this party (its version and every value).
        case present(Party)
    }
    public var action: Action
    public var expected: Expectation

    public init(_ action: Action, expected: Expectation) {
        self.action = action
        self.expected = expected
    }

    /// The party id written.
    public var id: String {
        switch action {
        case .put(let p): p.id
        case .delete(let id): id
        }
    }
}

/// What a conditional write did.
public enum PartyStoreCommit: Sendable, Equatable {
    /// Durable; `change` is its number in the change sequence (0 without one).
    case committed(change: Int64)
    /// The stored party is not the expected one (another writer got there first): nothing
    /// changed. Catch up with `changes(after:)` and decide again.
    case conflict
}

/// One change of the sequence: the party `id` as it is now (nil: deleted or purged).
public struct PartyChange: Sendable {
    public var change: Int64
    public var id: String
    public var party: Party?

    public init(change: Int64, id: String, party: Party?) {
        self.change = change
        self.id = id
        self.party = party
    }
}

/// Changes to apply in order, or the whole store again.
public enum PartyChangeBatch: Sendable {
    /// Consecutive changes (numbers without gaps), each with the party's state as of the last.
    case changes([PartyChange])
    /// The log no longer holds the changes asked for: every live party as of `change`.
    case snapshot(PartyStoreSnapshot)
}

/// The party store cannot be reached now (a lost database connection): nothing was written.
/// The store reconnects by itself; retry after `retryAfter` seconds.
public struct PartyStoreUnavailableError: Error, Sendable, CustomStringConvertible {
    /// What failed, naming the store (never its password).
    public let message: String
    /// Whole seconds a client should wait before retrying.
    public let retryAfter: Int

    public init(message: String, retryAfter: Int = 1) {
        self.message = message
        self.retryAfter = retryAfter
    }

    public var description: String { message }
}

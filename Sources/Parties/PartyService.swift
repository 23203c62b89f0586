import Foundation
import Geo
import PartyClusters
import PartyModel
import PartyStores

/// Options of the party service.
public struct PartyServiceOptions: Sendable {
    /// Grid cell size and least distance between features in a cluster answer, in pixels
    /// of 256-px tiles (16–512, default 60).
    public var radius: Double
    /// How long after its departure a party stays listed, in seconds (default 30 min).
    public var grace: Double
    /// How long after its departure an unsettled party can still be settled, in seconds
    /// (default 12 h; at least `grace`): it is kept in the store, unlisted, until then.
    public var settleWindow: Double
    /// How long after its departure a settled party stays readable and its settlement
    /// replayable, in seconds (default 7 days; at least `settleWindow`).
    public var settledRetention: Double
    /// Least seconds between two purges of expired rows from the store (default 60).
    public var purgeInterval: Double

    /// The default settle window: 12 hours.
    public static let defaultSettleWindow = 12 * 3600.0
    /// The default retention of a settled party: 7 days.
    public static let defaultSettledRetention = 7 * 86_400.0

    public init(radius: Double = 60, grace: Double = 1800, settleWindow: Double = PartyServiceOptions.defaultSettleWindow,
                settledRetention: Double = PartyServiceOptions.defaultSettledRetention, purgeInterval: Double = 60) {
        self.radius = radius
        self.grace = grace
        self.settleWindow = settleWindow
        self.settledRetention = settledRetention
        self.purgeInterval = purgeInterval
    }

    /// How long after its departure a party is kept in the store: the settled retention for a
    /// settled party, the settle window for another (each at least the ones before it).
    public func keptSeconds(settled: Bool) -> Double {
        let window = max(grace, settleWindow)
        return settled ? max(window, settledRetention) : window
    }
}

/// A party whose departure plus the grace period has already passed.
public struct PartyExpiredError: Error, Sendable, CustomStringConvertible {
    /// The party and when it expired (Unix seconds).
    public let id: String
    public let expiredAt: Double
    public var description: String {
        "party '\(id)' expired at \(SeoulTime.format(expiredAt)) (departure plus the grace period), so it would never be listed"
    }
}

/// Whether a put created a party or replaced one.
public enum PartyPutOutcome: Sendable, Equatable {
    case created
    case replaced
}

/// Which versions of a party a precondition names: any live version (`*`), or a list of them.
public enum PartyVersions: Sendable, Equatable {
    /// Any live party (`*`).
    case any
    /// These versions (an empty list names none).
    case listed([Int])

    /// Whether `live` (nil: no live party) is one of these.
    func contains(_ live: Party?) -> Bool {
        guard let live else { return false }
        switch self {
        case .any: return true
        case .listed(let versions): return versions.contains(live.version)
        }
    }

    /// The versions in words ("version 3 or 5").
    var text: String {
        switch self {
        case .any: "any version"
        case .listed(let versions):
            versions.isEmpty ? "a version named by a strong entity tag (a weak one never matches If-Match)"
                : "version " + versions.map(String.init).joined(separator: " or ")
        }
    }
}

/// What a write requires of the live party (HTTP `If-Match` and `If-None-Match`, RFC 9110
/// §13.1.1–2): the live party must be one `ifMatch` names, and must not be one `ifNoneMatch`
/// names (`ifNoneMatch: .any`: no live party may exist).
public struct PartyPrecondition: Sendable, Equatable {
    public var ifMatch: PartyVersions?
    public var ifNoneMatch: PartyVersions?

    public init(ifMatch: PartyVersions? = nil, ifNoneMatch: PartyVersions? = nil) {
        self.ifMatch = ifMatch
        self.ifNoneMatch = ifNoneMatch
    }

    /// Nothing.
    public static let none = PartyPrecondition()
    /// A live party of that id exists (`If-Match: *`).
    public static let exists = PartyPrecondition(ifMatch: .any)
    /// The live party's version is this one (`If-Match: "3"`).
    public static func version(_ v: Int) -> PartyPrecondition { PartyPrecondition(ifMatch: .listed([v])) }

    /// Throws `PartyWriteError.versionMismatch` when `live` does not satisfy the condition.
    func check(id: String, live: Party?) throws(PartyWriteError) {
        if let m = ifMatch, !m.contains(live) {
            throw .versionMismatch(id: id, current: live?.version, expected: m.text)
        }
        if let n = ifNoneMatch, n.contains(live) {
            throw .versionMismatch(id: id, current: live?.version, expected: n == .any ? "no live party" : "not " + n.text)
        }
    }
}

/// What `PartyService.settle` did.
public enum PartySettleOutcome: Sendable, Equatable {
    /// Settled now: the party as stored.
    case settled(Party)
    /// Settled before: the live party with its settlement.
    case alreadySettled(Party)
    /// The party changed since the settlement was computed: the live party.
    case changed(Party)
}

/// Live parties: the durable store and the in-memory cluster index, kept in step.
///
/// A write goes to the store first (durable when it returns), then to the index, so the next
/// query sees it. Writers are serialised by one lock; readers take only the index lock, so
/// they never wait for a disk flush.
///
/// The store is a `PartyStore`: the embedded SQLite file by default, or a PostgreSQL database
/// shared by replicas. With a shared store each write is checked again by the store against the
/// party it was decided on (another replica may have changed it): on a conflict, or before
/// refusing a write (a full party, a stale `If-Match`), the service first catches up with the
/// store's change log and decides again. The writes of other replicas reach the index through
/// the store's follower (`PartyStore.follow`), in change order. Expired parties (departure + grace) leave the index before
/// any answer is computed, and are purged from the store on writes (at most every
/// `purgeInterval` seconds), on `purgeExpired()` and when the service opens.
public final class PartyService: @unchecked Sendable {
    /// The options it was opened with.
    public let options: PartyServiceOptions
    /// Where the store keeps the parties (its database file, or its URL without a password).
    public var storePath: String { store.location }
    /// Rows of the store refused when loading (damaged on disk or failing validation), one
    /// line each naming the file, the party and the reason. The service starts without them.
    public var rejectedOnLoad: [String] {
        indexLock.lock()
        defer { indexLock.unlock() }
        return rejected
    }
    /// What opening the store did that the operator should hear of (a new store created in a
    /// new state folder, an upgraded store), one line each naming the file.
    public let storeNotes: [String]

    private let store: any PartyStore
    private var rejected: [String]
    /// The ids whose stored rows were refused at load (under `indexLock`): writes to them are
    /// refused (`PartyWriteError.quarantined`), since they would replace the row that
    /// `taxipot parties recover` may still restore.
    private var quarantined: Set<String>
    /// Set while a shared store that was unreachable at start has not been loaded yet: why
    /// (under `indexLock`). The parties are then unknown, and `requireLoaded()` refuses.
    private var notLoaded: String?
    /// Set by `close()`: a loader still waiting for the store gives up.
    private var closing = false
    private var index: PartyIndex
    /// The last change of a shared store applied to the index (under `indexLock`).
    private var appliedChange: Int64
    private var expiry = ExpiryQueue()
    private var lastPurge: Double
    private let now: @Sendable () -> Double
    /// Orders the writes of the embedded store (its index is the truth).
    private let writeLock = NSLock()
    /// A shared store's writes are ordered per party only (by a lock chosen by the party id):
    /// writes of different parties run together and share the database's commits, and the
    /// store's check of each write keeps them correct.
    private let partyLocks = (0..<64).map { _ in NSLock() }
    /// Guards `lastPurge`.
    private let purgeLock = NSLock()
    /// Guards the index; signalled when a shared store's change is applied.
    private let indexLock = NSCondition()
    /// Buffers for cluster answers, used under `indexLock`.
    private var scratch = ClusterQueryScratch()

    /// Opens the store in `stateDirectory` (checked, and created only in a new folder: see
    /// `SQLitePartyDatabase`; a damaged store throws `PartyStoreError`), loads the live parties into
    /// the index and purges the expired ones. `now` is the clock (Unix seconds), for tests.
    public convenience init(stateDirectory: String, options: PartyServiceOptions = PartyServiceOptions(),
                            now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) throws
    {
        try self.init(storage: SQLitePartyStore(stateDirectory: stateDirectory), options: options, now: now)
    }

    /// Serves the parties of `storage`: loads the live ones into the index, purges the expired
    /// ones and, for a shared store, starts following the writes of the other replicas.
    public init(storage: any PartyStore, options: PartyServiceOptions = PartyServiceOptions(),
                now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) throws
    {
        self.options = options
        self.now = now
        store = storage
        let t = now()
        // Load (which checks the departure index) before purging through that index.
        var loaded = PartyStoreSnapshot(parties: [], rejected: [], change: 0)
        do {
            loaded = try store.load(departingAfter: t - options.grace)
            _ = try store.purge(departingAtOrBefore: t - options.keptSeconds(settled: false), settledDepartingAtOrBefore: t - options.keptSeconds(settled: true))
        } catch let e as PartyStoreUnavailableError where storage.isShared {
            // An outage at start: serve without parties (503) and load them when it ends.
            notLoaded = e.message
        }
        lastPurge = t
        rejected = loaded.rejected
        quarantined = Set(loaded.refusedIDs)
        storeNotes = store.notes
        index = PartyIndex(parties: loaded.parties.map(Self.listingCopy), radius: options.radius)
        appliedChange = loaded.change
        radius = index.radius
        for p in loaded.parties { expiry.push(p.departAt + options.grace, p.id) }
        if notLoaded != nil {
            let loader = Thread { [weak self] in
                while let service = self, !service.loadWhenBack() { Thread.sleep(forTimeInterval: 0.25) }
            }
            loader.name = "party-store-loader"
            loader.start()
        } else if store.isShared {
            startFollowing()
        }
    }

    private func startFollowing() {
        store.follow(cursor: { [weak self] in self?.currentChange ?? .max },
                     deliver: { [weak self] batch in self?.apply(batch) })
    }

    /// Loads the parties of a shared store that was unreachable at start, then follows it;
    /// false while it still cannot be reached.
    private func loadWhenBack() -> Bool {
        let t = now()
        let loaded: PartyStoreSnapshot
        do {
            loaded = try store.load(departingAfter: t - options.grace)
        } catch {
            indexLock.lock()
            defer { indexLock.unlock() }
            notLoaded = "\(error)"
            return closing
        }
        indexLock.lock()
        guard !closing else { indexLock.unlock(); return true }
        index = PartyIndex(parties: loaded.parties.map(Self.listingCopy), radius: options.radius)
        appliedChange = loaded.change
        expiry = ExpiryQueue()
        for p in loaded.parties { expiry.push(p.departAt + options.grace, p.id) }
        rejected = loaded.rejected
        quarantined = Set(loaded.refusedIDs)
        notLoaded = nil
        indexLock.unlock()
        startFollowing()
        return true
    }

    /// Why the party store is not serving normally (the database unreachable, the parties not
    /// loaded yet), or nil when it is; for `/health`.
    public var storeProblem: String? {
        indexLock.lock()
        let pending = notLoaded
        indexLock.unlock()
        if let pending { return "the parties are not loaded yet: the store has not answered since the start (\(pending))" }
        return store.health.map { store.isShared ? "\(store.location): the party database cannot be reached: \($0)" : $0 }
    }

    /// Throws `PartyStoreUnavailableError` while the parties of a store unreachable at start
    /// are not loaded (their answers would be wrong: every party would look absent).
    public func requireLoaded() throws {
        guard store.isShared else { return }  // the embedded store is loaded at start or not at all
        indexLock.lock()
        let pending = notLoaded
        indexLock.unlock()
        if let pending {
            throw PartyStoreUnavailableError(message: "\(store.location): the parties are not loaded yet: the party database has not answered since the start (\(pending))")
        }
    }

    /// Closes the store cleanly (write-ahead log checkpointed and removed, a backup copy
    /// saved: see `SQLitePartyDatabase.close(backup:)`), after the writes in progress. Later writes
    /// throw `PartyStoreError`. Returns what it did, one line each.
    @discardableResult
    public func close(backup: Bool = true) throws -> [String] {
        indexLock.lock()
        closing = true
        indexLock.unlock()
        writeLock.lock()
        for lock in partyLocks { lock.lock() }
        defer {
            for lock in partyLocks { lock.unlock() }
            writeLock.unlock()
        }
        return try store.close(backup: backup)
    }

    /// Whether the store is shared with other replicas (their writes reach the index through
    /// the store's change log).
    public var isShared: Bool { store.isShared }

    /// The last change of a shared store the index reflects (0 for the embedded store).
    public var currentChange: Int64 {
        indexLock.lock()
        defer { indexLock.unlock() }
        return appliedChange
    }

    /// Number of live parties.
    public var count: Int { read { $0.count } }

    /// The cluster grid's cell size in pixels (the option, clamped to `PartyIndex.radiusRange`).
    public let radius: Double

    /// Validates and saves `party` durably, then indexes it.
    /// Throws `PartyValidationError`, `PartyExpiredError` or `PartyStoreError`.
    @discardableResult
    public func put(_ party: Party) throws -> PartyPutOutcome {
        try save(party).outcome
    }

    /// Validates and saves `party` durably, then indexes it, when `precondition` holds for the
    /// live party of that id; returns the party as stored (with its new `version`) and whether
    /// it was created or replaced.
    ///
    /// With `keepingRiders` and a `party` without a rider list, the live party's riders are
    /// kept: the organiser (its first rider) is given `party.seatsTaken` less the other riders'
    /// seats (a party that now holds more than the writer counted fails with
    /// `PartyWriteError.seatsConflict` rather than dropping a rider who joined).
    ///
    /// Throws `PartyValidationError`, `PartyExpiredError`, `PartyWriteError` or `PartyStoreError`.
    @discardableResult
    public func save(_ party: Party, precondition: PartyPrecondition = .none,
                     keepingRiders: Bool = false) throws -> (party: Party, outcome: PartyPutOutcome)
    {
        try party.validate()
        let t = now()
        guard party.departAt + options.grace > t else { throw PartyExpiredError(id: party.id, expiredAt: party.departAt + options.grace) }
        return try writing(id: party.id) { _ in
            let old = read { $0.party(id: party.id) }
            try precondition.check(id: party.id, live: old)
            if let old, old.isSettled { throw PartyWriteError.settled(id: party.id) }
            // A settled party kept past its listing (for replays) keeps its id until purged.
            if old == nil, try kept(id: party.id, at: t)?.isSettled == true { throw PartyWriteError.settled(id: party.id) }
            var stored = party
            stored.settlement = nil
            if keepingRiders, let old { stored = try stored.keepingRiders(of: old) }
            // The order the joins fixed holds while no drop-off is added (docs/FARES.md).
            if stored.stopOrder == nil, let old { stored.stopOrder = old.stopOrder(carriedTo: stored) }
            stored.version = (old?.version ?? 0) + 1
            guard try commit(stored, replacing: old, at: t) else { return nil }
            return (stored, old == nil ? .created : .replaced)
        }
    }

    /// Adds `rider` to the live party `partyID`, durably, and returns the party as stored.
    ///
    /// The check (the party is live and has not departed, the rider is not in it, the seats are
    /// free) and the write happen under the one writer lock, and a shared store applies the
    /// write only if the party is still the one checked, so however many joins race (on however
    /// many replicas), the party is never oversold; the answer comes after the store's commit.
    /// Throws `PartyValidationError` (a bad rider), `PartyWriteError` (`notFound`, `departed`,
    /// `full`, `alreadyJoined`, `versionMismatch` when `precondition` fails, `dropOffNotServed`),
    /// `PartyStoreError` or `PartyStoreUnavailableError`.
    ///
    /// `dropOffProblem`, when given, is asked about a rider's drop-off with the live party, under
    /// the lock: a reason it answers refuses the join (`dropOffNotServed`). `placement`, when
    /// given, makes the party with the rider in it from the live party (where the rider's stop
    /// goes: `Party.joining` with its new `stopOrder`), or refuses (`offerChanged`,
    /// `detourTooLong`); without it the rider is added by `Party.joining(_:)`.
    public func join(partyID: String, rider: PartyRider, precondition: PartyPrecondition = .none,
                     dropOffProblem: ((Party, Coordinate) -> String?)? = nil,
                     placement: ((Party, PartyRider) throws -> Party)? = nil) throws -> Party {
        try rider.validate(field: "rider")
        let t = now()
        return try writing(id: partyID) { _ in
            let live = read { $0.party(id: partyID) }
            try precondition.check(id: partyID, live: live)
            guard let old = live else { throw PartyWriteError.notFound(id: partyID) }
            guard !old.isSettled else { throw PartyWriteError.settled(id: partyID) }
            guard old.departAt > t else { throw PartyWriteError.departed(id: partyID, departAt: old.departAt) }
            let riders = old.seatedRiders
            guard !riders.contains(where: { $0.id == rider.id }) else { throw PartyWriteError.alreadyJoined(id: partyID, riderID: rider.id) }
            guard old.seatsLeft >= rider.seats else {
                throw PartyWriteError.full(id: partyID, seatsLeft: old.seatsLeft, asked: rider.seats)
            }
            if let d = rider.dropOff, let reason = dropOffProblem?(old, d) {
                throw PartyWriteError.dropOffNotServed(id: partyID, riderID: rider.id, reason: reason)
            }
            var p = try placement?(old, rider) ?? old.joining(rider)
            p.version = old.version + 1
            try p.validate()
            guard try commit(p, replacing: old, at: t) else { return nil }
            return p
        }
    }

    /// Removes the rider `riderID` from the live party `partyID`, durably, and returns the party
    /// as stored. When the organiser leaves, the next rider becomes the organiser; when the last
    /// rider leaves, the party stays listed with no seat taken.
    /// Throws `PartyWriteError` (`notFound`, `riderNotFound`, `departed`, `versionMismatch`),
    /// `PartyStoreError` or `PartyStoreUnavailableError`.
    @discardableResult
    public func leave(partyID: String, riderID: String, precondition: PartyPrecondition = .none) throws -> Party {
        let t = now()
        return try writing(id: partyID) { _ in
            let old = read { $0.party(id: partyID) }
            try precondition.check(id: partyID, live: old)
            guard let old else { throw PartyWriteError.notFound(id: partyID) }
            guard !old.isSettled else { throw PartyWriteError.settled(id: partyID) }
            guard old.departAt > t else { throw PartyWriteError.departed(id: partyID, departAt: old.departAt) }
            var riders = old.seatedRiders
            guard let i = riders.firstIndex(where: { $0.id == riderID }) else { throw PartyWriteError.riderNotFound(id: partyID, riderID: riderID) }
            var p = old
            p.seatsTaken -= riders.remove(at: i).seats
            p.riders = riders
            p.stopOrder = old.stopOrder(carriedTo: p)
            p.version = old.version + 1
            guard try commit(p, replacing: old, at: t) else { return nil }
            return p
        }
    }

    /// Marks the live party `partyID` settled with `settlement`, durably (the party's own row, so
    /// every replica of a shared store sees it closed), when it is still `computedFrom` (the
    /// party the settlement was computed from; a settled party's answer is what it was given).
    /// Settling is allowed after departure, while the party is listed or, past its listing,
    /// within `options.settleWindow` of its departure (read from the store).
    ///
    /// Returns `.settled` with the party as stored; `.alreadySettled` with the live party when it
    /// was settled before (under any key: the caller compares keys); `.changed` with the live
    /// party when it changed since `computedFrom` (settle again from it). Throws
    /// `PartyWriteError.notFound`, `PartyValidationError`, `PartyStoreError` or
    /// `PartyStoreUnavailableError`.
    public func settle(partyID: String, computedFrom: Party, settlement: PartySettlement) throws -> PartySettleOutcome {
        try settlement.validate()
        let t = now()
        return try writing(id: partyID) { caughtUp in
            guard let old = try read({ $0.party(id: partyID) }) ?? kept(id: partyID, at: t) else {
                if store.isShared && !caughtUp { return nil }
                throw PartyWriteError.notFound(id: partyID)
            }
            if old.isSettled { return .alreadySettled(try store.party(id: partyID) ?? old) }
            guard old == computedFrom, old.version == computedFrom.version else {
                return store.isShared && !caughtUp ? nil : .changed(old)
            }
            var p = old
            p.settlement = settlement
            p.version = old.version + 1
            guard try commit(p, replacing: old, at: t) else { return nil }
            return .settled(p)
        }
    }

    /// Throws `PartyWriteError.quarantined` when the stored row of `id` was refused at load.
    private func requireNotQuarantined(_ id: String) throws {
        indexLock.lock()
        let refused = quarantined.contains(id)
        indexLock.unlock()
        if refused { throw PartyWriteError.quarantined(id: id) }
    }

    /// Runs a write decision under `writeLock` (a shared store: the lock of party `id`):
    /// `decide` reads the index, checks, and commits;
    /// it answers nil when the store found the party changed (a shared store: another replica
    /// wrote it), and is then run again after catching up with the store's change log. With a
    /// shared store, a refusal (`PartyWriteError`) or a "nothing to do" (`decide(false)` answering
    /// nil) is also only given against an index caught up first, so a replica answers as the
    /// store stands, not as its index last heard. `decide`'s argument: caught up already.
    private func writing<T>(id: String, _ decide: (_ caughtUp: Bool) throws -> T?) throws -> T {
        try requireLoaded()
        try requireNotQuarantined(id)
        let lock = store.isShared ? partyLocks[Int(UInt(bitPattern: id.hashValue) % UInt(partyLocks.count))] : writeLock
        lock.lock()
        defer { lock.unlock() }
        var caughtUp = false
        for _ in 0..<64 {
            do {
                if let answer = try decide(caughtUp) { return answer }
            } catch let refusal as PartyWriteError {
                guard store.isShared, !caughtUp else { throw refusal }
            }
            try catchUp()
            caughtUp = true
        }
        throw PartyStoreError(message: "\(store.location): the party kept changing under this write (64 tries); retry")
    }

    /// Stores `p` durably when the stored party is still `old` (nil: none live), then indexes
    /// it; false when the store found it changed (nothing written). Caller holds the write's lock.
    private func commit(_ p: Party, replacing old: Party?, at t: Double) throws -> Bool {
        try purgeIfDue(t)
        let write = PartyStoreWrite(.put(p), expected: old.map { .present($0) } ?? .absent(expiredBefore: t - options.grace))
        guard case .committed(let change) = try store.write(write) else { return false }
        applyOwn(change, id: p.id, party: p, at: t)
        return true
    }

    /// Puts this replica's own committed write (change number `change`, 0 without a change
    /// sequence) into the index in change order: at once when it is the next change; not at
    /// all when the follower already applied it (the index holds that state or a later one);
    /// when changes came in between (this replica's own, committed with it, or another's), after
    /// waiting up to 5 ms for them to be applied, then by catching up. Caller holds the write's lock.
    private func applyOwn(_ change: Int64, id: String, party: Party?, at t: Double) {
        indexLock.lock()
        let deadline = Date(timeIntervalSinceNow: 0.005)
        while change > appliedChange + 1 && indexLock.wait(until: deadline) {}
        if change == 0 || change == appliedChange + 1 {
            if change > 0 {
                appliedChange = change
                indexLock.broadcast()
            }
            expireDue(t)
            applyState(id: id, party: party, at: t)
            indexLock.unlock()
            return
        }
        let behind = change > appliedChange
        indexLock.unlock()
        // Committed already: a failed catch-up leaves the follower to bring the index along.
        if behind { try? catchUp() }
    }

    /// Reads the store's changes after the last one applied and applies them.
    private func catchUp() throws {
        guard store.isShared else { return }
        apply(try store.changes(after: currentChange))
    }

    /// Applies changes (from the follower or a catch-up) in order, skipping those applied.
    private func apply(_ batch: PartyChangeBatch) {
        let t = now()
        indexLock.lock()
        defer { indexLock.unlock() }
        switch batch {
        case .changes(let list):
            for c in list where c.change > appliedChange {
                applyState(id: c.id, party: c.party, at: t)
                appliedChange = c.change
            }
        case .snapshot(let s):
            guard s.change > appliedChange else { return }
            let live = s.parties.filter { $0.departAt + options.grace > t }
            index = PartyIndex(parties: live.map(Self.listingCopy), radius: options.radius)
            expiry = ExpiryQueue()
            for p in live { expiry.push(p.departAt + options.grace, p.id) }
            appliedChange = s.change
        }
        indexLock.broadcast()
        expireDue(t)
    }

    /// Puts `party` (nil: removed) into the index as the party `id`. Caller holds `indexLock`.
    private func applyState(id: String, party: Party?, at t: Double) {
        guard let p = party, p.departAt + options.grace > t else {
            index.remove(id: id)
            return
        }
        index.upsert(Self.listingCopy(p))
        expiry.push(p.departAt + options.grace, p.id)
        if expiry.count > 2 * index.count + 1024 {
            // Replacements leave stale entries behind; rebuild from the live parties.
            expiry = ExpiryQueue()
            for p in index.allParties { expiry.push(p.departAt + options.grace, p.id) }
        }
    }

    /// Deletes the party `id` durably; false when no live party has that id.
    @discardableResult
    public func delete(id: String) throws -> Bool {
        try delete(id: id, precondition: .none)
    }

    /// Deletes the party `id` durably when `precondition` holds; false when no live party has
    /// that id (and the precondition asks nothing of it). Throws `PartyWriteError.versionMismatch`,
    /// `PartyStoreError` or `PartyStoreUnavailableError`.
    @discardableResult
    public func delete(id: String, precondition: PartyPrecondition) throws -> Bool {
        let t = now()
        return try writing(id: id) { caughtUp in
            try purgeIfDue(t)
            let live = read { $0.party(id: id) }
            try precondition.check(id: id, live: live)
            guard let live else { return store.isShared && !caughtUp ? nil : false }
            // The listing's copy of a settled party lacks its answer: the store compares the whole row.
            let expected = live.isSettled ? try store.party(id: id) ?? live : live
            guard case .committed(let change) = try store.write(PartyStoreWrite(.delete(id: id), expected: .present(expected))) else { return nil }
            applyOwn(change, id: id, party: nil, at: t)
            return true
        }
    }

    /// Deletes expired parties from the store now (the index drops them on its own).
    /// Returns how many rows went.
    @discardableResult
    public func purgeExpired() throws -> Int {
        let t = now()
        purgeLock.lock()
        lastPurge = t
        purgeLock.unlock()
        return try store.purge(departingAtOrBefore: t - options.keptSeconds(settled: false), settledDepartingAtOrBefore: t - options.keptSeconds(settled: true))
    }

    /// The live party `id`, as listed: a settled party's settlement without its answer
    /// (`listingCopy`; `kept(id:)` reads it).
    public func party(id: String) -> Party? { read { $0.party(id: id) } }

    /// The party `id` while it is kept, with its settlement's answer: listed (the live party),
    /// or past its listing and within its settle window (unsettled) or its retention (settled).
    /// A settled party, and one past its listing, is read from the store.
    /// Throws `PartyStoreError` or `PartyStoreUnavailableError`.
    public func kept(id: String) throws -> Party? {
        let t = now()
        if let live = read({ $0.party(id: id) }), !live.isSettled { return live }
        try requireLoaded()
        // A row refused at load is not read back (it answers as missing until `recover`).
        indexLock.lock()
        let refused = quarantined.contains(id)
        indexLock.unlock()
        if refused { return nil }
        return try kept(id: id, at: t)
    }

    /// The copy of `p` the listing holds in memory: a settlement's record (the settled ride with
    /// its matched route, megabytes for a long trace) stays in the store, only its key is kept.
    static func listingCopy(_ p: Party) -> Party {
        guard let s = p.settlement else { return p }
        var copy = p
        copy.settlement = PartySettlement(key: s.key, record: nil)
        return copy
    }

    /// The stored party `id` when it is kept at `t` (see `kept(id:)`), not looking at the index.
    private func kept(id: String, at t: Double) throws -> Party? {
        guard let p = try store.party(id: id), p.departAt + options.keptSeconds(settled: p.isSettled) > t else { return nil }
        return p
    }

    /// Clusters and lone parties in view; see `PartyIndex.clusters(in:zoom:filter:)`.
    public func clusters(in box: BoundingBox, zoom: Int, filter: PartyFilter = PartyFilter()) -> [ClusterFeature] {
        read { $0.clusters(in: box, zoom: zoom, filter: filter, scratch: &scratch) }
    }

    /// The features one zoom deeper; see `PartyIndex.children(of:filter:)`.
    public func children(of id: ClusterID, filter: PartyFilter = PartyFilter()) -> [ClusterFeature]? {
        read { $0.children(of: id, filter: filter) }
    }

    /// The cluster starting at a cell; see `PartyIndex.cluster(zoom:leastCell:filter:)`.
    public func cluster(zoom: Int, leastCell cell: ClusterID.Cell, filter: PartyFilter = PartyFilter()) -> Cluster? {
        read { $0.cluster(zoom: zoom, leastCell: cell, filter: filter) }
    }

    /// A cluster's parties; see `PartyIndex.leaves(of:filter:limit:offset:)`.
    public func leaves(of id: ClusterID, filter: PartyFilter = PartyFilter(), limit: Int, offset: Int) -> (total: Int, parties: [Party])? {
        read { $0.leaves(of: id, filter: filter, limit: limit, offset: offset) }
    }

    /// Parties near a point; see `PartyIndex.nearby(_:radiusMeters:filter:limit:after:)`.
    public func nearby(_ center: Coordinate, radiusMeters: Double, filter: PartyFilter = PartyFilter(),
                       limit: Int, after cursor: NearbyCursor? = nil) -> (parties: [NearbyParty], next: NearbyCursor?)
    {
        read { $0.nearby(center, radiusMeters: radiusMeters, filter: filter, limit: limit, after: cursor) }
    }

    /// Runs `body` on the index under its lock, after dropping expired parties.
    private func read<T>(_ body: (PartyIndex) -> T) -> T {
        let t = now()
        indexLock.lock()
        defer { indexLock.unlock() }
        expireDue(t)
        return body(index)
    }

    /// Drops from the index every party whose expiry is at or before `t`. Caller holds `indexLock`.
    private func expireDue(_ t: Double) {
        while let top = expiry.peek, top.at <= t {
            expiry.pop()
            // Entries of replaced or deleted parties are stale: act only on a current one.
            if let p = index.party(id: top.id), p.departAt + options.grace == top.at { index.remove(id: top.id) }
        }
    }

    /// Purges the store when the last purge is `purgeInterval` old (one writer does it).
    private func purgeIfDue(_ t: Double) throws {
        purgeLock.lock()
        let due = t - lastPurge >= options.purgeInterval
        if due { lastPurge = t }
        purgeLock.unlock()
        guard due else { return }
        _ = try store.purge(departingAtOrBefore: t - options.keptSeconds(settled: false), settledDepartingAtOrBefore: t - options.keptSeconds(settled: true))
    }
}

/// A min-heap of (expiry instant, party id).
struct ExpiryQueue {
    private var heap: [(at: Double, id: String)] = []

    var count: Int { heap.count }
    var peek: (at: Double, id: String)? { heap.first }

    mutating func push(_ at: Double, _ id: String) {
        heap.append((at, id))
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard heap[i].at < heap[parent].at else { break }
            heap.swapAt(i, parent)
            i = parent
        }
    }

    mutating func pop() {
        guard !heap.isEmpty else { return }
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < heap.count && heap[l].at < heap[m].at { m = l }
            if r < heap.count && heap[r].at < heap[m].at { m = r }
            guard m != i else { return }
            heap.swapAt(i, m)
            i = m
        }
    }
}

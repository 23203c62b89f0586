import Fares
import MapMatching
import Parties
import PartyModel
import PartyStores

/// A request to settle a party: the party, the idempotency key, the settlement's input and what
/// the request read (recorded with the settlement, so a replay reports the first reading).
public struct SettleRequest: Sendable {
    public var partyID: String
    /// The key the settlement is made under (the client's, or one made from the trace).
    public var key: String
    /// The key an earlier build made for the same request (nil when the client gave a key): a
    /// party settled under it is replayed as if settled under `key`.
    public var earlierKey: String?
    public var input: SettleInput
    /// The request's members in its order, and where its key came from (`SettledRide.Reading`).
    public var members: [String]
    public var keyFrom: String

    public init(partyID: String, key: String, earlierKey: String? = nil, input: SettleInput, members: [String], keyFrom: String) {
        (self.partyID, self.key, self.earlierKey, self.input, self.members, self.keyFrom) = (partyID, key, earlierKey, input, members, keyFrom)
    }
}

/// A settlement given: made now, or replayed from the party's row.
public struct SettleResult: Sendable, Equatable {
    public let partyID: String
    /// What was settled (the ride's values, or an earlier build's answer text).
    public let record: PartySettlement.Record
    /// True when the party was settled before (by this request's key) and this is that settlement.
    public let replayed: Bool
}

/// Why a party was not settled.
public enum PartySettleError: Error, Sendable, CustomStringConvertible {
    /// Settled before under another key.
    case settledUnderAnotherKey(partyID: String)
    /// The party changed (riders joined or left) every time between computing its settlement and
    /// storing it (`PartySettler.attempts` times).
    case keptChanging(partyID: String)
    /// The trace or the input cannot be settled.
    case settlement(SettlementError)
    /// The party service refused or failed: the party is not kept (`PartyWriteError.notFound`),
    /// quarantined, or the store cannot be reached or write.
    case party(any Error)

    public var description: String {
        switch self {
        case .settledUnderAnotherKey(let id): "party '\(id)' was settled under another idempotency key"
        case .keptChanging(let id): "party '\(id)' kept changing while it was being settled; retry"
        case .settlement(let e): e.description
        case .party(let e): "\(e)"
        }
    }
}

/// Settles a kept party once (issue 38): computes the settlement from the party as stored
/// (`Settler`), then stores it only if the party is still that party (compare and settle), and
/// computes again from the party as it now is when it changed meanwhile (a rider joined), at
/// most `attempts` times. A party settled before answers the same key with what was settled
/// (on every replica: the settlement is in the party's row) and another key with
/// `settledUnderAnotherKey`.
public struct PartySettler: Sendable {
    /// Settlements computed for one request at most, the party changing between each.
    public static let attempts = 3
    public let parties: PartyService
    public let settler: Settler
    /// Test hook: called after a settlement was computed, before it is stored (the attempt's
    /// number from 0), to change the party in between.
    package var beforeStoring: (@Sendable (Int) -> Void)?

    public init(parties: PartyService, pricer: RidePricer) {
        self.parties = parties
        settler = Settler(pricer: pricer)
    }

    public func settle(_ request: SettleRequest) throws(PartySettleError) -> SettleResult {
        let id = request.partyID
        for attempt in 0..<Self.attempts {
            // Listed, or past its listing while within the settle window (unsettled) or the retention (settled).
            guard let party = try call({ try parties.kept(id: id) }) else { throw .party(PartyWriteError.notFound(id: id)) }
            if let done = party.settlement { return try replay(done, request) }
            let computed: Settlement
            do throws(SettlementError) { computed = try settler.settle(party, request.input) } catch { throw .settlement(error) }
            let ride = SettledRide(computed, trace: request.input.trace, members: request.members, keyFrom: request.keyFrom)
            beforeStoring?(attempt)
            let outcome = try call { try parties.settle(partyID: id, computedFrom: party, settlement: PartySettlement(key: request.key, record: .ride(ride))) }
            switch outcome {
            case .settled: return SettleResult(partyID: id, record: .ride(ride), replayed: false)
            case .alreadySettled(let live): if let done = live.settlement { return try replay(done, request) }
            case .changed: continue
            }
        }
        throw .keptChanging(partyID: id)
    }

    /// What `done` settled, when it was settled under the request's key.
    func replay(_ done: PartySettlement, _ request: SettleRequest) throws(PartySettleError) -> SettleResult {
        guard done.key == request.key || done.key == request.earlierKey else { throw .settledUnderAnotherKey(partyID: request.partyID) }
        // The listing's copy holds no record; a kept settled party is read from the store with it.
        guard let record = done.record else { throw .party(PartyStoreError(message: "party '\(request.partyID)': its settlement was not read from the store")) }
        return SettleResult(partyID: request.partyID, record: record, replayed: true)
    }

    private func call<T>(_ body: () throws -> T) throws(PartySettleError) -> T {
        do { return try body() } catch { throw .party(error) }
    }
}

extension SettledRide {
    /// The values of `s`, settled from `trace` by a request with `members` whose key came from `keyFrom`.
    public init(_ s: Settlement, trace: [TraceFix], members: [String], keyFrom: String) {
        let f = s.fare
        self.init(
            reading: Reading(fixCount: trace.count, firstTime: trace.first?.time, lastTime: trace.last?.time, members: members, keyFrom: keyFrom,
                             outlierFixes: s.reading.outliers),
            distanceMeters: s.distanceMeters, durationSeconds: s.durationSeconds, region: s.region, split: s.split.rawValue,
            fare: Fare(scheduleID: f.scheduleID, totalKrw: f.totalKrw, baseKrw: f.baseKrw, distanceKrw: f.distanceKrw, timeKrw: f.timeKrw,
                       nightKrw: f.nightKrw, outOfCityKrw: f.outOfCityKrw, roundingKrw: f.roundingKrw, legKrw: f.legKrw),
            riders: s.riders.map { Rider(id: $0.id, seats: $0.seats, stop: $0.stop, fix: $0.fixIndex, dropOff: $0.location,
                                         meteredKrw: $0.meteredKrw, settledKrw: $0.settledKrw) },
            meterTotalKrw: s.meterTotalKrw, differenceKrw: s.differenceKrw,
            matchings: s.match.matchings.map { m in
                Matching(distanceMeters: m.distanceMeters, durationSeconds: m.durationSeconds, confidence: m.confidence, fixes: m.fixIndices,
                         geometry: m.geometry, legs: m.legs.map { Matching.Leg(distanceMeters: $0.distanceMeters, durationSeconds: $0.durationSeconds) })
            },
            tracepoints: s.match.fixes.map { fix in
                switch fix {
                case .success(let m): .matched(location: m.location, distanceMeters: m.distanceMeters, matching: m.matchingIndex, waypoint: m.waypointIndex)
                case .failure(let u): .unmatched(reason: u.reason.rawValue)
                }
            })
    }
}

import Foundation

/// Why a nearby open party was left out of an offer request's answer (`/metrics`:
/// `taxipot_match_candidates_dropped_total{reason}`).
public enum DroppedCandidate: String, Error, Sendable, CaseIterable {
    /// The asking rider is already one of the party's riders.
    case alreadyInParty = "already_in_party"
    /// The party's own ride has no road route (a stop off the roads, or no road joins them).
    case noRide = "no_ride"
    /// No position has a road route to and from the rider's stop.
    case noRouteToStop = "no_route_to_stop"
    /// Every position grows the party's ride by more than `max_detour_pct`.
    case partyDetour = "party_detour"
    /// Every position within the ride's limit delays a rider aboard by more than `max_detour_pct`
    /// of their own arrival time.
    case riderDelay = "rider_delay"
    /// The ride with the rider in it could not be routed or priced.
    case noPrice = "no_price"
    /// The party's fare was settled: it takes no more riders.
    case settled = "settled"
}

/// Counts of dropped candidates by reason since the engine started.
public final class DroppedCandidateCounts: @unchecked Sendable {
    private let lock = NSLock()
    private var counts = [UInt64](repeating: 0, count: DroppedCandidate.allCases.count)

    init() {}

    /// Adds one request's counts (indexed as `DroppedCandidate.allCases`).
    func add(_ local: [Int]) {
        guard local.contains(where: { $0 > 0 }) else { return }
        lock.lock()
        defer { lock.unlock() }
        for (i, n) in local.enumerated() { counts[i] += UInt64(n) }
    }

    /// The count of each reason.
    public var byReason: [DroppedCandidate: UInt64] {
        lock.lock()
        defer { lock.unlock() }
        return Dictionary(uniqueKeysWithValues: zip(DroppedCandidate.allCases, counts))
    }

    /// `taxipot_match_candidates_dropped_total{reason}` as Prometheus text, every reason listed.
    public func prometheusText() -> String {
        let counts = byReason
        var s = "# HELP taxipot_match_candidates_dropped_total Nearby open parties left out of /v1/match answers, by reason.\n"
        s += "# TYPE taxipot_match_candidates_dropped_total counter\n"
        for r in DroppedCandidate.allCases { s += "taxipot_match_candidates_dropped_total{reason=\"\(r.rawValue)\"} \(counts[r] ?? 0)\n" }
        return s
    }
}

import Engine
import FareEstimation
import Fares
import Foundation
import Geo
import Parties
import Routing

/// A party's own ride, planned: its drop-offs in the order that makes it shortest in time,
/// and each leg's duration and distance.
public struct RidePlan: Sendable {
    /// Drop-off order: indices 1…k into `Party.intermediateDropOffs`.
    public var order: [Int]
    /// The drop-offs in that order, then the destination.
    public var stops: [Coordinate]
    /// Leg i runs from the origin (i = 0) or `stops[i-1]` to `stops[i]`.
    public var legs: [TravelCell]

    public var duration: Double { legs.reduce(0) { $0 + $1.duration } }
    public var distance: Double { legs.reduce(0) { $0 + $1.distance } }
}

/// A party's planned ride with what matching keeps beside it until the party changes: its
/// points made ready for insertion legs, and (once first priced) its own route and fare schedule.
public final class PlannedRide: @unchecked Sendable {
    public let plan: RidePlan
    /// The origin then `plan.stops`, prepared by the planner's `TravelTimes`.
    public let prepared: PreparedRide
    private let lock = NSLock()
    private var routed: Result<RoutedRide, FareRequestError>?

    init(plan: RidePlan, prepared: PreparedRide) {
        self.plan = plan
        self.prepared = prepared
    }

    /// The ride's own route (through `prepared`'s points), fare region and schedule, computed by
    /// `make` on first use and kept.
    func routed(_ make: () -> Result<RoutedRide, FareRequestError>) -> Result<RoutedRide, FareRequestError> {
        lock.lock()
        defer { lock.unlock() }
        if let routed { return routed }
        let r = make()
        routed = r
        return r
    }

    /// The origin and the stops snapped, when the seam snapped them all.
    var snappedPoints: [SnappedPoint]? {
        guard let s = prepared.snapped else { return nil }
        let points = s.compactMap { $0 }
        return points.count == s.count && points.count >= 2 ? points : nil
    }

    /// Memory held, about, with an allowance for the ride's own route once priced (its
    /// segments: about one per 40 m of road).
    var bytes: Int { 256 + plan.stops.count * 48 + prepared.bytes + Int(plan.distance / 40) * MemoryLayout<RouteSegment>.stride }
}

/// A ride's own route (what the meter needs of it: no geometry) with its metering context.
struct RoutedRide {
    var segments: [RouteSegment]
    /// Per leg, the range of `segments` that belongs to it, and its length.
    var legRanges: [Range<Int>]
    var legMeters: [Double]
    var region: String
    var schedule: FareSchedule
    /// What the meter adds on each leg (`FareBreakdown.legKrw`, one per leg).
    var legKrw: [Int]
}

/// Plans party rides over a `TravelTimes` table, keeping each plan (and its prepared points)
/// until the party changes: entries are keyed by the party's content and departure hour, and
/// kept in two generations within a memory budget (`cacheBytes`): when the newer is full the
/// older is dropped, and an entry found in the older moves to the newer.
public final class RidePlanner: @unchecked Sendable {
    public let times: any TravelTimes
    private let lock = NSLock()
    private var current: [Key: PlannedRide?] = [:]
    private var previous: [Key: PlannedRide?] = [:]
    private var currentBytes = 0
    /// Memory for kept plans: 256 MiB by default (about 8 KB a plan: 10,000 central-Seoul parties
    /// take about 80 MB, with the allowance for their own routes once priced).
    public let cacheBytes: Int
    public static let defaultCacheBytes = 256 << 20

    private struct Key: Hashable {
        let party: Party
        let hour: Int
    }

    public init(times: any TravelTimes, cacheBytes: Int = RidePlanner.defaultCacheBytes) {
        self.times = times
        self.cacheBytes = max(1 << 20, cacheBytes)
    }

    /// Memory held by the plans kept now, about (both generations; see `PlannedRide.bytes`).
    public var keptBytes: Int {
        lock.lock()
        defer { lock.unlock() }
        return (Array(current.values) + Array(previous.values)).reduce(0) { $0 + ($1?.bytes ?? 128) }
    }

    /// Plans kept now (both generations).
    public var keptCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return current.count + previous.count
    }

    /// The plan of `party`'s ride (exact order for up to `StopOrder.exactLimit` drop-offs); nil
    /// when some stop cannot be reached by road (or lies off the road graph).
    public func plan(_ party: Party) -> RidePlan? { planned(party)?.plan }

    /// The plan of `party`'s ride with its prepared points (see `plan`).
    public func planned(_ party: Party) -> PlannedRide? {
        let key = Key(party: party, hour: SeoulTime.hour(party.departAt))
        lock.lock()
        if let hit = current[key] {
            lock.unlock()
            return hit
        }
        if let hit = previous.removeValue(forKey: key) {
            store(key, hit)
            lock.unlock()
            return hit
        }
        lock.unlock()
        let planned = compute(party).map { PlannedRide(plan: $0, prepared: times.prepareRide([party.origin] + $0.stops, departAt: party.departAt)) }
        lock.lock()
        store(key, planned)
        lock.unlock()
        return planned
    }

    /// Puts an entry in the newer generation (the lock held).
    private func store(_ key: Key, _ value: PlannedRide?) {
        if current.updateValue(value, forKey: key) == nil { currentBytes += value?.bytes ?? 128 }
        if currentBytes > cacheBytes / 2 {
            previous = current
            current = [:]
            currentBytes = 0
        }
    }

    private func compute(_ party: Party) -> RidePlan? {
        let drops = party.intermediateDropOffs
        let points = [party.origin] + drops + [party.destination]
        if drops.isEmpty {
            guard let cell = times.table(sources: [party.origin], destinations: [party.destination], departAt: party.departAt)[0][0] else { return nil }
            return RidePlan(order: [], stops: [party.destination], legs: [cell])
        }
        // Rows: the origin and the drop-offs; columns: the drop-offs and the destination.
        let rows = Array(points.dropLast()), cols = Array(points.dropFirst())
        let t = times.table(sources: rows, destinations: cols, departAt: party.departAt)
        let n = points.count
        var cost = [[Double?]](repeating: [Double?](repeating: nil, count: n), count: n)
        for i in 0..<(n - 1) {
            for j in 1..<n where i != j { cost[i][j] = t[i][j - 1]?.duration }
        }
        guard let best = StopOrder.best(cost) else { return nil }
        var legs: [TravelCell] = []
        var prev = 0
        for s in best.order + [n - 1] {
            guard let cell = t[prev][s - 1] else { return nil }
            legs.append(cell)
            prev = s
        }
        return RidePlan(order: best.order, stops: best.order.map { points[$0] } + [party.destination], legs: legs)
    }
}

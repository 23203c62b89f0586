import PartyModel
import Quoting
import FareEstimation
import Fares
import Foundation
import Geo
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

    /// Seconds from the departure to each stop (`arrivals[i]`: at `stops[i]`), summed in whole
    /// milliseconds (the unit route durations carry), so no summing order changes them.
    public var arrivals: [Double] {
        var ms = 0
        return legs.map { ms += Int(($0.duration * 1000).rounded()); return Double(ms) / 1000 }
    }
}

/// A party's planned ride with what offering keeps beside it until the party's ride changes:
/// its points made ready for insertion legs, and (once first priced) its own route and fare
/// schedule.
public final class PlannedRide: @unchecked Sendable {
    public let plan: RidePlan
    /// The origin then `plan.stops`, prepared by the planner's `TravelTimes`.
    public let prepared: PreparedRide
    /// The origin and the stops snapped, when the seam snapped them all (see `prepared`).
    let snappedPoints: [SnappedPoint]?
    private let lock = NSLock()
    private var routed: Result<RoutedRide, FareRequestError>?

    init(plan: RidePlan, prepared: PreparedRide) {
        self.plan = plan
        self.prepared = prepared
        snappedPoints = prepared.snapped.flatMap { s in
            let points = s.compactMap { $0 }
            return points.count == s.count && points.count >= 2 ? points : nil
        }
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

    /// Memory held, about, with an allowance for the ride's own route once priced (its
    /// segments: about one per 40 m of road).
    var bytes: Int { 256 + plan.stops.count * 48 + prepared.bytes + Int(plan.distance / 40) * MemoryLayout<RouteSegment>.stride }
}

/// A ride's own route (what the meter needs of it: no geometry) with its metering context;
/// a class, so handing it out of its plan's lock copies one reference, not its arrays.
final class RoutedRide: Sendable {
    let segments: [RouteSegment]
    /// Per leg, the range of `segments` that belongs to it, and its length.
    let legRanges: [Range<Int>]
    let legMeters: [Double]
    /// The ride's meter (its region and schedule).
    let meter: RideMeter
    /// What the meter adds on each leg (`FareBreakdown.legKrw`, one per leg), and its total.
    let legKrw: [Int]
    let totalKrw: Int

    init(segments: [RouteSegment], legRanges: [Range<Int>], legMeters: [Double], meter: RideMeter, legKrw: [Int],
         totalKrw: Int) {
        self.segments = segments
        self.legRanges = legRanges
        self.legMeters = legMeters
        self.meter = meter
        self.legKrw = legKrw
        self.totalKrw = totalKrw
    }
}

/// What a party's ride plan depends on, and nothing else: its origin, its distinct drop-offs
/// before the destination (in rider order: `Party.intermediateDropOffs`), the order the joins
/// fixed (`Party.stopOrder`), its destination and its departure instant. Riders' ids and seats, the title and the version are left out, so a
/// join or leave without a drop-off of its own keeps the party's plan; a change of any point or
/// of the departure is another shape, planned anew.
struct RideShape: Hashable {
    let origin: Coordinate
    let dropOffs: [Coordinate]
    let order: [Int]?
    let destination: Coordinate
    let departAt: Double

    init(_ party: Party) {
        origin = party.origin
        dropOffs = party.intermediateDropOffs
        order = party.stopOrder
        destination = party.destination
        departAt = party.departAt
    }
}

/// Plans party rides over a `TravelTimes` table, keeping each plan (and its prepared points,
/// and its own route once priced) while parties of that ride shape are offered: entries are
/// keyed by the ride's shape (`RideShape`: points and departure, not riders), so a value key
/// can never be stale (a changed party is another key; an entry nobody asks for ages out).
///
/// The entries are spread over `shardCount` shards by the key's hash, each under its own lock
/// and kept in two generations within its part of the memory budget (`cacheBytes`): when the
/// newer is full the older is dropped, and an entry found in the older moves to the newer.
public final class RidePlanner: @unchecked Sendable {
    public let times: any TravelTimes
    /// Memory for kept plans: 256 MiB by default (about 8 KB a plan: 10,000 central-Seoul parties
    /// take about 80 MB, with the allowance for their own routes once priced).
    public let cacheBytes: Int
    public static let defaultCacheBytes = 256 << 20
    /// Shards of the plan cache (a power of two): concurrent offer requests rarely wait on one lock.
    static let shardCount = 16
    private let shards: [Shard]

    /// One shard: two generations of entries under one lock.
    private final class Shard: @unchecked Sendable {
        let lock = NSLock()
        var current: [RideShape: PlannedRide?] = [:]
        var previous: [RideShape: PlannedRide?] = [:]
        var currentBytes = 0
        let budget: Int

        init(budget: Int) { self.budget = budget }

        /// The entry of `key`, moving it to the newer generation when found in the older;
        /// `.none` when neither holds it.
        func find(_ key: RideShape) -> PlannedRide?? {
            lock.lock()
            defer { lock.unlock() }
            if let hit = current[key] { return .some(hit) }
            if let hit = previous.removeValue(forKey: key) {
                store(key, hit)
                return .some(hit)
            }
            return .none
        }

        func put(_ key: RideShape, _ value: PlannedRide?) {
            lock.lock()
            defer { lock.unlock() }
            store(key, value)
        }

        /// Puts an entry in the newer generation (the lock held).
        private func store(_ key: RideShape, _ value: PlannedRide?) {
            if current.updateValue(value, forKey: key) == nil { currentBytes += value?.bytes ?? 128 }
            if currentBytes > budget / 2 {
                previous = current
                current = [:]
                currentBytes = 0
            }
        }

        var entries: [PlannedRide?] {
            lock.lock()
            defer { lock.unlock() }
            return Array(current.values) + Array(previous.values)
        }
    }

    public init(times: any TravelTimes, cacheBytes: Int = RidePlanner.defaultCacheBytes) {
        self.times = times
        self.cacheBytes = max(1 << 20, cacheBytes)
        let budget = self.cacheBytes / Self.shardCount
        shards = (0..<Self.shardCount).map { _ in Shard(budget: budget) }
    }

    /// Memory held by the plans kept now, about (both generations; see `PlannedRide.bytes`).
    public var keptBytes: Int {
        shards.reduce(0) { sum, shard in shard.entries.reduce(sum) { $0 + ($1?.bytes ?? 128) } }
    }

    /// Plans kept now (both generations).
    public var keptCount: Int { shards.reduce(0) { $0 + $1.entries.count } }

    /// The plan of `party`'s ride: in the order the joins fixed (`Party.stopOrder`), else the
    /// shortest in time (exact for up to `StopOrder.exactLimit` drop-offs); nil when some stop
    /// cannot be reached by road (or lies off the road graph).
    public func plan(_ party: Party) -> RidePlan? { planned(party)?.plan }

    /// The plan of `party`'s ride with its prepared points (see `plan`): the kept one of its
    /// ride shape, else made now and kept.
    public func planned(_ party: Party) -> PlannedRide? {
        let key = RideShape(party)
        let shard = shards[key.hashValue & (Self.shardCount - 1)]
        if let hit = shard.find(key) { return hit }
        let planned = compute(party).map { PlannedRide(plan: $0, prepared: times.prepareRide([party.origin] + $0.stops, departAt: party.departAt)) }
        shard.put(key, planned)
        return planned
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
        let order: [Int]
        if let stored = party.stopOrder, stored.sorted() == Array(1...drops.count) {
            order = stored
        } else {
            guard let best = StopOrder.best(cost) else { return nil }
            order = best.order
        }
        var legs: [TravelCell] = []
        var prev = 0
        for s in order + [n - 1] {
            guard let cell = t[prev][s - 1] else { return nil }
            legs.append(cell)
            prev = s
        }
        return RidePlan(order: order, stops: order.map { points[$0] } + [party.destination], legs: legs)
    }
}

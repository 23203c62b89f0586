import Foundation
import Geo
import Parties

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

/// Plans party rides over a `TravelTimes` table, keeping each plan until the party changes
/// (plans are keyed by the party's content and the departure hour).
public final class RidePlanner: @unchecked Sendable {
    public let times: any TravelTimes
    private let lock = NSLock()
    private var cache: [Key: RidePlan?] = [:]
    /// Plans kept at most; past it the cache is emptied.
    public static let cacheLimit = 200_000

    private struct Key: Hashable {
        let party: Party
        let hour: Int
    }

    public init(times: any TravelTimes) { self.times = times }

    /// The plan of `party`'s ride (exact order for up to `StopOrder.exactLimit` drop-offs); nil
    /// when some stop cannot be reached by road (or lies off the road graph).
    public func plan(_ party: Party) -> RidePlan? {
        let key = Key(party: party, hour: SeoulTime.hour(party.departAt))
        lock.lock()
        if let hit = cache[key] {
            lock.unlock()
            return hit
        }
        lock.unlock()
        let plan = compute(party)
        lock.lock()
        if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
        cache[key] = plan
        lock.unlock()
        return plan
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

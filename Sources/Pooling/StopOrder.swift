/// The order of a ride's drop-offs that makes it shortest in time.
///
/// The ride starts at point 0 (the origin), visits points 1…k (the drop-offs) in some order
/// and ends at point k+1 (the destination). Exact (dynamic programming over subsets, k²·2^k
/// steps) for up to `exactLimit` drop-offs; beyond that, cheapest insertion in the given order
/// followed by moving single stops while that shortens the ride.
///
/// Ties: durations are compared in whole milliseconds (the unit routes carry), summed as
/// integers, so the order the search adds them in cannot split a tie; among orders of equal
/// time the exact search answers the first in lexicographic order of the drop-off indices
/// (the drop-offs numbered in rider order: on a tie, the earlier-listed rider's drop-off comes
/// first).
public enum StopOrder {
    /// The most drop-offs ordered exactly (10: about 100,000 steps).
    public static let exactLimit = 10

    /// The drop-off order (indices 1…k) and its total duration; nil when no order has a route
    /// for every leg. `cost[i][j]` is the duration from point i to point j (nil: no route).
    public static func best(_ cost: [[Double?]]) -> (order: [Int], total: Double)? {
        let n = cost.count
        precondition(n >= 2 && cost.allSatisfy { $0.count == n })
        let k = n - 2
        let end = n - 1
        func c(_ i: Int, _ j: Int) -> Double { cost[i][j] ?? .infinity }
        if k == 0 { return cost[0][end].map { ([], $0) } }
        if k <= exactLimit {
            // Whole milliseconds; `none` for a missing leg (far above any sum of real ones).
            let none = Int.max / 4
            func ms(_ i: Int, _ j: Int) -> Int { cost[i][j].map { Int(($0 * 1000).rounded()) } ?? none }
            // rest[mask * k + i]: the least time from drop-off i (the last of those in `mask`
            // visited) through the drop-offs not in `mask` to the destination.
            let full = (1 << k) - 1
            var rest = [Int](repeating: none, count: (full + 1) * k)
            for i in 0..<k { rest[full * k + i] = ms(i + 1, end) }
            if full > 1 {
                for mask in stride(from: full - 1, through: 1, by: -1) {
                    for i in 0..<k where mask & (1 << i) != 0 {
                        var best = none
                        for next in 0..<k where mask & (1 << next) == 0 {
                            let leg = ms(i + 1, next + 1), after = rest[(mask | (1 << next)) * k + next]
                            if leg < none && after < none { best = min(best, leg + after) }
                        }
                        rest[mask * k + i] = best
                    }
                }
            }
            func via(_ from: Int, _ mask: Int, _ next: Int) -> Int {
                let leg = ms(from, next + 1), after = rest[(mask | (1 << next)) * k + next]
                return leg < none && after < none ? leg + after : none
            }
            var total = none
            for first in 0..<k { total = min(total, via(0, 0, first)) }
            guard total < none else { return nil }
            // The first order of equal time: from each point, the lowest drop-off that keeps it.
            var order: [Int] = []
            var mask = 0, at = 0, left = total
            while mask != full {
                let next = (0..<k).first { mask & (1 << $0) == 0 && via(at, mask, $0) == left }!
                left -= ms(at, next + 1)
                mask |= 1 << next
                at = next + 1
                order.append(at)
            }
            return (order, Double(total) / 1000)
        }
        // Cheapest insertion, then single-stop moves while they shorten the ride.
        func total(_ o: [Int]) -> Double {
            var t = 0.0, prev = 0
            for s in o { t += c(prev, s); prev = s }
            return t + c(prev, end)
        }
        var order: [Int] = []
        for s in 1...k {
            var bestAt = 0, bestT = Double.infinity
            for at in 0...order.count {
                var o = order
                o.insert(s, at: at)
                let t = total(o)
                if t < bestT { bestT = t; bestAt = at }
            }
            order.insert(s, at: bestAt)
        }
        var current = total(order)
        var improved = true
        while improved {
            improved = false
            for i in 0..<k {
                for j in 0..<k where j != i {
                    var o = order
                    let s = o.remove(at: i)
                    o.insert(s, at: j)
                    let t = total(o)
                    if t + 1e-9 < current { order = o; current = t; improved = true }
                }
            }
        }
        return current.isFinite ? (order, current) : nil
    }
}

/// The order of a ride's drop-offs that makes it shortest in time.
///
/// The ride starts at point 0 (the origin), visits points 1…k (the drop-offs) in some order
/// and ends at point k+1 (the destination). Exact (Held–Karp dynamic programming over subsets,
/// k²·2^k steps) for up to `exactLimit` drop-offs; beyond that, cheapest insertion in the
/// given order followed by moving single stops while that shortens the ride.
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
            let full = (1 << k) - 1
            var dp = [Double](repeating: .infinity, count: (full + 1) * k)
            var from = [Int8](repeating: -1, count: (full + 1) * k)
            for i in 0..<k { dp[(1 << i) * k + i] = c(0, i + 1) }
            for mask in 1...full {
                for last in 0..<k where mask & (1 << last) != 0 {
                    let here = dp[mask * k + last]
                    guard here.isFinite else { continue }
                    for next in 0..<k where mask & (1 << next) == 0 {
                        let m = mask | (1 << next)
                        let v = here + c(last + 1, next + 1)
                        if v < dp[m * k + next] {
                            dp[m * k + next] = v
                            from[m * k + next] = Int8(last)
                        }
                    }
                }
            }
            var bestLast = -1
            var best = Double.infinity
            for last in 0..<k {
                let v = dp[full * k + last] + c(last + 1, end)
                if v < best { best = v; bestLast = last }
            }
            guard best.isFinite else { return nil }
            var order: [Int] = []
            var mask = full, last = bestLast
            while last >= 0 {
                order.append(last + 1)
                let prev = Int(from[mask * k + last])
                mask &= ~(1 << last)
                last = prev
            }
            return (order.reversed(), best)
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

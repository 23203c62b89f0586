import Foundation
import Geo
import Routing

/// A probe into the hierarchy query for `taxipot-bench` (the CH query alone, without snapping
/// or route assembly), through Routing's `package` probe `hierarchyNodeQuery`.
enum RoutingBenchmark {
    /// The hierarchy query alone (no snapping, no route assembly) between `count` random node
    /// pairs at `hour`, timed over `rounds` passes after a warm-up: per-round p50 (µs) and mean
    /// nodes settled; nil when the graph's hierarchy does not cover the hour.
    static func hierarchyQueryTimes(_ engine: RouteEngine, count: Int, seed: UInt64, hour: Int, rounds: Int) -> (p50: [Double], settled: Double)? {
        guard let query = engine.hierarchyNodeQuery(hour: hour) else { return nil }
        let g = engine.graph
        var rng = SplitMix64(seed: seed)
        let pairs = (0..<count).map { _ in (UInt32(rng.next() % UInt64(g.nodeCount)), UInt32(rng.next() % UInt64(g.nodeCount))) }
        var p50: [Double] = []
        var settled = 0
        for round in 0...rounds {
            var times: [Double] = []
            for (s, t) in pairs {
                let t0 = DispatchTime.now().uptimeNanoseconds
                let nodes = query(s, t)
                // a pair with no path is left out of the percentile (it fails early and would flatter it)
                if nodes != nil { times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1000) }
                if round == 0 { settled += nodes ?? 0 }
            }
            times.sort()
            if round > 0 { p50.append(times.isEmpty ? .nan : times[times.count / 2]) }
        }
        return (p50, Double(settled) / Double(max(1, count)))
    }
}

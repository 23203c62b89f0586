import Foundation
import Geo

/// A probe into the hierarchy query for `taxipot-bench` (the CH query alone, without snapping
/// or route assembly). Not part of the library's API: it is SPI (`@_spi(Benchmarks) import Routing`).
@_spi(Benchmarks)
public enum RoutingBenchmark {
    /// The hierarchy query alone (no snapping, no route assembly) between `count` random node
    /// pairs at `hour`, timed over `rounds` passes after a warm-up: per-round p50 (µs) and mean
    /// nodes settled; nil when the graph's hierarchy does not cover the hour.
    public static func hierarchyQueryTimes(_ engine: RouteEngine, count: Int, seed: UInt64, hour: Int, rounds: Int) -> (p50: [Double], settled: Double)? {
        guard let metric = engine.hierarchyMetric(hour: hour, wait: true) else { return nil }
        let g = engine.graph
        var rng = SplitMix64(seed: seed)
        let pairs = (0..<count).map { _ in (UInt32(rng.next() % UInt64(g.nodeCount)), UInt32(rng.next() % UInt64(g.nodeCount))) }
        let scratch = CHQueryScratch(nodeCount: g.nodeCount)
        var p50: [Double] = []
        var settled = 0
        for round in 0...rounds {
            var times: [Double] = []
            for (s, t) in pairs {
                var ends = SearchEnds()
                ends.sources = [(s, 0, 0)]
                ends.targets = [(t, 0, 0)]
                let t0 = DispatchTime.now().uptimeNanoseconds
                let outcome = g.hierarchySearch(ends, metric: metric, scratch: scratch)
                // a pair with no path is left out of the percentile (it fails early and would flatter it)
                if (outcome ?? nil) != nil { times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1000) }
                if round == 0 { settled += (outcome ?? nil)?.settled ?? 0 }
            }
            times.sort()
            if round > 0 { p50.append(times.isEmpty ? .nan : times[times.count / 2]) }
        }
        return (p50, Double(settled) / Double(max(1, count)))
    }
}

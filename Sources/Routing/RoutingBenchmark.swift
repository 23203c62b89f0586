import Foundation
import Geo

/// Helpers for measuring route queries in-process (used by `taxipot-bench` and the tests).
public enum RoutingBenchmark {
    /// Latency figures of a series of route queries.
    public struct Figures: Sendable, CustomStringConvertible {
        public let queries: Int
        public let failures: Int
        public let p50Microseconds: Double
        public let p90Microseconds: Double
        public let p99Microseconds: Double
        public let meanMicroseconds: Double
        /// Median thread CPU time per query: unaffected by other processes taking the core.
        public let p50CPUMicroseconds: Double
        /// Mean nodes settled per query (search effort).
        public let meanSettledNodes: Double

        public var description: String {
            String(format: "%d queries (%d failed): p50 %.1f µs (CPU %.1f µs), p90 %.1f µs, p99 %.1f µs, mean %.1f µs, %.0f nodes settled",
                   queries, failures, p50Microseconds, p50CPUMicroseconds, p90Microseconds, p99Microseconds, meanMicroseconds, meanSettledNodes)
        }
    }

    /// `count` pairs of junction positions drawn uniformly from `graph` (deterministic for a seed).
    public static func randomPairs(_ graph: RoadGraph, count: Int, seed: UInt64) -> [(Coordinate, Coordinate)] {
        var rng = SplitMix64(seed: seed)
        let n = UInt64(graph.nodeCount)
        return (0..<count).map { _ in
            (graph.coordinate(ofNode: Int(rng.next() % n)), graph.coordinate(ofNode: Int(rng.next() % n)))
        }
    }

    /// Times `engine.route` on each pair (after one untimed pass to warm caches).
    public static func measure(_ engine: RouteEngine, pairs: [(Coordinate, Coordinate)], departAt: Double,
                               metric: RouteMetric = .time, algorithm: SearchAlgorithm = .astar) -> Figures
    {
        var times: [Double] = []
        var cpuTimes: [Double] = []
        var settled = 0, failures = 0
        func cpuNow() -> Double {
            var ts = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
            return Double(ts.tv_sec) * 1e6 + Double(ts.tv_nsec) / 1000
        }
        for (pass, record) in [(0, false), (1, true)] {
            _ = pass
            for (a, b) in pairs {
                let request = RouteRequest(from: a, to: b, departAt: departAt, metric: metric, algorithm: algorithm)
                let c0 = cpuNow()
                let t0 = DispatchTime.now().uptimeNanoseconds
                let result = try? engine.route(request)
                let t1 = DispatchTime.now().uptimeNanoseconds
                let c1 = cpuNow()
                guard record else { continue }
                times.append(Double(t1 - t0) / 1000)
                cpuTimes.append(c1 - c0)
                if let result { settled += result.settledNodes } else { failures += 1 }
            }
        }
        times.sort()
        cpuTimes.sort()
        func pct(_ p: Double) -> Double { times.isEmpty ? 0 : times[min(times.count - 1, Int(Double(times.count) * p))] }
        return Figures(queries: times.count, failures: failures, p50Microseconds: pct(0.5), p90Microseconds: pct(0.9),
                       p99Microseconds: pct(0.99), meanMicroseconds: times.reduce(0, +) / Double(max(1, times.count)),
                       p50CPUMicroseconds: cpuTimes.isEmpty ? 0 : cpuTimes[cpuTimes.count / 2],
                       meanSettledNodes: Double(settled) / Double(max(1, times.count)))
    }
}

extension RoutingBenchmark {
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
                times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1000)
                if round == 0 { settled += (outcome ?? nil)?.settled ?? 0 }
            }
            times.sort()
            if round > 0 { p50.append(times[times.count / 2]) }
        }
        return (p50, Double(settled) / Double(max(1, count)))
    }
}

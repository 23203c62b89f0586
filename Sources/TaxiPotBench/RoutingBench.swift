import Foundation
import TaxiPot
import Routing

/// Routing in-process: central Seoul route latency on the same pairs the peers route
/// (bench-out/inputs/route_pairs.csv), and route latency on a synthetic city's graph.
enum RoutingBench {
    /// 2025-06-14 10:00 Seoul, a Saturday morning: the departure of every benchmark route.
    static let departAt = 1_749_862_800.0

    static func engine(graphPath: String, dataDir: String) throws -> RouteEngine {
        let graph = try RoadGraph.load(path: graphPath)
        let profile = try TrafficProfile.load(path: dataDir + "/traffic/profile.csv")
        return RouteEngine(graph: graph, profile: profile)
    }

    /// Customizes the engine's hierarchy for the benchmark's hour (timed) and names the search
    /// metric=time then uses, for the conditions.
    static func prepareSearch(_ engine: RouteEngine) -> String {
        let hour = SeoulTime.hour(departAt)
        var customized = false
        let customizeSeconds = seconds { customized = engine.prepareHierarchy(hour: hour) }
        if customized {
            return String(format: "bidirectional CH query on the hierarchy customized for %d h (customized in %.0f ms)", hour, customizeSeconds * 1000)
        }
        return engine.graph.hasContractionHierarchy
            ? String(format: "A* with CH potentials (ALT for points under %.0f km apart)", RouteEngine.hierarchyMinMeters / 1000)
            : "ALT A* (\(engine.graph.landmarkCount) landmarks)"
    }

    /// Route p50/p99 over `pairs` (failed routes counted, never timed into a percentile), full
    /// results (geometry, legs, names) as the HTTP answer needs, after a warm-up over other pairs
    /// of the same graph.
    static func measure(_ engine: RouteEngine, _ pairs: [(Coordinate, Coordinate)], rounds: Int,
                        metric: RouteMetric = .time) -> (p50: [Double], p99: [Double], failures: Int, settled: Double)
    {
        var settled = 0, answered = 0
        let warmup = randomPairs(engine.graph, count: pairs.count, seed: 17)
        let m = latencyRounds(pairs, rounds: rounds, warmup: warmup) { pair in
            (try? engine.route(RouteRequest(from: pair.0, to: pair.1, departAt: departAt, metric: metric))) != nil
        }
        for (a, b) in pairs {
            if let r = try? engine.route(RouteRequest(from: a, to: b, departAt: departAt, metric: metric)) {
                settled += r.settledNodes
                answered += 1
            }
        }
        return (m.p50, m.p99, m.failures, Double(settled) / Double(max(1, answered)))
    }

    /// Central Seoul (DATA/build/seoul.graph).
    static func run(_ ctx: BenchContext, _ options: [String: String]) throws {
        let graphPath = ctx.dataDir + "/build/seoul.graph"
        let loadSeconds = try seconds { _ = try RoadGraph.load(path: graphPath) }
        let engine = try engine(graphPath: graphPath, dataDir: ctx.dataDir)
        let pairs = try readRoutePairs(ctx)
        let search = prepareSearch(engine)
        let m = measure(engine, pairs, rounds: ctx.runs)
        let cond = String(format: "%d random node pairs (same as the peers) x %d rounds, metric=time, " + search + ", full result "
            + "(geometry, legs, names); graph %d nodes / %d edges, %d landmarks, loaded in %.0f ms; %.0f nodes settled on average; %d failed",
            pairs.count, ctx.runs, engine.graph.nodeCount, engine.graph.edgeCount, engine.graph.landmarkCount,
            loadSeconds * 1000, m.settled, m.failures)
        ctx.add(BenchRecord(key: "routing.inprocess.p50", impl: "taxipot RouteEngine", metric: "route p50", unit: "µs",
                            better: "lower", samples: m.p50, n: pairs.count, conditions: cond, errors: m.failures))
        ctx.add(BenchRecord(key: "routing.inprocess.p99", impl: "taxipot RouteEngine", metric: "route p99", unit: "µs",
                            better: "lower", samples: m.p99, n: pairs.count, conditions: cond, errors: m.failures))
        let d = measure(engine, pairs, rounds: ctx.runs, metric: .distance)
        ctx.add(BenchRecord(key: "routing.inprocess.distance_p50", impl: "taxipot RouteEngine", metric: "route p50 (metric=distance)",
                            unit: "µs", better: "lower", samples: d.p50, n: pairs.count,
                            conditions: String(format: "as above with metric=distance (ALT A*, %d landmarks); %.0f nodes settled on average; %d failed",
                                                  engine.graph.landmarkCount, d.settled, d.failures), errors: d.failures))
    }

    /// A synthetic city's graph: `--graph FILE --label L` (built by cli_bench.py synth).
    static func runSynthetic(_ ctx: BenchContext, _ options: [String: String]) throws {
        guard let graphPath = options["graph"], let label = options["label"] else {
            throw BenchError("synthetic: needs --graph FILE --label L")
        }
        let loadSeconds = try seconds { _ = try RoadGraph.load(path: graphPath) }
        let engine = try engine(graphPath: graphPath, dataDir: ctx.dataDir)
        let pairs = randomPairs(engine.graph, count: ctx.quick ? 50 : 200, seed: 11)
        let search = prepareSearch(engine)
        let m = measure(engine, pairs, rounds: ctx.runs)
        let cond = String(format: "%d random junction pairs x %d rounds, metric=time, " + search + ", full result; graph %d nodes / %d edges, "
            + "loaded (mmap) in %.0f ms; %.0f nodes settled on average; %d failed",
            pairs.count, ctx.runs, engine.graph.nodeCount, engine.graph.edgeCount, loadSeconds * 1000,
            m.settled, m.failures)
        ctx.add(BenchRecord(key: "routing.synth.\(label).route_p50", impl: "taxipot RouteEngine", metric: "route p50", unit: "µs",
                            better: "lower", samples: m.p50, n: pairs.count, conditions: cond, errors: m.failures))
        ctx.add(BenchRecord(key: "routing.synth.\(label).route_p99", impl: "taxipot RouteEngine", metric: "route p99", unit: "µs",
                            better: "lower", samples: m.p99, n: pairs.count, conditions: cond, errors: m.failures))
        if let q = RoutingBenchmark.hierarchyQueryTimes(engine, count: pairs.count, seed: 13, hour: SeoulTime.hour(departAt), rounds: ctx.runs),
           let arcs = engine.hierarchyQueryArcCount(hour: SeoulTime.hour(departAt))
        {
            ctx.add(BenchRecord(key: "routing.synth.\(label).ch_query_p50", impl: "taxipot RouteEngine", metric: "CH query alone p50", unit: "µs",
                                better: "lower", samples: q.p50, n: pairs.count,
                                conditions: String(format: "%d random node pairs x %d rounds, bidirectional CH query on the customized hierarchy, "
                                    + "with path unpacking, no snapping or route assembly; %.0f nodes settled on average; the query relaxes "
                                    + "%d of the hierarchy's %d arcs", pairs.count, ctx.runs, q.settled, arcs.query, arcs.hierarchy)))
        }
    }

    /// `count` pairs of junction positions drawn uniformly from `graph` (deterministic for a seed).
    static func randomPairs(_ graph: RoadGraph, count: Int, seed: UInt64) -> [(Coordinate, Coordinate)] {
        var rng = SplitMix64(seed: seed)
        let n = UInt64(graph.nodeCount)
        return (0..<count).map { _ in
            (graph.coordinate(ofNode: Int(rng.next() % n)), graph.coordinate(ofNode: Int(rng.next() % n)))
        }
    }
}

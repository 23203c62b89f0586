import Foundation
import TaxiPot

/// Pooling in-process: matching a rider against 10,000 open parties spread over the served
/// area (central Seoul), through `PartyMatcher.match` with the default request (walk 800 m,
/// window ±30 min, detour ≤ 25%, limit 10).
enum PoolingBench {
    /// The parties' and riders' clock: 2025-06-14 09:50 Seoul (ten minutes before the routing bench's departure).
    static let now = RoutingBench.departAt - 600

    /// `count` parties at random road nodes, departing within two hours, a third of them with a
    /// second rider getting off on the way.
    static func parties(_ graph: RoadGraph, count: Int, seed: UInt64) -> [Party] {
        var rng = SplitMix64(seed: seed)
        func node() -> Coordinate { graph.coordinate(ofNode: Int.random(in: 0..<graph.nodeCount, using: &rng)) }
        return (0..<count).map { i in
            var riders = [PartyRider(id: "o\(i)", seats: Int.random(in: 1...2, using: &rng))]
            if i % 3 == 0 { riders.append(PartyRider(id: "d\(i)", seats: 1, dropOff: node())) }
            var p = Party(id: "bench\(i)", origin: node(), destination: node(),
                          departAt: (now + Double.random(in: 300...7200, using: &rng)).rounded(), seatsTotal: 4, riders: riders)
            p.version = 1
            return p
        }
    }

    static func run(_ ctx: BenchContext, _ options: [String: String]) throws {
        let data = try Dataset(directory: ctx.dataDir)
        let count = Int(options["pooling-parties"] ?? "") ?? 10_000
        let state = ctx.output("pooling-state-\(getpid())")
        try? FileManager.default.removeItem(atPath: state)
        defer { try? FileManager.default.removeItem(atPath: state) }
        let all = parties(data.graph, count: count, seed: 2323)
        try SQLitePartyDatabase(stateDirectory: state).put(all)
        let clock = now
        let service = try PartyService(stateDirectory: state, now: { clock })
        let pooling = PartyMatcher(quotes: data.quotes, parties: service, now: { clock })
        data.routes.prepareHierarchy(hour: SeoulTime.hour(now))
        data.routes.prepareHierarchy(hour: SeoulTime.hour(now + 3600))

        var rng = SplitMix64(seed: 99)
        func node() -> Coordinate { data.graph.coordinate(ofNode: Int.random(in: 0..<data.graph.nodeCount, using: &rng)) }
        let requests = (0..<(ctx.quick ? 200 : 500)).map { _ in
            MatchRequest(origin: node(), destination: node(), departAt: now + Double.random(in: 0...3600, using: &rng))
        }
        // First pass: every party's own ride is planned on first touch (kept until it changes).
        var matches = 0, candidates = 0, failed = 0
        let cold = seconds {
            for r in requests {
                do { matches += try pooling.match(r).count } catch { failed += 1 }
            }
        }
        for r in requests {
            let window = r.windowMinutes * 60
            candidates += service.nearby(r.origin, radiusMeters: r.walkMeters,
                                         filter: PartyFilter(departAfter: max(r.departAt - window, now.nextUp), departBefore: r.departAt + window, minSeats: r.seats),
                                         limit: MatchRequest.maxCandidates).parties.count
        }
        let (p50, p99) = latencyRounds(requests, rounds: ctx.runs, warmup: 0) { r in _ = try? pooling.match(r) }
        let cond = String(format: "%d open parties at random central-Seoul road nodes (a third with a drop-off on the way), %d riders at random nodes, "
            + "default request (walk 800 m, window ±30 min, detour ≤ 25%%, limit 10) x %d rounds; %.1f candidates and %.1f matches a request on average, "
            + "%d requests failed; party plans (with their snapped points and upward searches) kept after the first pass (that pass: %.2f ms a request; "
            + "%d plans kept, %.1f MB); travel times from the kept searches and two searches from the rider's stop per departure hour",
            count, requests.count, ctx.runs, Double(candidates) / Double(requests.count), Double(matches) / Double(requests.count),
            failed, cold / Double(requests.count) * 1000, pooling.planner.keptCount, Double(pooling.planner.keptBytes) / 1e6)
        ctx.add(BenchRecord(key: "pooling.match.p50", impl: "taxipot PartyMatcher", metric: "match p50, in-process", unit: "ms",
                            better: "lower", samples: p50.map { $0 / 1000 }, n: requests.count, conditions: cond))
        ctx.add(BenchRecord(key: "pooling.match.p99", impl: "taxipot PartyMatcher", metric: "match p99, in-process", unit: "ms",
                            better: "lower", samples: p99.map { $0 / 1000 }, n: requests.count, conditions: cond))
    }
}

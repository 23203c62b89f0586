import Foundation
import TaxiPot

/// Pooling in-process: matching a rider against 10,000 open parties spread over the served
/// area (central Seoul), through `PoolingService.offers` with the default request (walk 800 m,
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
        let pooling = PoolingService(quotes: data.quotes, parties: service, now: { clock })
        data.routes.prepareHierarchy(hour: SeoulTime.hour(now))
        data.routes.prepareHierarchy(hour: SeoulTime.hour(now + 3600))

        // Riders at random road nodes; the timed ones are chosen so that their match succeeds
        // (the rider's own trip can be priced: what a match fails on), and the warm-up gets others.
        func riders(count: Int, seed: UInt64) -> (chosen: [OfferRequest], skipped: Int) {
            var rng = SplitMix64(seed: seed)
            func node() -> Coordinate { data.graph.coordinate(ofNode: Int.random(in: 0..<data.graph.nodeCount, using: &rng)) }
            var chosen: [OfferRequest] = [], skipped = 0
            while chosen.count < count, skipped < 100 * count {
                let r = OfferRequest(origin: node(), destination: node(), departAt: now + Double.random(in: 0...3600, using: &rng))
                if (try? pooling.pricer.soloFare(from: r.origin, to: r.destination, departure: r.departAt)) != nil {
                    chosen.append(r)
                } else {
                    skipped += 1
                }
            }
            return (chosen, skipped)
        }
        let riderCount = ctx.quick ? 200 : 500
        let (requests, skipped) = riders(count: riderCount, seed: 99)
        let (warmup, _) = riders(count: riderCount, seed: 98)
        guard requests.count == riderCount else { throw BenchError("pooling: only \(requests.count) of \(riderCount) riders with a priced trip") }
        // Warm-up: other riders first, with no plan kept (the plans they touch are made then), then
        // every party's own ride planned, as on a server that has run a while (kept until it changes).
        var matches = 0, candidates = 0
        let cold = seconds { for r in warmup { _ = try? pooling.offers(r) } }
        for p in all { _ = pooling.planner.planned(p) }
        for r in requests {
            let window = r.windowMinutes * 60
            candidates += service.nearby(r.origin, radiusMeters: r.walkMeters,
                                         filter: PartyFilter(departAfter: max(r.departAt - window, now.nextUp), departBefore: r.departAt + window, minSeats: r.seats),
                                         limit: OfferRequest.maxCandidates).parties.count
        }
        var answers = 0
        let m = latencyRounds(requests, rounds: ctx.runs) { r in
            guard let found = try? pooling.offers(r) else { return false }
            matches += found.count
            answers += 1
            return true
        }
        let (p50, p99) = (m.p50, m.p99)
        let cond = String(format: "%d open parties at random central-Seoul road nodes (a third with a drop-off on the way), %d riders at random nodes "
            + "whose own trip can be priced (%d drawn node pairs skipped that cannot), "
            + "default request (walk 800 m, window ±30 min, detour ≤ 25%%, limit 10) x %d rounds; %.1f candidates and %.1f matches a request on average, "
            + "%d requests failed; warm-up: %d other riders (%.2f ms a request, plans made on first touch), then every party's plan made "
            + "(%d plans kept, %.1f MB), as on a server that has run a while; travel times from the kept searches and two searches from the rider's stop per departure hour",
            count, requests.count, skipped, ctx.runs, Double(candidates) / Double(requests.count), Double(matches) / Double(max(1, answers)),
            m.failures, warmup.count, cold / Double(max(1, warmup.count)) * 1000, pooling.planner.keptCount, Double(pooling.planner.keptBytes) / 1e6)
        ctx.add(BenchRecord(key: "pooling.match.p50", impl: "taxipot PoolingService", metric: "match p50, in-process", unit: "ms",
                            better: "lower", samples: p50.map { $0 / 1000 }, n: requests.count, conditions: cond, errors: m.failures))
        ctx.add(BenchRecord(key: "pooling.match.p99", impl: "taxipot PoolingService", metric: "match p99, in-process", unit: "ms",
                            better: "lower", samples: p99.map { $0 / 1000 }, n: requests.count, conditions: cond, errors: m.failures))
    }
}

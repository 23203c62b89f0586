import Foundation
import TaxiPot

/// Map matching in-process on central Seoul (issue 38): synthetic traces made from random routes
/// (1 s and 10 s sampling, GPS noise σ 5–30 m, every fifth trace with a 40 s tunnel gap) — the
/// share whose matched length is within 2% of the driven one (target ≥ 95%) — and the time to
/// match one 30-minute trace at 1 Hz. Both inputs go to bench-out/inputs for the peer (osrm-routed
/// `/match`, tools/bench/peer_match.py) and our own `/match/v1` over HTTP (tools/bench/ours_match_http.py).
///
/// The network is a parameter: `--match-graph FILE` (default: the served DATA/build/seoul.graph),
/// named in the records by `--match-network TEXT`; tools/bench/run imports it from the same OSM
/// file OSRM is prepared from, so both sides match on the same roads.
enum MatchingBench {
    static func run(_ ctx: BenchContext, _ options: [String: String]) throws {
        let graphPath = options["match-graph"] ?? ctx.dataDir + "/build/seoul.graph"
        let network = options["match-network"] ?? graphPath
        let engine = try RoutingBench.engine(graphPath: graphPath, dataDir: ctx.dataDir)
        let matcher = MapMatcher(engine: engine)
        let start = RoutingBench.departAt
        // `--match-seed N` draws other routes and noise (default 38, the recorded figure's), to check
        // a change on traces its tuning never saw.
        let seed = options["match-seed"].flatMap { UInt64($0) } ?? 38
        var rng = SplitMix64(seed: seed)
        let noiseSeed: UInt64 = seed == 38 ? 0 : seed &* 1_000_003
        let count = ctx.quick ? 40 : 200
        // Per trace: its group and both lengths, to see which traces miss and why.
        var perTrace = "trace_id,interval_s,sigma_m,gap,true_length_m,matched_length_m,matchings,error_pct,start_off_m,end_off_m\n"
        var within = 0, made = 0, failed = 0
        // Every trace for the peer: trace_id, the driven length, its sampling and σ, then its fixes.
        var traces = "trace_id,true_length_m,interval_s,sigma_m,lon,lat,time\n"
        while made < count {
            let a = engine.graph.coordinate(ofNode: Int(rng.next() % UInt64(engine.graph.nodeCount)))
            let b = engine.graph.coordinate(ofNode: Int(rng.next() % UInt64(engine.graph.nodeCount)))
            guard let r = try? engine.route(RouteRequest(from: a, to: b, departAt: start)), r.distanceMeters >= 1500 else { continue }
            let n = made
            made += 1
            let trace = SyntheticTrace.make(r, intervalSeconds: n % 2 == 0 ? 1 : 10, noiseMeters: [5.0, 10, 20, 30][n % 4], start: start,
                                            seed: noiseSeed &+ UInt64(n), gaps: n % 5 == 4 ? [(0.5, 40)] : [])
            for f in trace {
                traces += "\(n),\(r.distanceMeters),\(n % 2 == 0 ? 1 : 10),\([5, 10, 20, 30][n % 4]),\(f.coordinate.lon),\(f.coordinate.lat),\(Int(f.time!))\n"
            }
            guard let m = try? matcher.match(trace) else {
                failed += 1
                perTrace += "\(n),\(n % 2 == 0 ? 1 : 10),\([5, 10, 20, 30][n % 4]),\(n % 5 == 4),\(r.distanceMeters),,0,\n"
                continue
            }
            var length = m.matchings.reduce(0) { $0 + $1.distanceMeters }
            for k in 1..<max(1, m.matchings.count) {
                let p = m.matchings[k - 1].pieces.last!.snapped.last!, q = m.matchings[k].pieces.first!.snapped.first!
                length += (try? engine.route(RouteRequest(from: p, to: q, departAt: start, maxSnapMeters: 1)).distanceMeters) ?? 0
            }
            if abs(length - r.distanceMeters) <= 0.02 * r.distanceMeters { within += 1 }
            perTrace += "\(n),\(n % 2 == 0 ? 1 : 10),\([5, 10, 20, 30][n % 4]),\(n % 5 == 4),\(r.distanceMeters),\(length),\(m.matchings.count),"
                + String(format: "%.2f,%.0f,%.0f\n", 100 * (length - r.distanceMeters) / r.distanceMeters,
                         m.matchings[0].pieces[0].snapped[0].distance(to: r.snapped[0]),
                         m.matchings[m.matchings.count - 1].pieces.last!.snapped.last!.distance(to: r.snapped.last!))
        }
        try FileManager.default.createDirectory(atPath: ctx.outDir + "/match", withIntermediateDirectories: true)
        try perTrace.write(toFile: ctx.outDir + "/match/ours_per_trace_seed\(seed).csv", atomically: true, encoding: .utf8)
        ctx.add(BenchRecord(key: "match.accuracy.within2pct", impl: "taxipot MapMatcher", metric: "traces whose matched length is within 2% of the driven length",
                            unit: "%", better: "higher", samples: [100 * Double(within) / Double(count)], n: count,
                            conditions: "\(count) random routes ≥ 1.5 km (seed \(seed)) on \(network) (lengths along our graph's edges), 1 s / 10 s sampling, σ 5/10/20/30 m, every fifth with a 40 s gap (bridged by the route between matchings)",
                            errors: failed))
        try FileManager.default.createDirectory(atPath: ctx.outDir + "/inputs", withIntermediateDirectories: true)
        try traces.write(toFile: ctx.outDir + "/inputs/match_traces.csv", atomically: true, encoding: .utf8)

        // One 30-minute trace at 1 Hz: routes chained until 1,800 s of driving.
        var legs: [RouteResult] = []
        var total = 0.0
        var here = engine.graph.coordinate(ofNode: Int(rng.next() % UInt64(engine.graph.nodeCount)))
        while total < 1800 {
            let next = engine.graph.coordinate(ofNode: Int(rng.next() % UInt64(engine.graph.nodeCount)))
            guard let r = try? engine.route(RouteRequest(from: here, to: next, departAt: start)), r.distanceMeters > 1000 else { continue }
            legs.append(r)
            total += r.durationSeconds
            here = r.snapped.last!
        }
        var trace: [TraceFix] = []
        var t0 = start
        for (i, r) in legs.enumerated() {
            let part = SyntheticTrace.make(r, intervalSeconds: 1, noiseMeters: 10, start: t0, seed: UInt64(1000 + i))
            trace += trace.isEmpty ? part : Array(part.dropFirst())
            t0 = trace.last!.time!
        }
        trace = Array(trace.prefix(1800))
        _ = try? matcher.match(trace)
        var samples: [Double] = []
        for _ in 0..<ctx.runs { samples.append(try seconds { _ = try matcher.match(trace) } * 1000) }
        ctx.add(BenchRecord(key: "match.inprocess.30min1hz", impl: "taxipot MapMatcher", metric: "match one 30-minute 1 Hz trace", unit: "ms",
                            better: "lower", samples: samples, n: trace.count,
                            conditions: "\(trace.count) fixes, σ 10 m, chained random routes on \(network); one thread; warm-up run first"))
        // The trace for the peer run (tools/bench): lon,lat,time.
        let csv = "lon,lat,time\n" + trace.map { "\($0.coordinate.lon),\($0.coordinate.lat),\(Int($0.time!))" }.joined(separator: "\n") + "\n"
        try csv.write(toFile: ctx.outDir + "/inputs/match_trace_30min.csv", atomically: true, encoding: .utf8)
    }
}

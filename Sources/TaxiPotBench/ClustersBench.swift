import Foundation
import TaxiPot
import Parties

/// Clusters: the party index on the same points and viewports pysupercluster gets
/// (bench-out/inputs/parties_1m.f64, viewports.csv): build, viewport query, one insert or
/// delete, and a restart of the party service over 1M stored parties.
enum ClustersBench {
    /// Parties at the shared points, departing within a day from now (so none expires during the run).
    static func parties(_ xs: [Double], _ ys: [Double], prefix: String = "p") -> [Party] {
        let now = Date().timeIntervalSince1970.rounded()
        return (0..<xs.count).map { i in
            let o = Coordinate(lon: xs[i], lat: ys[i])
            return Party(id: "\(prefix)\(i)", origin: o, destination: o.offset(eastMeters: 3000, northMeters: 2000),
                         departAt: now + 3600 + Double(i % 86_400), seatsTotal: 4, seatsTaken: i % 4)
        }
    }

    static func viewports(_ ctx: BenchContext) throws -> [(zoom: Int, box: BoundingBox)] {
        try readSimpleCSV(ctx.input("viewports.csv")).compactMap { f in
            guard f.count == 5, let z = Int(f[0]), let w = Double(f[1]), let s = Double(f[2]), let e = Double(f[3]),
                  let n = Double(f[4]) else { return nil }
            return (z, BoundingBox(west: w, south: s, east: e, north: n))
        }
    }

    static func run(_ ctx: BenchContext, _ options: [String: String]) throws {
        let (xs, ys) = try readPairs(ctx.input("parties_1m.f64"))
        let all = parties(xs, ys)
        let views = try viewports(ctx)
        var sizes = ctx.quick ? [100_000] : [100_000, 1_000_000]
        // `--clusters-sizes 1m` (or 100k): only that size (quicker runs while tuning).
        if let only = options["clusters-sizes"] { sizes = sizes.filter { only.split(separator: ",").contains(Substring($0 == 100_000 ? "100k" : "1m")) } }
        for size in sizes {
            let label = size == 100_000 ? "100k" : "1m"
            let slice = Array(all.prefix(size))
            let base = "\(label) parties around 12 Korean cities (the points pysupercluster gets), radius 60 px of 256-px tiles, zooms 0-20"
            var index = PartyIndex(parties: slice, radius: 60)  // warm-up build
            var builds: [Double] = []
            // `--clusters-builds N`: fewer timed builds (for profiling the queries under valgrind).
            for _ in 0..<(options["clusters-builds"].flatMap { Int($0) } ?? ctx.runs) {
                builds.append(seconds { index = PartyIndex(parties: slice, radius: 60) })
            }
            ctx.add(BenchRecord(key: "clusters.\(label).build_s", impl: "taxipot PartyIndex", metric: "index build", unit: "s",
                                better: "lower", samples: builds, n: size, conditions: base))
            var scratch = ClusterQueryScratch()
            var features = 0
            // `--clusters-query-rounds N`: more rounds of viewport queries (for profiling them).
            let rounds = options["clusters-query-rounds"].flatMap { Int($0) } ?? ctx.runs
            let (p50, p99) = latencyRounds(views, rounds: rounds) { v in
                features += index.clusters(in: v.box, zoom: v.zoom, filter: PartyFilter(), scratch: &scratch).count
            }
            // The same viewports, each right after a write inside it (a party put at its centre,
            // removed after the query, both untimed): the query merges that tile afresh.
            var afterWrite: [Double] = [], afterWriteFeatures = 0
            for _ in 0..<rounds {
                var lat: [Double] = []
                for v in views {
                    let c = Coordinate(lon: (v.box.west + v.box.east) / 2, lat: (v.box.south + v.box.north) / 2)
                    index.upsert(Party(id: "fresh", origin: c, destination: c.offset(eastMeters: 3000, northMeters: 2000),
                                       departAt: Date().timeIntervalSince1970.rounded() + 3600, seatsTotal: 4, seatsTaken: 1))
                    let t0 = nowNanos()
                    afterWriteFeatures += index.clusters(in: v.box, zoom: v.zoom, filter: PartyFilter(), scratch: &scratch).count
                    lat.append(Double(nowNanos() - t0) / 1000)
                    index.remove(id: "fresh")
                }
                afterWrite.append(percentile(lat, 50))
            }
            // The same viewports with no tile kept, as the first queries after a start: the
            // kept tiles dropped before each query (untimed), so it merges every tile it needs.
            var cold: [Double] = [], coldFeatures = 0
            for _ in 0..<rounds {
                var lat: [Double] = []
                for v in views {
                    index.dropKeptTiles()
                    let t0 = nowNanos()
                    coldFeatures += index.clusters(in: v.box, zoom: v.zoom, filter: PartyFilter(), scratch: &scratch).count
                    lat.append(Double(nowNanos() - t0) / 1000)
                }
                cold.append(percentile(lat, 50))
            }
            // `--clusters-stages yes`: the p50 of the answer taken only so far (see `PartiesBenchmark.QueryStage`), as notes.
            if options["clusters-stages"] == "yes" {
                for stage in PartiesBenchmark.QueryStage.allCases {
                    var items = 0
                    let (p50, _) = latencyRounds(views, rounds: rounds) { v in
                        items += PartiesBenchmark.run(stage, index, box: v.box, zoom: v.zoom, scratch: &scratch)
                    }
                    ctx.note(String(format: "clusters.%@ query up to %@: p50 median %.2f µs (min %.2f, %d runs), mean %.1f items",
                                    label, stage.rawValue, percentile(p50, 50), p50.min() ?? 0, p50.count,
                                    Double(items) / Double(views.count * (rounds + 1))))
                }
            }
            // `--clusters-dump FILE`: every answer, one feature a line (to check a change keeps them identical).
            if let path = options["clusters-dump"] {
                var text = ""
                for v in views {
                    text += "view \(v.zoom) \(v.box.west) \(v.box.south) \(v.box.east) \(v.box.north)\n"
                    for f in index.clusters(in: v.box, zoom: v.zoom, filter: PartyFilter(), scratch: &scratch) {
                        switch f {
                        case .party(let p): text += "party \(p.id)\n"
                        case .cluster(let c):
                            text += "cluster \(c.id) \(c.count) \(c.expansionZoom) \(c.coordinate.lon.bitPattern) \(c.coordinate.lat.bitPattern)\n"
                        }
                    }
                }
                try text.write(toFile: path, atomically: true, encoding: .utf8)
            }
            let perAnswer = Double(features) / Double(views.count * (rounds + 1))
            let qc = base + String(format: "; %d phone viewports (412x915 px) at zooms 6-16, mean %.0f features per answer", views.count, perAnswer)
            ctx.add(BenchRecord(key: "clusters.\(label).query_p50", impl: "taxipot PartyIndex", metric: "viewport query p50", unit: "µs",
                                better: "lower", samples: p50, n: views.count, conditions: qc))
            ctx.add(BenchRecord(key: "clusters.\(label).query_p99", impl: "taxipot PartyIndex", metric: "viewport query p99", unit: "µs",
                                better: "lower", samples: p99, n: views.count, conditions: qc))
            ctx.add(BenchRecord(key: "clusters.\(label).query_cold_p50", impl: "taxipot PartyIndex",
                                metric: "viewport query p50 with no tile kept", unit: "µs", better: "lower",
                                samples: cold, n: views.count,
                                conditions: base + String(format: "; the same %d viewports, mean %.0f features per answer; the kept tiles dropped before each query, as for the first queries after a start",
                                                          views.count, Double(coldFeatures) / Double(views.count * max(rounds, 1)))))
            ctx.add(BenchRecord(key: "clusters.\(label).query_after_write_p50", impl: "taxipot PartyIndex",
                                metric: "viewport query p50 right after a write in view", unit: "µs", better: "lower",
                                samples: afterWrite, n: views.count,
                                conditions: base + String(format: "; the same %d viewports, mean %.0f features per answer; before each query a party is put at the view's centre (removed after it), so the query merges that tile afresh",
                                                          views.count, Double(afterWriteFeatures) / Double(views.count * max(rounds, 1)))))
            // One insert or delete: 10,000 new parties (other points of the file) inserted one by one, then deleted.
            let extra = parties(Array(xs.suffix(10_000)), Array(ys.suffix(10_000)), prefix: "x")
            var opMedians: [Double] = []
            for round in 0...ctx.runs {
                var times: [Double] = []
                times.reserveCapacity(2 * extra.count)
                for p in extra {
                    let t0 = nowNanos()
                    _ = index.upsert(p)
                    times.append(Double(nowNanos() - t0) / 1000)
                }
                for p in extra {
                    let t0 = nowNanos()
                    _ = index.remove(id: p.id)
                    times.append(Double(nowNanos() - t0) / 1000)
                }
                if round > 0 { opMedians.append(percentile(times, 50)) }
            }
            ctx.add(BenchRecord(key: "clusters.\(label).update_us", impl: "taxipot PartyIndex", metric: "one insert or delete", unit: "µs",
                                better: "lower", samples: opMedians, n: 2 * extra.count,
                                conditions: base + "; median over 10,000 inserts and 10,000 deletes, in memory, no rebuild"))
        }
        // `--clusters-restart no` skips the restart figure (quicker runs while tuning queries).
        if options["clusters-restart"] != "no" {
            try restart(ctx, Array(all.prefix(ctx.quick ? 100_000 : 1_000_000)), label: ctx.quick ? "100k" : "1m")
        }
    }

    /// Writes the parties to a party store under bench-out/state (the HTTP benchmark serves it),
    /// then times opening the party service over it (load from SQLite + index), 5 runs.
    static func restart(_ ctx: BenchContext, _ parties: [Party], label: String) throws {
        let dir = ctx.output("state")
        for name in ["parties.db", "parties.db-wal", "parties.db-shm"] { try? FileManager.default.removeItem(atPath: dir + "/" + name) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let store = try SQLitePartyDatabase(stateDirectory: dir)
        var i = 0
        while i < parties.count {
            try store.put(parties[i..<min(i + 50_000, parties.count)])
            i += 50_000
        }
        _ = try PartyService(stateDirectory: dir)  // warm-up (file cache)
        var times: [Double] = []
        var loaded = 0
        for _ in 0..<ctx.runs {
            times.append(try seconds { loaded = try PartyService(stateDirectory: dir).count })
        }
        ctx.add(BenchRecord(key: "clusters.\(label).restart_s", impl: "taxipot PartyService", metric: "restart (load + index)", unit: "s",
                            better: "lower", samples: times, n: loaded,
                            conditions: "\(parties.count) parties in SQLite (WAL) under bench-out/state; open = read every row + build the index"))
    }
}

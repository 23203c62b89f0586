import Foundation
import Parties
import PartyClusters
import PartyModel
import PartyStores
import TaxiPot

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

    /// The viewports of `file` (viewports.csv: the timed set, one block of viewports a round;
    /// viewports_warmup.csv: other viewports, for the warm-up only).
    static func viewports(_ ctx: BenchContext, file: String = "viewports.csv") throws -> [(zoom: Int, box: BoundingBox)] {
        try readSimpleCSV(ctx.input(file)).compactMap { f in
            guard f.count == 5, let z = Int(f[0]), let w = Double(f[1]), let s = Double(f[2]), let e = Double(f[3]),
                  let n = Double(f[4]) else { return nil }
            return (z, BoundingBox(west: w, south: s, east: e, north: n))
        }
    }

    /// The timed viewports split into `rounds` blocks (round r queries block r), so no round
    /// queries a viewport an earlier round or the warm-up saw (more rounds than blocks cycle them).
    static func roundBlocks<T>(_ views: [T], rounds: Int, blocks: Int) -> [ArraySlice<T>] {
        let size = max(1, views.count / max(1, blocks))
        return (0..<rounds).map { r in
            let start = (r % max(1, blocks)) * size
            return views[min(start, views.count)..<min(start + size, views.count)]
        }
    }

    static func run(_ ctx: BenchContext, _ options: [String: String]) throws {
        let (xs, ys) = try readPairs(ctx.input("parties_1m.f64"))
        let all = parties(xs, ys)
        let views = try viewports(ctx)
        let warmViews = try viewports(ctx, file: "viewports_warmup.csv")
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
            // `--clusters-ahead no`: the kept tiles dropped after the build (untimed), so the
            // queries meet the tiles as before a build formed the lowest zooms' (for comparing).
            if options["clusters-ahead"] == "no" { index.dropKeptTiles() }
            ctx.add(BenchRecord(key: "clusters.\(label).build_s", impl: "taxipot PartyIndex", metric: "index build", unit: "s",
                                better: "lower", samples: builds, n: size, conditions: base))
            var scratch = ClusterQueryScratch()
            var features = 0
            // `--clusters-query-rounds N`: more rounds of viewport queries (for profiling them).
            let rounds = options["clusters-query-rounds"].flatMap { Int($0) } ?? ctx.runs
            // The target's figure: viewports the warm-up did not see (a map user panning somewhere
            // new). The warm-up queries other viewports; each round then queries its own block of
            // the timed set, so the tiles it needs are kept only where other views shared them.
            let blocks = roundBlocks(views, rounds: rounds, blocks: ctx.runs)
            for v in warmViews { _ = index.clusters(in: v.box, zoom: v.zoom, filter: PartyFilter(), scratch: &scratch) }
            var query = LatencyRounds()
            var perQuery: [Double] = []  // every timed query's µs, in order (for `--clusters-latencies`)
            for block in blocks {
                let one = latencyRounds(Array(block), rounds: 1, sample: { perQuery.append($0) }) { v in
                    features += index.clusters(in: v.box, zoom: v.zoom, filter: PartyFilter(), scratch: &scratch).count
                    return true
                }
                query.p50 += one.p50
                query.p99 += one.p99
            }
            // `--clusters-latencies FILE`: one line per timed query (where the tail comes from).
            if let path = options["clusters-latencies"] {
                try latencies(index, blocks.flatMap { $0 }, perQuery, to: path)
            }
            let (p50, p99) = (query.p50, query.p99)
            let queried = blocks.reduce(0) { $0 + $1.count }
            // After a write: the warm-up's viewports (every tile they need kept), each right after a
            // write inside it (a party put at its centre, removed after the query, both untimed):
            // the query merges that tile afresh, as a user watching a view when a party lands in it.
            var afterWrite: [Double] = [], afterWriteFeatures = 0
            for _ in 0..<rounds {
                var lat: [Double] = []
                for v in warmViews {
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
            // No tile kept, as the first queries after a start: the timed viewports with the kept
            // tiles dropped before each query (untimed), so it merges every tile it needs.
            var cold: [Double] = [], coldFeatures = 0, coldQueried = 0
            for block in blocks {
                var lat: [Double] = []
                for v in block {
                    index.dropKeptTiles()
                    let t0 = nowNanos()
                    coldFeatures += index.clusters(in: v.box, zoom: v.zoom, filter: PartyFilter(), scratch: &scratch).count
                    lat.append(Double(nowNanos() - t0) / 1000)
                }
                coldQueried += block.count
                cold.append(percentile(lat, 50))
            }
            // `--clusters-stages yes`: the p50 of the answer taken only so far (see `PartiesBenchmark.QueryStage`), as notes.
            if options["clusters-stages"] == "yes" {
                for stage in PartiesBenchmark.QueryStage.allCases {
                    var items = 0
                    let p50 = latencyRounds(views, rounds: rounds, warmup: warmViews) { v in
                        items += PartiesBenchmark.run(stage, index, box: v.box, zoom: v.zoom, scratch: &scratch)
                        return true
                    }.p50
                    ctx.note(String(format: "clusters.%@ query up to %@: p50 median %.2f µs (min %.2f, %d runs), mean %.1f items",
                                    label, stage.rawValue, percentile(p50, 50), p50.min() ?? 0, p50.count,
                                    Double(items) / Double(views.count * rounds)))
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
            let perAnswer = Double(features) / Double(max(1, queried))
            let qc = base + String(format: "; %d phone viewports (412x915 px) at zooms 6-16 a round, each round its own (%d in all), none seen by the warm-up (%d other viewports), mean %.0f features per answer",
                                   blocks.first?.count ?? 0, queried, warmViews.count, perAnswer)
            ctx.add(BenchRecord(key: "clusters.\(label).query_p50", impl: "taxipot PartyIndex", metric: "viewport query p50", unit: "µs",
                                better: "lower", samples: p50, n: queried, conditions: qc))
            ctx.add(BenchRecord(key: "clusters.\(label).query_p99", impl: "taxipot PartyIndex", metric: "viewport query p99", unit: "µs",
                                better: "lower", samples: p99, n: queried, conditions: qc))
            ctx.add(BenchRecord(key: "clusters.\(label).query_cold_p50", impl: "taxipot PartyIndex",
                                metric: "viewport query p50 with no tile kept", unit: "µs", better: "lower",
                                samples: cold, n: coldQueried,
                                conditions: base + String(format: "; the timed viewports (%d), mean %.0f features per answer; the kept tiles dropped before each query, as for the first queries after a start",
                                                          coldQueried, Double(coldFeatures) / Double(max(1, coldQueried)))))
            ctx.add(BenchRecord(key: "clusters.\(label).query_after_write_p50", impl: "taxipot PartyIndex",
                                metric: "viewport query p50 right after a write in view", unit: "µs", better: "lower",
                                samples: afterWrite, n: warmViews.count,
                                conditions: base + String(format: "; the warm-up's %d viewports (their tiles kept), mean %.0f features per answer; before each query a party is put at the view's centre (removed after it), so the query merges that tile afresh",
                                                          warmViews.count, Double(afterWriteFeatures) / Double(max(1, warmViews.count * rounds)))))
            // One insert or delete: 10,000 new parties (other points of the file) inserted one by one, then deleted.
            let extra = parties(Array(xs.suffix(10_000)), Array(ys.suffix(10_000)), prefix: "x")
            // the warm-up round inserts and deletes 10,000 other parties (the points before those)
            let warm = parties(Array(xs.suffix(20_000).prefix(10_000)), Array(ys.suffix(20_000).prefix(10_000)), prefix: "w")
            var opMedians: [Double] = []
            for round in 0...ctx.runs {
                var times: [Double] = []
                times.reserveCapacity(2 * extra.count)
                for p in round == 0 ? warm : extra {
                    let t0 = nowNanos()
                    _ = index.upsert(p)
                    times.append(Double(nowNanos() - t0) / 1000)
                }
                for p in round == 0 ? warm : extra {
                    let t0 = nowNanos()
                    _ = index.remove(id: p.id)
                    times.append(Double(nowNanos() - t0) / 1000)
                }
                if round > 0 { opMedians.append(percentile(times, 50)) }
            }
            ctx.add(BenchRecord(key: "clusters.\(label).update_us", impl: "taxipot PartyIndex", metric: "one insert or delete", unit: "µs",
                                better: "lower", samples: opMedians, n: 2 * extra.count,
                                conditions: base + "; median over 10,000 inserts and 10,000 deletes, in memory, no rebuild; warm-up on 10,000 other parties"))
        }
        // `--clusters-restart no` skips the restart figure (quicker runs while tuning queries).
        if options["clusters-restart"] != "no" {
            try restart(ctx, Array(all.prefix(ctx.quick ? 100_000 : 1_000_000)), label: ctx.quick ? "100k" : "1m")
        }
    }

    /// Writes one line per timed query to `path`: its zoom, the µs it took in the timed pass,
    /// the µs it takes again with its tiles kept and with no tile kept (least of 3 each), the
    /// tiles in view, the features, clusters and largest cluster of the answer. The kept and
    /// cold reruns come after the timed pass, so they change none of its figures.
    static func latencies(_ index: PartyIndex, _ views: [(zoom: Int, box: BoundingBox)], _ timed: [Double], to path: String) throws {
        var index = index, sc = ClusterQueryScratch()
        func least(before: () -> Void = {}, _ body: () -> Void) -> Double {
            (0..<3).map { _ in before(); let t0 = nowNanos(); body(); return Double(nowNanos() - t0) / 1000 }.min() ?? 0
        }
        var text = "zoom us kept_us cold_us tiles features clusters largest\n"
        for (v, us) in zip(views, timed) {
            let answer = index.clusters(in: v.box, zoom: v.zoom, filter: PartyFilter(), scratch: &sc)
            let kept = least { _ = index.clusters(in: v.box, zoom: v.zoom, filter: PartyFilter(), scratch: &sc) }
            let cold = least(before: { index.dropKeptTiles() }) {
                _ = index.clusters(in: v.box, zoom: v.zoom, filter: PartyFilter(), scratch: &sc)
            }
            var clusters = 0, largest = 0
            for case .cluster(let c) in answer { clusters += 1; largest = max(largest, c.count) }
            let tiles = index.gatherTiles(in: v.box, zoom: v.zoom, scratch: &sc)
            text += String(format: "%d %.2f %.2f %.2f %d %d %d %d\n", v.zoom, us, kept, cold, tiles, answer.count, clusters, largest)
        }
        index.dropKeptTiles()
        text += String(format: "# the build's tiles formed ahead: %.3f s\n", seconds { index.formTilesAhead() })
        // What forming every tile ahead of the queries would cost: per zoom, one answer over
        // all of South Korea with no tile kept (its time, features and tiles).
        let korea = BoundingBox(west: 124.6, south: 33.1, east: 131.0, north: 38.6)
        for z in 6...16 {
            index.dropKeptTiles()
            var n = 0
            let s = seconds { n = index.clusters(in: korea, zoom: z, filter: PartyFilter(), scratch: &sc).count }
            text += String(format: "# every tile of zoom %d: %.3f s, %d features, %d tiles\n", z, s, n,
                           index.gatherTiles(in: korea, zoom: z, scratch: &sc))
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
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

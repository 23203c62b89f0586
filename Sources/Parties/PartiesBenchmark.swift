import Foundation
import Geo

/// Timings of the party index, for the benchmark tool (`taxipot-bench`).
///
/// Building blocks (data, viewports, timed operations) plus `run`, which measures them all.
/// Times are wall-clock seconds from a monotonic clock.
public enum PartiesBenchmark {
    /// The Seoul box of the supercluster comparison (docs/REFERENCE.md, "Clustering"): 126.76–127.18 E, 37.42–37.70 N.
    public static let seoulBox = BoundingBox(west: 126.76, south: 37.42, east: 127.18, north: 37.70)

    /// `count` parties uniformly spread over `box`, departing within a day of `now`.
    public static func uniformParties(count: Int, in box: BoundingBox = seoulBox, seed: UInt64 = 1,
                                      now: Double = Date().timeIntervalSince1970) -> [Party]
    {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { i in
            let o = Coordinate(lon: Double.random(in: box.west...box.east, using: &rng), lat: Double.random(in: box.south...box.north, using: &rng))
            return party(i, origin: o, now: now, rng: &rng)
        }
    }

    /// `count` parties around Korean cities (Seoul, Busan, Incheon, Daegu, Daejeon, Gwangju,
    /// weighted by size), dense at the centres, departing within a day of `now`.
    public static func cityParties(count: Int, seed: UInt64 = 1, now: Double = Date().timeIntervalSince1970) -> [Party] {
        let cities: [(lon: Double, lat: Double, spread: Double, weight: Double)] = [
            (126.978, 37.5665, 0.10, 0.45), (129.075, 35.1796, 0.06, 0.15), (126.705, 37.4563, 0.05, 0.12),
            (128.601, 35.8714, 0.05, 0.12), (127.385, 36.3504, 0.04, 0.08), (126.852, 35.1595, 0.04, 0.08),
        ]
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { i in
            var pick = Double.random(in: 0..<1, using: &rng)
            var city = cities[0]
            for c in cities {
                city = c
                pick -= c.weight
                if pick < 0 { break }
            }
            let dx = (Double.random(in: -1...1, using: &rng) + Double.random(in: -1...1, using: &rng)) / 2
            let dy = (Double.random(in: -1...1, using: &rng) + Double.random(in: -1...1, using: &rng)) / 2
            let o = Coordinate(lon: city.lon + dx * city.spread, lat: city.lat + dy * city.spread * 0.8)
            return party(i, origin: o, now: now, rng: &rng)
        }
    }

    private static func party(_ i: Int, origin: Coordinate, now: Double, rng: inout SplitMix64) -> Party {
        let total = Int.random(in: 2...4, using: &rng)
        return Party(id: "b\(i)", origin: origin,
                     destination: origin.offset(eastMeters: Double.random(in: -15_000...15_000, using: &rng),
                                                northMeters: Double.random(in: -15_000...15_000, using: &rng)),
                     departAt: (now + Double.random(in: 600...86_400, using: &rng)).rounded(),
                     seatsTotal: total, seatsTaken: Int.random(in: 0..<total, using: &rng))
    }

    /// `count` boxes of `width` × `height` pixels at `zoom`, centred at random inside `within`.
    public static func viewports(count: Int, zoom: Int, width: Double = 1024, height: Double = 768,
                                 within: BoundingBox = seoulBox, seed: UInt64 = 2) -> [BoundingBox]
    {
        var rng = SplitMix64(seed: seed)
        let world = WebMercator.tileSize * Double(1 << zoom)
        return (0..<count).map { _ in
            let c = Coordinate(lon: Double.random(in: within.west...within.east, using: &rng),
                               lat: Double.random(in: within.south...within.north, using: &rng))
            let n = WebMercator.normalized(c)
            let hw = width / 2 / world, hh = height / 2 / world
            let nw = WebMercator.coordinate(normalizedX: n.x - hw, y: n.y - hh)
            let se = WebMercator.coordinate(normalizedX: n.x + hw, y: n.y + hh)
            return BoundingBox(west: nw.lon, south: se.lat, east: se.lon, north: nw.lat)
        }
    }

    /// Seconds to build an index of `parties`, and the index.
    public static func timeBuild(_ parties: [Party], radius: Double = 60) -> (seconds: Double, index: PartyIndex) {
        let t0 = DispatchTime.now().uptimeNanoseconds
        let index = PartyIndex(parties: parties, radius: radius)
        return (seconds(since: t0), index)
    }

    /// Seconds of each `clusters` query over `boxes` at `zoom`, and the features returned in all.
    public static func timeQueries(_ index: PartyIndex, boxes: [BoundingBox], zoom: Int,
                                   filter: PartyFilter = PartyFilter()) -> (seconds: [Double], features: Int)
    {
        var out = [Double]()
        out.reserveCapacity(boxes.count)
        var features = 0
        var scratch = ClusterQueryScratch()  // as the service keeps one
        for b in boxes {
            let t0 = DispatchTime.now().uptimeNanoseconds
            features += index.clusters(in: b, zoom: zoom, filter: filter, scratch: &scratch).count
            out.append(seconds(since: t0))
        }
        return (out, features)
    }

    /// Seconds of each insert of `parties` (new ids) into `index`, then of each delete of them.
    public static func timeUpdates(_ index: inout PartyIndex, parties: [Party]) -> (inserts: [Double], deletes: [Double]) {
        var ins = [Double](), del = [Double]()
        ins.reserveCapacity(parties.count)
        del.reserveCapacity(parties.count)
        for p in parties {
            let t0 = DispatchTime.now().uptimeNanoseconds
            index.upsert(p)
            ins.append(seconds(since: t0))
        }
        for p in parties {
            let t0 = DispatchTime.now().uptimeNanoseconds
            index.remove(id: p.id)
            del.append(seconds(since: t0))
        }
        return (ins, del)
    }

    /// Writes `parties` to a fresh store in `stateDirectory` (in batches), then returns the
    /// seconds a `PartyService` takes to open it (load + index), and the parties it loaded.
    public static func timeRestart(parties: [Party], stateDirectory: String, batch: Int = 50_000) throws -> (seconds: Double, loaded: Int) {
        do {
            let store = try PartyStore(stateDirectory: stateDirectory)
            var i = 0
            while i < parties.count {
                try store.put(parties[i..<min(i + batch, parties.count)])
                i += batch
            }
        }
        let t0 = DispatchTime.now().uptimeNanoseconds
        let service = try PartyService(stateDirectory: stateDirectory)
        return (seconds(since: t0), service.count)
    }

    /// One measured figure.
    public struct Result: Sendable, CustomStringConvertible {
        /// What was timed, and how many samples.
        public let name: String
        public let n: Int
        /// Median seconds (the single time for one-off operations).
        public let median: Double
        /// 90th-percentile seconds.
        public let p90: Double
        public var description: String {
            "\(name): n=\(n) median=\(PartiesBenchmark.format(median)) p90=\(PartiesBenchmark.format(p90))"
        }
    }

    /// Build (median of `builds`), viewport queries at zooms 11–16 (`viewport` pixels, a warm-up
    /// pass first), filtered queries, inserts and deletes, on `parties` (default: `count`
    /// uniform Seoul parties, the points of supercluster figures of docs/REFERENCE.md).
    ///
    /// To compare with supercluster on the same points and boxes, pass the same `parties`
    /// origins to it and the boxes of `viewports(count:zoom:width:height:)` (seed 2); note
    /// that supercluster's radius is relative to its `extent`: `radius` here equals its
    /// radius with `extent: 256`.
    public static func run(count: Int = 1_000_000, parties given: [Party]? = nil, queriesPerZoom: Int = 1000,
                           viewport: (width: Double, height: Double) = (1024, 768), updates: Int = 10_000,
                           builds: Int = 3, radius: Double = 60) -> [Result]
    {
        var results = [Result]()
        let parties = given ?? uniformParties(count: count)
        var times = [Double]()
        var index = PartyIndex(radius: radius)
        for _ in 0..<max(builds, 1) {
            let b = timeBuild(parties, radius: radius)
            times.append(b.seconds)
            index = b.index
        }
        results.append(summary("index build", times))
        let now = parties.first?.departAt ?? 0
        let filter = PartyFilter(departAfter: now + 3600, departBefore: now + 7200, minSeats: 1)
        for zoom in 11...16 {
            let boxes = viewports(count: queriesPerZoom, zoom: zoom, width: viewport.width, height: viewport.height)
            _ = timeQueries(index, boxes: boxes, zoom: zoom)
            let q = timeQueries(index, boxes: boxes, zoom: zoom)
            results.append(summary("clusters z\(zoom) \(Int(viewport.width))x\(Int(viewport.height)) (\(q.features / max(queriesPerZoom, 1)) features)", q.seconds))
            let f = timeQueries(index, boxes: Array(boxes.prefix(max(queriesPerZoom / 10, 1))), zoom: zoom, filter: filter)
            results.append(summary("clusters z\(zoom) filtered (1 h window, ≥1 seat)", f.seconds))
        }
        let extra = uniformParties(count: updates, seed: 3).map { p -> Party in
            var q = p
            q.id = "u" + p.id
            return q
        }
        let u = timeUpdates(&index, parties: extra)
        results.append(summary("insert", u.inserts))
        results.append(summary("delete", u.deletes))
        return results
    }

    /// Median and 90th percentile of `samples`.
    public static func summary(_ name: String, _ samples: [Double]) -> Result {
        let s = samples.sorted()
        guard !s.isEmpty else { return Result(name: name, n: 0, median: 0, p90: 0) }
        return Result(name: name, n: s.count, median: s[s.count / 2], p90: s[min(s.count - 1, s.count * 9 / 10)])
    }

    static func format(_ seconds: Double) -> String {
        if seconds >= 1 { return String(format: "%.3f s", seconds) }
        if seconds >= 1e-3 { return String(format: "%.2f ms", seconds * 1e3) }
        return String(format: "%.2f µs", seconds * 1e6)
    }

    static func seconds(since t0: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9 }
}


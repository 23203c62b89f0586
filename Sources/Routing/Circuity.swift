import Dispatch
import Foundation
import Geo

/// How much longer a road route is than the straight line, by straight-line distance band:
/// measured on a graph at import (`taxipot import osm`), stored in its file, and used to
/// estimate trips the graph cannot route (an end outside the served areas).
public struct CircuityTable: Sendable, Equatable {
    /// One distance band: its straight-line range, the pairs measured in it, percentiles of
    /// route length / straight-line length, and the share of route length on each road class.
    public struct Band: Sendable, Equatable {
        public var minMeters: Double
        /// Upper end (exclusive); `.infinity` for the last band.
        public var maxMeters: Double
        public var pairs: Int
        public var p05: Double, p10: Double, median: Double, p90: Double, p95: Double
        /// Per `RoadClass` (by raw value): the fraction of the measured routes' length on it.
        public var classShare: [Double]
    }

    public var bands: [Band] = []

    /// A band is used when it holds at least this many measured pairs (its percentiles mean
    /// something); a trip in a thinner band takes the nearest band that has them.
    public static let minimumPairs = 100

    /// The band edges, metres: 0.3-1, 1-3, 3-7, 7-15, 15-40, 40+ km.
    public static let edges: [Double] = [300, 1_000, 3_000, 7_000, 15_000, 40_000, .infinity]
    /// Used when a graph has no measured pair at all (a very small extract): a typical urban factor.
    public static let fallback = Band(minMeters: 0, maxMeters: .infinity, pairs: 0, p05: 1.15, p10: 1.2, median: 1.35, p90: 1.7,
                                      p95: 1.85, classShare: RoadClass.allCases.map { $0 == .secondary ? 1 : 0 })

    /// The band for a straight-line distance: its own when measured (`minimumPairs`), else the
    /// nearest measured one (longer trips than any measured take the longest band), else `fallback`.
    public func band(forMeters d: Double) -> Band {
        let measured = bands.filter { $0.pairs >= Self.minimumPairs }
        guard !measured.isEmpty else { return Self.fallback }
        if let b = measured.first(where: { d >= $0.minMeters && d < $0.maxMeters }) { return b }
        return measured.min { abs(distanceTo($0, d)) < abs(distanceTo($1, d)) }!
    }

    private func distanceTo(_ b: Band, _ d: Double) -> Double {
        d < b.minMeters ? b.minMeters - d : (b.maxMeters.isFinite ? d - b.maxMeters : 0)
    }

    /// The table as the graph file stores it: [bands, classes, per band: min, max, pairs,
    /// p05, p10, p50, p90, p95, shares…] (max −1 for infinity).
    var encoded: [Double] {
        let classes = RoadClass.allCases.count
        var out: [Double] = [Double(bands.count), Double(classes)]
        for b in bands {
            out += [b.minMeters, b.maxMeters.isFinite ? b.maxMeters : -1, Double(b.pairs), b.p05, b.p10, b.median, b.p90, b.p95]
            out += (0..<classes).map { $0 < b.classShare.count ? b.classShare[$0] : 0 }
        }
        return out
    }

    /// Decodes `encoded`; nil when malformed.
    init?(encoded v: UnsafeBufferPointer<Double>) {
        guard v.count >= 2, let count = Int(exactly: v[0]), let classes = Int(exactly: v[1]), count >= 0, count <= 64,
              classes >= 0, classes <= 64, v.count == 2 + count * (8 + classes)
        else { return nil }
        var i = 2
        for _ in 0..<count {
            let shares = (0..<classes).map { v[i + 8 + $0] }
            guard v[i + 2] >= 0, v[i + 2] < 1e12, [v[i + 3], v[i + 4], v[i + 5], v[i + 6], v[i + 7]].allSatisfy({ $0.isFinite && $0 >= 1 && $0 < 100 })
            else { return nil }
            bands.append(Band(minMeters: v[i], maxMeters: v[i + 1] < 0 ? .infinity : v[i + 1], pairs: Int(v[i + 2]),
                              p05: v[i + 3], p10: v[i + 4], median: v[i + 5], p90: v[i + 6], p95: v[i + 7], classShare: shares))
            i += 8 + classes
        }
    }

    public init(bands: [Band] = []) { self.bands = bands }
}

/// Measures a `CircuityTable` on a prepared graph: shortest routes (fastest-hour times) from
/// sources spread over the graph to targets spread over it, in the same area, compared with
/// the great-circle distance between their ends.
package enum CircuityMeasure {
    /// Sources (one full Dijkstra each, two at a time on two cores) and targets per source:
    /// 16 searches cost about a third of the landmarks' 48 (16 on time, 32 on distance).
    static let sources = 16
    static let targetsPerSource = 1200

    /// Samples per source, gathered in source order (so the table does not depend on thread timing).
    private final class Collector: @unchecked Sendable {
        let lock = NSLock()
        var bySource: [[(meters: Double, ratio: Double, classLength: [Double])]]
        init(sources: Int) { bySource = Array(repeating: [], count: sources) }
    }

    package static func measure(firstOut: [UInt32], head: [UInt32], weight: [UInt32], length: [UInt32], nodeLat: [Int32], nodeLon: [Int32],
                        nodeArea: [UInt32], edgeClass: [UInt8]) -> CircuityTable
    {
        let n = nodeLat.count
        guard n >= 2 else { return CircuityTable() }
        let classes = RoadClass.allCases.count
        let sourceCount = min(sources, n)
        let collector = Collector(sources: sourceCount)
        let targetStep = max(1, n / targetsPerSource)
        @Sendable func coordinate(_ v: Int) -> Coordinate { Coordinate(lon: Double(nodeLon[v]) * 1e-7, lat: Double(nodeLat[v]) * 1e-7) }
        DispatchQueue.concurrentPerform(iterations: sourceCount) { k in
            // Nodes are in spatial (Hilbert) order: evenly spaced ids are spread over the map.
            let source = (k * n) / sourceCount + (n / sourceCount) / 2
            var dist = [UInt32](repeating: .max, count: n)
            var parent = [Int32](repeating: -1, count: n)
            var heap = PackedMinHeap(capacity: 1024)
            dist[source] = 0
            heap.push(key: 0, node: UInt32(source))
            while let (key, node) = heap.pop() {
                let v = Int(node)
                if key != dist[v] { continue }
                for e in Int(firstOut[v])..<Int(firstOut[v + 1]) {
                    let w = Int(head[e])
                    let nd = UInt64(key) + UInt64(weight[e])
                    if nd < UInt64(dist[w]) {
                        dist[w] = UInt32(min(nd, UInt64(UInt32.max - 1)))
                        parent[w] = Int32(e)
                        heap.push(key: dist[w], node: UInt32(w))
                    }
                }
            }
            // The tail of each edge, for walking back.
            var local: [(meters: Double, ratio: Double, classLength: [Double])] = []
            let from = coordinate(source)
            var t = (k * 7919) % targetStep
            while t < n {
                defer { t += targetStep }
                guard t != source, nodeArea[t] == nodeArea[source], dist[t] != .max else { continue }
                let straight = from.distance(to: coordinate(t))
                guard straight >= CircuityTable.edges[0] else { continue }
                var perClass = [Double](repeating: 0, count: classes)
                var total = 0.0
                var v = t
                while v != source, parent[v] >= 0 {
                    let e = Int(parent[v])
                    let m = Double(length[e]) / 100
                    total += m
                    perClass[min(Int(edgeClass[e]), classes - 1)] += m
                    v = tail(of: e, firstOut: firstOut)
                }
                guard total > 0 else { continue }
                local.append((straight, total / straight, perClass))
            }
            collector.lock.lock()
            collector.bySource[k] = local
            collector.lock.unlock()
        }
        let samples = collector.bySource.flatMap { $0 }
        var table = CircuityTable()
        let edges = CircuityTable.edges
        for b in 0..<(edges.count - 1) {
            let inBand = samples.filter { $0.meters >= edges[b] && $0.meters < edges[b + 1] }
            let ratios = inBand.map(\.ratio).sorted()
            func pct(_ p: Double) -> Double {
                guard !ratios.isEmpty else { return 1 }
                return max(1, ratios[min(ratios.count - 1, Int((p * Double(ratios.count - 1)).rounded()))])
            }
            var share = [Double](repeating: 0, count: classes)
            for s in inBand { for c in 0..<classes { share[c] += s.classLength[c] } }
            let sum = share.reduce(0, +)
            if sum > 0 { share = share.map { $0 / sum } }
            table.bands.append(.init(minMeters: edges[b], maxMeters: edges[b + 1], pairs: ratios.count, p05: pct(0.05), p10: pct(0.1),
                                     median: pct(0.5), p90: pct(0.9), p95: pct(0.95), classShare: share))
        }
        return table
    }

    /// The tail node of edge `e` (binary search in the CSR offsets).
    @inline(__always)
    static func tail(of e: Int, firstOut: [UInt32]) -> Int {
        var lo = 0, hi = firstOut.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) >> 1
            if Int(firstOut[mid]) <= e { lo = mid } else { hi = mid }
        }
        return lo
    }
}

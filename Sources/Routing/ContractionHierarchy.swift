import Foundation

/// A contraction hierarchy of the graph on one metric (the lower-bound travel time): each
/// node's rank, and two CSR graphs indexed by rank, with ranks as ends: the upward edges
/// `v → w` (rank w > rank v) and, per node `y`, the edges `x → y` coming down from
/// higher-ranked nodes (what a backward search relaxes). Weights include shortcuts; every
/// distance in it equals the metric's distance in the graph.
package struct ContractionHierarchy {
    package var rank: [UInt32] = []
    package var upFirst: [UInt32] = [0]
    package var upHead: [UInt32] = []
    package var upWeight: [UInt32] = []
    package var downFirst: [UInt32] = [0]
    package var downTail: [UInt32] = []
    package var downWeight: [UInt32] = []

    package init() {}
}

/// An edge of the remaining graph during contraction, stored at both ends: from the node whose
/// list holds it to `other`, `forward` is the weight of node → other and `backward` of
/// other → node (`.max` when absent), with the number of original edges each stands for, and
/// where the graph has per-metric weights, the entry holding each direction's (shared by the
/// direction's two ends; `none` when absent).
package struct CHArc {
    package var other: UInt32
    package var forward: UInt32
    package var backward: UInt32
    package var forwardHops: UInt16
    package var backwardHops: UInt16
    package var forwardMetrics: UInt32 = CHRemainingGraph.none
    package var backwardMetrics: UInt32 = CHRemainingGraph.none
}

/// The remaining (uncontracted) graph: one arc list per node in a growable pool. Shared
/// between threads only while nobody changes it (the initial priorities).
///
/// With `metrics`, each directed arc also carries its weight in each of those metrics (the
/// prepare-time hours' travel times): the smallest, per metric, of the paths merged into it.
/// A witness search can then check a witness against a shortcut in every metric at once.
package final class CHRemainingGraph: @unchecked Sendable {
    package static let none = UInt32.max
    package let nodeCount: Int
    /// Metrics carried per arc (0: none), and their weights: `metricCount` values per entry.
    package let metricCount: Int
    package private(set) var metricWeights: UnsafeMutablePointer<UInt32>
    private var metricCapacity = 0, metricEntries = 0
    package private(set) var pool: UnsafeMutablePointer<CHArc>
    private var poolCapacity: Int
    private var poolEnd = 0
    package let start: UnsafeMutablePointer<Int>
    package let count: UnsafeMutablePointer<Int32>
    package let capacity: UnsafeMutablePointer<Int32>

    /// The graph of `firstOut`/`head` with `weight` (and each edge's weight in each of `metrics`);
    /// loops dropped, parallel edges merged.
    package init(firstOut: [UInt32], head: [UInt32], weight: [UInt32], metrics: [[UInt32]] = []) {
        let n = firstOut.count - 1
        nodeCount = n
        metricCount = metrics.count
        metricWeights = .allocate(capacity: 1)
        var degree = [Int32](repeating: 0, count: n)
        for v in 0..<n {
            for e in Int(firstOut[v])..<Int(firstOut[v + 1]) where Int(head[e]) != v {
                degree[v] += 1; degree[Int(head[e])] += 1
            }
        }
        start = .allocate(capacity: n); count = .allocate(capacity: n); capacity = .allocate(capacity: n)
        var total = 0
        for v in 0..<n {
            start[v] = total; count[v] = 0; capacity[v] = degree[v] + 2
            total += Int(degree[v]) + 2
        }
        poolCapacity = max(total * 2, 1024)
        pool = .allocate(capacity: poolCapacity)
        poolEnd = total
        var values = [UInt32](repeating: 0, count: metricCount)
        for v in 0..<n {
            for e in Int(firstOut[v])..<Int(firstOut[v + 1]) where Int(head[e]) != v {
                for m in 0..<metricCount { values[m] = metrics[m][e] }
                values.withUnsafeBufferPointer {
                    add(from: v, to: Int(head[e]), weight: weight[e], hops: 1, metrics: metricCount > 0 ? $0.baseAddress : nil)
                }
            }
        }
    }

    deinit { pool.deallocate(); start.deallocate(); count.deallocate(); capacity.deallocate(); metricWeights.deallocate() }

    /// The weights of metric entry `id`.
    @inline(__always)
    package func metrics(_ id: UInt32) -> UnsafeMutablePointer<UInt32> { metricWeights + Int(id) * metricCount }

    /// Sums at or above this are not kept apart (as the customized weights, `CHMetric.limit`).
    package static let metricLimit = UInt64(UInt32.max / 2)

    /// Gives the forward arc `f` (whose reverse end `b` shares its entry) the per-metric minimum
    /// of its weights and `values`; returns the entry.
    private func mergeMetrics(_ id: UInt32, _ values: UnsafePointer<UInt32>) -> UInt32 {
        if id != Self.none {
            let w = metrics(id)
            for m in 0..<metricCount where values[m] < w[m] { w[m] = values[m] }
            return id
        }
        if metricEntries == metricCapacity {
            let grown = max(1024, metricCapacity * 2)
            let fresh = UnsafeMutablePointer<UInt32>.allocate(capacity: grown * metricCount)
            fresh.update(from: metricWeights, count: metricEntries * metricCount)
            metricWeights.deallocate()
            metricWeights = fresh
            metricCapacity = grown
        }
        let new = UInt32(metricEntries)
        metricEntries += 1
        metrics(new).update(from: values, count: metricCount)
        return new
    }

    /// Arcs of `v`.
    @inline(__always)
    package func arcs(_ v: Int) -> UnsafeMutableBufferPointer<CHArc> {
        UnsafeMutableBufferPointer(start: pool + start[v], count: Int(count[v]))
    }

    /// Adds (or shortens) the edge `u → x` at both ends (with `metrics`: its weight in each metric).
    package func add(from u: Int, to x: Int, weight: UInt32, hops: UInt16, metrics values: UnsafePointer<UInt32>? = nil) {
        var id = Self.none
        update(u, other: x) { a in
            if weight < a.forward { a.forward = weight; a.forwardHops = hops }
            if let values { a.forwardMetrics = mergeMetrics(a.forwardMetrics, values); id = a.forwardMetrics }
        }
        update(x, other: u) { a in
            if weight < a.backward { a.backward = weight; a.backwardHops = hops }
            if values != nil { a.backwardMetrics = id }
        }
    }

    /// The per-metric sums of entries `a` and `b` into `out` (saturating at `metricLimit`).
    @inline(__always)
    package func sumMetrics(_ a: UInt32, _ b: UInt32, into out: UnsafeMutablePointer<UInt32>) {
        let x = metrics(a), y = metrics(b)
        for m in 0..<metricCount { out[m] = UInt32(min(UInt64(x[m]) + UInt64(y[m]), Self.metricLimit)) }
    }

    /// Adds (or shortens) every edge of `edges` as `add` would one by one, in order (the lists end
    /// up the same), where all ends are among `nodes`: their arcs to each other are found through a
    /// table of positions built once, instead of a scan of a list per edge (contracting a node of
    /// degree d adds up to d² shortcuts to lists of length ~d, so the scans cost d³).
    package func add(_ edges: [CHShortcut], among nodes: [Int], scratch s: CHInsertScratch) {
        s.reserveSum(metricCount)
        let sum = s.sum
        guard edges.count > 8 else {
            for e in edges {
                if metricCount > 0 { sumMetrics(e.firstMetrics, e.secondMetrics, into: sum) }
                add(from: Int(e.from), to: Int(e.to), weight: e.weight, hops: e.hops, metrics: metricCount > 0 ? UnsafePointer(sum) : nil)
            }
            return
        }
        let d = nodes.count
        s.reserve(d)
        for (i, w) in nodes.enumerated() { s.slot[w] = Int32(i) }
        let pos = s.position
        pos.update(repeating: -1, count: d * d)
        for (i, w) in nodes.enumerated() {
            let list = pool + start[w]
            for k in 0..<Int(count[w]) {
                let j = s.slot[Int(list[k].other)]
                if j >= 0 { pos[i * d + Int(j)] = Int32(k) }
            }
        }
        func arc(_ v: Int, _ iv: Int, _ io: Int, other: Int) -> UnsafeMutablePointer<CHArc> {
            let k = Int(pos[iv * d + io])
            if k >= 0 { return pool + start[v] + k }
            if count[v] == capacity[v] { grow(v) }
            let at = Int(count[v])
            pool[start[v] + at] = CHArc(other: UInt32(other), forward: Self.none, backward: Self.none, forwardHops: 0, backwardHops: 0)
            count[v] += 1
            pos[iv * d + io] = Int32(at)
            return pool + start[v] + at
        }
        for e in edges {
            let u = Int(e.from), x = Int(e.to)
            let iu = Int(s.slot[u]), ix = Int(s.slot[x])
            // `f` is used up before `arc` is called again (growing a list may move the pool).
            let f = arc(u, iu, ix, other: x)
            if e.weight < f.pointee.forward { f.pointee.forward = e.weight; f.pointee.forwardHops = e.hops }
            var id = Self.none
            if metricCount > 0 {
                sumMetrics(e.firstMetrics, e.secondMetrics, into: sum)
                id = mergeMetrics(f.pointee.forwardMetrics, sum)
                f.pointee.forwardMetrics = id
            }
            let b = arc(x, ix, iu, other: u)
            if e.weight < b.pointee.backward { b.pointee.backward = e.weight; b.pointee.backwardHops = e.hops }
            if metricCount > 0 { b.pointee.backwardMetrics = id }
        }
        for w in nodes { s.slot[w] = -1 }
    }

    private func update(_ v: Int, other: Int, _ change: (inout CHArc) -> Void) {
        let list = pool + start[v]
        for i in 0..<Int(count[v]) where Int(list[i].other) == other {
            change(&list[i])
            return
        }
        if count[v] == capacity[v] { grow(v) }
        var a = CHArc(other: UInt32(other), forward: Self.none, backward: Self.none, forwardHops: 0, backwardHops: 0)
        change(&a)
        pool[start[v] + Int(count[v])] = a
        count[v] += 1
    }

    /// Removes the arc to `other` from `v`'s list.
    package func remove(_ v: Int, other: Int) {
        let list = pool + start[v]
        let c = Int(count[v])
        for i in 0..<c where Int(list[i].other) == other {
            list[i] = list[c - 1]
            count[v] -= 1
            return
        }
    }

    /// Moves `v`'s list to the pool's end with twice the room (compacting the pool when full).
    private func grow(_ v: Int) {
        let newCapacity = Int(capacity[v]) * 2 + 4
        if poolEnd + newCapacity > poolCapacity { compact(extra: newCapacity) }
        (pool + poolEnd).update(from: pool + start[v], count: Int(count[v]))
        start[v] = poolEnd
        capacity[v] = Int32(newCapacity)
        poolEnd += newCapacity
    }

    private func compact(extra: Int) {
        var live = 0
        for v in 0..<nodeCount { live += Int(count[v]) + Int(count[v]) / 2 + 2 }
        let newCapacity = max(2 * live + extra, 1024)
        let fresh = UnsafeMutablePointer<CHArc>.allocate(capacity: newCapacity)
        var end = 0
        for v in 0..<nodeCount {
            let c = Int(count[v])
            (fresh + end).update(from: pool + start[v], count: c)
            start[v] = end
            capacity[v] = Int32(c + c / 2 + 2)
            end += Int(capacity[v])
        }
        pool.deallocate()
        pool = fresh
        poolCapacity = newCapacity
        poolEnd = end
    }
}

/// A shortcut `from → to` of `weight`, standing for `hops` original edges; with metrics, the
/// entries of its two halves (its weights are their sums).
package struct CHShortcut {
    package var from: UInt32, to: UInt32, weight: UInt32, hops: UInt16
    package var firstMetrics: UInt32, secondMetrics: UInt32

    package init(from: UInt32, to: UInt32, weight: UInt32, hops: UInt16,
                 firstMetrics: UInt32 = CHRemainingGraph.none, secondMetrics: UInt32 = CHRemainingGraph.none) {
        self.from = from; self.to = to; self.weight = weight; self.hops = hops
        self.firstMetrics = firstMetrics; self.secondMetrics = secondMetrics
    }
}

/// Scratch of `CHRemainingGraph.add(_:among:scratch:)`: each node's index among the nodes of
/// one call (-1 elsewhere), and their d × d table of arc positions.
package final class CHInsertScratch {
    let slot: UnsafeMutablePointer<Int32>
    private(set) var position: UnsafeMutablePointer<Int32>
    private var positionCapacity = 0

    package init(nodeCount: Int) {
        slot = .allocate(capacity: nodeCount)
        slot.initialize(repeating: -1, count: nodeCount)
        position = .allocate(capacity: 1)
    }

    /// Room for one sum of per-metric weights.
    private(set) var sum = UnsafeMutablePointer<UInt32>.allocate(capacity: 1)
    private var sumCapacity = 1

    deinit { slot.deallocate(); position.deallocate(); sum.deallocate() }

    func reserveSum(_ m: Int) {
        guard m > sumCapacity else { return }
        sum.deallocate()
        sum = .allocate(capacity: m)
        sumCapacity = m
    }

    func reserve(_ d: Int) {
        guard d * d > positionCapacity else { return }
        position.deallocate()
        positionCapacity = max(d * d, 2 * positionCapacity)
        position = .allocate(capacity: positionCapacity)
    }
}

/// A bounded Dijkstra over the remaining graph's forward arcs, looking for paths that make a
/// shortcut unnecessary. Stopping early only means more shortcuts, never a wrong distance.
package final class CHWitnessSearch {
    package let dist: UnsafeMutablePointer<UInt32>
    /// Original edges on the path that gave `dist` (saturating).
    package let hops: UnsafeMutablePointer<UInt32>
    package let stamp: UnsafeMutablePointer<UInt32>
    /// The node before each reached node on the path found, and the metric entry of its arc.
    package let parent: UnsafeMutablePointer<UInt32>
    package let parentMetrics: UnsafeMutablePointer<UInt32>
    package private(set) var source = 0
    package let isTarget: UnsafeMutablePointer<UInt32>
    package var generation: UInt32 = 0
    package var heap = PackedMinHeap(capacity: 1024)

    package init(nodeCount: Int) {
        dist = .allocate(capacity: nodeCount); hops = .allocate(capacity: nodeCount)
        stamp = .allocate(capacity: nodeCount); isTarget = .allocate(capacity: nodeCount)
        parent = .allocate(capacity: nodeCount); parentMetrics = .allocate(capacity: nodeCount)
        stamp.initialize(repeating: 0, count: nodeCount)
        isTarget.initialize(repeating: 0, count: nodeCount)
    }

    deinit {
        dist.deallocate(); hops.deallocate(); stamp.deallocate(); isTarget.deallocate()
        parent.deallocate(); parentMetrics.deallocate()
    }

    /// Whether the path found to `v` (reached by the last search) weighs at most `bound` in
    /// every metric of `g`; `scratch` holds `g.metricCount` values.
    package func pathWithin(_ g: CHRemainingGraph, to v: Int, bound: UnsafePointer<UInt32>, scratch: UnsafeMutablePointer<UInt64>) -> Bool {
        let mc = g.metricCount
        scratch.update(repeating: 0, count: mc)
        var w = v
        while w != source {
            let id = parentMetrics[w]
            if id == CHRemainingGraph.none { return false }
            let x = g.metrics(id)
            for m in 0..<mc { scratch[m] += UInt64(x[m]) }
            w = Int(parent[w])
        }
        for m in 0..<mc where scratch[m] > UInt64(bound[m]) || scratch[m] >= CHRemainingGraph.metricLimit { return false }
        return true
    }

    /// The distance found from the last search's source to `v` (`.max` when not reached).
    @inline(__always)
    package func distance(_ v: Int) -> UInt32 { stamp[v] == generation ? dist[v] : .max }

    /// The number of original edges of a path of length `distance(v)` to `v` (valid when reached).
    @inline(__always)
    package func hopCount(_ v: Int) -> UInt32 { hops[v] }

    /// Searches from `source` avoiding `skip`, up to `limit`, until `targets` are settled or
    /// `settleLimit` nodes are.
    package func run(_ g: CHRemainingGraph, from source: Int, skip: Int, limit: UInt32, targets: Int, settleLimit: Int) {
        generation &+= 1
        if generation == 0 {
            for i in 0..<g.nodeCount { stamp[i] = 0; isTarget[i] = 0 }
            generation = 1
        }
        let gen = generation
        let dist = self.dist, hops = self.hops, stamp = self.stamp, isTarget = self.isTarget
        let pool = g.pool, start = g.start, count = g.count
        do {
            let list = pool + start[skip]
            for i in 0..<Int(count[skip]) where list[i].forward != CHRemainingGraph.none { isTarget[Int(list[i].other)] = gen }
        }
        var remaining = targets
        // Taken out of `self` (not copied) so that it stays uniquely referenced: a copy would make
        // the first push of every search allocate a new buffer.
        var heap = self.heap
        self.heap = PackedMinHeap()
        heap.removeAll()
        defer { self.heap = heap }
        self.source = source
        let parent = self.parent, parentMetrics = self.parentMetrics
        dist[source] = 0; hops[source] = 0; stamp[source] = gen
        heap.push(key: 0, node: UInt32(source))
        var settled = 0
        while let (key, node) = heap.pop() {
            let v = Int(node)
            if key != dist[v] { continue }
            if key > limit { break }
            settled += 1
            if isTarget[v] == gen {
                remaining -= 1
                if remaining == 0 { break }
            }
            if settled >= settleLimit { break }
            let list = pool + start[v]
            for i in 0..<Int(count[v]) {
                let a = list[i]
                guard a.forward != CHRemainingGraph.none else { continue }
                let w = Int(a.other)
                if w == skip { continue }
                let nd = UInt64(key) + UInt64(a.forward)
                if nd > UInt64(limit) { continue }
                let d = UInt32(nd)
                let h = min(hops[v] + UInt32(a.forwardHops), UInt32(UInt16.max))
                if stamp[w] != gen || d < dist[w] {
                    stamp[w] = gen; dist[w] = d; hops[w] = h
                    parent[w] = node; parentMetrics[w] = a.forwardMetrics
                    heap.push(key: d, node: UInt32(w))
                } else if d == dist[w] && h < hops[w] {
                    hops[w] = h
                    parent[w] = node; parentMetrics[w] = a.forwardMetrics
                }
            }
        }
    }
}

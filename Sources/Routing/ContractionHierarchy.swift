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
/// other → node (`.max` when absent), with the number of original edges each stands for.
package struct CHArc {
    package var other: UInt32
    package var forward: UInt32
    package var backward: UInt32
    package var forwardHops: UInt16
    package var backwardHops: UInt16
}

/// The remaining (uncontracted) graph: one arc list per node in a growable pool. Shared
/// between threads only while nobody changes it (the initial priorities).
package final class CHRemainingGraph: @unchecked Sendable {
    package static let none = UInt32.max
    package let nodeCount: Int
    package private(set) var pool: UnsafeMutablePointer<CHArc>
    private var poolCapacity: Int
    private var poolEnd = 0
    package let start: UnsafeMutablePointer<Int>
    package let count: UnsafeMutablePointer<Int32>
    package let capacity: UnsafeMutablePointer<Int32>

    /// The graph of `firstOut`/`head` with `weight`; loops dropped, parallel edges merged.
    package init(firstOut: [UInt32], head: [UInt32], weight: [UInt32]) {
        let n = firstOut.count - 1
        nodeCount = n
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
        for v in 0..<n {
            for e in Int(firstOut[v])..<Int(firstOut[v + 1]) where Int(head[e]) != v {
                add(from: v, to: Int(head[e]), weight: weight[e], hops: 1)
            }
        }
    }

    deinit { pool.deallocate(); start.deallocate(); count.deallocate(); capacity.deallocate() }

    /// Arcs of `v`.
    @inline(__always)
    package func arcs(_ v: Int) -> UnsafeMutableBufferPointer<CHArc> {
        UnsafeMutableBufferPointer(start: pool + start[v], count: Int(count[v]))
    }

    /// Adds (or shortens) the edge `u → x` at both ends.
    package func add(from u: Int, to x: Int, weight: UInt32, hops: UInt16) {
        update(u, other: x) { a in if weight < a.forward { a.forward = weight; a.forwardHops = hops } }
        update(x, other: u) { a in if weight < a.backward { a.backward = weight; a.backwardHops = hops } }
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

/// A bounded Dijkstra over the remaining graph's forward arcs, looking for paths that make a
/// shortcut unnecessary. Stopping early only means more shortcuts, never a wrong distance.
package final class CHWitnessSearch {
    package let dist: UnsafeMutablePointer<UInt32>
    /// Original edges on the path that gave `dist` (saturating).
    package let hops: UnsafeMutablePointer<UInt32>
    package let stamp: UnsafeMutablePointer<UInt32>
    package let isTarget: UnsafeMutablePointer<UInt32>
    package var generation: UInt32 = 0
    package var heap = PackedMinHeap(capacity: 1024)

    package init(nodeCount: Int) {
        dist = .allocate(capacity: nodeCount); hops = .allocate(capacity: nodeCount)
        stamp = .allocate(capacity: nodeCount); isTarget = .allocate(capacity: nodeCount)
        stamp.initialize(repeating: 0, count: nodeCount)
        isTarget.initialize(repeating: 0, count: nodeCount)
    }

    deinit { dist.deallocate(); hops.deallocate(); stamp.deallocate(); isTarget.deallocate() }

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
        var heap = self.heap
        heap.removeAll()
        defer { self.heap = heap }
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
                    heap.push(key: d, node: UInt32(w))
                } else if d == dist[w] && h < hops[w] {
                    hops[w] = h
                }
            }
        }
    }
}

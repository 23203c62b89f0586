import Foundation

/// Per-node search state, valid when `stamp` equals the search's generation.
struct NodeState {
    var dist: UInt32
    var potential: UInt32
    var parent: UInt32
    var stamp: UInt32
}

/// The memory one search needs; reused across queries through `ScratchPool`.
///
/// Buffers are raw pointers held in `let`s, so the hot loops pay no exclusivity checks.
final class SearchScratch: NodeScratch {
    let nodeCount: Int
    let state: UnsafeMutablePointer<NodeState>
    let targetStamp: UnsafeMutablePointer<UInt32>
    var generation: UInt32 = 0
    var heap = PackedMinHeap(capacity: 4096)
    /// Buffers of the CH potential.
    let ch: CHScratch
    /// Buffers of the bidirectional hierarchy query (allocated on first use).
    lazy var hierarchy = CHQueryScratch(nodeCount: nodeCount)
    /// Per-query landmark buffers: bounds toward the target for every landmark, then the active ones.
    static let maxLandmarks = 64
    let allFrom: UnsafeMutablePointer<Int64>, allTo: UnsafeMutablePointer<Int64>
    let active: UnsafeMutablePointer<Int>
    let activeFrom: UnsafeMutablePointer<Int64>, activeTo: UnsafeMutablePointer<Int64>, activeBound: UnsafeMutablePointer<Int64>

    init(nodeCount: Int) {
        self.nodeCount = nodeCount
        state = .allocate(capacity: nodeCount)
        state.initialize(repeating: NodeState(dist: 0, potential: 0, parent: 0, stamp: 0), count: nodeCount)
        targetStamp = .allocate(capacity: nodeCount)
        targetStamp.initialize(repeating: 0, count: nodeCount)
        ch = CHScratch(nodeCount: nodeCount)
        let m = Self.maxLandmarks
        allFrom = .allocate(capacity: m); allTo = .allocate(capacity: m); active = .allocate(capacity: m)
        activeFrom = .allocate(capacity: m); activeTo = .allocate(capacity: m); activeBound = .allocate(capacity: m)
    }

    deinit {
        state.deallocate(); targetStamp.deallocate()
        allFrom.deallocate(); allTo.deallocate(); active.deallocate()
        activeFrom.deallocate(); activeTo.deallocate(); activeBound.deallocate()
    }

    /// Starts a new search: a fresh generation makes every node state stale at once.
    func nextGeneration() -> UInt32 {
        if generation == .max {
            for i in 0..<nodeCount { state[i].stamp = 0; targetStamp[i] = 0 }
            generation = 0
        }
        generation += 1
        return generation
    }
}

/// Working memory sized by the graph's node count, kept in a `ScratchPool` between queries.
protocol NodeScratch: AnyObject {
    init(nodeCount: Int)
}

/// A lock-protected stack of scratch spaces, so many threads can query one engine at once
/// (`SearchScratch` for routes, `TableScratch` for tables).
final class ScratchPool<Scratch: NodeScratch>: @unchecked Sendable {
    private let lock = NSLock()
    private var free: [Scratch] = []
    private let nodeCount: Int

    init(nodeCount: Int) { self.nodeCount = nodeCount }

    func withScratch<R>(_ body: (Scratch) -> R) -> R {
        lock.lock()
        let s = free.popLast()
        lock.unlock()
        let scratch = s ?? Scratch(nodeCount: nodeCount)
        defer {
            lock.lock()
            free.append(scratch)
            lock.unlock()
        }
        return body(scratch)
    }
}

/// Edge weights of one query.
protocol EdgeWeights {
    func callAsFunction(_ e: Int) -> UInt32
}

/// Travel time in ms at one hour: length × the hour's factor of the edge's speed combo.
struct TimeWeights: EdgeWeights {
    let length: UnsafePointer<UInt32>
    let combo: UnsafePointer<UInt16>
    let q: UnsafePointer<UInt64>
    @inline(__always) func callAsFunction(_ e: Int) -> UInt32 { SpeedFactor.time(cm: length[e], q: q[Int(combo[e])]) }
}

extension TimeWeights {
    /// The times of `graph`'s edges with the per-combo factors `q` (one hour's).
    init(_ graph: RoadGraph, q: UnsafeBufferPointer<UInt64>) {
        self.init(length: graph.length.baseAddress!, combo: graph.combo.baseAddress!, q: q.baseAddress!)
    }
}

/// Length in cm.
struct DistanceWeights: EdgeWeights {
    let length: UnsafePointer<UInt32>
    @inline(__always) func callAsFunction(_ e: Int) -> UInt32 { length[e] }
}

/// The ALT potential toward one (virtual) target: for each active landmark L,
/// `max(D_from[L] − d(L, v), d(v, L) − D_to[L])`, scaled by the hour's factor.
struct LandmarkPotential: NodePotential {
    /// `2·L` values per node: from-landmark distances, then to-landmark distances.
    let table: UnsafePointer<UInt32>
    let landmarkCount: Int
    /// Active landmarks and their bounds toward the target (scratch-owned buffers).
    let active: UnsafePointer<Int>
    let fromBound: UnsafePointer<Int64>
    let toBound: UnsafePointer<Int64>
    let activeCount: Int
    /// Multiplier from lower-bound units to this query's weights (≤ the true ratio on every edge).
    let scale: Double

    @inline(__always)
    func callAsFunction(_ v: Int) -> UInt32 {
        let row = table + v * 2 * landmarkCount
        var best: Int64 = 0
        for i in 0..<activeCount {
            let k = active[i]
            let a = fromBound[i] &- Int64(row[k])
            let b = Int64(row[landmarkCount &+ k]) &- toBound[i]
            best = max(best, a, b)
        }
        return Self.scaled(best, by: scale)
    }
}

/// Where a search starts and what ends it.
struct SearchEnds {
    /// Start nodes with their initial cost; `marker` goes into `parent` (high bit set).
    var sources: [(node: UInt32, cost: UInt32, marker: UInt32)] = []
    /// End nodes with the cost still to pay from them, and which endpoint they stand for.
    var targets: [(node: UInt32, extra: UInt32, endpoint: Int)] = []
    /// A route that never leaves one edge, when there is one: cost, length (cm) and (source, target) endpoints.
    var direct: (cost: UInt64, length: UInt64, source: Int, target: Int)?
    /// The length (cm) of each source's and each target's part of its edge, in the order of
    /// `sources` and `targets` (missing: 0). The hierarchy query breaks ties between routes of
    /// equal cost by length with them (see `RoadGraph.hierarchySearch`).
    var sourceLength: [UInt32] = []
    var targetLength: [UInt32] = []
}

/// The outcome of one search.
struct SearchOutcome {
    enum Path {
        /// Along one edge from source endpoint to target endpoint.
        case direct(source: Int, target: Int)
        /// Source endpoint → full edges → target endpoint.
        case edges(source: Int, edges: [UInt32], target: Int)
    }
    var cost: UInt64
    var path: Path
    var settled: Int
}

extension RoadGraph {
    /// A* (Dijkstra with `ZeroPotential`) from `ends.sources` to the best of `ends.targets`.
    /// Exact: the potential is consistent, so the first time the queue's smallest key reaches
    /// the best known cost, that cost is optimal.
    func search<W: EdgeWeights, P: NodePotential>(_ ends: SearchEnds, weights: W, potential: P, scratch: SearchScratch) -> SearchOutcome? {
        let gen = scratch.nextGeneration()
        var heap = scratch.heap
        heap.removeAll()
        defer { scratch.heap = heap }
        var best: UInt64 = ends.direct?.cost ?? .max
        var bestTarget = -1
        var settled = 0
        let markBit: UInt32 = 0x8000_0000
        let state = scratch.state, targetStamp = scratch.targetStamp
        @inline(__always) func touch(_ v: Int) {
            if state[v].stamp != gen {
                state[v] = NodeState(dist: .max, potential: potential(v), parent: .max, stamp: gen)
            }
        }
        @inline(__always) func reachedTarget(_ v: Int, _ d: UInt32) {
            for (i, t) in ends.targets.enumerated() where Int(t.node) == v {
                let c = UInt64(d) + UInt64(t.extra)
                if c < best { best = c; bestTarget = i }
            }
        }
        for t in ends.targets { targetStamp[Int(t.node)] = gen }
        for s in ends.sources {
            let v = Int(s.node)
            touch(v)
            if s.cost < state[v].dist {
                state[v].dist = s.cost
                state[v].parent = markBit | s.marker
                heap.push(key: UInt32(min(UInt64(s.cost) + UInt64(state[v].potential), UInt64(UInt32.max))), node: s.node)
                if targetStamp[v] == gen { reachedTarget(v, s.cost) }
            }
        }
        let firstOut = self.firstOut.baseAddress!, head = self.head.baseAddress!
        while let (key, node) = heap.pop() {
            if UInt64(key) >= best { break }
            let v = Int(node)
            let s = state[v]
            if UInt64(key) != min(UInt64(s.dist) + UInt64(s.potential), UInt64(UInt32.max)) { continue }
            settled += 1
            let d = s.dist
            for e in Int(firstOut[v])..<Int(firstOut[v + 1]) {
                let w = Int(head[e])
                let nd64 = UInt64(d) + UInt64(weights(e))
                guard nd64 < UInt64(UInt32.max / 2) else { continue }
                let nd = UInt32(nd64)
                touch(w)
                if nd < state[w].dist {
                    state[w].dist = nd
                    state[w].parent = UInt32(e)
                    let f = min(nd64 + UInt64(state[w].potential), UInt64(UInt32.max))
                    heap.push(key: UInt32(f), node: UInt32(w))
                    if targetStamp[w] == gen { reachedTarget(w, nd) }
                }
            }
        }
        guard best != .max else { return nil }
        if bestTarget < 0, let direct = ends.direct {
            return SearchOutcome(cost: direct.cost, path: .direct(source: direct.source, target: direct.target), settled: settled)
        }
        // Walk parents back to a source marker.
        let target = ends.targets[bestTarget]
        var path: [UInt32] = []
        var v = Int(target.node)
        var guardSteps = 0
        while state[v].parent & markBit == 0 {
            let e = state[v].parent
            path.append(e)
            v = tail(of: Int(e))
            guardSteps += 1
            if guardSteps > nodeCount { return nil }  // cannot happen with non-negative weights
        }
        path.reverse()
        return SearchOutcome(cost: best, path: .edges(source: Int(state[v].parent & ~markBit), edges: path, target: target.endpoint),
                             settled: settled)
    }

    /// The source node of edge `e` (binary search in the CSR offsets).
    func tail(of e: Int) -> Int {
        var lo = 0, hi = nodeCount - 1
        while lo < hi {
            let mid = (lo + hi + 1) >> 1
            if Int(firstOut[mid]) <= e { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }
}

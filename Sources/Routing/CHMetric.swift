import Foundation

/// One metric's weights on the arcs of the contraction hierarchy (built on lower bounds), by
/// customization: each arc starts at the smallest weight of the original edges it joins (none
/// for a pure shortcut), then, node by node in increasing rank, every pair of arcs `u → v → x`
/// through the node lowers the arc `u → x` when the file has it. Each arc remembers what gave
/// its weight (an original edge, or the two arcs of the middle node) so that a query can unpack it.
///
/// Exact for every metric whose edge times relate to the lower bounds as the prepare-time
/// profile's hours do (the witness margin, `WitnessMargin`): by induction over the contraction,
/// every arc's customized weight is at most the metric's weight of every path the contraction
/// merged into it, and every pair of arcs a witness replaced has a witness at least as short
/// in the metric; and every weight is the weight of a real path. Immutable, shared by threads.
final class CHMetric: @unchecked Sendable {
    /// Weight of each upward arc (indexed like `chUpHead`) and of each downward arc (like `chDownTail`).
    let upWeight: [UInt32]
    let downWeight: [UInt32]
    /// Per arc, what its weight is the weight of: `original(e)` for original edge `e`, else
    /// `halves(d, u)`: downward arc `d` (into the middle node) then upward arc `u` (out of it).
    let upUnpack: [UInt64]
    let downUnpack: [UInt64]
    /// Length in cm of the original edges each arc unpacks into (so a search can carry the
    /// distance of the path it follows without unpacking it; saturating).
    let upLength: [UInt32]
    let downLength: [UInt32]
    /// The arcs the point-to-point query relaxes (`CHQueryArcs`).
    let query: CHQueryArcs

    /// Arc indices and edge ids stay below this (so `original` never looks like halves).
    static let maxIndex = 0x8000_0000
    static let infinity = UInt32.max
    static let none = UInt64.max

    @inline(__always) static func original(_ e: Int) -> UInt64 { 0xFFFF_FFFF_0000_0000 | UInt64(e) }
    @inline(__always) static func halves(_ down: Int, _ up: Int) -> UInt64 { UInt64(down) << 32 | UInt64(up) }
    /// Memory a metric takes per arc at most: its weight (4 bytes), unpacking entry (8 bytes) and
    /// length (4 bytes), and the query's copy when the arc is kept there (`CHQueryArcs.bytesPerArc`).
    static let bytesPerArc = 16 + CHQueryArcs.bytesPerArc
    /// Sums from here on are not stored (the searches keep distances below `UInt32.max / 2`).
    static let limit = UInt64(UInt32.max / 2)

    /// The metric of these weights on the hierarchy of `graph` (whose arcs they are indexed like);
    /// `prunedQuery` false keeps every arc with a weight in `query` (for tests).
    init(upWeight: [UInt32], downWeight: [UInt32], upUnpack: [UInt64], downUnpack: [UInt64], upLength: [UInt32], downLength: [UInt32],
         hierarchy graph: RoadGraph, prunedQuery: Bool = true)
    {
        self.upWeight = upWeight; self.downWeight = downWeight
        self.upUnpack = upUnpack; self.downUnpack = downUnpack
        self.upLength = upLength; self.downLength = downLength
        query = upWeight.withUnsafeBufferPointer { upW in
            downWeight.withUnsafeBufferPointer { downW in
                CHQueryArcs(n: graph.nodeCount, upFirst: graph.chUpFirst.baseAddress!, upHead: graph.chUpHead.baseAddress!, upW: upW.baseAddress!,
                            downFirst: graph.chDownFirst.baseAddress!, downTail: graph.chDownTail.baseAddress!, downW: downW.baseAddress!,
                            pruned: prunedQuery)
            }
        }
    }

    /// `a + b`, saturating at `UInt32.max`.
    @inline(__always) static func lengthSum(_ a: UInt32, _ b: UInt32) -> UInt32 {
        let (s, o) = a.addingReportingOverflow(b)
        return o ? .max : s
    }
}

/// The index of `key` in the sorted `list[lo..<hi]`, or -1.
@inline(__always)
func sortedIndex(_ list: UnsafePointer<UInt32>, _ lo: Int, _ hi: Int, _ key: UInt32) -> Int {
    var lo = lo, hi = hi
    while lo < hi {
        let mid = (lo + hi) >> 1
        let x = list[mid]
        if x == key { return mid }
        if x < key { lo = mid + 1 } else { hi = mid }
    }
    return -1
}

/// The index `r` with `first[r] <= i < first[r + 1]` (the node owning CSR entry `i`).
@inline(__always)
func csrOwner(_ first: UnsafePointer<UInt32>, count n: Int, _ i: Int) -> Int {
    var lo = 0, hi = n - 1
    while lo < hi {
        let mid = (lo + hi + 1) >> 1
        if Int(first[mid]) <= i { lo = mid } else { hi = mid - 1 }
    }
    return lo
}

extension RoadGraph {
    /// Customizes the hierarchy for `weights`; nil when the file has no hierarchy or an
    /// original edge has no arc (a hierarchy that does not belong to this graph).
    func customize<W: EdgeWeights>(_ weights: W) -> CHMetric? {
        guard hasContractionHierarchy, chUpHead.count < CHMetric.maxIndex, chDownTail.count < CHMetric.maxIndex, edgeCount < CHMetric.maxIndex else {
            return nil
        }
        let n = nodeCount
        let inf = CHMetric.infinity
        var upW = [UInt32](repeating: inf, count: chUpHead.count), downW = [UInt32](repeating: inf, count: chDownTail.count)
        var upM = [UInt64](repeating: CHMetric.none, count: chUpHead.count), downM = [UInt64](repeating: CHMetric.none, count: chDownTail.count)
        // Lengths in buffers of their own (converted to arrays at the end), so the closures stay four deep.
        let upL = UnsafeMutablePointer<UInt32>.allocate(capacity: max(1, chUpHead.count))
        let downL = UnsafeMutablePointer<UInt32>.allocate(capacity: max(1, chDownTail.count))
        upL.initialize(repeating: 0, count: max(1, chUpHead.count)); downL.initialize(repeating: 0, count: max(1, chDownTail.count))
        defer { upL.deallocate(); downL.deallocate() }
        let edgeLength = length.baseAddress!
        let rank = chRank.baseAddress!, upFirst = chUpFirst.baseAddress!, upHead = chUpHead.baseAddress!
        let downFirst = chDownFirst.baseAddress!, downTail = chDownTail.baseAddress!
        let ok: Bool = upW.withUnsafeMutableBufferPointer { upWB in
            downW.withUnsafeMutableBufferPointer { downWB in
                upM.withUnsafeMutableBufferPointer { upMB in
                    downM.withUnsafeMutableBufferPointer { downMB in
                        let upW = upWB.baseAddress!, downW = downWB.baseAddress!, upM = upMB.baseAddress!, downM = downMB.baseAddress!
                        // Original edges.
                        for t in 0..<n {
                            let rt = rank[t]
                            for e in Int(firstOut[t])..<Int(firstOut[t + 1]) {
                                let h = Int(head[e])
                                if h == t { continue }
                                let rh = rank[h]
                                let w = weights(e)
                                if rt < rh {
                                    let i = sortedIndex(upHead, Int(upFirst[Int(rt)]), Int(upFirst[Int(rt) + 1]), rh)
                                    guard i >= 0 else { return false }
                                    if w < upW[i] { upW[i] = w; upM[i] = CHMetric.original(e); upL[i] = edgeLength[e] }
                                } else {
                                    let i = sortedIndex(downTail, Int(downFirst[Int(rh)]), Int(downFirst[Int(rh) + 1]), rt)
                                    guard i >= 0 else { return false }
                                    if w < downW[i] { downW[i] = w; downM[i] = CHMetric.original(e); downL[i] = edgeLength[e] }
                                }
                            }
                        }
                        // Lower triangles, lowest node first: a node's own arcs are final when it comes up.
                        for v in 0..<n {
                            let upLo = Int(upFirst[v]), upHi = Int(upFirst[v + 1])
                            if upLo == upHi { continue }
                            for i in Int(downFirst[v])..<Int(downFirst[v + 1]) {
                                let dw = downW[i]
                                if dw == inf { continue }
                                let u = downTail[i]
                                // Heads above u are looked up in u's sorted upward list by walking it along.
                                var p = Int(upFirst[Int(u)])
                                let pEnd = Int(upFirst[Int(u) + 1])
                                for j in upLo..<upHi {
                                    let x = upHead[j]
                                    let uw = upW[j]
                                    if x == u || uw == inf { continue }
                                    let sum = UInt64(dw) + UInt64(uw)
                                    if sum >= CHMetric.limit { continue }
                                    let s = UInt32(sum)
                                    if u < x {
                                        while p < pEnd && upHead[p] < x { p += 1 }
                                        if p < pEnd && upHead[p] == x && s < upW[p] {
                                            upW[p] = s; upM[p] = CHMetric.halves(i, j); upL[p] = CHMetric.lengthSum(downL[i], upL[j])
                                        }
                                    } else {
                                        let k = sortedIndex(downTail, Int(downFirst[Int(x)]), Int(downFirst[Int(x) + 1]), u)
                                        if k >= 0 && s < downW[k] {
                                            downW[k] = s; downM[k] = CHMetric.halves(i, j); downL[k] = CHMetric.lengthSum(downL[i], upL[j])
                                        }
                                    }
                                }
                            }
                        }
                        return true
                    }
                }
            }
        }
        guard ok else { return nil }
        return CHMetric(upWeight: upW, downWeight: downW, upUnpack: upM, downUnpack: downM,
                        upLength: Array(UnsafeBufferPointer(start: upL, count: chUpHead.count)),
                        downLength: Array(UnsafeBufferPointer(start: downL, count: chDownTail.count)), hierarchy: self)
    }

    /// Appends to `edges` the original edges of the hierarchy arc with index `arc` (upward arcs
    /// when `up`, else downward ones), in order; false when an arc does not unpack.
    func unpack(_ metric: CHMetric, up: Bool, arc: Int, into edges: inout [UInt32], stack: inout [(up: Bool, arc: Int)]) -> Bool {
        stack.removeAll(keepingCapacity: true)
        stack.append((up, arc))
        let upCount = metric.upUnpack.count, downCount = metric.downUnpack.count
        var steps = 0
        while let (isUp, i) = stack.popLast() {
            steps += 1
            guard steps <= 2 * edgeCount + 1 else { return false }
            guard i < (isUp ? upCount : downCount) else { return false }
            let info = isUp ? metric.upUnpack[i] : metric.downUnpack[i]
            let high = Int(info >> 32), low = Int(info & 0xFFFF_FFFF)
            if high == 0xFFFF_FFFF {
                guard low < edgeCount else { return false }
                edges.append(UInt32(low))
                continue
            }
            stack.append((true, low))
            stack.append((false, high))
        }
        return true
    }
}

/// The customized hierarchies of one engine, one per distinct hour metric the file's hierarchy
/// covers, computed on first use and kept up to `capacity` (thread-safe). A caller that does not
/// wait gets nil while the metric is being computed (on a thread of its own, started by the
/// first such call).
final class CHMetricCache: @unchecked Sendable {
    private let condition = NSCondition()
    /// The metrics kept, each with the tick of its last use.
    private var ready: [Int: (metric: CHMetric, used: UInt64)] = [:]
    private var failed: Set<Int> = []
    private var running: Set<Int> = []
    /// The most metrics kept; beyond it the least recently used one is dropped (queries still
    /// holding it keep it alive until they end), and computed again when asked for.
    let capacity: Int
    private var clock: UInt64 = 0
    private var computed = 0

    /// Metrics computed so far (for tests and diagnostics).
    var computedCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return computed
    }

    init(capacity: Int = .max) { self.capacity = max(1, capacity) }

    /// Number of metrics kept now.
    var keptCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return ready.count
    }

    /// The metric stored under `key`; when absent, `make` computes it, on this thread when
    /// `wait`, else on a new thread (and nil comes back until it is ready).
    func metric(_ key: Int, wait: Bool, _ make: @escaping @Sendable () -> CHMetric?) -> CHMetric? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let m = ready[key]?.metric {
                clock += 1
                ready[key]?.used = clock
                return m
            }
            if failed.contains(key) { return nil }
            if !running.contains(key) {
                running.insert(key)
                if !wait {
                    let thread = Thread { [self] in
                        let m = make()
                        condition.lock()
                        finish(key, m)
                        condition.unlock()
                    }
                    thread.start()
                    return nil
                }
                condition.unlock()
                let m = make()
                condition.lock()
                finish(key, m)
                continue
            }
            if !wait { return nil }
            condition.wait()
        }
    }

    private func finish(_ key: Int, _ m: CHMetric?) {
        running.remove(key)
        if let m {
            computed += 1
            clock += 1
            ready[key] = (m, clock)
            // The new one has the latest tick, so it is never the one dropped.
            while ready.count > capacity, let oldest = ready.min(by: { $0.value.used < $1.value.used })?.key {
                ready[oldest] = nil
            }
        } else {
            failed.insert(key)
        }
        condition.broadcast()
    }
}

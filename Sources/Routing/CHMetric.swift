import Foundation

/// One metric's weights on the arcs of the contraction hierarchy (built on lower bounds), by
/// customization: each arc starts at the smallest weight of the original edges it joins (none
/// for a pure shortcut), then, node by node in increasing rank, every pair of arcs `u → v → x`
/// through the node lowers the arc `u → x` when the file has it. Each arc remembers what gave
/// its weight (an original edge, or the middle node) so that a query can unpack it.
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
    /// Per arc: `originalEdge | e` for original edge `e`, else the rank of the middle node.
    let upMiddle: [UInt32]
    let downMiddle: [UInt32]

    static let originalEdge: UInt32 = 0x8000_0000
    static let infinity = UInt32.max
    /// Sums from here on are not stored (the searches keep distances below `UInt32.max / 2`).
    static let limit = UInt64(UInt32.max / 2)

    init(upWeight: [UInt32], downWeight: [UInt32], upMiddle: [UInt32], downMiddle: [UInt32]) {
        self.upWeight = upWeight; self.downWeight = downWeight
        self.upMiddle = upMiddle; self.downMiddle = downMiddle
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
        guard hasContractionHierarchy, chUpHead.count < Int(CHMetric.originalEdge), chDownTail.count < Int(CHMetric.originalEdge), edgeCount < Int(CHMetric.originalEdge) else { return nil }
        let n = nodeCount
        let inf = CHMetric.infinity
        var upW = [UInt32](repeating: inf, count: chUpHead.count), downW = [UInt32](repeating: inf, count: chDownTail.count)
        var upM = [UInt32](repeating: inf, count: chUpHead.count), downM = [UInt32](repeating: inf, count: chDownTail.count)
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
                                    if w < upW[i] { upW[i] = w; upM[i] = CHMetric.originalEdge | UInt32(e) }
                                } else {
                                    let i = sortedIndex(downTail, Int(downFirst[Int(rh)]), Int(downFirst[Int(rh) + 1]), rt)
                                    guard i >= 0 else { return false }
                                    if w < downW[i] { downW[i] = w; downM[i] = CHMetric.originalEdge | UInt32(e) }
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
                                        if p < pEnd && upHead[p] == x && s < upW[p] { upW[p] = s; upM[p] = UInt32(v) }
                                    } else {
                                        let k = sortedIndex(downTail, Int(downFirst[Int(x)]), Int(downFirst[Int(x) + 1]), u)
                                        if k >= 0 && s < downW[k] { downW[k] = s; downM[k] = UInt32(v) }
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
        return CHMetric(upWeight: upW, downWeight: downW, upMiddle: upM, downMiddle: downM)
    }

    /// Appends to `edges` the original edges of the hierarchy arc `a → b` (`up`: an upward arc
    /// of rank `a`, else a downward arc of rank `b`) with index `arc`, in order.
    func unpack(_ metric: CHMetric, up: Bool, arc: Int, from a: UInt32, to b: UInt32, into edges: inout [UInt32],
                stack: inout [(up: Bool, arc: Int, a: UInt32, b: UInt32)]) -> Bool
    {
        let upFirst = chUpFirst.baseAddress!, upHead = chUpHead.baseAddress!
        let downFirst = chDownFirst.baseAddress!, downTail = chDownTail.baseAddress!
        stack.removeAll(keepingCapacity: true)
        stack.append((up, arc, a, b))
        while let (isUp, i, a, b) = stack.popLast() {
            let m = isUp ? metric.upMiddle[i] : metric.downMiddle[i]
            if m == CHMetric.infinity { return false }
            if m & CHMetric.originalEdge != 0 {
                edges.append(m & ~CHMetric.originalEdge)
                continue
            }
            // a → m is a downward arc of m (m is below both ends), m → b an upward one.
            let first = sortedIndex(downTail, Int(downFirst[Int(m)]), Int(downFirst[Int(m) + 1]), a)
            let second = sortedIndex(upHead, Int(upFirst[Int(m)]), Int(upFirst[Int(m) + 1]), b)
            guard first >= 0, second >= 0, m < a, m < b else { return false }
            stack.append((true, second, m, b))
            stack.append((false, first, a, m))
        }
        return true
    }
}

/// The customized hierarchies of one engine, one per distinct hour metric the file's hierarchy
/// covers, computed once and kept (thread-safe). A caller that does not wait gets nil while the
/// metric is being computed (on a thread of its own, started by the first such call).
final class CHMetricCache: @unchecked Sendable {
    private let condition = NSCondition()
    private var ready: [Int: CHMetric] = [:]
    private var failed: Set<Int> = []
    private var running: Set<Int> = []

    /// The metric stored under `key`; when absent, `make` computes it, on this thread when
    /// `wait`, else on a new thread (and nil comes back until it is ready).
    func metric(_ key: Int, wait: Bool, _ make: @escaping @Sendable () -> CHMetric?) -> CHMetric? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let m = ready[key] { return m }
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
        if let m { ready[key] = m } else { failed.insert(key) }
        condition.broadcast()
    }
}

import Foundation
import Routing

/// Builds a `ContractionHierarchy`: nodes contracted one at a time in order of a priority
/// (depth in the hierarchy + added/removed edges + added/removed original-edge hops, as in
/// RoutingKit). Priorities are updated lazily: contracting a node only raises its
/// neighbours' depth and marks them stale; a stale node is re-evaluated when it comes up and
/// put back if it is no longer the smallest. A shortcut is added unless a bounded witness
/// search finds a path at least as short (by `WitnessMargin`), or, when the build is given each
/// metric's edge weights (the prepare-time hours), a path at most as long on the lower bounds
/// and in every one of those metrics (each arc of the remaining graph carries its weight in
/// each); a search that gives up only adds a shortcut, so every distance stays exact.
enum ContractionHierarchyBuilder {
    /// Settled nodes after which a witness search gives up (adding the shortcut): when
    /// contracting, and when only estimating a node's priority.
    static let witnessSettleLimit = 500
    static let estimateSettleLimit = 100
    /// With per-metric weights (whose witness searches run to the full shortcut length), a search
    /// from a neighbour of a node of degree d also settles at most `arcBudget / d` nodes
    /// (at least 10): in the dense core of a hierarchy every settled node has dozens of arcs, and
    /// witnesses far away rarely hold at every hour. Seoul node-link, hierarchy CPU time and arcs:
    /// no budget 3.6 s, 159,983; 2,000: 2.3 s, 164,176; 1,000: 2.0 s, 174,883 (CH query ~10% slower).
    static let arcBudget = 1000

    /// What contracting a node would do.
    struct Effect {
        var added = 0, addedHops = 0, removed = 0, removedHops = 0
    }

    /// A shortcut `from → to` replacing `from → v → to`.
    typealias Shortcut = CHShortcut

    /// Simulates (or, with `shortcuts`, performs the witness part of) contracting `v`.
    static func evaluate(_ g: CHRemainingGraph, _ v: Int, _ ws: CHWitnessSearch, margin: WitnessMargin,
                         shortcuts: UnsafeMutablePointer<[Shortcut]>?) -> Effect {
        let mc = g.metricCount
        return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: max(mc, 1)) { via in
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: max(mc, 1)) { scratch in
                evaluate(g, v, ws, margin: margin, shortcuts: shortcuts, via: via.baseAddress!, scratch: scratch.baseAddress!)
            }
        }
    }

    /// `evaluate`, with room for one sum of per-metric weights in `via` and `scratch`.
    private static func evaluate(_ g: CHRemainingGraph, _ v: Int, _ ws: CHWitnessSearch, margin: WitnessMargin,
                                 shortcuts: UnsafeMutablePointer<[Shortcut]>?,
                                 via viaMetrics: UnsafeMutablePointer<UInt32>, scratch: UnsafeMutablePointer<UInt64>) -> Effect {
        let metrics = g.metricCount > 0
        var effect = Effect()
        let arcs = g.arcs(v)
        var outCount = 0
        var maxOut: UInt32 = 0
        for a in arcs {
            if a.forward != CHRemainingGraph.none {
                effect.removed += 1; effect.removedHops += Int(a.forwardHops); outCount += 1
                maxOut = max(maxOut, a.forward)
            }
            if a.backward != CHRemainingGraph.none { effect.removed += 1; effect.removedHops += Int(a.backwardHops) }
        }
        guard outCount > 0 else { return effect }
        for a in arcs where a.backward != CHRemainingGraph.none {
            let u = Int(a.other)
            // Only out-neighbours other than u need a path; skip the search when there are none.
            if outCount == 1 && a.forward != CHRemainingGraph.none { continue }
            // A witness of length d suffices only when scale·d ≤ via, so the search stops at via / scale
            // (rounded up: a longer search finds nothing more that could count).
            // With per-metric weights any witness up to the shortcut's length may hold in every metric.
            let longest = UInt64(a.backward) + UInt64(maxOut)
            let limit = UInt32(min(margin.scale == 1 || metrics ? longest : UInt64((Double(longest) / margin.scale).rounded(.down)) + 1,
                                   UInt64(CHRemainingGraph.none - 1)))
            ws.run(g, from: u, skip: v, limit: limit, targets: outCount,
                   settleLimit: min(shortcuts == nil ? estimateSettleLimit : witnessSettleLimit,
                                    metrics ? max(10, arcBudget / arcs.count) : .max))
            for b in arcs where b.forward != CHRemainingGraph.none && b.other != a.other {
                let via = UInt64(a.backward) + UInt64(b.forward)
                guard via < UInt64(CHRemainingGraph.none) else { continue }
                let x = Int(b.other)
                let witness = ws.distance(x)
                var suffices = witness != .max && margin.witnessSuffices(distance: witness, hops: ws.hopCount(x), shortcut: via)
                // The witness must also be at most as long on the lower bounds: the hierarchy's
                // own weights stay exact (the potential of the A* searches reads them).
                if !suffices && metrics && UInt64(witness) <= via {
                    g.sumMetrics(a.backwardMetrics, b.forwardMetrics, into: viaMetrics)
                    suffices = ws.pathWithin(g, to: x, bound: viaMetrics, scratch: scratch)
                }
                if !suffices {
                    let hops = Int(a.backwardHops) + Int(b.forwardHops)
                    effect.added += 1; effect.addedHops += hops
                    shortcuts?.pointee.append(Shortcut(from: UInt32(u), to: b.other, weight: UInt32(via), hops: UInt16(min(hops, 60_000)),
                                                       firstMetrics: a.backwardMetrics, secondMetrics: b.forwardMetrics))
                }
            }
        }
        return effect
    }

    /// Weights of the priority terms: depth in the hierarchy, added/removed edges, added/removed hops
    /// (tuned on synthetic cities: a small depth weight gave the smallest search spaces).
    static let levelWeight: UInt32 = 100
    static let edgeWeight = 1000
    static let hopWeight = 1000

    static func priority(_ e: Effect, level: UInt32) -> UInt32 {
        let ratio = edgeWeight * e.added / max(1, e.removed) + hopWeight * e.addedHops / max(1, e.removedHops)
        return UInt32(min(Int(level * levelWeight) + ratio, Int(UInt32.max - 1)))
    }

    /// The hierarchy of the graph `firstOut`/`head` with edge weights `weight`; `margin` decides
    /// when a witness path makes a shortcut unnecessary. Each node's upward heads and downward
    /// tails come sorted by rank (customization looks arcs up by binary search).
    static func build(firstOut: [UInt32], head: [UInt32], weight: [UInt32], margin: WitnessMargin = .exact,
                      metrics: [[UInt32]] = [], progress: ((String) -> Void)? = nil) -> ContractionHierarchy {
        let n = firstOut.count - 1
        let g = CHRemainingGraph(firstOut: firstOut, head: head, weight: weight, metrics: metrics)
        var level = [UInt32](repeating: 0, count: n)
        var prio = [UInt32](repeating: 0, count: n)
        // Initial priorities, on all cores (the graph is only read).
        let threads = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
        prio.withUnsafeMutableBufferPointer { p in
            nonisolated(unsafe) let out = p
            DispatchQueue.concurrentPerform(iterations: threads) { t in
                let ws = CHWitnessSearch(nodeCount: n)
                var v = t
                while v < n {
                    out[v] = priority(evaluate(g, v, ws, margin: margin, shortcuts: nil), level: 0)
                    v += threads
                }
            }
        }
        var heap = PackedMinHeap(capacity: n)
        for v in 0..<n { heap.push(key: prio[v], node: UInt32(v)) }
        let ws = CHWitnessSearch(nodeCount: n)
        let insertScratch = CHInsertScratch(nodeCount: n)
        // The added/removed part of each node's priority, from its last evaluation; a node is
        // stale once a neighbour was contracted, and re-evaluated only when it comes up.
        var ratio = prio
        var stale = [Bool](repeating: false, count: n)
        var contracted = [Bool](repeating: false, count: n)
        var rank = [UInt32](repeating: 0, count: n)
        // Each node's arcs at contraction time (all to higher ranks), in contraction order.
        var arcStart = [Int](repeating: 0, count: n + 1)
        var order: [UInt32] = []
        order.reserveCapacity(n)
        var outOther: [UInt32] = [], outForward: [UInt32] = [], outBackward: [UInt32] = []
        outOther.reserveCapacity(head.count * 2); outForward.reserveCapacity(head.count * 2); outBackward.reserveCapacity(head.count * 2)
        var shortcuts: [Shortcut] = []
        var neighbours: [Int] = []
        var nextReport = n / 10
        while let (key, node) = heap.pop() {
            let v = Int(node)
            if contracted[v] || key != prio[v] { continue }
            shortcuts.removeAll(keepingCapacity: true)
            let effect = withUnsafeMutablePointer(to: &shortcuts) { evaluate(g, v, ws, margin: margin, shortcuts: $0) }
            if stale[v] {
                stale[v] = false
                let p = priority(effect, level: level[v])
                ratio[v] = p - level[v] * levelWeight
                if let next = heap.min, UInt64(p) > next >> 32 {
                    prio[v] = p
                    heap.push(key: p, node: node)
                    continue
                }
            }
            contracted[v] = true
            rank[v] = UInt32(order.count)
            order.append(UInt32(v))
            arcStart[v] = outOther.count
            neighbours.removeAll(keepingCapacity: true)
            for a in g.arcs(v) {
                outOther.append(a.other); outForward.append(a.forward); outBackward.append(a.backward)
                neighbours.append(Int(a.other))
            }
            for x in neighbours { g.remove(x, other: v) }
            g.add(shortcuts, among: neighbours, scratch: insertScratch)
            for x in neighbours {
                level[x] = max(level[x], level[v] + 1)
                stale[x] = true
                let p = min(level[x] * levelWeight + ratio[x], UInt32.max - 1)
                if p != prio[x] { prio[x] = p; heap.push(key: p, node: UInt32(x)) }
            }
            if order.count == nextReport {
                progress?("contraction hierarchy: \(order.count * 100 / n)% of \(n) nodes contracted, \(outOther.count) arcs")
                nextReport += n / 10
            }
        }
        // The stored rank: by level (every upward edge climbs at least one level, so edges
        // still lead to higher ranks), then by node id, which is spatial: nearby nodes of
        // one level sit together, and the top levels, which every query reads, stay compact.
        // The CSR graphs are indexed by this rank.
        var arcEnd = [Int](repeating: 0, count: n)
        for (k, v) in order.enumerated() { arcEnd[Int(v)] = k + 1 < order.count ? arcStart[Int(order[k + 1])] : outOther.count }
        let levels = Int(level.max() ?? 0) + 1
        var levelFirst = [Int](repeating: 0, count: levels + 1)
        for v in 0..<n { levelFirst[Int(level[v]) + 1] += 1 }
        for l in 0..<levels { levelFirst[l + 1] += levelFirst[l] }
        var byRank = [UInt32](repeating: 0, count: n)
        for v in 0..<n {
            let l = Int(level[v])
            rank[v] = UInt32(levelFirst[l]); byRank[levelFirst[l]] = UInt32(v)
            levelFirst[l] += 1
        }
        var ch = ContractionHierarchy()
        ch.rank = rank
        ch.upFirst.reserveCapacity(n + 1); ch.downFirst.reserveCapacity(n + 1)
        var arcs: [(other: UInt32, forward: UInt32, backward: UInt32)] = []
        for v in byRank {
            arcs.removeAll(keepingCapacity: true)
            for i in arcStart[Int(v)]..<arcEnd[Int(v)] { arcs.append((rank[Int(outOther[i])], outForward[i], outBackward[i])) }
            arcs.sort { $0.other < $1.other }
            for a in arcs {
                if a.forward != CHRemainingGraph.none { ch.upHead.append(a.other); ch.upWeight.append(a.forward) }
                if a.backward != CHRemainingGraph.none { ch.downTail.append(a.other); ch.downWeight.append(a.backward) }
            }
            ch.upFirst.append(UInt32(ch.upHead.count))
            ch.downFirst.append(UInt32(ch.downTail.count))
        }
        return ch
    }
}

/// When a witness path found on the lower-bound metric makes a shortcut unnecessary.
///
/// `exact`: when it is at most as long (the hierarchy is exact for the lower-bound metric only).
/// A margin for a family of metrics (the profile's hours): each original edge `e` of speed combo
/// `c` has lower bound `M0(e) = ⌊len·q0(c)/2²⁰⌋` and, at hour h, time `Mh(e) = ⌈len·qh(c)/2²⁰⌉`,
/// so with `r = qh(c)/q0(c)` in `[Rmin_h, Rmax_h]`, `Rmin_h·M0(e) ≤ Mh(e) ≤ Rmax_h·(M0(e)+1)+1`.
/// A witness of `k` original edges and lower-bound length `d` therefore beats the shortcut `via` at
/// every hour when `Rmax_h·(d+k)+k ≤ Rmin_h·via`, which `scale·d + perHop·k ≤ via` implies with
/// `scale = max_h Rmax_h/Rmin_h` and `perHop = scale + max_h 1/Rmin_h`. Every hour's
/// customized hierarchy is then exact (see `CHMetric`).
struct WitnessMargin: Sendable, Equatable {
    var scale: Double
    var perHop: Double

    /// A witness must be at most as long as the shortcut.
    static let exact = WitnessMargin(scale: 1, perHop: 0)

    /// Witnesses of more original edges than this are not trusted (arc hop counts saturate below it).
    static let maxHops: UInt32 = 59_999

    /// The margin that keeps a hierarchy built on lower bounds `boundQ` exact for every metric of
    /// `hourQ` (one factor per speed combo each; ms per cm × 2^20).
    static func covering(boundQ: [UInt64], hourQ: [[UInt64]]) -> WitnessMargin {
        var scale = 1.0, inverse = 0.0
        for q in hourQ {
            var lo = Double.infinity, hi = 0.0
            for (c, qh) in q.enumerated() {
                let r = Double(qh) / Double(boundQ[c])
                lo = min(lo, r); hi = max(hi, r)
            }
            guard lo.isFinite, lo > 0 else { continue }
            scale = max(scale, hi / lo)
            inverse = max(inverse, 1 / lo)
        }
        // Rounded outward, so floating-point error never turns a margin too small.
        let s = scale * (1 + 1e-9)
        return WitnessMargin(scale: s, perHop: (s + inverse) * (1 + 1e-9) + 1e-9)
    }

    @inline(__always)
    func witnessSuffices(distance d: UInt32, hops k: UInt32, shortcut via: UInt64) -> Bool {
        if perHop == 0 && scale == 1 { return UInt64(d) <= via }
        guard k <= Self.maxHops else { return false }
        return scale * Double(d) + perHop * Double(k) <= Double(via)
    }
}

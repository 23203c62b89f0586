import Foundation

/// A node's label in one direction of the hierarchy query: distance and the arc it came by
/// (`markBit | i` for the i-th start of that side).
struct CHLabel {
    var dist: UInt32
    var parent: UInt32
}

/// Buffers of the bidirectional hierarchy query, indexed by rank; entries a query set are
/// listed and reset at the start of the next one.
final class CHQueryScratch {
    let forward: UnsafeMutablePointer<CHLabel>
    let backward: UnsafeMutablePointer<CHLabel>
    var touchedForward: [UInt32] = [], touchedBackward: [UInt32] = []
    var forwardHeap = PackedMinHeap(capacity: 1024), backwardHeap = PackedMinHeap(capacity: 1024)
    var edges: [UInt32] = []
    /// The forward half's arcs, meeting node first, while the path is read back.
    var arcs: [Int] = []
    var stack: [(up: Bool, arc: Int)] = []

    static let unreached = CHLabel(dist: .max, parent: .max)

    init(nodeCount: Int) {
        forward = .allocate(capacity: nodeCount); backward = .allocate(capacity: nodeCount)
        forward.initialize(repeating: Self.unreached, count: nodeCount)
        backward.initialize(repeating: Self.unreached, count: nodeCount)
    }

    deinit { forward.deallocate(); backward.deallocate() }

    func reset() {
        for r in touchedForward { forward[Int(r)] = Self.unreached }
        for r in touchedBackward { backward[Int(r)] = Self.unreached }
        touchedForward.removeAll(keepingCapacity: true); touchedBackward.removeAll(keepingCapacity: true)
        forwardHeap.removeAll(); backwardHeap.removeAll()
    }
}

/// One direction of the bidirectional hierarchy query: the arcs it relaxes (upward for the
/// forward search, downward for the backward one) and the opposite arcs that stall it.
struct CHQueryDirection {
    let relaxFirst: UnsafePointer<UInt32>, relax: UnsafePointer<CHQueryArc>
    let stallFirst: UnsafePointer<UInt32>, stall: UnsafePointer<CHQueryArc>

    /// Settles the next node of this direction (labels `own`, the other direction's `other`):
    /// records a better meeting (or, in `tie`, a meeting as good as the best: the caller breaks
    /// the tie by length), skips the node when a higher node already reached gives a shorter
    /// way to it (stall-on-demand), else relaxes its arcs. False when the heap is empty.
    @inline(__always)
    func settleNext(own: UnsafeMutablePointer<CHLabel>, other: UnsafeMutablePointer<CHLabel>, heap: inout PackedMinHeap,
                    touched: inout [UInt32], best: inout UInt64, meet: inout Int, tie: inout Int, settled: inout Int) -> Bool
    {
        guard let (k, node) = heap.pop() else { return false }
        let v = Int(node)
        if k != own[v].dist { return true }
        settled += 1
        if other[v].dist != .max {
            let c = UInt64(k) + UInt64(other[v].dist)
            if c < best { best = c; meet = v } else if c == best && v != meet { tie = v }
        }
        // Query arcs all have a weight (`CHQueryArcs`), and labels stay below `CHMetric.limit`.
        for e in Int(stallFirst[v])..<Int(stallFirst[v + 1]) {
            let a = stall[e]
            let d = own[Int(a.other)].dist
            if d != .max && UInt64(d) + UInt64(a.weight) < UInt64(k) { return true }
        }
        for e in Int(relaxFirst[v])..<Int(relaxFirst[v + 1]) {
            let a = relax[e]
            let nd64 = UInt64(k) + UInt64(a.weight)
            guard nd64 < CHMetric.limit else { continue }
            let x = Int(a.other)
            let nd = UInt32(nd64)
            if nd < own[x].dist {
                if own[x].dist == .max { touched.append(UInt32(x)) }
                own[x] = CHLabel(dist: nd, parent: UInt32(e))
                heap.push(key: nd, node: UInt32(x))
            }
        }
        return true
    }
}

extension RoadGraph {
    /// The exact route for `ends` on `metric` (the customized weights of the query's metric):
    /// a bidirectional Dijkstra in the hierarchy, upward from the sources and (backward) from
    /// the targets, with stall-on-demand, then the arcs of the best meeting unpacked into
    /// original edges. Same cost as `search` with the same weights. `nil`: no route;
    /// `.some(nil)`: an arc would not unpack (a hierarchy that does not match its metric, which
    /// a checked file never has), so the caller must search otherwise.
    ///
    /// Among routes of equal cost, the shortest (cm) of those the hierarchy offers comes back
    /// (of equal lengths, the one meeting at the lowest rank, as a scan of kept searches in rank
    /// order finds it: `RouteEngine.route(from:to:)`), the same one the many-to-many search
    /// (`HierarchyTable`) picks: each direction settles
    /// nodes in the heap's order (cost, then rank) whatever the other does, so a node's label
    /// (cost and the arc it came by) is the same in both searches; every node whose two final
    /// labels add up to the best cost is settled on both sides (the searches go on while their
    /// smallest key is at most the best cost); and each such meeting, and the route along one
    /// edge, is weighed by its length (arcs carry the length of the edges they unpack into).
    func hierarchySearch(_ ends: SearchEnds, metric: CHMetric, scratch q: CHQueryScratch) -> SearchOutcome?? {
        q.reset()
        let markBit: UInt32 = 0x8000_0000
        let fw = q.forward, bw = q.backward
        let rank = chRank.baseAddress!
        // Labels' parents are indices of query arcs (`metric.query`); `upIndex`/`downIndex` give
        // the hierarchy's arc (for lengths and unpacking).
        let arcs = metric.query
        var best: UInt64 = ends.direct?.cost ?? .max
        var meet = -1, tie = -1
        var settled = 0
        let n = nodeCount
        /// The length (cm) of the route through `v` made of both labels (the direct route for -1).
        func meetingLength(_ v: Int, upFirst: UnsafePointer<UInt32>, downFirst: UnsafePointer<UInt32>) -> UInt64 {
            guard v >= 0 else { return ends.direct?.length ?? .max }
            var total: UInt64 = 0
            var x = v, steps = 0
            while fw[x].parent & markBit == 0 && steps <= n {
                let e = Int(fw[x].parent)
                total += UInt64(metric.upLength[Int(arcs.upIndex[e])])
                x = csrOwner(upFirst, count: n, e)
                steps += 1
            }
            let i = Int(fw[x].parent & ~markBit)
            total += UInt64(i < ends.sourceLength.count ? ends.sourceLength[i] : 0)
            x = v
            while bw[x].parent & markBit == 0 && steps <= 2 * n {
                let e = Int(bw[x].parent)
                total += UInt64(metric.downLength[Int(arcs.downIndex[e])])
                x = csrOwner(downFirst, count: n, e)
                steps += 1
            }
            let j = Int(bw[x].parent & ~markBit)
            return total + UInt64(j < ends.targetLength.count ? ends.targetLength[j] : 0)
        }
        // The heaps, touched lists and path buffers are moved out of `q` for the query (a copy
        // would share their buffers, and the first write would copy them) and put back after it.
        var fh = PackedMinHeap(), bh = PackedMinHeap()
        var forwardTouched = [UInt32](), backwardTouched = [UInt32]()
        var upArcs = [Int](), edges = [UInt32]()
        swap(&fh, &q.forwardHeap); swap(&bh, &q.backwardHeap)
        swap(&forwardTouched, &q.touchedForward); swap(&backwardTouched, &q.touchedBackward)
        swap(&upArcs, &q.arcs); swap(&edges, &q.edges)
        defer {
            swap(&fh, &q.forwardHeap); swap(&bh, &q.backwardHeap)
            swap(&forwardTouched, &q.touchedForward); swap(&backwardTouched, &q.touchedBackward)
            swap(&upArcs, &q.arcs); swap(&edges, &q.edges)
        }
        for s in ends.sources {
            let r = Int(rank[Int(s.node)])
            if s.cost < fw[r].dist {
                if fw[r].dist == .max { forwardTouched.append(UInt32(r)) }
                fw[r] = CHLabel(dist: s.cost, parent: markBit | s.marker)
                fh.push(key: s.cost, node: UInt32(r))
            }
        }
        for (i, t) in ends.targets.enumerated() {
            let r = Int(rank[Int(t.node)])
            if t.extra < bw[r].dist {
                if bw[r].dist == .max { backwardTouched.append(UInt32(r)) }
                bw[r] = CHLabel(dist: t.extra, parent: markBit | UInt32(i))
                bh.push(key: t.extra, node: UInt32(r))
            }
        }
        arcs.upFirst.withUnsafeBufferPointer { upFirst in
        arcs.up.withUnsafeBufferPointer { up in
        arcs.downFirst.withUnsafeBufferPointer { downFirst in
        arcs.down.withUnsafeBufferPointer { down in
            // Forward: up the upward arcs, stalled by the downward ones; backward: the reverse.
            let forward = CHQueryDirection(relaxFirst: upFirst.baseAddress!, relax: up.baseAddress!,
                                           stallFirst: downFirst.baseAddress!, stall: down.baseAddress!)
            let backward = CHQueryDirection(relaxFirst: downFirst.baseAddress!, relax: down.baseAddress!,
                                            stallFirst: upFirst.baseAddress!, stall: up.baseAddress!)
            var forwardTurn = true
            while true {
                // Nodes at the best cost are still settled: a meeting there may be shorter.
                let fLive = fh.min.map { UInt64($0 >> 32) <= best } ?? false
                let bLive = bh.min.map { UInt64($0 >> 32) <= best } ?? false
                if !fLive && !bLive { break }
                let goForward = fLive && (forwardTurn || !bLive)
                forwardTurn.toggle()
                let stepped = goForward
                    ? forward.settleNext(own: fw, other: bw, heap: &fh, touched: &forwardTouched, best: &best, meet: &meet, tie: &tie, settled: &settled)
                    : backward.settleNext(own: bw, other: fw, heap: &bh, touched: &backwardTouched, best: &best, meet: &meet, tie: &tie, settled: &settled)
                if tie >= 0 {
                    // Rare: equal costs; the shorter route wins, and of equal lengths the meeting of
                    // lower rank (the current best's labels are final unless a cheaper meeting is
                    // still to come, which then replaces both).
                    let tieLength = meetingLength(tie, upFirst: upFirst.baseAddress!, downFirst: downFirst.baseAddress!)
                    let meetLength = meetingLength(meet, upFirst: upFirst.baseAddress!, downFirst: downFirst.baseAddress!)
                    if tieLength < meetLength || tieLength == meetLength && meet >= 0 && tie < meet { meet = tie }
                    tie = -1
                }
                if !stepped { break }
            }
        }
        }
        }
        }
        guard best != .max else { return nil }
        if meet < 0 {
            guard let direct = ends.direct else { return .some(nil) }
            return SearchOutcome(cost: direct.cost, path: .direct(source: direct.source, target: direct.target), settled: settled)
        }
        // Forward half: upward arcs from a source to the meeting node, collected backwards.
        upArcs.removeAll(keepingCapacity: true)
        var v = meet
        while fw[v].parent & markBit == 0 {
            let e = Int(fw[v].parent)
            upArcs.append(Int(arcs.upIndex[e]))
            v = arcs.upFirst.withUnsafeBufferPointer { csrOwner($0.baseAddress!, count: nodeCount, e) }
            if upArcs.count > nodeCount { return .some(nil) }
        }
        let source = Int(fw[v].parent & ~markBit)
        edges.removeAll(keepingCapacity: true)
        for e in upArcs.reversed() {
            guard unpack(metric, up: true, arc: e, into: &edges, stack: &q.stack) else { return .some(nil) }
        }
        // Backward half: downward arcs from the meeting node to a target.
        v = meet
        var steps = 0
        while bw[v].parent & markBit == 0 {
            let e = Int(bw[v].parent)
            let lower = arcs.downFirst.withUnsafeBufferPointer { csrOwner($0.baseAddress!, count: nodeCount, e) }
            guard unpack(metric, up: false, arc: Int(arcs.downIndex[e]), into: &edges, stack: &q.stack) else { return .some(nil) }
            v = lower
            steps += 1
            if steps > nodeCount { return .some(nil) }
        }
        let target = ends.targets[Int(bw[v].parent & ~markBit)]
        return SearchOutcome(cost: best, path: .edges(source: source, edges: edges, target: target.endpoint), settled: settled)
    }
}

extension RouteEngine {
    /// The hierarchy query alone, node to node (no snapping, no route assembly), on the metric
    /// customized for `hour` (waiting for it): a function running one query and giving the nodes
    /// it settled (nil when there is no route), or nil when the graph's hierarchy does not cover
    /// the hour. A probe for `taxipot-bench` (where a route's time goes), not API.
    package func hierarchyNodeQuery(hour: Int) -> ((_ source: UInt32, _ target: UInt32) -> Int?)? {
        guard let metric = hierarchyMetric(hour: hour, wait: true) else { return nil }
        let g = graph
        let scratch = CHQueryScratch(nodeCount: g.nodeCount)
        return { source, target in
            var ends = SearchEnds()
            ends.sources = [(source, 0, 0)]
            ends.targets = [(target, 0, 0)]
            return (g.hierarchySearch(ends, metric: metric, scratch: scratch) ?? nil)?.settled
        }
    }

    /// The arcs the point-to-point query relaxes at `hour` (`CHQueryArcs`) and the hierarchy's
    /// arcs, or nil when the hierarchy does not cover the hour. For `taxipot-bench`'s conditions.
    package func hierarchyQueryArcCount(hour: Int) -> (query: Int, hierarchy: Int)? {
        guard let metric = hierarchyMetric(hour: hour, wait: true) else { return nil }
        return (metric.query.up.count + metric.query.down.count, graph.chUpHead.count + graph.chDownTail.count)
    }
}

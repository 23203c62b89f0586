import Foundation

extension RouteEngine {
    /// The route from `source`'s point to `destination`'s point, read from their kept searches (a
    /// forward and a backward space of one hour) instead of a new query: the best meeting of the
    /// two (the route along one edge when there is one, then the least cost, then the shortest,
    /// then the lowest rank, as `RoadGraph.hierarchySearch` picks it) and the arcs each kept
    /// search came by to it, unpacked. Equal to `route(through: [source.point,
    /// destination.point], departAt:)` at a departure of that hour, when both points stand on the
    /// roads of one and the same area (nil otherwise, to route instead), or nil when no road
    /// route joins them.
    ///
    /// The kept searches settle nodes in the query's order and keep the first cheapest arc into
    /// each, so their labels (cost, length and arc) are the query's; a node stalled in either is
    /// never the best meeting (a cheaper route would pass it), so leaving stalled nodes out of
    /// a kept space loses none.
    public func route(from source: HierarchySearchSpace, to destination: HierarchySearchSpace) -> RouteResult? {
        precondition(source.direction == .forward && destination.direction == .backward && source.hour == destination.hour,
                     "a forward and a backward space of one hour")
        let a = source.point, b = destination.point, hour = source.hour
        guard a.areas.count == 1, a.areas == b.areas, let metric = hierarchyMetric(hour: hour, wait: true) else { return nil }
        let g = graph
        return timeFactors[hour].withUnsafeBufferPointer { q -> RouteResult? in
            let time = TimeWeights(g, q: q)
            let ends = searchEnds(a.endpoints, b.endpoints, weights: time)
            var best = ends.direct?.cost ?? .max, bestLength = ends.direct?.length ?? .max
            var meet = -1, meetIn = (up: -1, down: -1)
            // Both spaces are sorted by rank: a merge finds the nodes both reached, lowest rank first.
            let up = source.entries, down = destination.entries
            var i = 0, k = 0
            while i < up.count && k < down.count {
                let u = up[i], d = down[k]
                if u.column < d.column { i += 1; continue }
                if u.column > d.column { k += 1; continue }
                let c = UInt64(u.dist) + UInt64(d.dist), l = UInt64(u.length) + UInt64(d.length)
                if c < best || c == best && l < bestLength {
                    best = c
                    bestLength = l
                    meet = Int(u.column)
                    meetIn = (i, k)
                }
                i += 1
                k += 1
            }
            guard best != .max else { return nil }
            let outcome: SearchOutcome
            if meet < 0 {
                guard let direct = ends.direct else { return nil }
                outcome = SearchOutcome(cost: direct.cost, path: .direct(source: direct.source, target: direct.target), settled: 0)
            } else {
                guard let path = unpackKept(source, at: meetIn.up, destination, at: meetIn.down, metric: metric) else { return nil }
                outcome = SearchOutcome(cost: best, path: .edges(source: path.source, edges: path.edges, target: path.target), settled: 0)
            }
            return assemble(legs: [LegPath(outcome: outcome, sources: a.endpoints, targets: b.endpoints)],
                            requestPoints: [a.coordinate, b.coordinate], time: time, metric: .time, hour: hour, settled: 0)
        }
    }

    /// The original edges of the route meeting at `source.entries[i]` = `destination.entries[k]`:
    /// the forward space's arcs from a start up to the meeting, then the backward space's down
    /// to a start, unpacked; with the start endpoints' indices. Nil when an arc does not unpack.
    private func unpackKept(_ source: HierarchySearchSpace, at i: Int, _ destination: HierarchySearchSpace, at k: Int,
                            metric: CHMetric) -> (source: Int, edges: [UInt32], target: Int)?
    {
        let g = graph, n = g.nodeCount, mark = TableScratch.startMark
        let upFirst = g.chUpFirst.baseAddress!, downFirst = g.chDownFirst.baseAddress!
        var arcs: [Int] = [], edges: [UInt32] = [], stack: [(up: Bool, arc: Int)] = []
        var at = i
        while source.parents[at] & mark == 0 {
            let e = Int(source.parents[at])
            arcs.append(e)
            guard arcs.count <= n, let next = source.index(ofRank: csrOwner(upFirst, count: n, e)) else { return nil }
            at = next
        }
        let start = Int(source.parents[at] & ~mark)
        for e in arcs.reversed() {
            guard g.unpack(metric, up: true, arc: e, into: &edges, stack: &stack) else { return nil }
        }
        at = k
        var steps = 0
        while destination.parents[at] & mark == 0 {
            let e = Int(destination.parents[at])
            guard g.unpack(metric, up: false, arc: e, into: &edges, stack: &stack) else { return nil }
            steps += 1
            guard steps <= n, let next = destination.index(ofRank: csrOwner(downFirst, count: n, e)) else { return nil }
            at = next
        }
        return (start, edges, Int(destination.parents[at] & ~mark))
    }
}

extension HierarchySearchSpace {
    /// The index in `entries` of the node of rank `rank`, when kept.
    func index(ofRank rank: Int) -> Int? {
        var lo = 0, hi = entries.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if Int(entries[mid].column) < rank { lo = mid + 1 } else { hi = mid }
        }
        return lo < entries.count && Int(entries[lo].column) == rank ? lo : nil
    }
}

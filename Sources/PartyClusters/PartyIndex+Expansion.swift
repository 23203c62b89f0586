import PartyModel

extension PartyIndex {
    // MARK: - Expansion zooms kept per node

    // Every inner node keeps the expansion zoom of its cell's parties (unfiltered) when it is
    // cheap to know: the least zoom below the node's at which they, merged among themselves,
    // form two or more features. It depends only on the parties below the node, so an insert
    // or delete refreshes the nodes of its path, deepest first, each from its children: with
    // one child it is the child's; with more, it is the next zoom when the children merged
    // there split, else a search zoom by zoom over the node's cells while they are few. When
    // they are many it is kept as unknown (−1) and a query searches it as it does under a
    // filter. A cluster of one cell reads the kept value.

    /// The expansion zoom of inner node `n` at depth `d` from its children (whose values are
    /// current), or −1 when that takes a deeper search.
    func keptExpansion(_ n: Int32, depth d: Int) -> Int {
        let nd = node(d, n)
        let split = withUnsafeTemporaryAllocation(of: ClusterMerger.SmallFeature.self, capacity: 4) { f -> Int in
            var k = 0
            var only: Int32 = -1
            for q in 0..<4 {
                let c = nd.child(q)
                guard c >= 0 else { continue }
                let cn = node(d + 1, c)
                // Quadrant order is the children's Morton order, the order the merge visits them in.
                f[k] = ClusterMerger.SmallFeature(key: UInt64(q), w: Double(cn.count), sx: cn.sumX, sy: cn.sumY)
                k += 1
                only = c
            }
            if k == 1 { return Int(node(d + 1, only).expansion) }
            let scale = PartyIndex.worldPixels(zoom: d + 1)
            return ClusterMerger.mergedCount(UnsafeMutableBufferPointer(rebasing: f[0..<k]), radius: radius, scale: scale) > 1 ? d + 1 : -1
        }
        if split >= 0 { return split }
        // Zoom-20 cells merged into one never split.
        return d + 1 >= PartyIndex.maxZoom ? PartyIndex.maxZoom + 1 : deeperExpansion(n, depth: d)
    }

    /// Most cells a zoom of `deeperExpansion`'s search may hold before it gives up.
    static let keptSearchCells = 16

    /// The expansion zoom of inner node `n` at depth `d` whose children stay one feature one
    /// zoom down: its cells zoom by zoom, merged among themselves, until they split (or are
    /// all in one cell whose node keeps its value); −1 when a zoom holds more than
    /// `keptSearchCells` cells (a query then searches).
    func deeperExpansion(_ n: Int32, depth d: Int) -> Int {
        let cap = PartyIndex.keptSearchCells
        return withUnsafeTemporaryAllocation(of: CellRef.self, capacity: 2 * cap) { refs -> Int in
            withUnsafeTemporaryAllocation(of: ClusterMerger.SmallFeature.self, capacity: cap) { f -> Int in
                // The cells one zoom below the node: its children.
                var cur = 0, count = 0
                let nd = node(d, n)
                for q in 0..<4 where nd.child(q) >= 0 {
                    refs[count] = CellRef(node: nd.child(q), depth: Int32(d + 1), x: Int32(q & 1), y: Int32(q >> 1))
                    count += 1
                }
                var z = d + 1
                while z < PartyIndex.maxZoom {
                    // The cells one zoom deeper (relative coordinates: only their order matters).
                    let next = cap - cur
                    var k = 0
                    for i in 0..<count {
                        let r = refs[cur + i]
                        let nd = node(Int(r.depth), r.node)
                        if nd.first >= 0 {
                            // A leaf (one party): its cell one zoom down.
                            guard k < cap else { return -1 }
                            let slot = slots[Int(nd.first)]
                            let shift = Int32(PartyIndex.maxZoom - z - 1)
                            refs[next + k] = CellRef(node: r.node, depth: r.depth, x: r.x * 2 + ((slot.cellX >> shift) & 1),
                                                     y: r.y * 2 + ((slot.cellY >> shift) & 1))
                            k += 1
                            continue
                        }
                        let dd = r.depth + 1
                        for q in 0..<4 where nd.child(q) >= 0 {
                            guard k < cap else { return -1 }
                            refs[next + k] = CellRef(node: nd.child(q), depth: dd, x: r.x * 2 + Int32(q & 1), y: r.y * 2 + Int32(q >> 1))
                            k += 1
                        }
                    }
                    z += 1
                    cur = next
                    count = k
                    if k == 1 {
                        // All in one cell: from here on its node's value, when it keeps one.
                        let r = refs[cur]
                        if Int(r.depth) == z { return Int(node(z, r.node).expansion) }
                        continue
                    }
                    for i in 0..<k {
                        let r = refs[cur + i]
                        let a = node(Int(r.depth), r.node)
                        ClusterMerger.insertSorted(.init(key: r.key(zoom: z), w: Double(a.count), sx: a.sumX, sy: a.sumY), into: f, count: i)
                    }
                    let scale = PartyIndex.worldPixels(zoom: z)
                    if ClusterMerger.mergedCount(UnsafeMutableBufferPointer(rebasing: f[0..<k]), radius: radius, scale: scale) > 1 { return z }
                }
                return PartyIndex.maxZoom + 1
            }
        }
    }

    /// The expansion zoom of inner node `n` at depth `d`, searched as a query without kept values does (for tests).
    func searchedExpansion(_ n: Int32, depth d: Int, scratch sc: inout ClusterQueryScratch) -> Int {
        let cell = cellOf(n, depth: d)
        sc.current.removeAll(keepingCapacity: true)
        appendChildren(of: CellRef(node: n, depth: Int32(d), x: Int32(cell.x), y: Int32(cell.y)), zoom: d, into: &sc.current)
        sc.deeperAggregates.removeAll(keepingCapacity: true)
        for r in sc.current { sc.deeperAggregates.append(aggregate(r, filter: PartyFilter())) }
        if sc.current.count > 1 && mergedCount(sc.current, sc.deeperAggregates, zoom: d + 1, small: &sc.small, buffer: &sc.splitBuffer) > 1 { return d + 1 }
        return expansionZoom(zoom: d + 1, filter: PartyFilter(), scratch: &sc)
    }

    /// The cell at depth `d` of node `n` (from one of its parties).
    func cellOf(_ n: Int32, depth d: Int) -> (x: Int, y: Int) {
        var cur = n, depth = d
        while true {
            let nd = node(depth, cur)
            if nd.first >= 0 {
                let slot = slots[Int(nd.first)]
                let down = Int32(PartyIndex.maxZoom - d)
                return (Int(slot.cellX >> down), Int(slot.cellY >> down))
            }
            for q in 0..<4 where nd.child(q) >= 0 {
                cur = nd.child(q)
                break
            }
            depth += 1
        }
    }

    /// Refreshes the expansion zooms of the inner nodes on the path to zoom-20 cell (`cx`, `cy`),
    /// and drops their kept tiles (their parties changed).
    mutating func refreshExpansion(cellX cx: Int32, cellY cy: Int32) {
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: PartyIndex.maxZoom + 1) { path in
            var n = roots[rootIndex(cx, cy)]
            var depth = 0
            while n >= 0 && depth < PartyIndex.maxZoom {
                let nd = node(depth, n)
                if nd.first >= 0 { break }
                path[depth] = n
                n = nd.child(PartyIndex.quadrant(cx, cy, depth: depth))
                depth += 1
            }
            for d in stride(from: depth - 1, through: 0, by: -1) {
                pools[d].nodes[Int(path[d])].expansion = keptExpansion(path[d], depth: d)
                tileCache.drop(depth: d, node: path[d])
            }
        }
    }

    /// Sets the expansion zoom of every inner node, deepest first (after a bulk load).
    mutating func computeAllExpansions() {
        for d in stride(from: PartyIndex.maxZoom - 1, through: 0, by: -1) {
            for i in 0..<pools[d].nodes.count {
                let nd = pools[d].nodes[i]
                guard nd.first < 0 && nd.count > 0 else { continue }
                pools[d].nodes[i].expansion = keptExpansion(Int32(i), depth: d)
            }
        }
    }
}

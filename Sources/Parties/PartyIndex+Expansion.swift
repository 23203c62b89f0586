extension PartyIndex {
    // MARK: - Expansion zooms kept per node

    // Every inner node keeps the expansion zoom of its cell's parties (unfiltered): the least
    // zoom below the node's at which they, merged among themselves, form two or more features.
    // It depends only on the parties below the node, so an insert or delete refreshes the
    // nodes of its path, deepest first, each from its children: with one child it is the
    // child's; with more, the children merged at the next zoom usually split there, and only
    // otherwise is the search walked deeper. A cluster of one cell then reads its value.

    /// The expansion zoom of inner node `n` at depth `d`, from its children (whose values are current).
    func expansionOfInner(_ n: Int32, depth d: Int, scratch sc: inout ClusterQueryScratch) -> Int {
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
        // The children stay one feature: search deeper from them, as a query does.
        let cell = cellOf(n, depth: d)
        sc.current.removeAll(keepingCapacity: true)
        appendChildren(of: CellRef(node: n, depth: Int32(d), x: Int32(cell.x), y: Int32(cell.y)), zoom: d, into: &sc.current)
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

    /// Refreshes the expansion zooms of the inner nodes on the path to zoom-20 cell (`cx`, `cy`).
    mutating func refreshExpansion(cellX cx: Int32, cellY cy: Int32) {
        var sc = maintenanceScratch
        maintenanceScratch = ClusterQueryScratch()
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
                let e = expansionOfInner(path[d], depth: d, scratch: &sc)
                pools[d].nodes[Int(path[d])].expansion = Int8(e)
            }
        }
        maintenanceScratch = sc
    }

    /// Sets the expansion zoom of every inner node, deepest first (after a bulk load).
    mutating func computeAllExpansions() {
        var sc = maintenanceScratch
        maintenanceScratch = ClusterQueryScratch()
        for d in stride(from: PartyIndex.maxZoom - 1, through: 0, by: -1) {
            for i in 0..<pools[d].nodes.count {
                let nd = pools[d].nodes[i]
                guard nd.first < 0 && nd.count > 0 else { continue }
                let e = expansionOfInner(Int32(i), depth: d, scratch: &sc)
                pools[d].nodes[i].expansion = Int8(e)
            }
        }
        maintenanceScratch = sc
    }
}

extension PartyIndex {
    /// Builds the tree of an empty index from `entries` (zoom-20 Morton key and slot index, sorted by
    /// key; the slots' positions and cells set), one depth at a time.
    ///
    /// At each depth the parties of every inner node are split into runs of equal key prefix:
    /// each run is a child cell. A run of one party is a leaf; runs at zoom 20 are leaves
    /// listing their parties; other runs are inner nodes split again at the next depth. The
    /// same tree as linking the parties one by one, built with sequential reads.
    mutating func buildTree(_ entries: ContiguousArray<(key: UInt64, value: Int32)>) {
        let n = entries.count
        guard n > 0 else { return }
        var frontier = [(node: Int32, lo: Int, hi: Int)]()
        var next = [(node: Int32, lo: Int, hi: Int)]()

        /// Makes the node for entries `lo..<hi` (one cell at `depth`); returns it and whether it is inner.
        func makeNode(_ lo: Int, _ hi: Int, depth: Int) -> (Int32, Bool) {
            let index = Int32(pools[depth].nodes.count)
            let count = hi - lo
            if count == 1 || depth == PartyIndex.maxZoom {
                // A leaf: its parties listed in key order.
                var sx = 0.0, sy = 0.0
                for k in lo..<hi {
                    let s = Int(entries[k].value)
                    sx += slots[s].x
                    sy += slots[s].y
                }
                pools[depth].nodes.append(Node(count: Int32(count), first: entries[lo].value, sumX: sx, sumY: sy))
                for k in lo..<hi {
                    let s = Int(entries[k].value)
                    slots[s].node = index
                    slots[s].depth = Int8(depth)
                    slots[s].prev = k > lo ? entries[k - 1].value : -1
                    slots[s].next = k + 1 < hi ? entries[k + 1].value : -1
                }
                return (index, false)
            }
            // An inner node: its sums are added up from its children once they exist.
            pools[depth].nodes.append(Node(count: Int32(count), first: -1, sumX: 0, sumY: 0))
            return (index, true)
        }

        // Depth 0: one run per zoom-0 cell.
        var lo = 0
        while lo < n {
            let prefix = entries[lo].key >> UInt64(2 * PartyIndex.maxZoom)
            var hi = lo + 1
            while hi < n && entries[hi].key >> UInt64(2 * PartyIndex.maxZoom) == prefix { hi += 1 }
            let s = Int(entries[lo].value)
            let (node, inner) = makeNode(lo, hi, depth: 0)
            roots[rootIndex(slots[s].cellX, slots[s].cellY)] = node
            if inner { frontier.append((node, lo, hi)) }
            lo = hi
        }
        // Deeper: split each inner node's run into its children's runs.
        var depth = 1
        while !frontier.isEmpty && depth <= PartyIndex.maxZoom {
            let shift = UInt64(2 * (PartyIndex.maxZoom - depth))
            pools[depth].nodes.reserveCapacity(pools[depth].nodes.count + frontier.count * 2)
            next.removeAll(keepingCapacity: true)
            for f in frontier {
                var lo = f.lo
                while lo < f.hi {
                    let prefix = entries[lo].key >> shift
                    var hi = lo + 1
                    while hi < f.hi && entries[hi].key >> shift == prefix { hi += 1 }
                    let (child, inner) = makeNode(lo, hi, depth: depth)
                    pools[depth - 1].nodes[Int(f.node)].setChild(Int(prefix & 3), child)
                    if inner { next.append((child, lo, hi)) }
                    lo = hi
                }
            }
            swap(&frontier, &next)
            depth += 1
        }
        // Inner nodes' sums, deepest first: each is its children's.
        for d in stride(from: PartyIndex.maxZoom - 1, through: 0, by: -1) {
            let below = pools[d + 1].nodes
            pools[d].nodes.withUnsafeMutableBufferPointer { nodes in
                for i in 0..<nodes.count where nodes[i].first < 0 && nodes[i].count > 0 {
                    var sx = 0.0, sy = 0.0
                    for q in 0..<4 {
                        let c = nodes[i].child(q)
                        if c >= 0 {
                            sx += below[Int(c)].sumX
                            sy += below[Int(c)].sumY
                        }
                    }
                    nodes[i].sumX = sx
                    nodes[i].sumY = sy
                }
            }
        }
    }
}

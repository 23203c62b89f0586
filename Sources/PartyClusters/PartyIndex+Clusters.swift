import Geo
import PartyModel

extension PartyIndex {
    /// Clusters and lone parties in view at `zoom` (0–20) in `box`, counting only parties
    /// that pass `filter`.
    ///
    /// Every matching party in the grid cells `box` touches is counted once. A feature is shown
    /// whole: a cluster reaching into the view may also count parties of its own cells just
    /// outside it (within the tile it belongs to), as a map shows a cluster at its edge, so
    /// clusters away from the view's edges do not change as it pans. No two features are
    /// closer than the radius. A `box` whose west edge is east of its east edge crosses the
    /// antimeridian.
    public func clusters(in box: BoundingBox, zoom: Int, filter: PartyFilter = PartyFilter()) -> [ClusterFeature] {
        var scratch = ClusterQueryScratch()
        return clusters(in: box, zoom: zoom, filter: filter, scratch: &scratch)
    }

    /// `clusters(in:zoom:filter:)` reusing `scratch`'s buffers (one scratch per thread).
    public func clusters(in box: BoundingBox, zoom: Int, filter: PartyFilter = PartyFilter(),
                         scratch: inout ClusterQueryScratch) -> [ClusterFeature]
    {
        let z = min(max(zoom, 0), PartyIndex.maxZoom)
        return tiledClusters(cellRanges(box, zoom: z), zoom: z, filter: filter, reads: ClusterReads(filter), scratch: &scratch)
    }

    /// The unfiltered answer of `clusters(in:zoom:scratch:)` built the way filtered answers are
    /// (`ClusterReads.searched`: no kept tiles, expansion zooms searched), for tests: both ways
    /// must give the same answer, to the last bit.
    func searchedClusters(in box: BoundingBox, zoom: Int, scratch: inout ClusterQueryScratch) -> [ClusterFeature] {
        let z = min(max(zoom, 0), PartyIndex.maxZoom)
        return tiledClusters(cellRanges(box, zoom: z), zoom: z, filter: PartyFilter(), reads: .searched, scratch: &scratch)
    }

    /// The features one zoom deeper that the parties of `id` form (merged among themselves),
    /// or nil when none of its cells holds a matching party any more.
    public func children(of id: ClusterID, filter: PartyFilter = PartyFilter()) -> [ClusterFeature]? {
        guard id.zoom < PartyIndex.maxZoom else {
            // At the deepest zoom a cluster's parties are its children.
            guard let all = leaves(of: id, filter: filter, limit: Int.max, offset: 0), all.total > 0 else { return nil }
            return all.parties.map { .party($0) }
        }
        var scratch = ClusterQueryScratch()
        for r in locate(id) { appendChildren(of: r, zoom: id.zoom, into: &scratch.refs) }
        let out = features(zoom: id.zoom + 1, filter: filter, scratch: &scratch)
        return out.isEmpty ? nil : out
    }

    /// The cluster at `zoom` whose least cell is `cell`, as an answer over the cell's tile and
    /// the tiles around it forms it (the cluster an answer showing that cell gives, unless the
    /// answer's view cut a cluster that runs on across tiles); nil when no cluster starts there.
    /// This finds a cluster named by its zoom and least cell alone (a numeric feature id).
    public func cluster(zoom: Int, leastCell cell: ClusterID.Cell, filter: PartyFilter = PartyFilter()) -> Cluster? {
        guard (0...PartyIndex.maxZoom).contains(zoom) else { return nil }
        let last = cellsPerAxis(zoom: zoom) - 1, reach = 1 << PartyIndex.tileLevels
        guard (0...last).contains(cell.x), (0...last).contains(cell.y) else { return nil }
        let range = (xs: max(0, cell.x - reach)...min(last, cell.x + reach), ys: max(0, cell.y - reach)...min(last, cell.y + reach))
        var scratch = ClusterQueryScratch()
        for case .cluster(let c) in tiledClusters([range], zoom: zoom, filter: filter, reads: ClusterReads(filter), scratch: &scratch)
            where c.id.first == cell { return c }
        return nil
    }

    /// The parties of `id` that pass `filter`, by departure then id: `total` of them, of which
    /// `limit` from `offset` are returned. Nil when none of its cells holds a matching party.
    public func leaves(of id: ClusterID, filter: PartyFilter = PartyFilter(), limit: Int, offset: Int) -> (total: Int, parties: [Party])? {
        var all = [Int32]()
        for r in locate(id) { appendSlots(under: r, into: &all) }
        let found = all.filter { filter.matches(departAt: slots[Int($0)].departAt, seatsLeft: Int(slots[Int($0)].seatsLeft)) }
        guard !found.isEmpty else { return nil }
        let sorted = found.sorted { a, b in
            let da = slots[Int(a)].departAt, db = slots[Int(b)].departAt
            if da != db { return da < db }
            return (party(slot: a)?.id ?? "") < (party(slot: b)?.id ?? "")
        }
        let from = min(max(offset, 0), sorted.count)
        let to = from + min(max(limit, 0), sorted.count - from)
        return (sorted.count, sorted[from..<to].compactMap { party(slot: $0) })
    }

    // MARK: - Building an answer

    /// Aggregates `scratch.refs` (cells at `zoom`), merges neighbours among themselves and
    /// turns the groups into features (for children, whose parties are merged among themselves).
    func features(zoom: Int, filter: PartyFilter, scratch sc: inout ClusterQueryScratch) -> [ClusterFeature] {
        var entry = TileEntry()
        formGroups(zoom: zoom, filter: filter, reads: ClusterReads(filter), scratch: &sc, into: &entry)
        var out = [ClusterFeature]()
        out.reserveCapacity(entry.groups.count)
        for g in entry.groups {
            if g.lone >= 0, let p = party(slot: g.lone) { out.append(.party(p)) } else if g.cluster >= 0 { out.append(.cluster(entry.clusters[Int(g.cluster)])) }
        }
        return out
    }

    /// Aggregates `scratch.refs` (cells at `zoom`), merges neighbours among themselves and
    /// appends the groups to `entry`: lone parties and clusters (expansion zoom included), in
    /// merge order, each with its cells. With `reads == .kept` (no filter), expansion zooms, split
    /// checks and lone parties are read from what the nodes keep (see `PartyIndex+Expansion`).
    func formGroups(zoom: Int, filter: PartyFilter, reads: ClusterReads, scratch sc: inout ClusterQueryScratch, into entry: inout TileEntry) {
        assert(reads == .searched || filter.isEmpty, "kept facts count every party: only an unfiltered answer may read them")
        let unfiltered = reads == .kept
        sc.merger.reset()
        sc.merger.reserve(sc.refs.count)
        sc.kept.removeAll(keepingCapacity: true)
        if filter.isEmpty {
            // Every cell gathered holds parties: all are kept (the buffers trade places).
            for r in sc.refs {
                let a = aggregate(r, filter: filter)
                sc.merger.add(count: a.count, sumX: a.sumX, sumY: a.sumY, key: r.key(zoom: zoom), cellX: r.x, cellY: r.y)
            }
            swap(&sc.kept, &sc.refs)
        } else {
            for r in sc.refs {
                let a = aggregate(r, filter: filter)
                guard a.count > 0 else { continue }
                sc.merger.add(count: a.count, sumX: a.sumX, sumY: a.sumY, key: r.key(zoom: zoom), cellX: r.x, cellY: r.y)
                sc.kept.append(r)
            }
        }
        sc.merger.merge(radius: radius, scale: PartyIndex.worldPixels(zoom: zoom))
        entry.groups.reserveCapacity(entry.groups.count + sc.merger.groupCount)
        // Lone parties are final; clusters wait for their expansion zoom, found below for all of
        // them at once, so the tree reads of different clusters overlap in memory.
        sc.pending.removeAll(keepingCapacity: true)
        sc.pendingCells.removeAll(keepingCapacity: true)
        sc.below.removeAll(keepingCapacity: true)
        // The merger, the cells, the split checks' buffer and the lists filled below: moved out
        // of `sc` for the loop and back after it (see `trade`).
        sc.reserveSplitBuffer()
        var merger = ClusterMerger(), kept = [CellRef](), splitBuffer = [ClusterMerger.SmallFeature]()
        var pending = ClusterQueryScratch.Pending(), pendingCells = [ClusterID.Cell](), below = [CellRef]()
        sc.trade(&merger, &kept, &splitBuffer, &pending, &pendingCells, &below)
        merger.withGroups { items, groups in
            kept.withUnsafeBufferPointer { kept in
                for g32 in groups {
                    let g = Int(g32)
                    let n = items[g].count
                    let r = kept[g]
                    var group = TileEntry.Group(count: Int32(n), lone: -1, cluster: -1, firstCell: Int32(entry.cells.count), cellCount: 0,
                                                key: items[g].key, sumX: items[g].sumX, sumY: items[g].sumY)
                    var box = TileEntry.Box(minX: r.x, minY: r.y, maxX: r.x, maxY: r.y)
                    if n == 1, case let s = unfiltered ? onlySlot(r) : singleMatchSlot(r, filter: filter), s >= 0 {
                        group.lone = s
                        group.cellCount = 1
                        entry.cells.append(r)
                        entry.groups.append(group)
                        entry.boxes.append(box)
                        continue
                    }
                    let firstCell = pendingCells.count, firstChild = below.count
                    if unfiltered && items[g].nextMember < 0 && Int(r.depth) == zoom {
                        // One cell: its node may keep the expansion zoom.
                        let kept = Int(node(zoom, r.node).expansion)
                        if kept >= 0 {
                            pendingCells.append(ClusterID.Cell(x: Int(r.x), y: Int(r.y)))
                            group.cellCount = 1
                            entry.cells.append(r)
                            pending.append((entry.groups.count, firstCell..<pendingCells.count, firstChild..<firstChild, kept))
                            entry.groups.append(group)
                            entry.boxes.append(box)
                            continue
                        }
                    }
                    let quick = unfiltered && zoom < PartyIndex.maxZoom && splitsAtNextZoom(leader: g, items, kept, zoom: zoom, buffer: &splitBuffer)
                    var m = Int32(g)
                    while m >= 0 {
                        let r = kept[Int(m)]
                        pendingCells.append(ClusterID.Cell(x: Int(r.x), y: Int(r.y)))
                        entry.cells.append(r)
                        box.minX = min(box.minX, r.x)
                        box.minY = min(box.minY, r.y)
                        box.maxX = max(box.maxX, r.x)
                        box.maxY = max(box.maxY, r.y)
                        if !quick { appendChildren(of: r, zoom: zoom, into: &below) }
                        m = items[Int(m)].nextMember
                    }
                    group.cellCount = Int32(entry.cells.count) - group.firstCell
                    pending.append((entry.groups.count, firstCell..<pendingCells.count, firstChild..<below.count, quick ? zoom + 1 : -1))
                    entry.groups.append(group)
                    entry.boxes.append(box)
                }
            }
        }
        sc.trade(&merger, &kept, &splitBuffer, &pending, &pendingCells, &below)
        sc.aggregates.removeAll(keepingCapacity: true)
        for r in sc.below { sc.aggregates.append(aggregate(r, filter: filter)) }
        entry.clusters.reserveCapacity(entry.clusters.count + sc.pending.count)
        for c in sc.pending {
            var expansion = c.expansion >= 0 ? c.expansion : PartyIndex.maxZoom + 1
            if c.expansion < 0 && zoom < PartyIndex.maxZoom {
                if splitsBelow(c.children, zoom: zoom, scratch: &sc) {
                    expansion = zoom + 1
                } else {
                    sc.current.removeAll(keepingCapacity: true)
                    for k in c.children where sc.aggregates[k].count > 0 { sc.current.append(sc.below[k]) }
                    expansion = expansionZoom(zoom: zoom + 1, filter: filter, scratch: &sc)
                }
            }
            let g = entry.groups[c.group]
            let coordinate = WebMercator.coordinate(normalizedX: g.sumX / Double(g.count), y: g.sumY / Double(g.count))
            let id = c.cells.count == 1 ? ClusterID(zoom: zoom, cell: sc.pendingCells[c.cells.lowerBound])
                : sc.pendingCells.withUnsafeMutableBufferPointer { ClusterID(zoom: zoom, sortingInPlace: .init(rebasing: $0[c.cells])) }
            entry.groups[c.group].cluster = Int32(entry.clusters.count)
            entry.clusters.append(Cluster(id: id, coordinate: coordinate, count: Int(g.count), expansionZoom: expansion))
        }
    }

    /// True when the parties of the merged group led by `g` (cells `kept` at `zoom` < 20, no
    /// filter; `items` the merger's) form two or more features one zoom deeper, merged among
    /// themselves; false when they do not, or when they fill more than
    /// `ClusterMerger.smallCapacity` cells there (the caller then searches the general way).
    /// Reads the child nodes straight into `buffer` (at least `ClusterMerger.smallCapacity`
    /// long, kept between answers: too large for the stack, it would be allocated each
    /// time); a child's key is its parent's Morton key and its quadrant.
    func splitsAtNextZoom(leader g: Int, _ items: UnsafeBufferPointer<ClusterMerger.Item>,
                          _ kept: UnsafeBufferPointer<CellRef>, zoom: Int, buffer: inout [ClusterMerger.SmallFeature]) -> Bool
    {
        let most = ClusterMerger.smallCapacity / 4
        return withUnsafeTemporaryAllocation(of: CellRef.self, capacity: most) { cells in
            var k = 0
            var m = Int32(g)
            while m >= 0 {
                guard k < most else { return false }
                cells[k] = kept[Int(m)]
                k += 1
                m = items[Int(m)].nextMember
            }
            return splitsAtNextZoom(cells: UnsafeBufferPointer(rebasing: cells[0..<k]), zoom: zoom, buffer: &buffer)
        }
    }

    /// True when the parties of `cells` (cells at `zoom` < 20, no filter) form two or more
    /// features one zoom deeper, merged among themselves; false when they do not, or when
    /// there are more than `ClusterMerger.smallCapacity / 4` cells (the caller then searches
    /// the general way). Reads the child nodes straight into `buffer` (at least
    /// `ClusterMerger.smallCapacity` long); a child's key is its parent's Morton key and its quadrant.
    func splitsAtNextZoom(cells: UnsafeBufferPointer<CellRef>, zoom: Int, buffer: inout [ClusterMerger.SmallFeature]) -> Bool {
        let shift = Int32(PartyIndex.maxZoom - zoom - 1)
        let capacity = ClusterMerger.smallCapacity
        guard cells.count <= capacity / 4 else { return false }
        return buffer.withUnsafeMutableBufferPointer { f in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: capacity / 4) { members in
                // The cells in key order (so their children come out in key order).
                for k in 0..<cells.count {
                    let key = cells[k].key(zoom: zoom)
                    var b = k
                    while b > 0 && cells[members[b - 1]].key(zoom: zoom) > key {
                        members[b] = members[b - 1]
                        b -= 1
                    }
                    members[b] = k
                }
                var n = 0
                for t in 0..<cells.count {
                    let r = cells[members[t]]
                    let base = r.key(zoom: zoom) << 2
                    let nd = node(Int(r.depth), r.node)
                    if nd.first >= 0 {
                        // A leaf (one party, or a zoom-20 list): all in one cell one zoom down.
                        let slot = slots[Int(nd.first)]
                        let q = UInt64((slot.cellX >> shift) & 1) | UInt64((slot.cellY >> shift) & 1) << 1
                        f[n] = .init(key: base | q, w: Double(nd.count), sx: nd.sumX, sy: nd.sumY)
                        n += 1
                    } else {
                        let d = Int(r.depth) + 1
                        for q in 0..<4 {
                            let c = nd.child(q)
                            guard c >= 0 else { continue }
                            let cn = node(d, c)
                            f[n] = .init(key: base | UInt64(q), w: Double(cn.count), sx: cn.sumX, sy: cn.sumY)
                            n += 1
                        }
                    }
                }
                guard n > 1 else { return false }
                let scale = PartyIndex.worldPixels(zoom: zoom + 1)
                return ClusterMerger.mergedCount(UnsafeMutableBufferPointer(rebasing: f[0..<n]), radius: radius, scale: scale) > 1
            }
        }
    }

    /// True when the cells `below[children]` (one zoom below `zoom`, aggregated in
    /// `aggregates`) form two or more features when merged among themselves.
    func splitsBelow(_ children: Range<Int>, zoom: Int, scratch sc: inout ClusterQueryScratch) -> Bool {
        let scale = PartyIndex.worldPixels(zoom: zoom + 1)
        if children.count <= ClusterMerger.smallCapacity {
            let below = sc.below, aggregates = sc.aggregates
            sc.reserveSplitBuffer()
            return sc.splitBuffer.withUnsafeMutableBufferPointer { f in
                var n = 0
                for k in children where aggregates[k].count > 0 {
                    let a = aggregates[k]
                    ClusterMerger.insertSorted(.init(key: below[k].key(zoom: zoom + 1), w: Double(a.count), sx: a.sumX, sy: a.sumY),
                                               into: f, count: n)
                    n += 1
                }
                return n > 1 && ClusterMerger.mergedCount(UnsafeMutableBufferPointer(rebasing: f[0..<n]), radius: radius, scale: scale) > 1
            }
        }
        sc.small.reset()
        for k in children where sc.aggregates[k].count > 0 {
            let a = sc.aggregates[k]
            sc.small.add(count: a.count, sumX: a.sumX, sumY: a.sumY, key: sc.below[k].key(zoom: zoom + 1), cellX: sc.below[k].x, cellY: sc.below[k].y)
        }
        guard sc.small.inputCount > 1 else { return false }
        sc.small.merge(radius: radius, scale: scale)
        return sc.small.groupCount > 1
    }

    /// The least zoom below `zoom` at which the parties of `scratch.current` (cells at `zoom`)
    /// form two or more features when merged among themselves.
    func expansionZoom(zoom: Int, filter: PartyFilter, scratch sc: inout ClusterQueryScratch) -> Int {
        var z = zoom
        while z < PartyIndex.maxZoom {
            sc.deeper.removeAll(keepingCapacity: true)
            for r in sc.current { appendChildren(of: r, zoom: z, into: &sc.deeper) }
            z += 1
            sc.current.removeAll(keepingCapacity: true)
            sc.deeperAggregates.removeAll(keepingCapacity: true)
            for r in sc.deeper {
                let a = aggregate(r, filter: filter)
                guard a.count > 0 else { continue }
                sc.current.append(r)
                sc.deeperAggregates.append(a)
            }
            if sc.current.count > 1 && mergedCount(sc.current, sc.deeperAggregates, zoom: z, small: &sc.small, buffer: &sc.splitBuffer) > 1 { return z }
        }
        return PartyIndex.maxZoom + 1
    }

    /// How many features the cells `refs` (at `zoom`, aggregated in `aggregates`) form merged
    /// among themselves: on the stack when they are few, else with `small`.
    func mergedCount(_ refs: [CellRef], _ aggregates: [(count: Int, sumX: Double, sumY: Double)], zoom: Int,
                     small: inout ClusterMerger, buffer: inout [ClusterMerger.SmallFeature]) -> Int
    {
        let scale = PartyIndex.worldPixels(zoom: zoom)
        if refs.count <= ClusterMerger.smallCapacity {
            if buffer.count < ClusterMerger.smallCapacity { buffer = ClusterQueryScratch.newSplitBuffer() }
            return buffer.withUnsafeMutableBufferPointer { f in
                for k in 0..<refs.count {
                    let a = aggregates[k]
                    ClusterMerger.insertSorted(.init(key: refs[k].key(zoom: zoom), w: Double(a.count), sx: a.sumX, sy: a.sumY),
                                               into: f, count: k)
                }
                return ClusterMerger.mergedCount(UnsafeMutableBufferPointer(rebasing: f[0..<refs.count]), radius: radius, scale: scale)
            }
        }
        small.reset()
        for k in 0..<refs.count {
            let a = aggregates[k]
            small.add(count: a.count, sumX: a.sumX, sumY: a.sumY, key: refs[k].key(zoom: zoom), cellX: refs[k].x, cellY: refs[k].y)
        }
        small.merge(radius: radius, scale: scale)
        return small.groupCount
    }

    /// The width of the world in pixels at `zoom`.
    static func worldPixels(zoom: Int) -> Double { WebMercator.tileSize * Double(1 << zoom) }

    /// Count and coordinate sums of the parties of `r` that pass `filter`.
    @inline(__always)
    func aggregate(_ r: CellRef, filter: PartyFilter) -> (count: Int, sumX: Double, sumY: Double) {
        let nd = node(Int(r.depth), r.node)
        if filter.isEmpty { return (Int(nd.count), nd.sumX, nd.sumY) }
        let b = filter.bounds
        let a = filteredAggregate(under: r.node, depth: Int(r.depth), b.after, b.before, Int32(clamping: b.seats))
        return (a.count, a.sumX, a.sumY)
    }

    /// The slot of the party of `r`, a cell holding exactly one (−1 if it holds more).
    @inline(__always)
    func onlySlot(_ r: CellRef) -> Int32 {
        let nd = node(Int(r.depth), r.node)
        if nd.first >= 0 && nd.count == 1 { return nd.first }
        return singleMatchSlot(r, filter: PartyFilter())
    }

    /// The slot of the one party of `r` that passes `filter`, when exactly one does, else −1.
    func singleMatchSlot(_ r: CellRef, filter: PartyFilter) -> Int32 {
        let b = filter.bounds
        let a = filteredAggregate(under: r.node, depth: Int(r.depth), b.after, b.before, Int32(clamping: b.seats))
        return a.count == 1 ? a.one : -1
    }
}

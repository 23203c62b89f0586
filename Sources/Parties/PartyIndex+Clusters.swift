import Geo

/// A cluster in an answer: several parties shown as one point.
public struct Cluster: Sendable, Hashable {
    /// Its cells at its zoom; use it for leaves and children.
    public let id: ClusterID
    /// The centroid of its parties' origins.
    public let coordinate: Coordinate
    /// How many parties it holds.
    public let count: Int
    /// The least zoom at which its parties show as more than one feature (merged among
    /// themselves); `PartyIndex.maxZoom + 1` when they lie so close together that no zoom
    /// splits them (list them with leaves instead).
    public let expansionZoom: Int
}

/// One feature of a cluster answer: a cluster, or a party shown alone.
public enum ClusterFeature: Sendable, Hashable {
    case cluster(Cluster)
    case party(Party)

    /// Where the feature is drawn.
    public var coordinate: Coordinate {
        switch self {
        case .cluster(let c): return c.coordinate
        case .party(let p): return p.origin
        }
    }

    /// How many parties it stands for.
    public var count: Int {
        switch self {
        case .cluster(let c): return c.count
        case .party: return 1
        }
    }
}

/// Buffers a cluster answer works in, kept between answers so that a warmed-up query
/// allocates little. A value: keep one per thread (or per lock holder) and pass it `inout`.
public struct ClusterQueryScratch: Sendable {
    var refs: [CellRef] = []
    var kept: [CellRef] = []
    var merger = ClusterMerger()
    var small = ClusterMerger()
    var below: [CellRef] = []
    var aggregates: [(count: Int, sumX: Double, sumY: Double)] = []
    var pending: [(count: Int, sumX: Double, sumY: Double, cells: Range<Int>, children: Range<Int>)] = []
    var pendingCells: [ClusterID.Cell] = []
    var current: [CellRef] = []
    var deeper: [CellRef] = []

    public init() {}
}

/// A grid cell at some zoom together with the tree node that covers exactly its parties:
/// the node of that cell, or a single-party leaf higher up whose party lies in it.
struct CellRef {
    var node: Int32
    /// The node's depth: the cell's zoom, or less for a single-party leaf.
    var depth: Int32
    var x: Int32
    var y: Int32

    /// The cell's place in quadtree (Morton) order among the cells of its zoom: the order the
    /// tree is walked in, so cells gathered by a walk come sorted.
    func key(zoom: Int) -> UInt64 { PartyIndex.mortonKey(Int(x), Int(y)) }
}

extension PartyIndex {
    /// Clusters and lone parties in view at `zoom` (0–20) in `box`, counting only parties
    /// that pass `filter`.
    ///
    /// The answer covers the grid cells `box` touches, whole; its counts add up to the
    /// matching parties in those cells. A `box` whose west edge is east of its east edge
    /// crosses the antimeridian.
    public func clusters(in box: BoundingBox, zoom: Int, filter: PartyFilter = PartyFilter()) -> [ClusterFeature] {
        var scratch = ClusterQueryScratch()
        return clusters(in: box, zoom: zoom, filter: filter, scratch: &scratch)
    }

    /// `clusters(in:zoom:filter:)` reusing `scratch`'s buffers (one scratch per thread).
    public func clusters(in box: BoundingBox, zoom: Int, filter: PartyFilter = PartyFilter(),
                         scratch: inout ClusterQueryScratch) -> [ClusterFeature]
    {
        let z = min(max(zoom, 0), PartyIndex.maxZoom)
        scratch.refs.removeAll(keepingCapacity: true)
        for range in cellRanges(box, zoom: z) {
            collectCells(zoom: z, xs: range.xs, ys: range.ys, into: &scratch.refs)
        }
        return features(zoom: z, filter: filter, scratch: &scratch)
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

    /// The parties of `id` that pass `filter`, by departure then id: `total` of them, of which
    /// `limit` from `offset` are returned. Nil when none of its cells holds a matching party.
    public func leaves(of id: ClusterID, filter: PartyFilter = PartyFilter(), limit: Int, offset: Int) -> (total: Int, parties: [Party])? {
        var found = [Int32]()
        for r in locate(id) {
            forEachSlot(under: r) { s in
                let slot = slots[Int(s)]
                if filter.matches(departAt: slot.departAt, seatsLeft: Int(slot.seatsLeft)) { found.append(s) }
            }
        }
        guard !found.isEmpty else { return nil }
        found.sort { a, b in
            let da = slots[Int(a)].departAt, db = slots[Int(b)].departAt
            if da != db { return da < db }
            return (party(slot: a)?.id ?? "") < (party(slot: b)?.id ?? "")
        }
        let from = min(max(offset, 0), found.count)
        let to = from + min(max(limit, 0), found.count - from)
        return (found.count, found[from..<to].compactMap { party(slot: $0) })
    }

    // MARK: - Building an answer

    /// Aggregates `scratch.refs` (cells at `zoom`), merges neighbours and turns the groups into
    /// features: lone parties, then clusters.
    func features(zoom: Int, filter: PartyFilter, scratch sc: inout ClusterQueryScratch) -> [ClusterFeature] {
        sc.merger.reset()
        sc.merger.reserve(sc.refs.count)
        sc.kept.removeAll(keepingCapacity: true)
        for r in sc.refs {
            let a = aggregate(r, filter: filter)
            guard a.count > 0 else { continue }
            sc.merger.add(count: a.count, sumX: a.sumX, sumY: a.sumY, key: r.key(zoom: zoom))
            sc.kept.append(r)
        }
        sc.merger.merge(radius: radius, scale: PartyIndex.worldPixels(zoom: zoom))
        var out = [ClusterFeature]()
        out.reserveCapacity(sc.merger.groupCount)
        // Lone parties are final; clusters wait for their expansion zoom, found below for all of
        // them at once, so the tree reads of different clusters overlap in memory.
        sc.pending.removeAll(keepingCapacity: true)
        sc.pendingCells.removeAll(keepingCapacity: true)
        sc.below.removeAll(keepingCapacity: true)
        sc.merger.forEachGroup { g in
            let n = sc.merger.count(g)
            if n == 1, let p = singleMatch(sc.kept[g], filter: filter) {
                out.append(.party(p))
                return
            }
            let firstCell = sc.pendingCells.count, firstChild = sc.below.count
            sc.merger.forEachMember(of: g) { m in
                let r = sc.kept[m]
                sc.pendingCells.append(ClusterID.Cell(x: Int(r.x), y: Int(r.y)))
                appendChildren(of: r, zoom: zoom, into: &sc.below)
            }
            let sums = sc.merger.sums(g)
            sc.pending.append((n, sums.x, sums.y, firstCell..<sc.pendingCells.count, firstChild..<sc.below.count))
        }
        sc.aggregates.removeAll(keepingCapacity: true)
        for r in sc.below { sc.aggregates.append(aggregate(r, filter: filter)) }
        for c in sc.pending {
            var expansion = PartyIndex.maxZoom + 1
            if zoom < PartyIndex.maxZoom {
                if splitsBelow(c.children, zoom: zoom, scratch: &sc) {
                    expansion = zoom + 1
                } else {
                    sc.current.removeAll(keepingCapacity: true)
                    for k in c.children where sc.aggregates[k].count > 0 { sc.current.append(sc.below[k]) }
                    expansion = expansionZoom(zoom: zoom + 1, filter: filter, scratch: &sc)
                }
            }
            let coordinate = WebMercator.coordinate(normalizedX: c.sumX / Double(c.count), y: c.sumY / Double(c.count))
            let id = c.cells.count == 1 ? ClusterID(zoom: zoom, cell: sc.pendingCells[c.cells.lowerBound])
                : ClusterID(zoom: zoom, cells: Array(sc.pendingCells[c.cells]))!
            out.append(.cluster(Cluster(id: id, coordinate: coordinate, count: c.count, expansionZoom: expansion)))
        }
        return out
    }

    /// True when the cells `below[children]` (one zoom below `zoom`, aggregated in
    /// `aggregates`) form two or more features when merged among themselves.
    func splitsBelow(_ children: Range<Int>, zoom: Int, scratch sc: inout ClusterQueryScratch) -> Bool {
        let scale = PartyIndex.worldPixels(zoom: zoom + 1)
        if children.count <= ClusterMerger.smallCapacity {
            let below = sc.below, aggregates = sc.aggregates
            return withUnsafeTemporaryAllocation(of: ClusterMerger.SmallFeature.self, capacity: ClusterMerger.smallCapacity) { f in
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
            sc.small.add(count: a.count, sumX: a.sumX, sumY: a.sumY, key: sc.below[k].key(zoom: zoom + 1))
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
            sc.small.reset()
            sc.current.removeAll(keepingCapacity: true)
            for r in sc.deeper {
                let a = aggregate(r, filter: filter)
                guard a.count > 0 else { continue }
                sc.small.add(count: a.count, sumX: a.sumX, sumY: a.sumY, key: r.key(zoom: z))
                sc.current.append(r)
            }
            if sc.current.count > 1 {
                sc.small.merge(radius: radius, scale: PartyIndex.worldPixels(zoom: z))
                if sc.small.groupCount > 1 { return z }
            }
        }
        return PartyIndex.maxZoom + 1
    }

    /// The width of the world in pixels at `zoom`.
    static func worldPixels(zoom: Int) -> Double { WebMercator.tileSize * Double(1 << zoom) }

    /// Count and coordinate sums of the parties of `r` that pass `filter`.
    func aggregate(_ r: CellRef, filter: PartyFilter) -> (count: Int, sumX: Double, sumY: Double) {
        let nd = node(Int(r.depth), r.node)
        if filter.isEmpty { return (Int(nd.count), nd.sumX, nd.sumY) }
        var n = 0, sx = 0.0, sy = 0.0
        let b = filter.bounds
        forEachSlot(under: r) { s in
            let slot = slots[Int(s)]
            if slot.departAt >= b.after && slot.departAt <= b.before && Int(slot.seatsLeft) >= b.seats {
                n += 1
                sx += slot.x
                sy += slot.y
            }
        }
        return (n, sx, sy)
    }

    /// The one party of `r` that passes `filter`, when exactly one does.
    func singleMatch(_ r: CellRef, filter: PartyFilter) -> Party? {
        var found: Int32 = -1
        var n = 0
        forEachSlot(under: r) { s in
            let slot = slots[Int(s)]
            if filter.matches(departAt: slot.departAt, seatsLeft: Int(slot.seatsLeft)) {
                found = s
                n += 1
            }
        }
        return n == 1 ? party(slot: found) : nil
    }

    // MARK: - Walking the tree

    /// Calls `body` with every party slot below `r`'s node.
    func forEachSlot(under r: CellRef, _ body: (Int32) -> Void) {
        forEachSlot(under: r.node, depth: Int(r.depth), body)
    }

    /// Calls `body` with every party slot below node `n` of depth `depth`.
    func forEachSlot(under n: Int32, depth: Int, _ body: (Int32) -> Void) {
        let nd = node(depth, n)
        if nd.first >= 0 {
            var s = nd.first
            while s >= 0 {
                body(s)
                s = slots[Int(s)].next
            }
            return
        }
        for q in 0..<4 {
            let c = nd.child(q)
            if c >= 0 { forEachSlot(under: c, depth: depth + 1, body) }
        }
    }

    /// The cells one zoom below `r` (which is at `zoom`) that hold parties.
    func appendChildren(of r: CellRef, zoom: Int, into out: inout [CellRef]) {
        guard zoom < PartyIndex.maxZoom else { return }
        let nd = node(Int(r.depth), r.node)
        if nd.first >= 0 {
            // A single-party leaf at or above this zoom: its party's cell one zoom down.
            let shift = Int32(PartyIndex.maxZoom - zoom - 1)
            let slot = slots[Int(nd.first)]
            out.append(CellRef(node: r.node, depth: r.depth, x: slot.cellX >> shift, y: slot.cellY >> shift))
            return
        }
        let d = r.depth + 1
        if nd.c0 >= 0 { out.append(CellRef(node: nd.c0, depth: d, x: r.x * 2, y: r.y * 2)) }
        if nd.c1 >= 0 { out.append(CellRef(node: nd.c1, depth: d, x: r.x * 2 + 1, y: r.y * 2)) }
        if nd.c2 >= 0 { out.append(CellRef(node: nd.c2, depth: d, x: r.x * 2, y: r.y * 2 + 1)) }
        if nd.c3 >= 0 { out.append(CellRef(node: nd.c3, depth: d, x: r.x * 2 + 1, y: r.y * 2 + 1)) }
    }

    /// The occupied cells at `zoom` within cell ranges `xs` × `ys` of that zoom.
    func collectCells(zoom: Int, xs: ClosedRange<Int>, ys: ClosedRange<Int>, into out: inout [CellRef]) {
        let rx = (xs.lowerBound >> zoom)...(xs.upperBound >> zoom)
        let ry = (ys.lowerBound >> zoom)...(ys.upperBound >> zoom)
        for y in ry where y < rootsPerAxis {
            for x in rx where x < rootsPerAxis {
                let n = roots[y * rootsPerAxis + x]
                if n >= 0 { visit(n, depth: 0, x: x, y: y, zoom: zoom, xs: xs, ys: ys, into: &out) }
            }
        }
    }

    private func visit(_ n: Int32, depth: Int, x: Int, y: Int, zoom: Int,
                       xs: ClosedRange<Int>, ys: ClosedRange<Int>, into out: inout [CellRef])
    {
        let shift = zoom - depth
        let lox = x << shift, hix = ((x + 1) << shift) - 1
        let loy = y << shift, hiy = ((y + 1) << shift) - 1
        guard hix >= xs.lowerBound, lox <= xs.upperBound, hiy >= ys.lowerBound, loy <= ys.upperBound else { return }
        if depth == zoom {
            out.append(CellRef(node: n, depth: Int32(depth), x: Int32(x), y: Int32(y)))
            return
        }
        let nd = node(depth, n)
        if nd.first >= 0 {
            let down = Int32(PartyIndex.maxZoom - zoom)
            let slot = slots[Int(nd.first)]
            let cx = Int(slot.cellX >> down), cy = Int(slot.cellY >> down)
            if xs.contains(cx) && ys.contains(cy) { out.append(CellRef(node: n, depth: Int32(depth), x: Int32(cx), y: Int32(cy))) }
            return
        }
        for q in 0..<4 {
            let c = nd.child(q)
            if c >= 0 {
                visit(c, depth: depth + 1, x: x * 2 + (q & 1), y: y * 2 + (q >> 1), zoom: zoom, xs: xs, ys: ys, into: &out)
            }
        }
    }

    /// The cells of `id` that hold parties, each with the node covering it.
    func locate(_ id: ClusterID) -> [CellRef] {
        let z = id.zoom
        let perAxis = cellsPerAxis(zoom: z)
        var out = [CellRef]()
        for cell in id.cells where cell.x < perAxis && cell.y < perAxis {
            var n = roots[(cell.y >> z) * rootsPerAxis + (cell.x >> z)]
            var depth = 0
            while n >= 0 && depth < z {
                let nd = node(depth, n)
                if nd.first >= 0 {
                    let down = Int32(PartyIndex.maxZoom - z)
                    let slot = slots[Int(nd.first)]
                    if Int(slot.cellX >> down) != cell.x || Int(slot.cellY >> down) != cell.y { n = -1 }
                    break
                }
                let shift = z - depth - 1
                n = nd.child(((cell.x >> shift) & 1) | (((cell.y >> shift) & 1) << 1))
                depth += 1
            }
            if n >= 0 { out.append(CellRef(node: n, depth: Int32(depth), x: Int32(cell.x), y: Int32(cell.y))) }
        }
        return out
    }

    /// The cell ranges at `zoom` that `box` covers: one, or two when it crosses the antimeridian.
    func cellRanges(_ box: BoundingBox, zoom: Int) -> [(xs: ClosedRange<Int>, ys: ClosedRange<Int>)] {
        let down = PartyIndex.maxZoom - zoom
        let nw = WebMercator.normalized(Coordinate(lon: box.west, lat: box.north))
        let se = WebMercator.normalized(Coordinate(lon: box.east, lat: box.south))
        let a = cell(x: nw.x, y: nw.y), b = cell(x: se.x, y: se.y)
        let ys = (a.y >> down)...(b.y >> down)
        let last = cellsPerAxis(zoom: zoom) - 1
        if box.west <= box.east {
            return [((a.x >> down)...(b.x >> down), ys)]
        }
        return [((a.x >> down)...last, ys), (0...(b.x >> down), ys)]
    }
}


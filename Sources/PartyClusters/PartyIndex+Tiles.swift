import Geo
import PartyModel

extension PartyIndex {
    // MARK: - Answers from tiles

    // A view's answer is built from tiles: at zoom z a tile is the node of depth
    // z − `tileLevels`, a square of 2^tileLevels cells a side (16 cells, 960 px at the default
    // radius, about a phone screen). Within each tile the greedy merge runs over all the
    // tile's occupied cells, in or out of view, so a tile's groups depend on its parties
    // alone: unfiltered, they are kept in
    // `tileCache` until a write passes through the tile's node. An answer takes every group
    // of the tiles in view that has a cell in view, whole, and merges them once more across
    // tile borders (the same greedy merge, over groups), so no two features are closer than the
    // radius. A cluster therefore looks the same whatever the view, except where it meets
    // another tile's group at the view's edge; and its count may include parties of its own
    // cells just outside the view, as a map shows a cluster at the edge whole.

    /// Drops every kept tile, freeing its memory; tiles are merged again as queries need them
    /// (what the first queries after a start cost; for benchmarks, and to give memory back).
    public mutating func dropKeptTiles() {
        tileCache = TileCache(maxGroups: tileCache.maxGroups)
    }

    /// Forms and keeps the tiles of the lowest zooms ahead of any query (a bulk load's last
    /// step, as supercluster forms every zoom when it loads): zoom by zoom from 0, while the
    /// groups kept, with as many again as the last zoom made (a deeper zoom has at least about
    /// as many), stay within twice the parties' count and half the cache's bound. At 1M
    /// parties around the cities that is zooms 0–16 (about 0.3 s and 480k groups), at 100k
    /// zooms 0–16 too; a view at those zooms then merges no tile until a write drops one
    /// (docs/DESIGN.md section 2).
    package func formTilesAhead() {
        let budget = min(2 * count, tileCache.maxGroups / 2)
        var sc = ClusterQueryScratch(), tiles = [CellRef](), last = 0
        for z in 0...PartyIndex.maxZoom {
            let before = tileCache.groupCount
            guard before + last <= budget else { return }
            let td = PartyIndex.tileDepth(zoom: z), end = cellsPerAxis(zoom: td) - 1
            tiles.removeAll(keepingCapacity: true)
            collectCells(zoom: td, xs: 0...end, ys: 0...end, into: &tiles)
            for t in tiles where node(Int(t.depth), t.node).first < 0 {
                _ = tileCache.entry(zoom: z, node: t.node) {
                    var entry = TileEntry()
                    formTileGroups(t, zoom: z, filter: PartyFilter(), reads: .kept, scratch: &sc, into: &entry)
                    return entry
                }
            }
            last = tileCache.groupCount - before
        }
    }

    /// Zoom levels a tile spans: a tile is `1 << tileLevels` cells a side. (Measured on the
    /// benchmark's phone views before the last tuning: 8-cell tiles made more groups meet at
    /// tile borders, answers 30–40% slower; 32-cell tiles answered about 13% faster, but a tile
    /// merged again after a write costs four times as much.)
    static let tileLevels = 4

    /// The depth of the tile nodes of `zoom`.
    @inline(__always)
    static func tileDepth(zoom: Int) -> Int { max(zoom - tileLevels, 0) }

    /// The answer for cell ranges `ranges` at zoom `z` (see above). With `reads == .kept` (no
    /// filter), tiles come from `tileCache`; with `.searched`, each is merged afresh.
    func tiledClusters(_ ranges: [(xs: ClosedRange<Int>, ys: ClosedRange<Int>)], zoom z: Int, filter: PartyFilter,
                       reads: ClusterReads, scratch sc: inout ClusterQueryScratch) -> [ClusterFeature]
    {
        let td = PartyIndex.tileDepth(zoom: z), down = z - td
        sc.tiles.removeAll(keepingCapacity: true)
        for r in ranges {
            collectCells(zoom: td, xs: (r.xs.lowerBound >> down)...(r.xs.upperBound >> down),
                         ys: (r.ys.lowerBound >> down)...(r.ys.upperBound >> down), into: &sc.tiles)
        }
        if ranges.count > 1 {
            // Two ranges (across the antimeridian) may share a tile column.
            var seen = Set<Int64>()
            sc.tiles = sc.tiles.filter { seen.insert(Int64($0.depth) << 32 | Int64($0.node)).inserted }
        }
        let cacheable = reads == .kept
        sc.entries.removeAll(keepingCapacity: true)
        // The tiles and the loose entry: moved out of `sc` for the loop.
        var tiles = [CellRef](), loose = TileEntry()
        swap(&tiles, &sc.tiles)
        swap(&loose, &sc.loose)
        loose.removeAll()
        for t in tiles {
            let nd = node(Int(t.depth), t.node)
            if nd.first >= 0 {
                // A leaf at or above the tile's depth (which is below 20): one party.
                appendLoneParty(t, zoom: z, filter: filter, into: &loose)
            } else if cacheable {
                let kept = tileCache.entry(zoom: z, node: t.node) {
                    var entry = TileEntry()
                    formTileGroups(t, zoom: z, filter: filter, reads: .kept, scratch: &sc, into: &entry)
                    return entry
                }
                sc.entries.append(kept)
            } else {
                formTileGroups(t, zoom: z, filter: filter, reads: reads, scratch: &sc, into: &loose)
            }
        }
        swap(&tiles, &sc.tiles)
        sc.entries.append(loose)
        loose = TileEntry()
        let out = mergeAcrossTiles(ranges, zoom: z, filter: filter, scratch: &sc)
        // Give the loose entry's buffers back, and let go of the kept entries.
        loose = sc.entries.removeLast()
        swap(&loose, &sc.loose)
        sc.entries.removeAll(keepingCapacity: true)
        return out
    }

    /// Appends the groups of tile node `t` (an inner node at the tile depth of `z`): its
    /// occupied cells at `z`, merged among themselves.
    func formTileGroups(_ t: CellRef, zoom z: Int, filter: PartyFilter, reads: ClusterReads,
                        scratch sc: inout ClusterQueryScratch, into entry: inout TileEntry)
    {
        let down = z - Int(t.depth)
        let x0 = Int(t.x) << down, y0 = Int(t.y) << down
        sc.refs.removeAll(keepingCapacity: true)
        visit(t.node, depth: Int(t.depth), x: Int(t.x), y: Int(t.y), zoom: z,
              xs: x0...(x0 + (1 << down) - 1), ys: y0...(y0 + (1 << down) - 1), into: &sc.refs)
        let first = entry.groups.count
        formGroups(zoom: z, filter: filter, reads: reads, scratch: &sc, into: &entry)
        markTiles(&entry, from: first, zoom: z)
    }

    /// Sets the tile and border flag of `entry`'s groups from `first` on (groups at `z`).
    func markTiles(_ entry: inout TileEntry, from first: Int, zoom z: Int) {
        let down = z - PartyIndex.tileDepth(zoom: z)
        let scale = PartyIndex.worldPixels(zoom: z)
        let tileSize = radius * Double(1 << down), margin = radius + 1
        for g in first..<entry.groups.count {
            let group = entry.groups[g]
            let cell = entry.cells[Int(group.firstCell)]
            let tx = Int(cell.x) >> down, ty = Int(cell.y) >> down
            let c = Double(group.count)
            let x = group.sumX / c * scale - Double(tx) * tileSize, y = group.sumY / c * scale - Double(ty) * tileSize
            entry.groups[g].tile = Int64(tx) << 32 | Int64(ty)
            entry.groups[g].nearBorder = x < margin || y < margin || tileSize - x < margin || tileSize - y < margin
        }
    }

    /// Appends the lone party of leaf `t` (one party) as a group at `z`, if it passes `filter`.
    func appendLoneParty(_ t: CellRef, zoom z: Int, filter: PartyFilter, into entry: inout TileEntry) {
        let s = node(Int(t.depth), t.node).first
        let slot = slots[Int(s)]
        guard filter.isEmpty || filter.matches(departAt: slot.departAt, seatsLeft: Int(slot.seatsLeft)) else { return }
        let shift = Int32(PartyIndex.maxZoom - z)
        let cx = slot.cellX >> shift, cy = slot.cellY >> shift
        entry.groups.append(TileEntry.Group(count: 1, lone: s, cluster: -1, firstCell: Int32(entry.cells.count), cellCount: 1,
                                            key: PartyIndex.mortonKey(Int(cx), Int(cy)), sumX: slot.x, sumY: slot.y))
        entry.boxes.append(TileEntry.Box(minX: cx, minY: cy, maxX: cx, maxY: cy))
        entry.cells.append(CellRef(node: t.node, depth: t.depth, x: cx, y: cy))
        markTiles(&entry, from: entry.groups.count - 1, zoom: z)
    }

    /// True when the group of extent `b` (cells `cells[first...]`, read only when the
    /// extent straddles a range's edge) has a cell in one of `ranges`.
    @inline(__always)
    static func touches(_ b: TileEntry.Box, _ groups: UnsafeBufferPointer<TileEntry.Group>, _ g: Int,
                        _ cells: UnsafeBufferPointer<CellRef>, _ ranges: [(xs: ClosedRange<Int>, ys: ClosedRange<Int>)]) -> Bool
    {
        for r in ranges {
            let x0 = Int32(r.xs.lowerBound), x1 = Int32(r.xs.upperBound), y0 = Int32(r.ys.lowerBound), y1 = Int32(r.ys.upperBound)
            guard b.maxX >= x0, b.minX <= x1, b.maxY >= y0, b.minY <= y1 else { continue }
            if b.minX >= x0 && b.maxX <= x1 && b.minY >= y0 && b.maxY <= y1 { return true }
            let group = groups[g]
            for k in Int(group.firstCell)..<Int(group.firstCell + group.cellCount) {
                let c = cells[k]
                if c.x >= x0 && c.x <= x1 && c.y >= y0 && c.y <= y1 { return true }
            }
        }
        return false
    }

    /// The features of `scratch.entries`' groups that have a cell in `ranges`, merged across
    /// tiles (`TileBorderMerger`): a group that absorbs none stays as its tile formed it;
    /// groups merged together become one cluster of all their cells.
    func mergeAcrossTiles(_ ranges: [(xs: ClosedRange<Int>, ys: ClosedRange<Int>)], zoom z: Int, filter: PartyFilter,
                          scratch sc: inout ClusterQueryScratch) -> [ClusterFeature]
    {
        let scale = PartyIndex.worldPixels(zoom: z)
        var merger = TileBorderMerger(), picks = [(entry: Int32, group: Int32)]()
        swap(&merger, &sc.acrossTiles)
        swap(&picks, &sc.picks)
        merger.reset()
        picks.removeAll(keepingCapacity: true)
        for e in 0..<sc.entries.count {
            sc.entries[e].cells.withUnsafeBufferPointer { cells in
                sc.entries[e].groups.withUnsafeBufferPointer { groups in
                    sc.entries[e].boxes.withUnsafeBufferPointer { boxes in
                        for g in 0..<boxes.count where PartyIndex.touches(boxes[g], groups, g, cells, ranges) {
                            let group = groups[g]
                            merger.add(count: Int(group.count), sumX: group.sumX, sumY: group.sumY, key: group.key,
                                       tile: group.tile, nearBorder: group.nearBorder)
                            picks.append((Int32(e), Int32(g)))
                        }
                    }
                }
            }
        }
        merger.merge(radius: radius, scale: scale)
        var out = [ClusterFeature]()
        out.reserveCapacity(merger.groupCount)
        for g32 in merger.survivors {
            let g = Int(g32)
            let pick = picks[g]
            if merger.isAlone(g) {
                let group = sc.entries[Int(pick.entry)].groups[Int(pick.group)]
                if group.lone >= 0 {
                    if let p = party(slot: group.lone) { out.append(.party(p)) }
                } else {
                    out.append(.cluster(sc.entries[Int(pick.entry)].clusters[Int(group.cluster)]))
                }
                continue
            }
            // Groups of different tiles merged: one cluster of all their cells.
            sc.current.removeAll(keepingCapacity: true)
            sc.pendingCells.removeAll(keepingCapacity: true)
            merger.forEachMember(of: g) { m in
                let pick = picks[m]
                let group = sc.entries[Int(pick.entry)].groups[Int(pick.group)]
                for k in Int(group.firstCell)..<Int(group.firstCell + group.cellCount) {
                    let r = sc.entries[Int(pick.entry)].cells[k]
                    sc.current.append(r)
                    sc.pendingCells.append(ClusterID.Cell(x: Int(r.x), y: Int(r.y)))
                }
            }
            let count = merger.count(g), sums = merger.sums(g)
            let id = sc.pendingCells.withUnsafeMutableBufferPointer { ClusterID(zoom: z, sortingInPlace: $0) }
            var expansion = -1
            if filter.isEmpty && z < PartyIndex.maxZoom {
                sc.reserveSplitBuffer()
                var buffer = [ClusterMerger.SmallFeature]()
                swap(&buffer, &sc.splitBuffer)
                if sc.current.withUnsafeBufferPointer({ splitsAtNextZoom(cells: $0, zoom: z, buffer: &buffer) }) { expansion = z + 1 }
                swap(&buffer, &sc.splitBuffer)
            }
            if expansion < 0 { expansion = expansionZoom(zoom: z, filter: filter, scratch: &sc) }
            let coordinate = WebMercator.coordinate(normalizedX: sums.x / Double(count), y: sums.y / Double(count))
            out.append(.cluster(Cluster(id: id, coordinate: coordinate, count: count, expansionZoom: expansion)))
        }
        swap(&merger, &sc.acrossTiles)
        swap(&picks, &sc.picks)
        return out
    }
}

extension PartyIndex {
    /// The first kept tile entry that differs from its tile merged afresh, described; nil
    /// when all match (for tests: a write must drop every entry it makes stale).
    func tileCacheViolation() -> String? {
        var sc = ClusterQueryScratch()
        for (z, n) in tileCache.keptTiles {
            let td = PartyIndex.tileDepth(zoom: z)
            guard n < pools[td].nodes.count, node(td, n).count > 1, node(td, n).first < 0 else {
                return "tile node \(n) of zoom \(z) is kept but is no longer an inner node"
            }
            guard let kept = tileCache.kept(zoom: z, node: n) else { continue }
            let cell = cellOf(n, depth: td)
            var fresh = TileEntry()
            formTileGroups(CellRef(node: n, depth: Int32(td), x: Int32(cell.x), y: Int32(cell.y)), zoom: z, filter: PartyFilter(),
                           reads: .kept, scratch: &sc, into: &fresh)
            let same = kept.groups.count == fresh.groups.count && kept.clusters == fresh.clusters
                && zip(kept.groups, fresh.groups).allSatisfy {
                    $0.count == $1.count && $0.lone == $1.lone && $0.key == $1.key && $0.sumX == $1.sumX && $0.sumY == $1.sumY
                        && $0.firstCell == $1.firstCell && $0.cellCount == $1.cellCount && $0.tile == $1.tile && $0.nearBorder == $1.nearBorder
                }
                && zip(kept.cells, fresh.cells).allSatisfy { $0.node == $1.node && $0.depth == $1.depth && $0.x == $1.x && $0.y == $1.y }
            if !same { return "kept tile node \(n) of zoom \(z) differs from its tile merged afresh" }
        }
        return nil
    }
}

extension PartyIndex {
    /// The first stage of an unfiltered viewport answer (`clusters(in:zoom:scratch:)`): the tile
    /// nodes in view for `box` at `zoom`, gathered from the tree into `sc.tiles`; how many. A
    /// probe for `taxipot-bench --clusters-stages` (where an answer's time goes), not API.
    package func gatherTiles(in box: BoundingBox, zoom: Int, scratch sc: inout ClusterQueryScratch) -> Int {
        let z = min(max(zoom, 0), PartyIndex.maxZoom)
        let td = PartyIndex.tileDepth(zoom: z), down = z - td
        sc.tiles.removeAll(keepingCapacity: true)
        for r in cellRanges(box, zoom: z) {
            collectCells(zoom: td, xs: (r.xs.lowerBound >> down)...(r.xs.upperBound >> down),
                         ys: (r.ys.lowerBound >> down)...(r.ys.upperBound >> down), into: &sc.tiles)
        }
        return sc.tiles.count
    }
}

import Geo
import PartyModel

/// The cluster index's answers computed the plain way, from a list of parties: the rule
/// `PartyIndex` implements, with none of its speed layers (no quadtree, no kept tiles, no kept
/// expansion zooms, no neighbour grids, no candidate pairs; only each party's cell at every zoom,
/// computed once). The tests hold the index to it (`PartyReferenceTests`); it is not for serving
/// (every view reads every party).
///
/// The rule, as `docs/DESIGN.md` section 2 gives it:
/// - **Cells.** At zoom z the world is `256 · 2^z` px wide, cut into cells of `radius` px; a
///   party's cell at z is its zoom-20 cell shifted right by `20 − z`. A cell's feature is the
///   count and the sums of its parties' normalised positions; it stands at their centroid.
/// - **The greedy merge** (as supercluster's, over cells): features are visited in the Morton
///   order of their (first) cells; a feature not yet absorbed absorbs every other unabsorbed
///   feature closer than `radius` px (all positions as at the round's start) and its sums
///   grow; rounds repeat until one merges nothing.
/// - **A view** at zoom z: the cells are grouped in tiles of 16 × 16 cells (`tileLevels`; at
///   zooms below 4, the zoom-0 cells); each tile's cells are merged among themselves; the
///   groups with a cell in the view's cell ranges are taken whole and merged once more (the
///   same merge, each group keyed by its first cell).
/// - **A feature**: a group of one party is that party; else a cluster whose id names its
///   cells, at its parties' centroid, with its **expansion zoom**: the least deeper zoom at
///   which its parties' cells, merged among themselves (no tiles), form two or more
///   features, or 21 when none does.
/// - **Children** of an id: its parties' cells one zoom deeper, merged among themselves;
///   at zoom 20, its parties. **Leaves**: its parties by departure, then id.
/// A filter keeps only the parties it lets through, before all of the above.
package struct ReferenceClusters: Sendable {
    package let parties: [Party]
    package let radius: Double
    /// Each party's cell at each zoom (`cells[zoom][i]` is `parties[i]`'s), computed once.
    let cells: [[ClusterID.Cell]]
    /// The indices of the parties in each occupied cell at each zoom, ascending.
    let partiesByCell: [[ClusterID.Cell: [Int]]]

    /// The answers for `parties` (ids distinct) on cells of `radius` px (clamped as `PartyIndex` does).
    package init(parties: [Party], radius: Double = 60) {
        self.parties = parties
        self.radius = PartyIndex(radius: radius).radius
        let positions = parties.map { WebMercator.normalized($0.origin) }
        cells = (0...PartyIndex.maxZoom).map { [radius = self.radius] zoom in
            positions.map { Self.cell(x: $0.x, y: $0.y, zoom: zoom, radius: radius) }
        }
        partiesByCell = cells.map { atZoom in Dictionary(grouping: atZoom.indices, by: { atZoom[$0] }) }
    }

    /// A feature of a merge: the cells it gathers, their parties, count and position sums.
    struct Group {
        var key: UInt64
        var cells: [ClusterID.Cell]
        var members: [Party]
        var sumX = 0.0
        var sumY = 0.0
        var count: Int { members.count }
    }

    /// Cells per axis at zoom 20.
    var cellsAtMaxZoom: Int { Int((Double(1 << (PartyIndex.maxZoom + 8)) / radius).rounded(.up)) }

    /// The cell holding normalised position (`x`, `y`) at `zoom`.
    func cell(x: Double, y: Double, zoom: Int) -> ClusterID.Cell { Self.cell(x: x, y: y, zoom: zoom, radius: radius) }

    /// The cell holding normalised position (`x`, `y`) at `zoom`, on cells of `radius` px.
    static func cell(x: Double, y: Double, zoom: Int, radius: Double) -> ClusterID.Cell {
        let scale = Double(1 << (PartyIndex.maxZoom + 8)) / radius
        let last = Int(scale.rounded(.up)) - 1
        let down = PartyIndex.maxZoom - zoom
        return ClusterID.Cell(x: min(max(Int(x * scale), 0), last) >> down, y: min(max(Int(y * scale), 0), last) >> down)
    }

    func cell(_ p: Party, zoom: Int) -> ClusterID.Cell {
        let n = WebMercator.normalized(p.origin)
        return cell(x: n.x, y: n.y, zoom: zoom)
    }

    /// One group per occupied cell of `parties` at `zoom`, in key order.
    func cellGroups(_ parties: [Party], zoom: Int) -> [Group] {
        var byCell = [ClusterID.Cell: Group]()
        for p in parties {
            let n = WebMercator.normalized(p.origin)
            let c = cell(x: n.x, y: n.y, zoom: zoom)
            byCell[c, default: Group(key: PartyIndex.mortonKey(c.x, c.y), cells: [c], members: [])].members.append(p)
            byCell[c]!.sumX += n.x
            byCell[c]!.sumY += n.y
        }
        return byCell.values.sorted { $0.key < $1.key }
    }

    /// The greedy merge of `groups` at `zoom`, in rounds; the survivors in key order.
    func merge(_ groups: [Group], zoom: Int) -> [Group] {
        let scale = PartyIndex.worldPixels(zoom: zoom)
        var live = groups.sorted { $0.key < $1.key }
        while true {
            let px = live.map { $0.sumX / Double($0.count) * scale }, py = live.map { $0.sumY / Double($0.count) * scale }
            var absorbed = [Bool](repeating: false, count: live.count)
            var mergedAny = false
            for i in live.indices where !absorbed[i] {
                for j in live.indices where j != i && !absorbed[j] {
                    let dx = px[j] - px[i], dy = py[j] - py[i]
                    guard dx * dx + dy * dy < radius * radius else { continue }
                    absorbed[j] = true
                    mergedAny = true
                    live[i].cells += live[j].cells
                    live[i].members += live[j].members
                    live[i].sumX += live[j].sumX
                    live[i].sumY += live[j].sumY
                }
            }
            guard mergedAny else { return live }
            live = live.indices.filter { !absorbed[$0] }.map { live[$0] }
        }
    }

    /// The least zoom deeper than `zoom` at which `members`, merged among themselves, form two
    /// or more features; `PartyIndex.maxZoom + 1` when none does.
    func expansionZoom(of members: [Party], below zoom: Int) -> Int {
        guard zoom < PartyIndex.maxZoom else { return PartyIndex.maxZoom + 1 }
        for z in (zoom + 1)...PartyIndex.maxZoom {
            let cells = cellGroups(members, zoom: z)
            if cells.count > 1 && merge(cells, zoom: z).count > 1 { return z }
        }
        return PartyIndex.maxZoom + 1
    }

    /// The feature a group is at `zoom`.
    func feature(_ g: Group, zoom: Int) -> ClusterFeature {
        if g.count == 1 { return .party(g.members[0]) }
        let at = WebMercator.coordinate(normalizedX: g.sumX / Double(g.count), y: g.sumY / Double(g.count))
        return .cluster(Cluster(id: ClusterID(zoom: zoom, cells: g.cells)!, coordinate: at, count: g.count,
                                expansionZoom: expansionZoom(of: g.members, below: zoom)))
    }

    /// The indices in `parties` of the parties `filter` lets through.
    func matching(_ filter: PartyFilter) -> [Int] { parties.indices.filter { filter.matches(parties[$0]) } }

    /// The cell ranges at `zoom` that `box` covers (two when it crosses the antimeridian).
    func cellRanges(_ box: BoundingBox, zoom: Int) -> [(xs: ClosedRange<Int>, ys: ClosedRange<Int>)] {
        let nw = WebMercator.normalized(Coordinate(lon: box.west, lat: box.north))
        let se = WebMercator.normalized(Coordinate(lon: box.east, lat: box.south))
        let a = cell(x: nw.x, y: nw.y, zoom: zoom), b = cell(x: se.x, y: se.y, zoom: zoom)
        let last = (cellsAtMaxZoom - 1) >> (PartyIndex.maxZoom - zoom)
        if box.west <= box.east { return [(a.x...b.x, a.y...b.y)] }
        return [(a.x...last, a.y...b.y), (0...b.x, a.y...b.y)]
    }

    /// What `PartyIndex.clusters(in:zoom:filter:)` answers.
    package func clusters(in box: BoundingBox, zoom: Int, filter: PartyFilter = PartyFilter()) -> [ClusterFeature] {
        let z = min(max(zoom, 0), PartyIndex.maxZoom)
        let ranges = cellRanges(box, zoom: z)
        func inView(_ c: ClusterID.Cell) -> Bool { ranges.contains { $0.xs.contains(c.x) && $0.ys.contains(c.y) } }
        // Each tile's cells merged among themselves; the groups with a cell in view. A group's
        // cells are its tile's, so a tile with no cell in view gives none and is not merged.
        let down = z - max(z - PartyIndex.tileLevels, 0)
        var tiles = [ClusterID.Cell: [Party]]()
        var tilesInView = Set<ClusterID.Cell>()
        for i in matching(filter) {
            let c = cells[z][i]
            let tile = ClusterID.Cell(x: c.x >> down, y: c.y >> down)
            tiles[tile, default: []].append(parties[i])
            if inView(c) { tilesInView.insert(tile) }
        }
        var taken = [Group]()
        for (tile, members) in tiles where tilesInView.contains(tile) {
            taken += merge(cellGroups(members, zoom: z), zoom: z).filter { $0.cells.contains(where: inView) }
        }
        return merge(taken, zoom: z).map { feature($0, zoom: z) }
    }

    /// The parties of `id`'s cells that pass `filter`.
    func members(of id: ClusterID, filter: PartyFilter) -> [Party] {
        guard partiesByCell.indices.contains(id.zoom) else { return [] }  // no cell beyond zoom 0–20 holds a party
        let indices = Set(id.cells).flatMap { partiesByCell[id.zoom][$0] ?? [] }.sorted()
        return indices.filter { filter.matches(parties[$0]) }.map { parties[$0] }
    }

    /// What `PartyIndex.children(of:filter:)` answers.
    package func children(of id: ClusterID, filter: PartyFilter = PartyFilter()) -> [ClusterFeature]? {
        guard id.zoom < PartyIndex.maxZoom else {
            return leaves(of: id, filter: filter, limit: Int.max, offset: 0).map { $0.parties.map { .party($0) } }
        }
        let found = members(of: id, filter: filter)
        guard !found.isEmpty else { return nil }
        return merge(cellGroups(found, zoom: id.zoom + 1), zoom: id.zoom + 1).map { feature($0, zoom: id.zoom + 1) }
    }

    /// What `PartyIndex.leaves(of:filter:limit:offset:)` answers.
    package func leaves(of id: ClusterID, filter: PartyFilter = PartyFilter(), limit: Int, offset: Int) -> (total: Int, parties: [Party])? {
        let found = members(of: id, filter: filter).sorted { $0.departAt != $1.departAt ? $0.departAt < $1.departAt : $0.id < $1.id }
        guard !found.isEmpty else { return nil }
        let from = min(max(offset, 0), found.count)
        let to = from + min(max(limit, 0), found.count - from)
        return (found.count, Array(found[from..<to]))
    }
}

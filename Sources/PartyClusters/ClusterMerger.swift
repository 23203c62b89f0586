/// Merges weighted points (grid-cell aggregates) until no two are closer than a distance.
///
/// Greedy, in rounds: features are visited in the order of a caller-given key (the cell's
/// quadtree order, so the result does not depend on how the input was gathered, as in
/// supercluster, which visits points in its tree's order); a feature not yet absorbed absorbs every other
/// unabsorbed feature within `radius` of it, and the merged feature moves to the weighted
/// centroid. Rounds repeat until one merges nothing. In that last round every pair was
/// examined and none was closer than `radius`, so the output spacing is at least `radius`.
/// Each round with a merge removes a feature, so it ends.
///
/// (Within a round, a feature visited earlier and still alive is never within `radius` of a
/// later one, or it would have absorbed it; so each feature need only look at later ones.)
///
/// Reusable: `reset()` keeps the buffers, so a query allocates nothing once warmed up.
struct ClusterMerger: MergedGroups {
    struct Item {
        var count: Int
        var sumX: Double
        var sumY: Double
        var key: UInt64
        var nextMember: Int32
        var lastMember: Int32
        /// The grid cell the feature stands for (the merge's first round reads its neighbours).
        var cellX: Int32
        var cellY: Int32
    }

    private(set) var items: [Item] = []
    /// Positions (pixels) and liveness by feature, apart from `items` so the neighbour scans
    /// read compact arrays.
    private var px: [Double] = []
    private var py: [Double] = []
    private var alive: [Bool] = []
    private var order: [Int32] = []
    private var grid = Grid()
    /// The features by cell over their cells' extent, for the first round (see `CellTable`).
    private var table: [Int32] = []
    /// False: the first round always builds the grid (for tests comparing the two ways).
    var allowsCellTable = true
    /// Whether the last `merge` read the first round's neighbours from the table (for tests).
    private(set) var usedCellTable = false
    /// The features that absorbed in the last round (so moved), and the next round's.
    private var moved: [Int32] = []
    private var movedNext: [Int32] = []
    /// Candidate pairs of a round after the first, as adjacency lists (heads by feature).
    private var edgeHead: [Int32] = []
    private var pairs = CandidatePairs()
    /// Number of features left after `merge`.
    private(set) var groupCount = 0

    /// Number of input features.
    var inputCount: Int { items.count }

    mutating func reset() {
        items.removeAll(keepingCapacity: true)
        groupCount = 0
    }

    /// Makes room for `n` features.
    mutating func reserve(_ n: Int) {
        items.reserveCapacity(n)
        order.reserveCapacity(n)
    }

    /// Adds a feature of `count` parties whose normalised positions sum to (`sumX`, `sumY`),
    /// the parties of grid cell (`cellX`, `cellY`) at the zoom merged (cells `radius` px
    /// square); `key` orders the features (distinct keys give an order independent of input order).
    mutating func add(count c: Int, sumX sx: Double, sumY sy: Double, key k: UInt64, cellX: Int32, cellY: Int32) {
        items.append(Item(count: c, sumX: sx, sumY: sy, key: k, nextMember: -1, lastMember: Int32(items.count),
                          cellX: cellX, cellY: cellY))
    }

    /// Merges at a zoom whose world is `scale` pixels wide, keeping features ≥ `radius` px apart.
    ///
    /// The first round compares every feature with its neighbours. A later round need only
    /// compare pairs of which one moved (absorbed) in the round before: two features that
    /// both stayed put and alive were compared then, by the earlier one as seed, at the same
    /// positions, and were found `radius` or more apart. So later rounds first list those
    /// candidate pairs, then run the seeds in order over them: the same merges as a full scan.
    mutating func merge(radius: Double, scale: Double) {
        let n = items.count
        groupCount = n
        if px.count < n {
            let more = n - px.count
            px.append(contentsOf: repeatElement(0, count: more))
            py.append(contentsOf: repeatElement(0, count: more))
            alive.append(contentsOf: repeatElement(false, count: more))
            order.append(contentsOf: repeatElement(0, count: more))
            edgeHead.append(contentsOf: repeatElement(-1, count: more))
        }
        guard n > 0 else { return }
        // The work happens on locals (the closures must not reach `self` while its arrays are borrowed).
        var it = items, xs = px, ys = py, al = alive, ord = order, heads = edgeHead, g = grid, tab = table
        table = []
        items = []
        px = []
        py = []
        alive = []
        order = []
        edgeHead = []
        grid = Grid()
        var scratch = Scratch(moved: moved, movedNext: movedNext, pairs: pairs)
        moved = []
        movedNext = []
        pairs = CandidatePairs()
        let left = it.withUnsafeMutableBufferPointer { it in
            xs.withUnsafeMutableBufferPointer { px in
                ys.withUnsafeMutableBufferPointer { py in
                    al.withUnsafeMutableBufferPointer { alive in
                        ord.withUnsafeMutableBufferPointer { ord in
                            heads.withUnsafeMutableBufferPointer { heads in
                                ClusterMerger.run(Buffers(it: it, px: px, py: py, alive: alive, ord: ord, edgeHead: heads), n: n,
                                                  radius: radius, scale: scale, grid: &g, table: &tab, useTable: allowsCellTable, scratch: &scratch)
                            }
                        }
                    }
                }
            }
        }
        items = it
        px = xs
        py = ys
        alive = al
        order = ord
        edgeHead = heads
        grid = g
        table = tab
        usedCellTable = scratch.usedTable
        moved = scratch.moved
        movedNext = scratch.movedNext
        pairs = scratch.pairs
        groupCount = left
    }

    /// The per-feature arrays of `merge`, borrowed.
    private struct Buffers {
        let it: UnsafeMutableBufferPointer<Item>
        let px: UnsafeMutableBufferPointer<Double>
        let py: UnsafeMutableBufferPointer<Double>
        let alive: UnsafeMutableBufferPointer<Bool>
        let ord: UnsafeMutableBufferPointer<Int32>
        let edgeHead: UnsafeMutableBufferPointer<Int32>
    }

    /// The growable lists of `merge`.
    private struct Scratch {
        var moved: [Int32]
        var movedNext: [Int32]
        var pairs: CandidatePairs
        var usedTable = false
    }

    /// `merge` on borrowed buffers; returns the number of features left.
    private static func run(_ b: Buffers, n: Int, radius: Double, scale: Double, grid: inout Grid, table: inout [Int32],
                            useTable: Bool, scratch sc: inout Scratch) -> Int
    {
        let it = b.it, px = b.px, py = b.py, alive = b.alive, ord = b.ord
        var heads = b.edgeHead
        var sorted = true
        for i in 0..<n {
            let c = Double(it[i].count)
            px[i] = it[i].sumX / c * scale
            py[i] = it[i].sumY / c * scale
            alive[i] = true
            ord[i] = Int32(i)
            if i > 0 && it[i - 1].key > it[i].key { sorted = false }
        }
        guard n > 1 else { return n }
        if !sorted {
            var part = UnsafeMutableBufferPointer<Int32>(rebasing: ord[0..<n])
            part.sort { (a: Int32, b: Int32) -> Bool in
                let ka = it[Int(a)].key, kb = it[Int(b)].key
                return ka < kb || (ka == kb && a < b)
            }
        }
        let r2 = radius * radius
        let perCell = 1 / radius
        var left = n
        sc.moved.removeAll(keepingCapacity: true)
        // Round one: every feature against its neighbours. A seed's position is fixed for its
        // turn, so it lists what it absorbs first (without branching on each distance), then
        // absorbs them in that order.
        let cells = n > 24 && useTable ? CellTable(it, px, py, n: n, perCell: perCell, table: &table) : nil
        sc.usedTable = cells != nil
        let useGrid = n > 24 && cells == nil
        if useGrid { grid.build(px, py, alive, n: n, perCell: perCell) }
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: n) { hits in
            for k in 0..<n {
                let i = Int(ord[k])
                guard alive[i] else { continue }
                let x = px[i], y = py[i]
                var h = 0
                if let cells {
                    // As the grid's scan below: its buckets would be these cells, one feature each.
                    let gx = Int(it[i].cellX) - cells.originX, gy = Int(it[i].cellY) - cells.originY
                    table.withUnsafeBufferPointer { t in
                        for ny in max(gy - 1, 0)..<min(gy + 2, cells.height) {
                            for nx in max(gx - 1, 0)..<min(gx + 2, cells.width) {
                                let j = t[ny &* cells.width &+ nx]
                                guard j >= 0 else { continue }
                                let ji = Int(j)
                                let dx = px[ji] - x, dy = py[ji] - y
                                hits[h] = j
                                h &+= (dx * dx + dy * dy < r2 ? 1 : 0) & (alive[ji] ? 1 : 0) & (ji != i ? 1 : 0)
                            }
                        }
                    }
                } else if useGrid {
                    grid.forEachNear(x, y, perCell: perCell) { ji in
                        let dx = px[ji] - x, dy = py[ji] - y
                        hits[h] = Int32(ji)
                        h &+= (dx * dx + dy * dy < r2 ? 1 : 0) & (alive[ji] ? 1 : 0) & (ji != i ? 1 : 0)
                    }
                } else {
                    for k2 in (k + 1)..<n {
                        let j = ord[k2]
                        let dx = px[Int(j)] - x, dy = py[Int(j)] - y
                        hits[h] = j
                        h &+= (dx * dx + dy * dy < r2 ? 1 : 0) & (alive[Int(j)] ? 1 : 0)
                    }
                }
                guard h > 0 else { continue }
                for t in 0..<h {
                    let j = Int(hits[t])
                    alive[j] = false
                    Item.absorb(j, into: i, it)
                }
                left -= h
                sc.moved.append(Int32(i))
            }
        }
        // Later rounds: only pairs with a moved feature.
        while !sc.moved.isEmpty {
            for m in sc.moved {
                let i = Int(m)
                let c = Double(it[i].count)
                px[i] = it[i].sumX / c * scale
                py[i] = it[i].sumY / c * scale
            }
            // Candidate pairs: each moved feature with every living feature within the radius.
            sc.pairs.removeAll()
            let useGrid = left > 24
            if useGrid { grid.build(px, py, alive, n: n, perCell: perCell) }
            for m in sc.moved {
                let i = Int(m)
                let x = px[i], y = py[i]
                if useGrid {
                    grid.forEachNear(x, y, perCell: perCell) { ji in
                        guard ji != i else { return }
                        let dx = px[ji] - x, dy = py[ji] - y
                        if dx * dx + dy * dy < r2 { sc.pairs.add(i, ji, heads: &heads) }
                    }
                } else {
                    for j in 0..<n where j != i && alive[j] {
                        let dx = px[j] - x, dy = py[j] - y
                        if dx * dx + dy * dy < r2 { sc.pairs.add(i, j, heads: &heads) }
                    }
                }
            }
            sc.movedNext.removeAll(keepingCapacity: true)
            if !sc.pairs.isEmpty {
                // The round: seeds in order, each absorbing its living candidates.
                left -= sc.pairs.absorb(order: UnsafeBufferPointer(rebasing: ord[0..<n]), heads: heads, alive: alive, items: it,
                                        moved: &sc.movedNext)
            }
            swap(&sc.moved, &sc.movedNext)
        }
        return left
    }

    /// Calls `body` with the features and the surviving ones' indices, in merge order.
    func withGroups<R>(_ body: (UnsafeBufferPointer<Item>, UnsafeBufferPointer<Int32>) throws -> R) rethrows -> R {
        try items.withUnsafeBufferPointer { it in
            try alive.withUnsafeBufferPointer { alive in
                try order.withUnsafeBufferPointer { order in
                    // The survivors, compacted to the front of a stack buffer.
                    try withUnsafeTemporaryAllocation(of: Int32.self, capacity: max(it.count, 1)) { groups in
                        var k = 0
                        for j in 0..<it.count where alive[Int(order[j])] {
                            groups[k] = order[j]
                            k += 1
                        }
                        return try body(it, UnsafeBufferPointer(rebasing: groups[0..<k]))
                    }
                }
            }
        }
    }
}

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
struct ClusterMerger {
    struct Item {
        var count: Int
        var sumX: Double
        var sumY: Double
        var key: UInt64
        var px: Double
        var py: Double
        var alive: Bool
        var absorbedThisRound: Bool
        var nextMember: Int32
        var lastMember: Int32
        var gridNext: Int32
    }

    private(set) var items: [Item] = []
    private var order: [Int32] = []
    private var grid = Grid()
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

    /// Adds a feature of `count` parties whose normalised positions sum to (`sumX`, `sumY`);
    /// `key` orders the features (distinct keys give an order independent of input order).
    mutating func add(count c: Int, sumX sx: Double, sumY sy: Double, key k: UInt64) {
        items.append(Item(count: c, sumX: sx, sumY: sy, key: k, px: 0, py: 0, alive: true, absorbedThisRound: false,
                          nextMember: -1, lastMember: Int32(items.count), gridNext: -1))
    }

    /// Count of feature `i` (after `merge`, of the group it leads).
    func count(_ i: Int) -> Int { items[i].count }
    /// Coordinate sums of feature `i` (after `merge`, of the group it leads).
    func sums(_ i: Int) -> (x: Double, y: Double) { (items[i].sumX, items[i].sumY) }

    /// Merges at a zoom whose world is `scale` pixels wide, keeping features ≥ `radius` px apart.
    mutating func merge(radius: Double, scale: Double) {
        let n = items.count
        groupCount = n
        order.removeAll(keepingCapacity: true)
        for i in 0..<n {
            let c = Double(items[i].count)
            items[i].px = items[i].sumX / c * scale
            items[i].py = items[i].sumY / c * scale
            order.append(Int32(i))
        }
        guard n > 1 else { return }
        var sorted = true
        for i in 1..<n where items[i - 1].key > items[i].key {
            sorted = false
            break
        }
        if !sorted {
            items.withUnsafeBufferPointer { it in
                order.sort { a, b in it[Int(a)].key < it[Int(b)].key || (it[Int(a)].key == it[Int(b)].key && a < b) }
            }
        }
        let ordered = order
        let r2 = radius * radius
        let perCell = 1 / radius
        var left = n
        var merged = true
        while merged {
            let useGrid = left > 24
            if useGrid { buildGrid(perCell: perCell) }
            let grid = self.grid
            var absorbedAny = false
            items.withUnsafeMutableBufferPointer { it in
                ordered.withUnsafeBufferPointer { ord in
                    for k in 0..<ord.count {
                        let i = Int(ord[k])
                        guard it[i].alive else { continue }
                        let x = it[i].px, y = it[i].py
                        var absorbed = false
                        if useGrid {
                            // Positions are ≥ 0, so truncation is floor.
                            let gx = Int(x * perCell) - grid.originX, gy = Int(y * perCell) - grid.originY
                            for ny in max(gy - 1, 0)..<min(gy + 2, grid.height) {
                                for nx in max(gx - 1, 0)..<min(gx + 2, grid.width) {
                                    var j = grid.usesMap ? grid.map[ny &* grid.width &+ nx] ?? -1 : grid.head[ny * grid.width + nx]
                                    while j >= 0 {
                                        let ji = Int(j)
                                        if ji != i && it[ji].alive {
                                            let dx = it[ji].px - x, dy = it[ji].py - y
                                            if dx * dx + dy * dy < r2 {
                                                ClusterMerger.absorb(ji, into: i, it)
                                                absorbed = true
                                            }
                                        }
                                        j = it[ji].gridNext
                                    }
                                }
                            }
                        } else {
                            for k2 in (k + 1)..<ord.count {
                                let j = Int(ord[k2])
                                guard it[j].alive else { continue }
                                let dx = it[j].px - x, dy = it[j].py - y
                                if dx * dx + dy * dy < r2 {
                                    ClusterMerger.absorb(j, into: i, it)
                                    absorbed = true
                                }
                            }
                        }
                        if absorbed {
                            absorbedAny = true
                            it[i].absorbedThisRound = true
                        }
                    }
                }
                // Seeds that absorbed move to their new centroid for the next round.
                left = 0
                for i in 0..<it.count where it[i].alive {
                    left += 1
                    if it[i].absorbedThisRound {
                        it[i].absorbedThisRound = false
                        let c = Double(it[i].count)
                        it[i].px = it[i].sumX / c * scale
                        it[i].py = it[i].sumY / c * scale
                    }
                }
            }
            merged = absorbedAny
        }
        groupCount = left
    }

    /// A feature for `mergedCount`: its key, count and coordinate sums, and its position.
    struct SmallFeature {
        var key: UInt64
        var w: Double
        var sx: Double
        var sy: Double
        var px: Double = 0
        var py: Double = 0
    }

    /// The most features `mergedCount` takes (so its buffer fits on the stack).
    static let smallCapacity = 20

    /// The number of features `merge(radius:scale:)` would leave of `f` (sorted by key), without
    /// keeping groups: the same algorithm on a compact buffer, for the expansion-zoom search,
    /// which only asks whether a few features stay one.
    static func mergedCount(_ f: UnsafeMutableBufferPointer<SmallFeature>, radius: Double, scale: Double) -> Int {
        let n = f.count
        guard n > 1 else { return n }
        for k in 0..<n {
            f[k].px = f[k].sx / f[k].w * scale
            f[k].py = f[k].sy / f[k].w * scale
        }
        let r2 = radius * radius
        var alive: UInt32 = (1 << UInt32(n)) - 1
        var left = n
        while true {
            var moved: UInt32 = 0
            // Living features in order, by their set bits; a seed clears only the bits of the
            // features it absorbs (all after it, each as it is reached), so the bits above the
            // seed taken at its start are exactly the ones the one-by-one scan would find alive.
            var seeds = alive
            while seeds != 0 {
                let i = seeds.trailingZeroBitCount
                let above = ~((UInt32(1) << UInt32(i + 1)) &- 1)
                let x = f[i].px, y = f[i].py
                var later = alive & above
                while later != 0 {
                    let j = later.trailingZeroBitCount
                    later &= later &- 1
                    let dx = f[j].px - x, dy = f[j].py - y
                    if dx * dx + dy * dy < r2 {
                        alive &= ~(1 << UInt32(j))
                        left -= 1
                        f[i].w += f[j].w
                        f[i].sx += f[j].sx
                        f[i].sy += f[j].sy
                        moved |= 1 << UInt32(i)
                    }
                }
                seeds = alive & above
            }
            guard moved != 0 else { return left }
            for i in 0..<n where moved & (1 << UInt32(i)) != 0 {
                f[i].px = f[i].sx / f[i].w * scale
                f[i].py = f[i].sy / f[i].w * scale
            }
        }
    }

    /// Inserts `x` into `f[0..<n]`, keeping it sorted by key (ties after equal keys).
    static func insertSorted(_ x: SmallFeature, into f: UnsafeMutableBufferPointer<SmallFeature>, count n: Int) {
        var b = n
        while b > 0 && f[b - 1].key > x.key {
            f[b] = f[b - 1]
            b -= 1
        }
        f[b] = x
    }

    @inline(__always)
    private static func absorb(_ j: Int, into i: Int, _ it: UnsafeMutableBufferPointer<Item>) {
        it[j].alive = false
        it[i].count += it[j].count
        it[i].sumX += it[j].sumX
        it[i].sumY += it[j].sumY
        it[Int(it[i].lastMember)].nextMember = Int32(j)
        it[i].lastMember = it[j].lastMember
    }

    /// Buckets the living features by `radius`-sized cells of their position.
    private mutating func buildGrid(perCell: Double) {
        var g = grid
        grid = Grid()  // leave one reference to its buffers, so they are reused in place
        g.build(&items, perCell: perCell)
        grid = g
    }

    /// Features bucketed by `radius`-sized cells in a flat array over their extent (positions
    /// are within a viewport plus a cell, or a few cells around a cluster, so it is small);
    /// each bucket lists features through `Item.gridNext`.
    struct Grid {
        var head: [Int32] = []
        /// Used instead of `head` when the extent is large and sparse (a world-wide answer).
        var map: [Int: Int32] = [:]
        var usesMap = false
        var originX = 0
        var originY = 0
        var width = 0
        var height = 0

        mutating func build(_ items: inout [Item], perCell: Double) {
            let n = items.count
            var minX = Int.max, minY = Int.max, maxX = Int.min, maxY = Int.min
            for i in 0..<n where items[i].alive {
                let gx = Int(items[i].px * perCell), gy = Int(items[i].py * perCell)
                minX = min(minX, gx); maxX = max(maxX, gx)
                minY = min(minY, gy); maxY = max(maxY, gy)
            }
            originX = minX
            originY = minY
            width = maxX - minX + 1
            height = maxY - minY + 1
            usesMap = width > 1 << 24 || height > 1 << 24 || width * height > 4 * n + 64
            if usesMap {
                map.removeAll(keepingCapacity: true)
            } else {
                head.removeAll(keepingCapacity: true)
                head.append(contentsOf: repeatElement(-1, count: width * height))
            }
            for i in 0..<n {
                items[i].gridNext = -1
                guard items[i].alive else { continue }
                let k = (Int(items[i].py * perCell) - minY) &* width &+ (Int(items[i].px * perCell) - minX)
                if usesMap {
                    items[i].gridNext = map[k] ?? -1
                    map[k] = Int32(i)
                } else {
                    items[i].gridNext = head[k]
                    head[k] = Int32(i)
                }
            }
        }
    }

    /// Calls `body` with each surviving feature, in merge order.
    func forEachGroup(_ body: (Int) -> Void) {
        if items.count == 1 { body(0); return }
        for o in order where items[Int(o)].alive { body(Int(o)) }
    }

    /// Calls `body` with each input feature merged into `g` (itself first).
    func forEachMember(of g: Int, _ body: (Int) -> Void) {
        var m = Int32(g)
        while m >= 0 {
            body(Int(m))
            m = items[Int(m)].nextMember
        }
    }
}

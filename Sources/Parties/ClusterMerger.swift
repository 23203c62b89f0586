/// Merges weighted points (grid-cell aggregates) until no two are closer than a distance.
///
/// Greedy, in rounds: features are visited heaviest first (ties by a caller-given key, so the
/// result does not depend on input order); a feature not yet absorbed absorbs every other
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

    /// Adds a feature of `count` parties whose normalised positions sum to (`sumX`, `sumY`);
    /// `key` breaks ties between equal counts.
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
        items.withUnsafeBufferPointer { it in
            order.sort { a, b in
                let ia = it[Int(a)], ib = it[Int(b)]
                return ia.count > ib.count || (ia.count == ib.count && ia.key < ib.key)
            }
        }
        let ordered = order
        let r2 = radius * radius
        var left = n
        var merged = true
        while merged {
            let useGrid = left > 24
            if useGrid { buildGrid(radius: radius) }
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
                            let gx = Int64((x / radius).rounded(.down)), gy = Int64((y / radius).rounded(.down))
                            for ny in (gy - 1)...(gy + 1) {
                                for nx in (gx - 1)...(gx + 1) {
                                    var j = grid.first(nx, ny)
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
    private mutating func buildGrid(radius: Double) {
        var g = grid
        grid = Grid()  // leave one reference to its buffers, so they are reused in place
        g.build(&items, radius: radius)
        grid = g
    }

    /// Features bucketed by `radius`-sized cells: a flat array when their extent is small,
    /// a hash map otherwise; each bucket lists features through `Item.gridNext`.
    struct Grid {
        var head: [Int32] = []
        var map: [Int64: Int32] = [:]
        var originX: Int64 = 0
        var originY: Int64 = 0
        var width: Int64 = 0
        var height: Int64 = 0
        var usesMap = false

        mutating func build(_ items: inout [Item], radius: Double) {
            let n = items.count
            var minX = Int64.max, minY = Int64.max, maxX = Int64.min, maxY = Int64.min
            for i in 0..<n where items[i].alive {
                let gx = Int64((items[i].px / radius).rounded(.down)), gy = Int64((items[i].py / radius).rounded(.down))
                minX = min(minX, gx); maxX = max(maxX, gx)
                minY = min(minY, gy); maxY = max(maxY, gy)
            }
            originX = minX
            originY = minY
            width = maxX - minX + 1
            height = maxY - minY + 1
            usesMap = width > 1 << 20 || height > 1 << 20 || width * height > Int64(4 * n + 64)
            if usesMap {
                map.removeAll(keepingCapacity: true)
            } else {
                head.removeAll(keepingCapacity: true)
                head.append(contentsOf: repeatElement(-1, count: Int(width * height)))
            }
            for i in 0..<n {
                items[i].gridNext = -1
                guard items[i].alive else { continue }
                let gx = Int64((items[i].px / radius).rounded(.down)), gy = Int64((items[i].py / radius).rounded(.down))
                if usesMap {
                    let k = gy &* 0x1_0000_0000 &+ gx
                    items[i].gridNext = map[k] ?? -1
                    map[k] = Int32(i)
                } else {
                    let k = Int((gy - minY) * width + (gx - minX))
                    items[i].gridNext = head[k]
                    head[k] = Int32(i)
                }
            }
        }

        @inline(__always)
        func first(_ gx: Int64, _ gy: Int64) -> Int32 {
            if usesMap { return map[gy &* 0x1_0000_0000 &+ gx] ?? -1 }
            let x = gx - originX, y = gy - originY
            guard x >= 0, y >= 0, x < width, y < height else { return -1 }
            return head[Int(y * width + x)]
        }
    }

    /// Calls `body` with each surviving feature, heaviest first.
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

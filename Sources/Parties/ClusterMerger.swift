/// Merges weighted points (grid-cell aggregates) until no two are closer than a distance.
///
/// Greedy, in rounds: features are visited heaviest first (ties by a caller-given key, so the
/// result does not depend on input order); a feature not yet absorbed absorbs every other
/// unabsorbed feature within `radius` of it, and the merged feature moves to the weighted
/// centroid. Rounds repeat until one merges nothing. In that last round every pair was
/// examined and none was closer than `radius`, so the output spacing is at least `radius`.
/// Each round with a merge removes a feature, so it ends.
///
/// Reusable: `reset()` keeps the buffers, so a query allocates nothing once warmed up.
struct ClusterMerger {
    private(set) var count: [Int] = []
    private(set) var sumX: [Double] = []
    private(set) var sumY: [Double] = []
    private var key: [UInt64] = []
    private var px: [Double] = []
    private var py: [Double] = []
    private(set) var alive: [Bool] = []
    private var nextMember: [Int32] = []
    private var lastMember: [Int32] = []
    private var order: [Int32] = []
    private var gridHead: [Int32] = []
    private var gridNext: [Int32] = []
    private var gridMap: [Int64: Int32] = [:]

    /// Number of input features.
    var inputCount: Int { count.count }

    mutating func reset() {
        count.removeAll(keepingCapacity: true)
        sumX.removeAll(keepingCapacity: true)
        sumY.removeAll(keepingCapacity: true)
        key.removeAll(keepingCapacity: true)
    }

    /// Adds a feature of `count` parties whose normalised positions sum to (`sumX`, `sumY`);
    /// `key` breaks ties between equal counts.
    mutating func add(count c: Int, sumX sx: Double, sumY sy: Double, key k: UInt64) {
        count.append(c)
        sumX.append(sx)
        sumY.append(sy)
        key.append(k)
    }

    /// Merges at a zoom whose world is `scale` pixels wide, keeping features ≥ `radius` px apart.
    /// Afterwards `groups` lists the surviving features.
    mutating func merge(radius: Double, scale: Double) {
        let n = count.count
        px.removeAll(keepingCapacity: true)
        py.removeAll(keepingCapacity: true)
        alive.removeAll(keepingCapacity: true)
        nextMember.removeAll(keepingCapacity: true)
        lastMember.removeAll(keepingCapacity: true)
        order.removeAll(keepingCapacity: true)
        for i in 0..<n {
            let c = Double(count[i])
            px.append(sumX[i] / c * scale)
            py.append(sumY[i] / c * scale)
            alive.append(true)
            nextMember.append(-1)
            lastMember.append(Int32(i))
            order.append(Int32(i))
        }
        guard n > 1 else { return }
        order.sort { a, b in
            let ca = count[Int(a)], cb = count[Int(b)]
            return ca > cb || (ca == cb && key[Int(a)] < key[Int(b)])
        }
        let r2 = radius * radius
        var merged = true
        var dirty = [Int32]()
        while merged {
            merged = false
            buildGrid(radius: radius)
            for o in order {
                let i = Int(o)
                guard alive[i] else { continue }
                let gx = Int64((px[i] / radius).rounded(.down)), gy = Int64((py[i] / radius).rounded(.down))
                var absorbed = false
                for ny in (gy - 1)...(gy + 1) {
                    for nx in (gx - 1)...(gx + 1) {
                        var j = gridFirst(nx, ny)
                        while j >= 0 {
                            let ji = Int(j)
                            if ji != i && alive[ji] {
                                let dx = px[ji] - px[i], dy = py[ji] - py[i]
                                if dx * dx + dy * dy < r2 {
                                    absorb(ji, into: i)
                                    absorbed = true
                                }
                            }
                            j = gridNext[ji]
                        }
                    }
                }
                if absorbed {
                    merged = true
                    dirty.append(o)
                }
            }
            for o in dirty {
                let i = Int(o)
                let c = Double(count[i])
                px[i] = sumX[i] / c * scale
                py[i] = sumY[i] / c * scale
            }
            dirty.removeAll(keepingCapacity: true)
        }
    }

    private mutating func absorb(_ j: Int, into i: Int) {
        alive[j] = false
        count[i] += count[j]
        sumX[i] += sumX[j]
        sumY[i] += sumY[j]
        nextMember[Int(lastMember[i])] = Int32(j)
        lastMember[i] = lastMember[j]
    }

    private var gridOriginX: Int64 = 0
    private var gridOriginY: Int64 = 0
    private var gridWidth: Int64 = 0
    private var gridHeight: Int64 = 0
    private var gridUsesMap = false

    /// Buckets the living features by `radius`-sized cells: a flat array when their extent is
    /// small, a hash map otherwise.
    private mutating func buildGrid(radius: Double) {
        let n = px.count
        var minX = Int64.max, minY = Int64.max, maxX = Int64.min, maxY = Int64.min
        for i in 0..<n where alive[i] {
            let gx = Int64((px[i] / radius).rounded(.down)), gy = Int64((py[i] / radius).rounded(.down))
            minX = min(minX, gx); maxX = max(maxX, gx)
            minY = min(minY, gy); maxY = max(maxY, gy)
        }
        gridNext.removeAll(keepingCapacity: true)
        gridNext.append(contentsOf: repeatElement(-1, count: n))
        gridOriginX = minX
        gridOriginY = minY
        gridWidth = maxX - minX + 1
        gridHeight = maxY - minY + 1
        gridUsesMap = gridWidth * gridHeight > Int64(4 * n + 64)
        if gridUsesMap {
            gridMap.removeAll(keepingCapacity: true)
        } else {
            gridHead.removeAll(keepingCapacity: true)
            gridHead.append(contentsOf: repeatElement(-1, count: Int(gridWidth * gridHeight)))
        }
        for i in 0..<n where alive[i] {
            let gx = Int64((px[i] / radius).rounded(.down)), gy = Int64((py[i] / radius).rounded(.down))
            if gridUsesMap {
                let k = gy &* 0x1_0000_0000 &+ gx
                gridNext[i] = gridMap[k] ?? -1
                gridMap[k] = Int32(i)
            } else {
                let k = Int((gy - minY) * gridWidth + (gx - minX))
                gridNext[i] = gridHead[k]
                gridHead[k] = Int32(i)
            }
        }
    }

    @inline(__always)
    private func gridFirst(_ gx: Int64, _ gy: Int64) -> Int32 {
        if gridUsesMap { return gridMap[gy &* 0x1_0000_0000 &+ gx] ?? -1 }
        let x = gx - gridOriginX, y = gy - gridOriginY
        guard x >= 0, y >= 0, x < gridWidth, y < gridHeight else { return -1 }
        return gridHead[Int(y * gridWidth + x)]
    }

    /// The surviving features, heaviest first.
    var groups: [Int] { order.lazy.map { Int($0) }.filter { alive[$0] } }

    /// The input features merged into surviving feature `g` (itself first).
    func members(of g: Int) -> [Int] {
        var out = [Int]()
        var m = Int32(g)
        while m >= 0 {
            out.append(Int(m))
            m = nextMember[Int(m)]
        }
        return out
    }

    /// Calls `body` with each input feature merged into `g` (itself first).
    func forEachMember(of g: Int, _ body: (Int) -> Void) {
        var m = Int32(g)
        while m >= 0 {
            body(Int(m))
            m = nextMember[Int(m)]
        }
    }
}

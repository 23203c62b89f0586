/// The last merge of an answer built from tiles (see `PartyIndex+Tiles`): the greedy merge of
/// `ClusterMerger`, run over the groups of several tiles, which are already `radius` apart
/// within each tile.
///
/// So in the first round only a pair of groups of different tiles can be closer than the
/// radius, and both then lie within the radius of their tiles' shared border (a group's
/// centroid lies in its tile): the first round compares only such pairs (every pair of
/// border groups when they are few, else by a sweep along x). Later rounds are `ClusterMerger`'s: each group that moved (absorbed) against every
/// living group within the radius, then the seeds in key order absorb their living
/// candidates, until a round merges nothing. The outcome is the greedy merge's over all the
/// groups; most answers have a few border pairs, so it costs little more than the sweep.
struct TileBorderMerger: MergedGroups {
    private(set) var items: [ClusterMerger.Item] = []
    private var px: [Double] = []
    private var py: [Double] = []
    private var alive: [Bool] = []
    /// Near its tile's border (may pair in the first round), and its tile.
    private var border: [Bool] = []
    private var tile: [Int64] = []
    private var order: [Int32] = []
    /// Groups by x (position, index), for the sweeps.
    private var sweep: [(x: Double, i: Int32)] = []
    private var moved: [Int32] = []
    private var movedNext: [Int32] = []
    private var edgeHead: [Int32] = []
    private var pairs = CandidatePairs()
    /// Groups left after `merge`.
    private(set) var groupCount = 0

    mutating func reset() {
        items.removeAll(keepingCapacity: true)
        border.removeAll(keepingCapacity: true)
        tile.removeAll(keepingCapacity: true)
        groupCount = 0
    }

    /// Adds a group of `count` parties whose normalised positions sum to (`sumX`, `sumY`), of
    /// tile `tile`; `nearBorder` when its centroid lies within the radius (and a pixel) of its
    /// tile's edge. `key` orders the groups (distinct).
    mutating func add(count: Int, sumX: Double, sumY: Double, key: UInt64, tile t: Int64, nearBorder: Bool) {
        items.append(ClusterMerger.Item(count: count, sumX: sumX, sumY: sumY, key: key, nextMember: -1, lastMember: Int32(items.count),
                                        cellX: 0, cellY: 0))
        border.append(nearBorder)
        tile.append(t)
    }

    /// Merges at a zoom whose world is `scale` pixels wide, until no two groups are closer
    /// than `radius` pixels.
    mutating func merge(radius: Double, scale: Double) {
        let n = items.count
        groupCount = n
        px.removeAll(keepingCapacity: true)
        py.removeAll(keepingCapacity: true)
        alive.removeAll(keepingCapacity: true)
        edgeHead.removeAll(keepingCapacity: true)
        order.removeAll(keepingCapacity: true)
        for i in 0..<n {
            let c = Double(items[i].count)
            px.append(items[i].sumX / c * scale)
            py.append(items[i].sumY / c * scale)
            alive.append(true)
            edgeHead.append(-1)
            order.append(Int32(i))
        }
        guard n > 1 else { return }
        // Tiles come in quadtree order and each lists its groups in key order: usually sorted.
        var sorted = true
        for i in 1..<n where items[i - 1].key > items[i].key {
            sorted = false
            break
        }
        if !sorted {
            let its = items
            order.sort { its[Int($0)].key < its[Int($1)].key }
        }
        let r2 = radius * radius
        // Round one: pairs of different tiles near their borders; every pair when they are
        // few, else by a sweep along x.
        pairs.removeAll()
        sweep.removeAll(keepingCapacity: true)
        for i in 0..<n where border[i] { sweep.append((px[i], Int32(i))) }
        if sweep.count <= 48 {
            for a in 0..<sweep.count {
                let i = Int(sweep[a].i)
                for b in (a + 1)..<sweep.count {
                    let j = Int(sweep[b].i)
                    let dx = px[j] - px[i], dy = py[j] - py[i]
                    if tile[i] != tile[j] && dx * dx + dy * dy < r2 { pairs.add(i, j, heads: &edgeHead) }
                }
            }
        } else {
            TileBorderMerger.sortByX(&sweep)
            for a in 0..<sweep.count {
                let i = Int(sweep[a].i)
                var b = a + 1
                while b < sweep.count {
                    let j = Int(sweep[b].i)
                    let dx = sweep[b].x - sweep[a].x
                    if dx >= radius { break }
                    let dy = py[j] - py[i]
                    if tile[i] != tile[j] && dx * dx + dy * dy < r2 { pairs.add(i, j, heads: &edgeHead) }
                    b += 1
                }
            }
        }
        var left = n
        moved.removeAll(keepingCapacity: true)
        while true {
            // The seeds in key order, each absorbing its living candidates.
            movedNext.removeAll(keepingCapacity: true)
            if !pairs.isEmpty {
                var next = [Int32]()
                swap(&next, &movedNext)
                left -= order.withUnsafeBufferPointer { order in
                    edgeHead.withUnsafeMutableBufferPointer { heads in
                        alive.withUnsafeMutableBufferPointer { alive in
                            items.withUnsafeMutableBufferPointer { items in
                                pairs.absorb(order: order, heads: heads, alive: alive, items: items, moved: &next)
                            }
                        }
                    }
                }
                swap(&next, &movedNext)
            }
            swap(&moved, &movedNext)
            guard !moved.isEmpty else { break }
            // The next round's candidates: each moved group with every living group within the radius.
            for m in moved {
                let i = Int(m)
                let c = Double(items[i].count)
                px[i] = items[i].sumX / c * scale
                py[i] = items[i].sumY / c * scale
            }
            pairs.removeAll()
            if moved.count * left <= 2048 {
                // Few: each moved group against every living one (no sort).
                for m in moved {
                    let i = Int(m)
                    let x = px[i], y = py[i]
                    for j in 0..<n where alive[j] && j != i {
                        let dx = px[j] - x, dy = py[j] - y
                        if dx * dx + dy * dy < r2 { pairs.add(i, j, heads: &edgeHead) }
                    }
                }
                continue
            }
            sweep.removeAll(keepingCapacity: true)
            for i in 0..<n where alive[i] { sweep.append((px[i], Int32(i))) }
            TileBorderMerger.sortByX(&sweep)
            for m in moved {
                let i = Int(m)
                let x = px[i], y = py[i]
                // The first living group at x − radius or beyond, then on while within reach.
                var lo = 0, hi = sweep.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if sweep[mid].x <= x - radius { lo = mid + 1 } else { hi = mid }
                }
                while lo < sweep.count {
                    let j = Int(sweep[lo].i)
                    let dx = px[j] - x
                    if dx >= radius { break }
                    let dy = py[j] - y
                    if j != i && dx * dx + dy * dy < r2 { pairs.add(i, j, heads: &edgeHead) }
                    lo += 1
                }
            }
        }
        groupCount = left
    }

    /// Sorts by x, then index.
    private static func sortByX(_ list: inout [(x: Double, i: Int32)]) {
        list.sort { $0.x < $1.x || ($0.x == $1.x && $0.i < $1.i) }
    }

    /// The groups left, in key order (indices of the groups that absorbed the others).
    var survivors: [Int32] { order.filter { alive[Int($0)] } }
}

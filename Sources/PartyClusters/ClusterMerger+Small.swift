extension ClusterMerger {
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
    static let smallCapacity = 64

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
        var alive: UInt64 = (1 << UInt64(n)) &- 1
        // Features that moved in the round before (all, before the first): as in `merge`, a
        // later round need only compare pairs with one of them.
        var lastMoved = ~UInt64(0)
        while true {
            var moved: UInt64 = 0
            // Living features in order, by their set bits; a seed clears only the bits of the
            // features it absorbs (all after it, each as it is reached), so the bits above the
            // seed taken at its start are exactly the ones the one-by-one scan would find alive.
            var seeds = alive
            while seeds != 0 {
                let i = seeds.trailingZeroBitCount
                let above = ~((UInt64(1) << UInt64(i + 1)) &- 1)
                let x = f[i].px, y = f[i].py
                var later = alive & above & (lastMoved & (1 << UInt64(i)) != 0 ? ~UInt64(0) : lastMoved)
                // The seed's position is fixed for its turn: find every feature it absorbs
                // first (without branching on each distance), then absorb them.
                var hits: UInt64 = 0
                while later != 0 {
                    let j = later.trailingZeroBitCount
                    later &= later &- 1
                    let dx = f[j].px - x, dy = f[j].py - y
                    hits |= UInt64(dx * dx + dy * dy < r2 ? 1 : 0) << UInt64(j)
                }
                if hits != 0 {
                    alive &= ~hits
                    moved |= 1 << UInt64(i)
                    var h = hits
                    while h != 0 {
                        let j = h.trailingZeroBitCount
                        h &= h &- 1
                        f[i].w += f[j].w
                        f[i].sx += f[j].sx
                        f[i].sy += f[j].sy
                    }
                }
                seeds = alive & above
            }
            // (Counted once at the end: the build's generic x86-64 has no popcount instruction.)
            guard moved != 0 else { return alive.nonzeroBitCount }
            lastMoved = moved
            var m = moved
            while m != 0 {
                let i = m.trailingZeroBitCount
                m &= m &- 1
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
}

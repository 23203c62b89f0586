extension ClusterMerger {
    /// Features bucketed by `radius`-sized cells of their position in a flat array over their
    /// extent (positions are within a viewport plus a cell, or a few cells around a cluster,
    /// so it is small); each bucket lists features through `next`.
    struct Grid {
        var head: [Int32] = []
        var next: [Int32] = []
        /// Used instead of `head` when the extent is large and sparse (a world-wide answer).
        var map: [Int: Int32] = [:]
        var usesMap = false
        var originX = 0
        var originY = 0
        var width = 0
        var height = 0

        /// The first feature of bucket (`x`, `y`), −1 when none.
        @inline(__always)
        func bucket(_ x: Int, _ y: Int) -> Int32 {
            usesMap ? map[y &* width &+ x] ?? -1 : head[y &* width &+ x]
        }

        /// Calls `body` with every feature bucketed in the 3 × 3 cells around position (`x`, `y`)
        /// (in `radius` units scaled by `perCell`): every feature that can lie within the radius.
        @inline(__always)
        func forEachNear(_ x: Double, _ y: Double, perCell: Double, _ body: (Int) -> Void) {
            let gx = Int(x * perCell) - originX, gy = Int(y * perCell) - originY
            for ny in max(gy - 1, 0)..<min(gy + 2, height) {
                for nx in max(gx - 1, 0)..<min(gx + 2, width) {
                    var j = bucket(nx, ny)
                    while j >= 0 {
                        body(Int(j))
                        j = next[Int(j)]
                    }
                }
            }
        }

        /// Buckets the living features among the first `n`.
        mutating func build(_ px: UnsafeMutableBufferPointer<Double>, _ py: UnsafeMutableBufferPointer<Double>,
                            _ alive: UnsafeMutableBufferPointer<Bool>, n: Int, perCell: Double)
        {
            var minX = Int.max, minY = Int.max, maxX = Int.min, maxY = Int.min
            for i in 0..<n where alive[i] {
                let gx = Int(px[i] * perCell), gy = Int(py[i] * perCell)
                minX = min(minX, gx); maxX = max(maxX, gx)
                minY = min(minY, gy); maxY = max(maxY, gy)
            }
            guard minX <= maxX else {
                width = 0
                height = 0
                return
            }
            originX = minX
            originY = minY
            width = maxX - minX + 1
            height = maxY - minY + 1
            usesMap = width > 1 << 24 || height > 1 << 24 || width * height > 4 * n + 64
            if usesMap {
                map.removeAll(keepingCapacity: true)
            } else {
                let cells = width * height
                if head.count < cells { head.append(contentsOf: repeatElement(-1, count: cells - head.count)) }
                head.withUnsafeMutableBufferPointer { h in
                    for k in 0..<cells { h[k] = -1 }
                }
            }
            if next.count < n { next.append(contentsOf: repeatElement(-1, count: n - next.count)) }
            // In reverse, so each bucket lists its features in input order.
            let w = width
            next.withUnsafeMutableBufferPointer { next in
                if usesMap {
                    for i in stride(from: n - 1, through: 0, by: -1) where alive[i] {
                        let k = (Int(py[i] * perCell) - minY) &* w &+ (Int(px[i] * perCell) - minX)
                        next[i] = map[k] ?? -1
                        map[k] = Int32(i)
                    }
                } else {
                    head.withUnsafeMutableBufferPointer { head in
                        for i in stride(from: n - 1, through: 0, by: -1) where alive[i] {
                            let k = (Int(py[i] * perCell) - minY) &* w &+ (Int(px[i] * perCell) - minX)
                            next[i] = head[k]
                            head[k] = Int32(i)
                        }
                    }
                }
            }
        }
    }
}

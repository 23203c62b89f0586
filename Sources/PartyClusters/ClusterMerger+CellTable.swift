extension ClusterMerger {
    /// The features by their cells, over the extent of the cells, for the first round: each
    /// position lies in its own cell (checked), so the grid of positions would hold the same
    /// single feature per bucket, and reading the table's nine cells around a feature finds
    /// what the grid's nine buckets would, in the same order, without building the grid.
    struct CellTable {
        let originX: Int
        let originY: Int
        let width: Int
        let height: Int

        /// Fills `table`; nil when some feature's position lies outside its cell (rounding
        /// at a cell border), two features share a cell, or the extent is too sparse: the
        /// caller then builds the grid.
        init?(_ it: UnsafeMutableBufferPointer<Item>, _ px: UnsafeMutableBufferPointer<Double>, _ py: UnsafeMutableBufferPointer<Double>,
              n: Int, perCell: Double, table: inout [Int32])
        {
            var minX = Int.max, minY = Int.max, maxX = Int.min, maxY = Int.min
            for i in 0..<n {
                let cx = Int(it[i].cellX), cy = Int(it[i].cellY)
                minX = min(minX, cx); maxX = max(maxX, cx)
                minY = min(minY, cy); maxY = max(maxY, cy)
                if Int(px[i] * perCell) != cx || Int(py[i] * perCell) != cy { return nil }
            }
            let w = maxX - minX + 1, h = maxY - minY + 1
            guard w * h <= 4 * n + 64 else { return nil }
            if table.count < w * h { table.append(contentsOf: repeatElement(-1, count: w * h - table.count)) }
            let unique = table.withUnsafeMutableBufferPointer { t -> Bool in
                for k in 0..<(w * h) { t[k] = -1 }
                for i in 0..<n {
                    let k = (Int(it[i].cellY) - minY) &* w &+ (Int(it[i].cellX) - minX)
                    guard t[k] < 0 else { return false }
                    t[k] = Int32(i)
                }
                return true
            }
            guard unique else { return nil }
            originX = minX
            originY = minY
            width = w
            height = h
        }
    }
}

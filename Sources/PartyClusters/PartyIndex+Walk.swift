import Geo

extension PartyIndex {
    // MARK: - Walking the tree

    // (The walks take no closures: a closure that captures the index copies it, which costs
    // a retain and release of every buffer per call.)

    /// Appends every party slot below `r`'s node to `out`.
    func appendSlots(under r: CellRef, into out: inout [Int32]) {
        appendSlots(under: r.node, depth: Int(r.depth), into: &out)
    }

    /// Appends every party slot below node `n` of depth `depth` to `out`.
    func appendSlots(under n: Int32, depth: Int, into out: inout [Int32]) {
        let nd = node(depth, n)
        if nd.first >= 0 {
            var s = nd.first
            while s >= 0 {
                out.append(s)
                s = slots[Int(s)].next
            }
            return
        }
        if nd.c0 >= 0 { appendSlots(under: nd.c0, depth: depth + 1, into: &out) }
        if nd.c1 >= 0 { appendSlots(under: nd.c1, depth: depth + 1, into: &out) }
        if nd.c2 >= 0 { appendSlots(under: nd.c2, depth: depth + 1, into: &out) }
        if nd.c3 >= 0 { appendSlots(under: nd.c3, depth: depth + 1, into: &out) }
    }

    /// Count and coordinate sums of the parties below node `n` (depth `depth`) departing in
    /// `after...before` with at least `seats` seats left; `one` is one of them.
    func filteredAggregate(under n: Int32, depth: Int, _ after: Double, _ before: Double, _ seats: Int32)
        -> (count: Int, sumX: Double, sumY: Double, one: Int32)
    {
        let nd = node(depth, n)
        if nd.first >= 0 {
            var c = 0, sx = 0.0, sy = 0.0, one: Int32 = -1
            var s = nd.first
            while s >= 0 {
                let slot = slots[Int(s)]
                if slot.departAt >= after && slot.departAt <= before && slot.seatsLeft >= seats {
                    c += 1
                    sx += slot.x
                    sy += slot.y
                    one = s
                }
                s = slot.next
            }
            return (c, sx, sy, one)
        }
        var total = (count: 0, sumX: 0.0, sumY: 0.0, one: Int32(-1))
        for q in 0..<4 {
            let child = nd.child(q)
            guard child >= 0 else { continue }
            let a = filteredAggregate(under: child, depth: depth + 1, after, before, seats)
            total.count += a.count
            total.sumX += a.sumX
            total.sumY += a.sumY
            if a.one >= 0 { total.one = a.one }
        }
        return total
    }

    /// The cells one zoom below `r` (which is at `zoom`) that hold parties.
    func appendChildren(of r: CellRef, zoom: Int, into out: inout [CellRef]) {
        guard zoom < PartyIndex.maxZoom else { return }
        let nd = node(Int(r.depth), r.node)
        if nd.first >= 0 {
            // A single-party leaf at or above this zoom: its party's cell one zoom down.
            let shift = Int32(PartyIndex.maxZoom - zoom - 1)
            let slot = slots[Int(nd.first)]
            out.append(CellRef(node: r.node, depth: r.depth, x: slot.cellX >> shift, y: slot.cellY >> shift))
            return
        }
        let d = r.depth + 1
        if nd.c0 >= 0 { out.append(CellRef(node: nd.c0, depth: d, x: r.x * 2, y: r.y * 2)) }
        if nd.c1 >= 0 { out.append(CellRef(node: nd.c1, depth: d, x: r.x * 2 + 1, y: r.y * 2)) }
        if nd.c2 >= 0 { out.append(CellRef(node: nd.c2, depth: d, x: r.x * 2, y: r.y * 2 + 1)) }
        if nd.c3 >= 0 { out.append(CellRef(node: nd.c3, depth: d, x: r.x * 2 + 1, y: r.y * 2 + 1)) }
    }

    /// The occupied cells at `zoom` within cell ranges `xs` × `ys` of that zoom.
    func collectCells(zoom: Int, xs: ClosedRange<Int>, ys: ClosedRange<Int>, into out: inout [CellRef]) {
        let rx = (xs.lowerBound >> zoom)...(xs.upperBound >> zoom)
        let ry = (ys.lowerBound >> zoom)...(ys.upperBound >> zoom)
        for y in ry where y < rootsPerAxis {
            for x in rx where x < rootsPerAxis {
                let n = roots[y * rootsPerAxis + x]
                if n >= 0 { visit(n, depth: 0, x: x, y: y, zoom: zoom, xs: xs, ys: ys, into: &out) }
            }
        }
    }

    func visit(_ n: Int32, depth: Int, x: Int, y: Int, zoom: Int,
                       xs: ClosedRange<Int>, ys: ClosedRange<Int>, into out: inout [CellRef])
    {
        let shift = zoom - depth
        let lox = x << shift, hix = ((x + 1) << shift) - 1
        let loy = y << shift, hiy = ((y + 1) << shift) - 1
        guard hix >= xs.lowerBound, lox <= xs.upperBound, hiy >= ys.lowerBound, loy <= ys.upperBound else { return }
        if depth == zoom {
            out.append(CellRef(node: n, depth: Int32(depth), x: Int32(x), y: Int32(y)))
            return
        }
        let nd = node(depth, n)
        if nd.first >= 0 {
            let down = Int32(PartyIndex.maxZoom - zoom)
            let slot = slots[Int(nd.first)]
            let cx = Int(slot.cellX >> down), cy = Int(slot.cellY >> down)
            if xs.contains(cx) && ys.contains(cy) { out.append(CellRef(node: n, depth: Int32(depth), x: Int32(cx), y: Int32(cy))) }
            return
        }
        if depth + 1 == zoom {
            // The children are cells at the zoom: those in range, without a call each.
            for q in 0..<4 {
                let c = nd.child(q)
                let cx = x * 2 + (q & 1), cy = y * 2 + (q >> 1)
                if c >= 0 && xs.contains(cx) && ys.contains(cy) {
                    out.append(CellRef(node: c, depth: Int32(zoom), x: Int32(cx), y: Int32(cy)))
                }
            }
            return
        }
        for q in 0..<4 {
            let c = nd.child(q)
            if c >= 0 {
                visit(c, depth: depth + 1, x: x * 2 + (q & 1), y: y * 2 + (q >> 1), zoom: zoom, xs: xs, ys: ys, into: &out)
            }
        }
    }

    /// The cells of `id` that hold parties, each with the node covering it.
    func locate(_ id: ClusterID) -> [CellRef] {
        let z = id.zoom
        let perAxis = cellsPerAxis(zoom: z)
        var out = [CellRef]()
        for cell in id.cells where cell.x < perAxis && cell.y < perAxis {
            var n = roots[(cell.y >> z) * rootsPerAxis + (cell.x >> z)]
            var depth = 0
            while n >= 0 && depth < z {
                let nd = node(depth, n)
                if nd.first >= 0 {
                    let down = Int32(PartyIndex.maxZoom - z)
                    let slot = slots[Int(nd.first)]
                    if Int(slot.cellX >> down) != cell.x || Int(slot.cellY >> down) != cell.y { n = -1 }
                    break
                }
                let shift = z - depth - 1
                n = nd.child(((cell.x >> shift) & 1) | (((cell.y >> shift) & 1) << 1))
                depth += 1
            }
            if n >= 0 { out.append(CellRef(node: n, depth: Int32(depth), x: Int32(cell.x), y: Int32(cell.y))) }
        }
        return out
    }

    /// The cell ranges at `zoom` that `box` covers: one, or two when it crosses the antimeridian.
    func cellRanges(_ box: BoundingBox, zoom: Int) -> [(xs: ClosedRange<Int>, ys: ClosedRange<Int>)] {
        let down = PartyIndex.maxZoom - zoom
        let nw = WebMercator.normalized(Coordinate(lon: box.west, lat: box.north))
        let se = WebMercator.normalized(Coordinate(lon: box.east, lat: box.south))
        let a = cell(x: nw.x, y: nw.y), b = cell(x: se.x, y: se.y)
        let ys = (a.y >> down)...(b.y >> down)
        let last = cellsPerAxis(zoom: zoom) - 1
        if box.west <= box.east {
            return [((a.x >> down)...(b.x >> down), ys)]
        }
        return [((a.x >> down)...last, ys), (0...(b.x >> down), ys)]
    }
}

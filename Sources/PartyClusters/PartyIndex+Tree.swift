/// One quadtree node: a grid cell at its depth (= zoom) with the count and coordinate sum of
/// the parties below it. A leaf (`first` ≥ 0) lists its parties through `Slot.next`; an inner
/// node (`first` < 0) has children in the next depth's pool.
struct Node {
    var count: Int32
    var first: Int32
    var sumX: Double
    var sumY: Double
    /// Children by quadrant (x bit | y bit << 1), −1 when absent.
    var c0: Int32 = -1, c1: Int32 = -1, c2: Int32 = -1, c3: Int32 = -1

    /// For an inner node, the expansion zoom of its parties, or −1 when not kept (see
    /// `PartyIndex+Expansion`); for a leaf, `maxZoom + 1` (a zoom-20 list never splits).
    /// Kept in an inner node's `first`, which only a leaf uses: −1 not kept, −2 − zoom kept
    /// (so the node stays 40 bytes).
    var expansion: Int {
        get { first >= 0 ? PartyIndex.maxZoom + 1 : (first == -1 ? -1 : Int(-2 - first)) }
        set { if first < 0 { first = newValue < 0 ? -1 : Int32(-2 - newValue) } }
    }

    @inline(__always)
    func child(_ q: Int) -> Int32 {
        switch q {
        case 0: return c0
        case 1: return c1
        case 2: return c2
        default: return c3
        }
    }

    @inline(__always)
    mutating func setChild(_ q: Int, _ v: Int32) {
        switch q {
        case 0: c0 = v
        case 1: c1 = v
        case 2: c2 = v
        default: c3 = v
        }
    }

    var isLeaf: Bool { first >= 0 }
}

/// The nodes of one depth, with a free list.
struct NodePool {
    var nodes = ContiguousArray<Node>()
    var free = [Int32]()
}

extension PartyIndex {
    // MARK: - Grid math

    /// The zoom-20 cell of a normalised position.
    @inline(__always)
    func cell(x: Double, y: Double) -> (x: Int, y: Int) {
        let scale = Double(1 << (PartyIndex.maxZoom + 8)) / radius
        let last = cellsAtMaxZoom - 1
        return (min(max(Int(x * scale), 0), last), min(max(Int(y * scale), 0), last))
    }

    /// Cells per axis at `zoom`.
    func cellsPerAxis(zoom: Int) -> Int { ((cellsAtMaxZoom - 1) >> (PartyIndex.maxZoom - zoom)) + 1 }

    /// Interleaves the bits of a zoom-20 cell (x in even bits), so sorting by the key sorts
    /// parties in quadtree order.
    @inline(__always)
    static func mortonKey(_ x: Int, _ y: Int) -> UInt64 {
        func spread(_ v: UInt64) -> UInt64 {
            var v = v & 0xFFFF_FFFF
            v = (v | (v << 16)) & 0x0000_FFFF_0000_FFFF
            v = (v | (v << 8)) & 0x00FF_00FF_00FF_00FF
            v = (v | (v << 4)) & 0x0F0F_0F0F_0F0F_0F0F
            v = (v | (v << 2)) & 0x3333_3333_3333_3333
            v = (v | (v << 1)) & 0x5555_5555_5555_5555
            return v
        }
        return spread(UInt64(x)) | (spread(UInt64(y)) << 1)
    }

    /// Which child of its depth-`depth` ancestor the zoom-20 cell falls in.
    @inline(__always)
    static func quadrant(_ cx: Int32, _ cy: Int32, depth: Int) -> Int {
        let shift = Int32(PartyIndex.maxZoom - 1 - depth)
        return Int((cx >> shift) & 1) | Int(((cy >> shift) & 1) << 1)
    }

    @inline(__always)
    func rootIndex(_ cx: Int32, _ cy: Int32) -> Int {
        Int(cy >> Int32(PartyIndex.maxZoom)) * rootsPerAxis + Int(cx >> Int32(PartyIndex.maxZoom))
    }

    /// The node `n` of depth `depth`.
    @inline(__always)
    func node(_ depth: Int, _ n: Int32) -> Node { pools[depth].nodes[Int(n)] }

    // MARK: - Tree maintenance

    /// A new leaf at `depth` holding slot `s` (at `x`, `y`) alone.
    mutating func newLeaf(_ s: Int32, x: Double, y: Double, depth: Int) -> Int32 {
        let node = Node(count: 1, first: s, sumX: x, sumY: y)
        let n: Int32
        if let f = pools[depth].free.popLast() {
            n = f
            pools[depth].nodes[Int(f)] = node
        } else {
            n = Int32(pools[depth].nodes.count)
            pools[depth].nodes.append(node)
        }
        let i = Int(s)
        slots[i].node = n
        slots[i].depth = Int8(depth)
        slots[i].prev = -1
        slots[i].next = -1
        return n
    }

    mutating func freeNode(_ depth: Int, _ n: Int32) {
        tileCache.drop(depth: depth, node: n)
        pools[depth].nodes[Int(n)] = Node(count: 0, first: -1, sumX: 0, sumY: 0)
        pools[depth].free.append(n)
    }

    /// Puts slot `s` (position and cell already set) into the tree.
    mutating func link(_ s: Int32) {
        let si = Int(s)
        link(s, x: slots[si].x, y: slots[si].y, cellX: slots[si].cellX, cellY: slots[si].cellY)
    }

    /// `link(_:)` given the slot's position and cell (so a bulk load need not read the slot).
    mutating func link(_ s: Int32, x: Double, y: Double, cellX cx: Int32, cellY cy: Int32) {
        let si = Int(s)
        let r = rootIndex(cx, cy)
        var node = roots[r]
        if node < 0 {
            roots[r] = newLeaf(s, x: x, y: y, depth: 0)
            return
        }
        var depth = 0
        while true {
            let ni = Int(node)
            let first = pools[depth].nodes[ni].first
            if first >= 0 {
                if depth == PartyIndex.maxZoom {
                    // Co-located parties share a zoom-20 cell: prepend to its list.
                    slots[si].node = node
                    slots[si].depth = Int8(depth)
                    slots[si].prev = -1
                    slots[si].next = first
                    slots[Int(first)].prev = s
                    pools[depth].nodes[ni].first = s
                    pools[depth].nodes[ni].count += 1
                    pools[depth].nodes[ni].sumX += x
                    pools[depth].nodes[ni].sumY += y
                    return
                }
                // A single-party leaf: move its party one level down, then go on as an inner node.
                let f = Int(first)
                let q = PartyIndex.quadrant(slots[f].cellX, slots[f].cellY, depth: depth)
                let child = newLeaf(first, x: slots[f].x, y: slots[f].y, depth: depth + 1)
                pools[depth].nodes[ni].first = -1
                pools[depth].nodes[ni].setChild(q, child)
            }
            pools[depth].nodes[ni].count += 1
            pools[depth].nodes[ni].sumX += x
            pools[depth].nodes[ni].sumY += y
            let q = PartyIndex.quadrant(cx, cy, depth: depth)
            let child = pools[depth].nodes[ni].child(q)
            if child < 0 {
                let leaf = newLeaf(s, x: x, y: y, depth: depth + 1)
                pools[depth].nodes[ni].setChild(q, leaf)
                return
            }
            node = child
            depth += 1
        }
    }

    /// Takes slot `s` out of the tree, dropping emptied nodes and collapsing an inner node
    /// left with one party into a leaf.
    mutating func unlink(_ s: Int32) {
        let si = Int(s)
        let cx = slots[si].cellX, cy = slots[si].cellY
        let x = slots[si].x, y = slots[si].y
        let r = rootIndex(cx, cy)
        var node = roots[r]
        var parent: Int32 = -1
        var parentQuadrant = 0
        var depth = 0
        var collapse: Int32 = -1
        var collapseDepth = 0
        while node >= 0 {
            let ni = Int(node)
            pools[depth].nodes[ni].count -= 1
            pools[depth].nodes[ni].sumX -= x
            pools[depth].nodes[ni].sumY -= y
            let remaining = pools[depth].nodes[ni].count
            if pools[depth].nodes[ni].first >= 0 {
                if remaining == 0 {
                    if parent < 0 { roots[r] = -1 } else { pools[depth - 1].nodes[Int(parent)].setChild(parentQuadrant, -1) }
                    freeNode(depth, node)
                } else {
                    // A zoom-20 list: unlink s from it.
                    let prev = slots[si].prev, next = slots[si].next
                    if prev >= 0 { slots[Int(prev)].next = next } else { pools[depth].nodes[ni].first = next }
                    if next >= 0 { slots[Int(next)].prev = prev }
                    if remaining == 1 {
                        let only = Int(pools[depth].nodes[ni].first)
                        pools[depth].nodes[ni].sumX = slots[only].x
                        pools[depth].nodes[ni].sumY = slots[only].y
                    }
                }
                break
            }
            if remaining == 1 && collapse < 0 {
                collapse = node
                collapseDepth = depth
            }
            parent = node
            parentQuadrant = PartyIndex.quadrant(cx, cy, depth: depth)
            node = pools[depth].nodes[ni].child(parentQuadrant)
            depth += 1
        }
        slots[si].node = -1
        slots[si].prev = -1
        slots[si].next = -1
        if collapse >= 0 { collapseToLeaf(collapse, depth: collapseDepth) }
    }

    /// Turns inner node `n` at `depth`, now holding one party, into that party's leaf.
    mutating func collapseToLeaf(_ n: Int32, depth: Int) {
        var cur = n
        var d = depth
        var party: Int32 = -1
        while party < 0 {
            let node = pools[d].nodes[Int(cur)]
            var next: Int32 = -1
            for q in 0..<4 where node.child(q) >= 0 { next = node.child(q) }
            if d != depth { freeNode(d, cur) }
            guard next >= 0 else { break }  // cannot happen: an inner node has a child
            d += 1
            let f = pools[d].nodes[Int(next)].first
            if f >= 0 {
                party = f
                freeNode(d, next)
            } else {
                cur = next
            }
        }
        var leaf = Node(count: 1, first: party, sumX: 0, sumY: 0)
        guard party >= 0 else { return }
        tileCache.drop(depth: depth, node: n)
        leaf.sumX = slots[Int(party)].x
        leaf.sumY = slots[Int(party)].y
        pools[depth].nodes[Int(n)] = leaf
        slots[Int(party)].node = n
        slots[Int(party)].depth = Int8(depth)
        slots[Int(party)].prev = -1
        slots[Int(party)].next = -1
    }

    /// Checks the tree against its rules and returns the first broken one (nil when sound):
    /// counts and sums add up, inner nodes hold two or more parties, leaves above zoom 20 hold
    /// one, every party sits in the leaf its slot names, within its cell, every kept tile is
    /// current. For tests.
    func invariantViolation() -> String? {
        var seen = 0, reached = 0
        var scratch = ClusterQueryScratch()
        func check(_ n: Int32, depth: Int, x: Int, y: Int) -> String? {
            reached += 1
            let nd = node(depth, n)
            if nd.first >= 0 {
                var s = nd.first, k: Int32 = 0, sx = 0.0, sy = 0.0, prev: Int32 = -1
                while s >= 0 {
                    let slot = slots[Int(s)]
                    guard slot.node == n, Int(slot.depth) == depth, slot.prev == prev else { return "slot \(s) links wrong in leaf \(n)" }
                    let down = PartyIndex.maxZoom - depth
                    guard Int(slot.cellX) >> down == x, Int(slot.cellY) >> down == y else { return "slot \(s) outside leaf \(n)'s cell" }
                    k += 1; sx += slot.x; sy += slot.y
                    prev = s
                    s = slot.next
                }
                seen += Int(k)
                guard k == nd.count else { return "leaf \(n) counts \(nd.count), holds \(k)" }
                guard depth == PartyIndex.maxZoom || k == 1 else { return "leaf \(n) at depth \(depth) holds \(k)" }
                guard abs(sx - nd.sumX) < 1e-6, abs(sy - nd.sumY) < 1e-6 else { return "leaf \(n) sums drift" }
                return nil
            }
            guard nd.count >= 2, depth < PartyIndex.maxZoom else { return "inner node \(n) at depth \(depth) counts \(nd.count)" }
            var k: Int32 = 0, sx = 0.0, sy = 0.0
            for q in 0..<4 {
                let c = nd.child(q)
                guard c >= 0 else { continue }
                if let e = check(c, depth: depth + 1, x: x * 2 + (q & 1), y: y * 2 + (q >> 1)) { return e }
                let cn = node(depth + 1, c)
                k += cn.count; sx += cn.sumX; sy += cn.sumY
            }
            guard k == nd.count else { return "inner node \(n) counts \(nd.count), children hold \(k)" }
            let kept = keptExpansion(n, depth: depth)
            guard kept == Int(nd.expansion) else { return "inner node \(n) at depth \(depth) keeps expansion zoom \(nd.expansion), not \(kept)" }
            if kept >= 0, case let searched = searchedExpansion(n, depth: depth, scratch: &scratch), searched != kept {
                return "inner node \(n) at depth \(depth) keeps expansion zoom \(kept), a search finds \(searched)"
            }
            guard abs(sx - nd.sumX) < 1e-6, abs(sy - nd.sumY) < 1e-6 else { return "inner node \(n) sums drift" }
            return nil
        }
        for y in 0..<rootsPerAxis {
            for x in 0..<rootsPerAxis {
                let n = roots[y * rootsPerAxis + x]
                if n >= 0, let e = check(n, depth: 0, x: x, y: y) { return e }
            }
        }
        guard seen == ids.count else { return "tree holds \(seen) parties, \(ids.count) indexed" }
        guard reached == liveNodeCount else { return "\(liveNodeCount) nodes in use, \(reached) in the tree" }
        return tileCacheViolation()
    }

    /// Number of nodes in use (for tests).
    var liveNodeCount: Int { pools.reduce(0) { $0 + $1.nodes.count - $1.free.count } }
}

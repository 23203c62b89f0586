import Geo

/// A live, in-memory index of parties clustered per zoom level on a Web Mercator pixel grid.
///
/// The grid: at zoom `z` (0–20) the world is `256 · 2^z` pixels square (256-px tiles, the
/// Naver/Google/OSM convention) and is cut into square cells of `radius` pixels. A cell at
/// zoom z+1 lies inside exactly one cell at zoom z (its coordinates halved), so the cells form
/// a quadtree. The index keeps that quadtree with a count and a coordinate sum per occupied
/// cell, so an insert or delete touches one root-to-leaf path (at most 21 nodes) and a query
/// reads the aggregates of the cells in view. A node holding a single party is a leaf
/// (the path is not extended below it); cells at zoom 20 hold a list of co-located parties.
///
/// Clusters at a zoom are the occupied cells in view, neighbours merged until no two features
/// are closer than `radius` pixels (see `ClusterMerger`); their ids name their cells
/// (`ClusterID`), so an id stays the same while its cells stay occupied.
///
/// A value type: copy it and the copy is independent. Not thread-safe for concurrent
/// mutation; `PartyService` guards one with a lock.
public struct PartyIndex {
    /// The grid cell size and merge distance, in pixels.
    public let radius: Double
    /// The deepest zoom (cells at this zoom are leaves).
    public static let maxZoom = 20
    /// Accepted values of `radius`.
    public static let radiusRange: ClosedRange<Double> = 16...512

    /// Cells per axis at zoom 20 and at zoom 0.
    let cellsAtMaxZoom: Int
    let rootsPerAxis: Int

    struct Slot {
        var x: Double  // normalised Web Mercator position, 0…1
        var y: Double
        var departAt: Double
        var cellX: Int32  // cell at zoom 20
        var cellY: Int32
        var seatsLeft: Int32
        var node: Int32  // the leaf holding this party
        var prev: Int32  // neighbours in the leaf's list
        var next: Int32
        var value: Int32  // where the party itself is kept in `values`
    }

    struct Node {
        var count: Int32
        /// First party of a leaf's list; −1 for an inner node (which has children).
        var first: Int32
        var sumX: Double
        var sumY: Double
    }

    /// The geometry and filter fields of each party, in tree order after a bulk load.
    var slots = ContiguousArray<Slot>()
    /// The parties, in input order after a bulk load; `slots[s].value` and `slotOfValue`
    /// pair each slot with one entry for good (a freed slot keeps its entry, set to nil).
    var values = ContiguousArray<Party?>()
    var slotOfValue = ContiguousArray<Int32>()
    var freeSlots = [Int32]()
    /// Party id → index in `values`.
    var valueByID = [String: Int32]()
    var nodes = ContiguousArray<Node>()
    /// Four children per node (quadrant = x bit | y bit << 1), −1 when absent.
    var children = ContiguousArray<Int32>()
    var freeNodes = [Int32]()
    var roots = ContiguousArray<Int32>()

    /// An empty index with grid cells of `radius` pixels (clamped to `radiusRange`).
    public init(radius: Double = 60) {
        let r = min(max(radius.isFinite ? radius : 60, PartyIndex.radiusRange.lowerBound), PartyIndex.radiusRange.upperBound)
        self.radius = r
        cellsAtMaxZoom = Int((Double(1 << (PartyIndex.maxZoom + 8)) / r).rounded(.up))
        rootsPerAxis = ((cellsAtMaxZoom - 1) >> PartyIndex.maxZoom) + 1
        roots = ContiguousArray(repeating: -1, count: rootsPerAxis * rootsPerAxis)
    }

    /// An index holding `parties` (the last one wins when an id repeats).
    ///
    /// The parties are kept in input order; their slots are sorted into quadtree order and
    /// linked in that order, so the tree is built with sequential memory access and
    /// consecutive links share most of their path.
    public init<C: Collection>(parties: C, radius: Double = 60) where C.Element == Party {
        self.init(radius: radius)
        let n = parties.count
        reserveCapacity(n)
        var keyed = ContiguousArray<(key: UInt64, value: Int32, seats: Int32, x: Double, y: Double, departAt: Double)>()
        keyed.reserveCapacity(n)
        var dropped = Set<Int32>()
        for p in parties {
            let v = Int32(values.count)
            values.append(p)
            if let old = valueByID.updateValue(v, forKey: p.id) {
                // A repeated id: the later party wins.
                values[Int(old)] = nil
                dropped.insert(old)
            }
            let pos = WebMercator.normalized(p.origin)
            let c = cell(x: pos.x, y: pos.y)
            keyed.append((PartyIndex.mortonKey(c.x, c.y), v, Int32(p.seatsLeft), pos.x, pos.y, p.departAt))
        }
        slotOfValue = ContiguousArray(repeating: -1, count: values.count)
        keyed.sort { $0.key < $1.key || ($0.key == $1.key && $0.value < $1.value) }
        for k in keyed {
            let s = Int32(slots.count)
            let c = cell(x: k.x, y: k.y)
            slotOfValue[Int(k.value)] = s
            if !dropped.isEmpty && dropped.contains(k.value) {
                slots.append(Slot(x: 0, y: 0, departAt: 0, cellX: 0, cellY: 0, seatsLeft: 0, node: -1, prev: -1, next: -1, value: k.value))
                freeSlots.append(s)
                continue
            }
            slots.append(Slot(x: k.x, y: k.y, departAt: k.departAt, cellX: Int32(c.x), cellY: Int32(c.y),
                              seatsLeft: k.seats, node: -1, prev: -1, next: -1, value: k.value))
            link(s)
        }
    }

    /// Makes room for `n` parties without reallocating.
    public mutating func reserveCapacity(_ n: Int) {
        slots.reserveCapacity(n)
        values.reserveCapacity(n)
        slotOfValue.reserveCapacity(n)
        valueByID.reserveCapacity(n)
        nodes.reserveCapacity(n * 2)
        children.reserveCapacity(n * 8)
    }

    /// Number of parties indexed.
    public var count: Int { valueByID.count }

    /// The party with `id`, if indexed.
    public func party(id: String) -> Party? {
        guard let v = valueByID[id] else { return nil }
        return values[Int(v)]
    }

    /// The party of slot `s`.
    @inline(__always)
    func party(slot s: Int32) -> Party? { values[Int(slots[Int(s)].value)] }

    /// Every indexed party, in no particular order.
    public var allParties: [Party] { values.compactMap { $0 } }

    /// Adds `party`, or replaces the one with its id. Returns the party it replaced.
    @discardableResult
    public mutating func upsert(_ party: Party) -> Party? {
        let n = WebMercator.normalized(party.origin)
        let c = cell(x: n.x, y: n.y)
        if let v = valueByID[party.id] {
            let s = slotOfValue[Int(v)]
            let i = Int(s)
            let old = values[Int(v)]
            values[Int(v)] = party
            slots[i].departAt = party.departAt
            slots[i].seatsLeft = Int32(party.seatsLeft)
            // Same place: only the filterable fields change; the tree is untouched.
            if slots[i].x == n.x && slots[i].y == n.y { return old }
            unlink(s)
            slots[i].x = n.x
            slots[i].y = n.y
            slots[i].cellX = Int32(c.x)
            slots[i].cellY = Int32(c.y)
            link(s)
            return old
        }
        var slot = Slot(x: n.x, y: n.y, departAt: party.departAt, cellX: Int32(c.x), cellY: Int32(c.y),
                        seatsLeft: Int32(party.seatsLeft), node: -1, prev: -1, next: -1, value: -1)
        let s: Int32
        if let f = freeSlots.popLast() {
            s = f
            slot.value = slots[Int(f)].value
            slots[Int(f)] = slot
        } else {
            s = Int32(slots.count)
            slot.value = Int32(values.count)
            slots.append(slot)
            values.append(nil)
            slotOfValue.append(s)
        }
        values[Int(slot.value)] = party
        valueByID[party.id] = slot.value
        link(s)
        return nil
    }

    /// Removes the party with `id`; returns it, or nil when absent.
    @discardableResult
    public mutating func remove(id: String) -> Party? {
        guard let v = valueByID.removeValue(forKey: id) else { return nil }
        let s = slotOfValue[Int(v)]
        unlink(s)
        let old = values[Int(v)]
        values[Int(v)] = nil
        freeSlots.append(s)
        return old
    }

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

    // MARK: - Tree maintenance

    /// A new leaf holding slot `s` (at `x`, `y`) alone.
    mutating func newLeaf(_ s: Int32, x: Double, y: Double) -> Int32 {
        let i = Int(s)
        let node = Node(count: 1, first: s, sumX: x, sumY: y)
        let n: Int32
        if let f = freeNodes.popLast() {
            n = f
            nodes[Int(f)] = node
            let b = Int(f) * 4
            children[b] = -1; children[b + 1] = -1; children[b + 2] = -1; children[b + 3] = -1
        } else {
            n = Int32(nodes.count)
            nodes.append(node)
            children.append(-1); children.append(-1); children.append(-1); children.append(-1)
        }
        slots[i].node = n
        slots[i].prev = -1
        slots[i].next = -1
        return n
    }

    mutating func freeNode(_ n: Int32) {
        nodes[Int(n)] = Node(count: 0, first: -1, sumX: 0, sumY: 0)
        freeNodes.append(n)
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
            roots[r] = newLeaf(s, x: x, y: y)
            return
        }
        var depth = 0
        while true {
            let ni = Int(node)
            let first = nodes[ni].first
            if first >= 0 {
                if depth == PartyIndex.maxZoom {
                    // Co-located parties share a zoom-20 cell: prepend to its list.
                    slots[si].node = node
                    slots[si].prev = -1
                    slots[si].next = first
                    slots[Int(first)].prev = s
                    nodes[ni].first = s
                    nodes[ni].count += 1
                    nodes[ni].sumX += x
                    nodes[ni].sumY += y
                    return
                }
                // A single-party leaf: move its party one level down, then continue as inner node.
                nodes[ni].first = -1
                let q = PartyIndex.quadrant(slots[Int(first)].cellX, slots[Int(first)].cellY, depth: depth)
                let child = newLeaf(first, x: slots[Int(first)].x, y: slots[Int(first)].y)
                children[ni * 4 + q] = child
            }
            nodes[ni].count += 1
            nodes[ni].sumX += x
            nodes[ni].sumY += y
            let q = PartyIndex.quadrant(cx, cy, depth: depth)
            let child = children[ni * 4 + q]
            if child < 0 {
                let leaf = newLeaf(s, x: x, y: y)
                children[ni * 4 + q] = leaf
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
        while node >= 0 {
            let ni = Int(node)
            nodes[ni].count -= 1
            nodes[ni].sumX -= x
            nodes[ni].sumY -= y
            let remaining = nodes[ni].count
            if nodes[ni].first >= 0 {
                if remaining == 0 {
                    if parent < 0 { roots[r] = -1 } else { children[Int(parent) * 4 + parentQuadrant] = -1 }
                    freeNode(node)
                } else {
                    // A zoom-20 list: unlink s from it.
                    let prev = slots[si].prev, next = slots[si].next
                    if prev >= 0 { slots[Int(prev)].next = next } else { nodes[ni].first = next }
                    if next >= 0 { slots[Int(next)].prev = prev }
                    if remaining == 1 {
                        let only = nodes[ni].first
                        nodes[ni].sumX = slots[Int(only)].x
                        nodes[ni].sumY = slots[Int(only)].y
                    }
                }
                break
            }
            if remaining == 1 && collapse < 0 { collapse = node }
            parent = node
            parentQuadrant = PartyIndex.quadrant(cx, cy, depth: depth)
            node = children[ni * 4 + parentQuadrant]
            depth += 1
        }
        slots[si].node = -1
        slots[si].prev = -1
        slots[si].next = -1
        if collapse >= 0 { collapseToLeaf(collapse) }
    }

    /// Turns inner node `n`, now holding one party, into that party's leaf.
    mutating func collapseToLeaf(_ n: Int32) {
        let ni = Int(n)
        var cur = n
        var party: Int32 = -1
        while party < 0 {
            let b = Int(cur) * 4
            var next: Int32 = -1
            for q in 0..<4 where children[b + q] >= 0 { next = children[b + q] }
            if cur != n { freeNode(cur) }
            guard next >= 0 else { break }  // cannot happen: an inner node has a child
            let f = nodes[Int(next)].first
            if f >= 0 {
                party = f
                freeNode(next)
            } else {
                cur = next
            }
        }
        let b = ni * 4
        children[b] = -1; children[b + 1] = -1; children[b + 2] = -1; children[b + 3] = -1
        guard party >= 0 else { return }
        nodes[ni].first = party
        nodes[ni].count = 1
        nodes[ni].sumX = slots[Int(party)].x
        nodes[ni].sumY = slots[Int(party)].y
        slots[Int(party)].node = n
        slots[Int(party)].prev = -1
        slots[Int(party)].next = -1
    }
}

extension PartyIndex {
    /// Checks the tree against its rules and returns the first broken one (nil when sound):
    /// counts and sums add up, inner nodes hold two or more parties, leaves above zoom 20 hold
    /// one, every party sits in the leaf its slot names, within its cell. For tests.
    func invariantViolation() -> String? {
        var seen = 0
        func check(_ n: Int32, depth: Int, x: Int, y: Int) -> String? {
            let node = nodes[Int(n)]
            if node.first >= 0 {
                var s = node.first, k: Int32 = 0, sx = 0.0, sy = 0.0, prev: Int32 = -1
                while s >= 0 {
                    let slot = slots[Int(s)]
                    guard slot.node == n, slot.prev == prev else { return "slot \(s) links wrong in leaf \(n)" }
                    let down = PartyIndex.maxZoom - depth
                    guard Int(slot.cellX) >> down == x, Int(slot.cellY) >> down == y else { return "slot \(s) outside leaf \(n)'s cell" }
                    k += 1; sx += slot.x; sy += slot.y
                    prev = s
                    s = slot.next
                }
                seen += Int(k)
                guard k == node.count else { return "leaf \(n) counts \(node.count), holds \(k)" }
                guard depth == PartyIndex.maxZoom || k == 1 else { return "leaf \(n) at depth \(depth) holds \(k)" }
                guard abs(sx - node.sumX) < 1e-6, abs(sy - node.sumY) < 1e-6 else { return "leaf \(n) sums drift" }
                return nil
            }
            guard node.count >= 2, depth < PartyIndex.maxZoom else { return "inner node \(n) at depth \(depth) counts \(node.count)" }
            var k: Int32 = 0, sx = 0.0, sy = 0.0
            for q in 0..<4 {
                let c = children[Int(n) * 4 + q]
                guard c >= 0 else { continue }
                if let e = check(c, depth: depth + 1, x: x * 2 + (q & 1), y: y * 2 + (q >> 1)) { return e }
                k += nodes[Int(c)].count; sx += nodes[Int(c)].sumX; sy += nodes[Int(c)].sumY
            }
            guard k == node.count else { return "inner node \(n) counts \(node.count), children hold \(k)" }
            guard abs(sx - node.sumX) < 1e-6, abs(sy - node.sumY) < 1e-6 else { return "inner node \(n) sums drift" }
            return nil
        }
        for y in 0..<rootsPerAxis {
            for x in 0..<rootsPerAxis {
                let n = roots[y * rootsPerAxis + x]
                if n >= 0, let e = check(n, depth: 0, x: x, y: y) { return e }
            }
        }
        guard seen == valueByID.count else { return "tree holds \(seen) parties, \(valueByID.count) indexed" }
        let live = nodes.count - freeNodes.count
        guard live <= 2 * max(seen, 1) * (PartyIndex.maxZoom + 1) else { return "\(live) live nodes for \(seen) parties" }
        return nil
    }
}

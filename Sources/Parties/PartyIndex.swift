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
public struct PartyIndex: Sendable {
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
        var node: Int32  // the leaf holding this party…
        var prev: Int32  // …and its neighbours in the leaf's list
        var next: Int32
        var value: Int32  // where the party itself is kept in `values`
        var depth: Int8  // the leaf's depth (zoom)
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
    /// The tree's nodes, one pool per depth (= zoom), so the cells of one zoom that lie near
    /// each other on the map lie near each other in memory (a bulk load creates them in
    /// quadtree order). A node's children are in the next pool.
    var pools: [NodePool]
    /// The depth-0 nodes by zoom-0 cell (row-major), −1 when empty.
    var roots = ContiguousArray<Int32>()

    /// An empty index with grid cells of `radius` pixels (clamped to `radiusRange`).
    public init(radius: Double = 60) {
        let r = min(max(radius.isFinite ? radius : 60, PartyIndex.radiusRange.lowerBound), PartyIndex.radiusRange.upperBound)
        self.radius = r
        cellsAtMaxZoom = Int((Double(1 << (PartyIndex.maxZoom + 8)) / r).rounded(.up))
        rootsPerAxis = ((cellsAtMaxZoom - 1) >> PartyIndex.maxZoom) + 1
        roots = ContiguousArray(repeating: -1, count: rootsPerAxis * rootsPerAxis)
        pools = Array(repeating: NodePool(), count: PartyIndex.maxZoom + 1)
    }

    /// An index holding `parties` (the last one wins when an id repeats).
    ///
    /// The parties are kept in input order; their slots are sorted into quadtree order and the
    /// tree is built level by level over that order (`buildTree`), so memory is walked
    /// sequentially and each zoom's nodes come out in quadtree order.
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
        var entries = ContiguousArray<(key: UInt64, slot: Int32)>()
        entries.reserveCapacity(keyed.count)
        for k in keyed {
            let s = Int32(slots.count)
            slotOfValue[Int(k.value)] = s
            if !dropped.isEmpty && dropped.contains(k.value) {
                slots.append(Slot(x: 0, y: 0, departAt: 0, cellX: 0, cellY: 0, seatsLeft: 0, node: -1, prev: -1, next: -1,
                                  value: k.value, depth: 0))
                freeSlots.append(s)
                continue
            }
            let c = cell(x: k.x, y: k.y)
            slots.append(Slot(x: k.x, y: k.y, departAt: k.departAt, cellX: Int32(c.x), cellY: Int32(c.y),
                              seatsLeft: k.seats, node: -1, prev: -1, next: -1, value: k.value, depth: 0))
            entries.append((k.key, s))
        }
        buildTree(entries)
    }

    /// Makes room for `n` parties without reallocating.
    public mutating func reserveCapacity(_ n: Int) {
        slots.reserveCapacity(n)
        values.reserveCapacity(n)
        slotOfValue.reserveCapacity(n)
        valueByID.reserveCapacity(n)
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
                        seatsLeft: Int32(party.seatsLeft), node: -1, prev: -1, next: -1, value: -1, depth: 0)
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
}

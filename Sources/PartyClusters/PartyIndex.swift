import Geo
import PartyModel

/// A live, in-memory index of parties clustered per zoom level on a Web Mercator pixel grid.
///
/// The grid: at zoom `z` (0–20) the world is `256 · 2^z` pixels square (256-px tiles, the
/// Naver/Google/OSM convention) and is cut into square cells of `radius` pixels. A cell at
/// zoom z+1 lies inside exactly one cell at zoom z (its coordinates halved), so the cells form
/// a quadtree. The index keeps that quadtree with a count and a coordinate sum per occupied
/// cell, so an insert or delete touches one root-to-leaf path (at most 21 nodes) and a query
/// reads the aggregates of the cells near the view. A node holding a single party is a leaf
/// (the path is not extended below it); cells at zoom 20 hold a list of co-located parties.
///
/// Clusters at a zoom are built from tiles of 16 × 16 cells (`PartyIndex+Tiles`): within a
/// tile, its occupied cells merged until no two features are closer than `radius` pixels
/// (see `ClusterMerger`); an answer takes the tiles' groups that reach into the view, whole,
/// and merges them once more across tile borders (`TileBorderMerger`). A tile's groups depend
/// on its parties alone, so unfiltered ones are kept (`TileCache`) until a write passes
/// through the tile. Cluster ids name their cells (`ClusterID`), so an id stays the same while
/// its cells stay occupied. Inner nodes also keep their parties' expansion zoom when it is
/// cheap to know (`PartyIndex+Expansion`), refreshed along the path of each insert or delete.
///
/// A value type: copy it and the copy is independent (copies share kept tiles until one of
/// them writes). Queries may run on copies from several threads at once; mutation is not
/// thread-safe: `PartyService` guards one index with a lock.
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
    /// (A freed entry holds `PartyIndex.vacant`, whose empty id no party can have.)
    var values = ContiguousArray<Party>()
    var slotOfValue = ContiguousArray<Int32>()
    var freeSlots = [Int32]()
    /// Party id → index in `values`.
    var ids = PartyIDTable()
    /// What the bulk load's bucket reads returned (kept so they are not optimised away).
    var bulkLoadProbe: Int32 = 0
    /// The tree's nodes, one pool per depth (= zoom), so the cells of one zoom that lie near
    /// each other on the map lie near each other in memory (a bulk load creates them in
    /// quadtree order). A node's children are in the next pool.
    var pools: [NodePool]
    /// The depth-0 nodes by zoom-0 cell (row-major), −1 when empty.
    var roots = ContiguousArray<Int32>()
    /// Unfiltered tiles' groups kept between queries (see `PartyIndex+Tiles`); shared with
    /// copies until one of them writes.
    var tileCache = TileCache()

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
        reserveCapacity(parties.count)
        // A copy of its own (sharing the caller's array storage misbehaved in a release build).
        values = ContiguousArray(parties.lazy.map { $0 })
        bulkIndexIDs()
        // Position and filter fields in input order, and the parties' quadtree keys.
        var fields = ContiguousArray<(x: Double, y: Double, departAt: Double, seats: Int32)>()
        fields.reserveCapacity(values.count)
        var keyed = ContiguousArray<(key: UInt64, value: Int32)>()
        keyed.reserveCapacity(values.count)
        for (v, p) in values.enumerated() {
            guard !p.id.isEmpty else {
                fields.append((0, 0, 0, 0))
                continue
            }
            let pos = WebMercator.normalized(p.origin)
            let c = cell(x: pos.x, y: pos.y)
            fields.append((pos.x, pos.y, p.departAt, Int32(p.seatsLeft)))
            keyed.append((PartyIndex.mortonKey(c.x, c.y), Int32(v)))
        }
        PartyIndex.radixSort(&keyed)
        // Slots in quadtree order.
        slotOfValue = ContiguousArray(repeating: -1, count: values.count)
        for i in 0..<keyed.count {
            let k = keyed[i]
            let s = Int32(slots.count)
            let f = fields[Int(k.value)]
            let c = cell(x: f.x, y: f.y)
            slotOfValue[Int(k.value)] = s
            slots.append(Slot(x: f.x, y: f.y, departAt: f.departAt, cellX: Int32(c.x), cellY: Int32(c.y),
                              seatsLeft: f.seats, node: -1, prev: -1, next: -1, value: k.value, depth: 0))
            keyed[i].value = s  // now (key, slot)
        }
        buildTree(keyed)
        computeAllExpansions()
        formTilesAhead()
    }

    /// Fills `ids` from `values` (freshly appended); of parties sharing an id the later one
    /// stays and the earlier ones become nil.
    ///
    /// In blocks of 64: every hash first, then a read of each one's bucket (independent
    /// loads, so their cache misses overlap), then the inserts, which find the buckets cached.
    private mutating func bulkIndexIDs() {
        var hashes = [UInt64](repeating: 0, count: 64)
        var touched: Int32 = 0
        var start = 0
        while start < values.count {
            let end = min(start + 64, values.count)
            for v in start..<end { hashes[v - start] = PartyIDTable.hash(values[v].id) }
            for k in 0..<(end - start) { touched |= ids.touch(hashes[k]) }
            for v in start..<end {
                let h = hashes[v - start]
                let id = values[v].id
                let vals = values
                if let old = ids.find(h, { vals[Int($0)].id == id }) {
                    values[Int(old)] = PartyIndex.vacant
                    _ = ids.update(h, { $0 == old }, to: Int32(v))
                } else {
                    ids.insert(h, Int32(v))
                }
            }
            start = end
        }
        bulkLoadProbe = touched
    }

    /// Sorts by key, keeping the input order of equal keys (LSD radix sort, a byte a pass,
    /// only over the bytes the largest key uses).
    static func radixSort(_ a: inout ContiguousArray<(key: UInt64, value: Int32)>) {
        let n = a.count
        guard n > 1 else { return }
        let maxKey = a.reduce(0) { max($0, $1.key) }
        var passes = 0
        while passes < 8 && maxKey >> UInt64(8 * passes) != 0 { passes += 1 }
        var b = a
        var counts = [Int](repeating: 0, count: 256)
        for pass in 0..<passes {
            let shift = UInt64(8 * pass)
            for i in 0..<256 { counts[i] = 0 }
            a.withUnsafeBufferPointer { src in
                for e in src { counts[Int((e.key >> shift) & 0xFF)] += 1 }
            }
            var sum = 0
            for i in 0..<256 {
                let c = counts[i]
                counts[i] = sum
                sum += c
            }
            a.withUnsafeBufferPointer { src in
                b.withUnsafeMutableBufferPointer { dst in
                    for e in src {
                        let d = Int((e.key >> shift) & 0xFF)
                        dst[counts[d]] = e
                        counts[d] += 1
                    }
                }
            }
            swap(&a, &b)
        }
    }

    /// Makes room for `n` parties without reallocating.
    public mutating func reserveCapacity(_ n: Int) {
        slots.reserveCapacity(n)
        values.reserveCapacity(n)
        slotOfValue.reserveCapacity(n)
        ids.reserve(n)
    }

    /// Number of parties indexed.
    public var count: Int { ids.count }

    /// Where the party `id` is kept in `values`.
    @inline(__always)
    func valueIndex(_ id: String) -> Int32? {
        ids.find(PartyIDTable.hash(id)) { values[Int($0)].id == id }
    }

    /// The party with `id`, if indexed.
    public func party(id: String) -> Party? {
        guard let v = valueIndex(id) else { return nil }
        return values[Int(v)]
    }

    /// The party of slot `s`.
    @inline(__always)
    func party(slot s: Int32) -> Party? {
        let p = values[Int(slots[Int(s)].value)]
        return p.id.isEmpty ? nil : p
    }

    /// What a freed entry of `values` holds.
    static let vacant = Party(id: "", origin: Coordinate(lon: 0, lat: 0), destination: Coordinate(lon: 0, lat: 0),
                              departAt: 0, seatsTotal: 0, seatsTaken: 0)

    /// Every indexed party, in no particular order.
    public var allParties: [Party] { values.filter { !$0.id.isEmpty } }

    /// Adds `party`, or replaces the one with its id. Returns the party it replaced.
    @discardableResult
    public mutating func upsert(_ party: Party) -> Party? {
        prepareTileCacheForWrite()
        let n = WebMercator.normalized(party.origin)
        let c = cell(x: n.x, y: n.y)
        if let v = valueIndex(party.id) {
            let s = slotOfValue[Int(v)]
            let i = Int(s)
            let old = values[Int(v)]
            values[Int(v)] = party
            slots[i].departAt = party.departAt
            slots[i].seatsLeft = Int32(party.seatsLeft)
            // Same place: only the filterable fields change; the tree is untouched.
            if slots[i].x == n.x && slots[i].y == n.y { return old }
            let oldX = slots[i].cellX, oldY = slots[i].cellY
            unlink(s)
            slots[i].x = n.x
            slots[i].y = n.y
            slots[i].cellX = Int32(c.x)
            slots[i].cellY = Int32(c.y)
            link(s)
            refreshExpansion(cellX: oldX, cellY: oldY)
            refreshExpansion(cellX: Int32(c.x), cellY: Int32(c.y))
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
            values.append(PartyIndex.vacant)
            slotOfValue.append(s)
        }
        values[Int(slot.value)] = party
        ids.insert(PartyIDTable.hash(party.id), slot.value)
        link(s)
        refreshExpansion(cellX: slot.cellX, cellY: slot.cellY)
        return nil
    }

    /// Gives this index a cache of its own before a write, when a copy shares it (a copy's
    /// kept tiles describe its own tree, which the write is about to leave).
    @inline(__always)
    mutating func prepareTileCacheForWrite() {
        if !isKnownUniquelyReferenced(&tileCache) { tileCache = TileCache() }
    }

    /// Removes the party with `id`; returns it, or nil when absent.
    @discardableResult
    public mutating func remove(id: String) -> Party? {
        let vals = values
        guard let v = ids.remove(PartyIDTable.hash(id), { vals[Int($0)].id == id }) else { return nil }
        prepareTileCacheForWrite()
        let s = slotOfValue[Int(v)]
        unlink(s)
        refreshExpansion(cellX: slots[Int(s)].cellX, cellY: slots[Int(s)].cellY)
        let old = values[Int(v)]
        values[Int(v)] = PartyIndex.vacant
        freeSlots.append(s)
        return old
    }
}

import Foundation

/// The groups a greedy merge forms among the occupied cells of one tile (see
/// `PartyIndex+Tiles`): a function of the parties in the tile alone.
struct TileEntry {
    /// One group: a lone party or a cluster.
    struct Group {
        /// Parties in the group.
        var count: Int32
        /// The lone party's slot (count 1), else −1.
        var lone: Int32
        /// The group's cluster in `clusters` (count > 1), else −1.
        var cluster: Int32
        /// Its cells: `cells[firstCell ..< firstCell + cellCount]`.
        var firstCell: Int32
        var cellCount: Int32
        /// Morton key of its first cell in merge order (distinct among groups).
        var key: UInt64
        /// Sums of its parties' normalised positions.
        var sumX: Double
        var sumY: Double
        /// Its tile (x << 32 | y, at the tile depth) and whether its centroid lies within the
        /// radius (and a pixel) of the tile's edge: only such groups may merge across tiles.
        /// Set by `PartyIndex.markTiles`.
        var tile: Int64 = 0
        var nearBorder = true
    }

    /// The extent of a group's cells (cells at the tile's zoom), apart from the groups so an
    /// answer's scan for the groups in view reads little memory.
    struct Box {
        var minX: Int32
        var minY: Int32
        var maxX: Int32
        var maxY: Int32
    }

    var groups: [Group] = []
    /// The extent of each group's cells.
    var boxes: [Box] = []
    /// The cells of every group, one run per group, each with the node covering it.
    var cells: [CellRef] = []
    /// The cluster feature of each group of two or more parties (expansion zoom included).
    var clusters: [Cluster] = []

    mutating func removeAll() {
        groups.removeAll(keepingCapacity: true)
        boxes.removeAll(keepingCapacity: true)
        cells.removeAll(keepingCapacity: true)
        clusters.removeAll(keepingCapacity: true)
    }
}

/// Tile entries of unfiltered answers, kept between queries and dropped when a write
/// touches their tile: the tile of zoom z is a tree node at depth `z − tileLevels` (0 for the
/// lowest zooms, whose tiles share the roots), and every write passes through the nodes above
/// its party, so it drops exactly the stale entries.
///
/// Shared by copies of an index until one of them writes (it then takes a fresh, empty
/// cache: `PartyIndex.prepareTileCacheForWrite`), so an entry always describes the tree of
/// every index holding it. Queries may run at once on copies sharing it: lookups and stores
/// take a lock. Drops come only from a write, which has the cache to itself.
final class TileCache: @unchecked Sendable {
    private let lock = NSLock()
    /// Per zoom: entry index by tile node (−1 none); grown on demand.
    private var byNode: [[Int32]]
    private var entries: [TileEntry] = []
    private var free: [Int32] = []
    /// Groups held by all entries (a memory bound: past `maxGroups` all are dropped).
    private(set) var groupCount = 0
    /// Most groups kept: past it everything is dropped and tiles are merged again as queries
    /// need them.
    let maxGroups: Int

    /// A cache of at most `maxGroups` groups; the default, about 125 bytes a group with its
    /// extent, cells and cluster, bounds it to about 130 MB.
    init(maxGroups: Int = 1 << 20) {
        self.maxGroups = maxGroups
        byNode = Array(repeating: [], count: PartyIndex.maxZoom + 1)
    }

    /// Number of entries held (for tests and benchmarks).
    var entryCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.count - free.count
    }

    /// The entry of tile node `node` at `zoom`, computing and keeping it with `make` when absent.
    func entry(zoom: Int, node: Int32, make: () -> TileEntry) -> TileEntry {
        lock.lock()
        defer { lock.unlock() }
        if Int(node) < byNode[zoom].count, case let e = byNode[zoom][Int(node)], e >= 0 { return entries[Int(e)] }
        let made = make()
        if groupCount + made.groups.count > maxGroups { dropEverything() }
        let e: Int32
        if let f = free.popLast() {
            e = f
            entries[Int(f)] = made
        } else {
            e = Int32(entries.count)
            entries.append(made)
        }
        if byNode[zoom].count <= Int(node) {
            byNode[zoom].append(contentsOf: repeatElement(-1, count: Int(node) + 1 - byNode[zoom].count))
        }
        byNode[zoom][Int(node)] = e
        groupCount += made.groups.count
        return made
    }

    /// The entry of tile node `node` at `zoom` if one is kept (for tests).
    func kept(zoom: Int, node: Int32) -> TileEntry? {
        lock.lock()
        defer { lock.unlock() }
        guard Int(node) < byNode[zoom].count, case let e = byNode[zoom][Int(node)], e >= 0 else { return nil }
        return entries[Int(e)]
    }

    /// Every kept entry's zoom and tile node (for tests).
    var keptTiles: [(zoom: Int, node: Int32)] {
        lock.lock()
        defer { lock.unlock() }
        var out = [(zoom: Int, node: Int32)]()
        for (z, slots) in byNode.enumerated() {
            for (n, e) in slots.enumerated() where e >= 0 { out.append((z, Int32(n))) }
        }
        return out
    }

    /// Drops the entries of tree node `node` at `depth` (a tile of one zoom, or of the lowest
    /// zooms at depth 0), if any. Only a write calls it (no lock).
    @inline(__always)
    func drop(depth: Int, node: Int32) {
        if depth > 0 {
            drop(zoom: depth + PartyIndex.tileLevels, node: node)
        } else {
            for z in 0...PartyIndex.tileLevels { drop(zoom: z, node: node) }
        }
    }

    @inline(__always)
    private func drop(zoom: Int, node: Int32) {
        guard zoom < byNode.count, Int(node) < byNode[zoom].count else { return }
        let e = byNode[zoom][Int(node)]
        guard e >= 0 else { return }
        byNode[zoom][Int(node)] = -1
        groupCount -= entries[Int(e)].groups.count
        entries[Int(e)] = TileEntry()
        free.append(e)
    }

    private func dropEverything() {
        for d in 0..<byNode.count { byNode[d].removeAll() }
        entries.removeAll()
        free.removeAll()
        groupCount = 0
    }
}

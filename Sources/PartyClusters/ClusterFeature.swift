import Geo
import PartyModel

/// A cluster in an answer: several parties shown as one point.
public struct Cluster: Sendable, Hashable {
    /// Its cells at its zoom; use it for leaves and children.
    public let id: ClusterID
    /// The centroid of its parties' origins.
    public let coordinate: Coordinate
    /// How many parties it holds.
    public let count: Int
    /// The least zoom at which its parties show as more than one feature (merged among
    /// themselves); `PartyIndex.maxZoom + 1` when they lie so close together that no zoom
    /// splits them (list them with leaves instead).
    public let expansionZoom: Int
}

/// One feature of a cluster answer: a cluster, or a party shown alone.
public enum ClusterFeature: Sendable, Hashable {
    case cluster(Cluster)
    case party(Party)

    /// Where the feature is drawn.
    public var coordinate: Coordinate {
        switch self {
        case .cluster(let c): return c.coordinate
        case .party(let p): return p.origin
        }
    }

    /// How many parties it stands for.
    public var count: Int {
        switch self {
        case .cluster(let c): return c.count
        case .party: return 1
        }
    }
}

/// Buffers a cluster answer works in, kept between answers so that a warmed-up query
/// allocates little. A value: keep one per thread (or per lock holder) and pass it `inout`.
public struct ClusterQueryScratch: Sendable {
    var refs: [CellRef] = []
    var kept: [CellRef] = []
    var merger = ClusterMerger()
    var small = ClusterMerger()
    var below: [CellRef] = []
    var aggregates: [(count: Int, sumX: Double, sumY: Double)] = []
    /// Clusters awaiting their expansion zoom (−1 until known).
    var pending = Pending()
    typealias Pending = [(group: Int, cells: Range<Int>, children: Range<Int>, expansion: Int)]
    var pendingCells: [ClusterID.Cell] = []
    var current: [CellRef] = []
    var deeper: [CellRef] = []
    var deeperAggregates: [(count: Int, sumX: Double, sumY: Double)] = []
    /// The features of one split check (`PartyIndex.splitsAtNextZoom`, `splitsBelow`,
    /// `mergedCount`): `ClusterMerger.smallCapacity` of them are too large for a stack
    /// buffer, which would then be allocated on the heap each time.
    var splitBuffer: [ClusterMerger.SmallFeature] = []
    /// The tiles of an answer (`PartyIndex+Tiles`): their nodes, their entries (kept ones and
    /// `loose`, which gathers the groups formed for this answer alone), the merge across
    /// tiles, and the groups it took (entry, group).
    var tiles: [CellRef] = []
    var entries: [TileEntry] = []
    var loose = TileEntry()
    var acrossTiles = TileBorderMerger()
    var picks: [(entry: Int32, group: Int32)] = []

    /// Makes `splitBuffer` `ClusterMerger.smallCapacity` long.
    mutating func reserveSplitBuffer() {
        if splitBuffer.count < ClusterMerger.smallCapacity { splitBuffer = ClusterQueryScratch.newSplitBuffer() }
    }

    /// Swaps the buffers an answer's group loop works on with the caller's variables: once to
    /// move them out (so the loop holds them without copying, which would retain every buffer),
    /// once to put them back.
    mutating func trade(_ merger: inout ClusterMerger, _ kept: inout [CellRef], _ splitBuffer: inout [ClusterMerger.SmallFeature],
                        _ pending: inout Pending, _ pendingCells: inout [ClusterID.Cell], _ below: inout [CellRef])
    {
        swap(&merger, &self.merger)
        swap(&kept, &self.kept)
        swap(&splitBuffer, &self.splitBuffer)
        swap(&pending, &self.pending)
        swap(&pendingCells, &self.pendingCells)
        swap(&below, &self.below)
    }

    static func newSplitBuffer() -> [ClusterMerger.SmallFeature] {
        Array(repeating: ClusterMerger.SmallFeature(key: 0, w: 0, sx: 0, sy: 0), count: ClusterMerger.smallCapacity)
    }

    public init() {}
}

/// A grid cell at some zoom together with the tree node that covers exactly its parties:
/// the node of that cell, or a single-party leaf higher up whose party lies in it.
struct CellRef {
    var node: Int32
    /// The node's depth: the cell's zoom, or less for a single-party leaf.
    var depth: Int32
    var x: Int32
    var y: Int32

    /// The cell's place in quadtree (Morton) order among the cells of its zoom: the order the
    /// tree is walked in, so cells gathered by a walk come sorted.
    @inline(__always)
    func key(zoom: Int) -> UInt64 { PartyIndex.mortonKey(Int(x), Int(y)) }
}

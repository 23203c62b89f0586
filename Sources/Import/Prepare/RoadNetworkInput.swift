import Routing

/// How a car may use a way of the input: class, directions, speed caps, name.
public struct WayRule: Sendable, Equatable {
    public var roadClass: RoadClass
    /// Travel allowed in the way's node order.
    public var forward: Bool
    /// Travel allowed against the way's node order.
    public var backward: Bool
    /// Speed cap in km/h in each direction (OSM: the parsed `maxspeed`, else the class default).
    public var capForwardKmh: Int
    public var capBackwardKmh: Int
    /// The street name (OSM: `name`, else `ref`), or nil.
    public var name: String?
    /// The input's hourly speed row of the way (node-link import with measured speeds), or -1
    /// for the traffic profile by class and cap.
    public var speedRow: Int = -1
}

/// A node-via turn restriction of the input, before it is tied to graph edges.
struct InputRestriction: Sendable {
    /// The restriction's id in its source (OSM: the relation id), unique within the input.
    var id: Int64
    var kind: TurnRestrictionKind
    /// The restriction names a U-turn (OSM: `no_u_turn`, `only_u_turn`).
    var uTurn: Bool
    var fromWay: Int64
    var viaNode: Int64
    var toWay: Int64
}

/// What the prepare stage builds a road graph from, whatever the source (an OSM file, the
/// node-link network): node positions, the drivable ways with their rules, nodes that block
/// cars, node-via turn restrictions, and how much of the source was read.
struct RoadNetworkInput {
    /// Every node of the input (ids ascending after `finish()`), position in 1e-7 degrees.
    var nodeIds: [Int64] = []
    var nodeLat: [Int32] = []
    var nodeLon: [Int32] = []
    var nodesSorted = true
    var blockedNodes = Set<Int64>()
    var invalidNodes = 0

    /// Drivable ways: id in the source (OSM way, node-link link), rule, and node refs `refs[wayFirstRef[i] ..< wayFirstRef[i+1]]`.
    var wayIds: [Int64] = []
    var wayRules: [WayRule] = []
    var wayFirstRef: [UInt32] = [0]
    var refs: [Int64] = []
    /// The real length (cm) of each way when its points are not its shape (the node-link
    /// network's straight links); empty means lengths are measured along the points.
    var wayLengthCm: [UInt32] = []
    /// Hourly speed rows a way's `WayRule.speedRow` names: 24 km/h each, with whether each hour
    /// was measured. Empty (OSM): speeds come from the traffic profile by class and cap.
    var speedRows: [[Double]] = []
    var speedRowMeasured: [[Bool]] = []

    var restrictions: [InputRestriction] = []
    /// Restrictions left out: via ways, missing members, exceptions for cars, unknown kinds.
    var skippedRestrictions = 0

    /// Records read from the source (OSM: nodes, ways, relations; node-link: nodes, links, turn rows).
    var totalNodes = 0
    var totalWays = 0
    var totalRelations = 0
    /// Nodes found in more than one merged input file (kept once).
    var sharedNodes = 0

    /// Sorts nodes by id when the source did not list them in order.
    mutating func finish() {
        guard !nodesSorted else { return }
        let order = nodeIds.indices.sorted { nodeIds[$0] < nodeIds[$1] }
        nodeIds = order.map { nodeIds[$0] }
        nodeLat = order.map { nodeLat[$0] }
        nodeLon = order.map { nodeLon[$0] }
        nodesSorted = true
    }

    /// The index of node `id` in the node arrays, or nil.
    @inline(__always)
    func nodeIndex(_ id: Int64) -> Int? {
        var lo = 0, hi = nodeIds.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if nodeIds[mid] < id { lo = mid + 1 } else { hi = mid }
        }
        return lo < nodeIds.count && nodeIds[lo] == id ? lo : nil
    }
}


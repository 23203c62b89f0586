/// The prepared road graph as plain arrays: what `GraphFile` writes and `RoadGraph` maps.
///
/// - Nodes are road junctions (and, for turn restrictions, copies of a junction per
///   restricted approach); positions in 1e-7 degrees.
/// - Edges in CSR order (`firstOut`), each with its head node, length (cm), speed combo
///   (road class + speed cap) and the piece of road it runs along (`piece << 1 | reversed`).
/// - A piece is a stretch of one OSM way between junctions: its points, cumulative
///   offsets (cm), street name, and the edges that run along it (both directions and
///   restriction copies).
/// - Landmarks: per node `2·L` values, first the distances from each landmark to the node,
///   then from the node to each landmark, on lower-bound travel time (ms) and on distance (cm).
/// - A uniform grid over segment start points for snapping.
/// - A contraction hierarchy of the lower-bound travel times (ms), for the CH potential.
struct GraphData {
    var nodeLat: [Int32] = []
    var nodeLon: [Int32] = []
    var firstOut: [UInt32] = [0]
    var head: [UInt32] = []
    var length: [UInt32] = []
    var combo: [UInt16] = []
    var edgePiece: [UInt32] = []

    var pieceFirstPoint: [UInt32] = [0]
    var pieceName: [UInt32] = []
    var pieceFirstEdge: [UInt32] = [0]
    var pieceEdges: [UInt32] = []
    var pointLat: [Int32] = []
    var pointLon: [Int32] = []
    var pointOffset: [UInt32] = []

    var comboClass: [UInt8] = []
    var comboCapKmh: [UInt8] = []
    var comboBoundQ: [UInt64] = []
    /// The per-class speed (km/h) the lower bounds were computed with (fastest hour of the profile).
    var boundSpeedKmh: [Double] = []
    /// Per hour (24 rows), per speed combo: the time factors of the profile the hierarchy was
    /// prepared with; its witnesses hold for each of these metrics (see `WitnessMargin`).
    var hourQ: [UInt64] = []

    var nameOffsets: [UInt32] = [0]
    var nameBytes: [UInt8] = []

    var landmarkNodes: [UInt32] = []
    var landmarkTime: [UInt32] = []
    var landmarkDistance: [UInt32] = []

    var grid = GridParameters()
    var gridCellFirst: [UInt32] = [0]
    var gridItems: [UInt32] = []

    var ch = ContractionHierarchy()

    /// The served area (connected component, 0 = largest) of each node.
    var nodeArea: [UInt32] = []
    /// Route length over straight-line length by distance band, measured at import.
    var circuity = CircuityTable()

    /// The import report as JSON text.
    var metadata: [UInt8] = []

    var nodeCount: Int { nodeLat.count }
    var edgeCount: Int { head.count }
    var pieceCount: Int { pieceName.count }
}

/// The snapping grid: cells of `cellLat × cellLon` degrees from (`originLat`, `originLon`).
struct GridParameters: Sendable {
    var originLat = 0.0
    var originLon = 0.0
    var cellLat = 1.0
    var cellLon = 1.0
    var rows = 1
    var cols = 1
}

/// Fixed-point speed factors: travel time in ms of one centimetre at a speed, scaled by 2^20.
enum SpeedFactor {
    static let shift: UInt64 = 20

    /// ms per cm at `kmh`, times 2^20, rounded.
    static func q(kmh: Double) -> UInt64 { UInt64((36.0 / kmh * Double(1 << shift)).rounded()) }

    /// Travel time in ms of `cm` centimetres, rounded up.
    @inline(__always)
    static func time(cm: UInt32, q: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: min((UInt64(cm) &* q &+ ((1 << shift) - 1)) >> shift, UInt64(UInt32.max >> 2)))
    }

    /// Per hour, per speed combo (class and speed cap): the factor of the edge times at that hour.
    static func hourFactors(_ profile: TrafficProfile, comboClass: [UInt8], comboCapKmh: [UInt8]) -> [[UInt64]] {
        (0..<24).map { h in
            zip(comboClass, comboCapKmh).map { c, cap in
                q(kmh: min(profile.speed(RoadClass(rawValue: c) ?? .service, hour: h), Double(cap)))
            }
        }
    }

    /// Lower-bound travel time in ms of `cm` centimetres, rounded down.
    @inline(__always)
    static func lowerBound(cm: UInt32, q: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: min((UInt64(cm) &* q) >> shift, UInt64(UInt32.max >> 2)))
    }
}

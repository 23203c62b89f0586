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
package struct GraphData {
    package var nodeLat: [Int32] = []
    package var nodeLon: [Int32] = []
    package var firstOut: [UInt32] = [0]
    package var head: [UInt32] = []
    package var length: [UInt32] = []
    package var combo: [UInt16] = []
    package var edgePiece: [UInt32] = []

    package var pieceFirstPoint: [UInt32] = [0]
    package var pieceName: [UInt32] = []
    package var pieceFirstEdge: [UInt32] = [0]
    package var pieceEdges: [UInt32] = []
    package var pointLat: [Int32] = []
    package var pointLon: [Int32] = []
    package var pointOffset: [UInt32] = []

    package var comboClass: [UInt8] = []
    package var comboCapKmh: [UInt8] = []
    package var comboBoundQ: [UInt64] = []
    /// The per-class speed (km/h) the lower bounds were computed with (fastest hour of the profile).
    package var boundSpeedKmh: [Double] = []
    /// Per hour (24 rows), per speed combo: the time factors of the profile the hierarchy was
    /// prepared with; its witnesses hold for each of these metrics (see `WitnessMargin`).
    package var hourQ: [UInt64] = []
    /// Per hour (24 rows), per speed combo: the speed (km/h) of the combo's edges, when the import
    /// set one (node-link with measured speeds: per-link measured speeds and the profile by road
    /// rank calibrated on them); empty when speeds come from the traffic profile by class and cap.
    package var comboHourSpeed: [Double] = []
    /// Same indexing: 1 where that speed was measured (TOPIS) at that hour, else 0; empty with it.
    package var comboHourMeasured: [UInt8] = []

    package var nameOffsets: [UInt32] = [0]
    package var nameBytes: [UInt8] = []

    package var landmarkNodes: [UInt32] = []
    package var landmarkTime: [UInt32] = []
    package var landmarkDistance: [UInt32] = []

    package var grid = GridParameters()
    package var gridCellFirst: [UInt32] = [0]
    package var gridItems: [UInt32] = []

    package var ch = ContractionHierarchy()

    /// The served area (connected component, 0 = largest) of each node.
    package var nodeArea: [UInt32] = []
    /// Route length over straight-line length by distance band, measured at import.
    package var circuity = CircuityTable()

    /// The import report as JSON text.
    package var metadata: [UInt8] = []

    package init() {}

    package var nodeCount: Int { nodeLat.count }
    package var edgeCount: Int { head.count }
    package var pieceCount: Int { pieceName.count }
}

/// The snapping grid: cells of `cellLat × cellLon` degrees from (`originLat`, `originLon`).
package struct GridParameters: Sendable {
    package var originLat = 0.0
    package var originLon = 0.0
    package var cellLat = 1.0
    package var cellLon = 1.0
    package var rows = 1
    package var cols = 1
}

/// Fixed-point speed factors: travel time in ms of one centimetre at a speed, scaled by 2^20.
package enum SpeedFactor {
    package static let shift: UInt64 = 20

    /// ms per cm at `kmh`, times 2^20, rounded.
    package static func q(kmh: Double) -> UInt64 { UInt64((36.0 / kmh * Double(1 << shift)).rounded()) }

    /// Travel time in ms of `cm` centimetres, rounded up.
    @inline(__always)
    package static func time(cm: UInt32, q: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: min((UInt64(cm) &* q &+ ((1 << shift) - 1)) >> shift, UInt64(UInt32.max >> 2)))
    }

    /// Per hour, per speed combo (class and speed cap): the factor of the edge times at that hour.
    /// `comboHourSpeed` (24 × combos, km/h), when not empty, gives the speeds instead of the profile.
    package static func hourFactors(_ profile: TrafficProfile, comboClass: [UInt8], comboCapKmh: [UInt8],
                                    comboHourSpeed: [Double] = []) -> [[UInt64]] {
        let combos = comboClass.count
        if !comboHourSpeed.isEmpty {
            return (0..<24).map { h in (0..<combos).map { q(kmh: comboHourSpeed[h * combos + $0]) } }
        }
        return (0..<24).map { h in
            zip(comboClass, comboCapKmh).map { c, cap in
                q(kmh: min(profile.speed(RoadClass(rawValue: c) ?? .service, hour: h), Double(cap)))
            }
        }
    }

    /// Lower-bound travel time in ms of `cm` centimetres, rounded down.
    @inline(__always)
    package static func lowerBound(cm: UInt32, q: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: min((UInt64(cm) &* q) >> shift, UInt64(UInt32.max >> 2)))
    }
}

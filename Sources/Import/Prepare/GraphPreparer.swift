import Foundation
import Routing

/// Why a road network could not be prepared: the source and the cause.
struct PrepareError: Error, CustomStringConvertible, Sendable {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Junction graph → restriction copies → largest SCC → spatial order → landmarks and grid.
enum GraphPreparer {
    static func prepare(_ x: RoadNetworkInput, profile: TrafficProfile, landmarks: Int, source: String,
                        report: inout ImportReport, progress: ((String) -> Void)?) throws(PrepareError) -> GraphData
    {
        report.osmNodes = x.totalNodes; report.osmWays = x.totalWays; report.osmRelations = x.totalRelations
        report.drivableWays = x.wayIds.count
        let jb = JunctionGraphBuilder(x)
        report.missingNodeRefs = jb.missingNodeRefs; report.blockedNodeRefs = jb.blockedNodeRefs
        guard jb.edges.count > 0 else { throw PrepareError("\(source): no drivable road in the file") }
        let junctions = jb.junctionLat.count
        let rx = RestrictionExpansion(junctionCount: junctions, edges: jb.edges, pieceWay: jb.pieces.way, input: x,
                                      junctionOf: jb.junctionOf)
        report.junctions = junctions; report.restrictionCopies = rx.copyOf.count
        report.restrictionsApplied = rx.applied; report.restrictionsSkipped = rx.skipped
        let total = junctions + rx.copyOf.count
        var lat = jb.junctionLat, lon = jb.junctionLon
        for j in rx.copyOf { lat.append(jb.junctionLat[Int(j)]); lon.append(jb.junctionLon[Int(j)]) }
        let edges = rx.edges
        progress?("junction graph: \(total) nodes, \(edges.count) edges")

        // Strongly connected components: each one of useful size is a served area.
        let bySourceFirst = JunctionGraph.firstIndex(keys: edges.source, count: total)
        let bySource = JunctionGraph.grouped(keys: edges.source, first: bySourceFirst)
        let scc = GraphAlgorithms.stronglyConnectedComponents(nodeCount: total, firstOut: bySourceFirst,
                                                              head: bySource.map { edges.target[Int($0)] })
        report.components = scc.count
        var componentSize = [Int](repeating: 0, count: scc.count)
        for v in 0..<total { componentSize[Int(scc.component[v])] += 1 }
        let keptComponents = componentSize.indices
            .filter { $0 == Int(scc.largest) || componentSize[$0] >= report.minAreaNodes }
            .sorted { componentSize[$0] != componentSize[$1] ? componentSize[$0] > componentSize[$1] : $0 < $1 }
        var areaOfComponent = [Int32](repeating: -1, count: scc.count)
        for (a, c) in keptComponents.enumerated() { areaOfComponent[c] = Int32(a) }
        report.areaNodes = keptComponents.map { componentSize[$0] }
        var keptIndex: [Int] = []
        for v in 0..<total where areaOfComponent[Int(scc.component[v])] >= 0 { keptIndex.append(v) }
        let spatial = GraphAlgorithms.hilbertOrder(lat: keptIndex.map { lat[$0] }, lon: keptIndex.map { lon[$0] })
        var newId = [Int32](repeating: -1, count: total)
        for (k, i) in spatial.enumerated() { newId[keptIndex[i]] = Int32(k) }
        let n = keptIndex.count

        // Kept edges in CSR order; pieces that keep an edge, in spatial order.
        var keptEdges: [UInt32] = []
        for v in keptIndex {
            for k in Int(bySourceFirst[v])..<Int(bySourceFirst[v + 1]) {
                let e = Int(bySource[k])
                if newId[Int(edges.target[e])] >= 0 { keptEdges.append(UInt32(e)) }
            }
        }
        report.removedNodes = total - n; report.removedEdges = edges.count - keptEdges.count
        guard !keptEdges.isEmpty else { throw PrepareError("\(source): no road of the file can be driven both to and from another") }
        var pieceUsed = [Bool](repeating: false, count: jb.pieces.count)
        for e in keptEdges { pieceUsed[Int(edges.pieceDir[Int(e)] >> 1)] = true }
        let usedPieces = (0..<jb.pieces.count).filter { pieceUsed[$0] }
        let pieceOrder = GraphAlgorithms.hilbertOrder(lat: usedPieces.map { jb.pieces.pointLat[Int(jb.pieces.firstPoint[$0])] },
                                                      lon: usedPieces.map { jb.pieces.pointLon[Int(jb.pieces.firstPoint[$0])] })
        var newPiece = [Int32](repeating: -1, count: jb.pieces.count)
        for (k, i) in pieceOrder.enumerated() { newPiece[usedPieces[i]] = Int32(k) }

        var g = GraphData()
        g.nodeLat = [Int32](repeating: 0, count: n)
        g.nodeLon = [Int32](repeating: 0, count: n)
        g.nodeArea = [UInt32](repeating: 0, count: n)
        for v in keptIndex {
            g.nodeLat[Int(newId[v])] = lat[v]; g.nodeLon[Int(newId[v])] = lon[v]
            g.nodeArea[Int(newId[v])] = UInt32(areaOfComponent[Int(scc.component[v])])
        }
        let newSource = keptEdges.map { UInt32(newId[Int(edges.source[Int($0)])]) }
        g.firstOut = JunctionGraph.firstIndex(keys: newSource, count: n)
        let csr = JunctionGraph.grouped(keys: newSource, first: g.firstOut).map { keptEdges[Int($0)] }
        g.head = csr.map { UInt32(newId[Int(edges.target[Int($0)])]) }
        g.length = csr.map { edges.length[Int($0)] }
        g.combo = csr.map { edges.combo[Int($0)] }
        g.edgePiece = csr.map { UInt32(newPiece[Int(edges.pieceDir[Int($0)] >> 1)]) << 1 | (edges.pieceDir[Int($0)] & 1) }
        let edgePieceIds = g.edgePiece.map { $0 >> 1 }
        g.pieceFirstEdge = JunctionGraph.firstIndex(keys: edgePieceIds, count: usedPieces.count)
        g.pieceEdges = JunctionGraph.grouped(keys: edgePieceIds, first: g.pieceFirstEdge)
        for i in pieceOrder {
            let old = usedPieces[i]
            let lo = Int(jb.pieces.firstPoint[old]), hi = Int(jb.pieces.firstPoint[old + 1])
            g.pointLat.append(contentsOf: jb.pieces.pointLat[lo..<hi])
            g.pointLon.append(contentsOf: jb.pieces.pointLon[lo..<hi])
            g.pointOffset.append(contentsOf: jb.pieces.pointOffset[lo..<hi])
            g.pieceFirstPoint.append(UInt32(g.pointLat.count))
            g.pieceName.append(jb.names.pieceName[old])
        }
        g.nameOffsets = jb.names.offsets
        g.nameBytes = jb.names.bytes

        // Lower bounds: each hour's edge times divided by that hour's congestion factor (how much
        // slower than its fastest hour every class is), the smallest over the day. Uncapped
        // edges get exactly their fastest-hour time; at any hour h the bound times the
        // factor stays below the true time, so queries can scale the potential up by it.
        g.boundSpeedKmh = RoadClass.allCases.map { c in (0..<24).map { profile.speed(c, hour: $0) }.max() ?? 1 }
        let congestion = (0..<24).map { h in
            RoadClass.allCases.map { c in g.boundSpeedKmh[Int(c.rawValue)] / profile.speed(c, hour: h) }.min() ?? 1
        }
        g.comboClass = jb.combos.roadClass
        g.comboCapKmh = jb.combos.capKmh
        if x.speedRows.isEmpty {
            g.comboBoundQ = zip(jb.combos.roadClass, jb.combos.capKmh).map { c, cap in
                let cls = RoadClass(rawValue: c) ?? .service
                let q = (0..<24).map { h in
                    (Double(SpeedFactor.q(kmh: min(profile.speed(cls, hour: h), Double(cap)))) / congestion[h]).rounded(.down)
                }.min() ?? 1
                return UInt64(max(1, q))
            }
        } else {
            // Speeds set by the import (node-link with measured speeds): each combo's own row;
            // the lower bound of a combo is its fastest hour.
            guard jb.combos.roadClass.count <= Int(UInt16.max) + 1 else {
                throw PrepareError("\(source): \(jb.combos.roadClass.count) distinct speed rows, more than the graph file holds (65,536)")
            }
            let combos = jb.combos.roadClass.count
            g.comboHourSpeed = [Double](repeating: 0, count: 24 * combos)
            g.comboHourMeasured = [UInt8](repeating: 0, count: 24 * combos)
            for c in 0..<combos {
                let row = jb.combos.speedRow[c]
                for h in 0..<24 {
                    let cls = RoadClass(rawValue: g.comboClass[c]) ?? .service
                    g.comboHourSpeed[h * combos + c] = row >= 0 ? x.speedRows[row][h]
                        : min(profile.speed(cls, hour: h), Double(g.comboCapKmh[c]))
                    g.comboHourMeasured[h * combos + c] = row >= 0 && x.speedRowMeasured[row][h] ? 1 : 0
                }
            }
            g.comboBoundQ = (0..<combos).map { c in
                max(1, (0..<24).map { SpeedFactor.q(kmh: g.comboHourSpeed[$0 * combos + c]) }.min() ?? 1)
            }
        }
        let lowerBoundTime = (0..<g.edgeCount).map { SpeedFactor.lowerBound(cm: g.length[$0], q: g.comboBoundQ[Int(g.combo[$0])]) }
        // The hierarchy's witnesses must hold at every hour of the profile, so that each hour's
        // customized weights give exact times.
        let hourQ = SpeedFactor.hourFactors(profile, comboClass: g.comboClass, comboCapKmh: g.comboCapKmh, comboHourSpeed: g.comboHourSpeed)
        g.hourQ = hourQ.flatMap { $0 }
        let margin = WitnessMargin.covering(boundQ: g.comboBoundQ, hourQ: hourQ)
        progress?("graph: \(n) nodes, \(g.edgeCount) edges; computing \(min(landmarks, n)) landmarks and a contraction hierarchy"
            + String(format: " (witness margin: scale %.2f, %.2f per hop)", margin.scale, margin.perHop))
        // The hierarchy is built on its own thread while the landmarks are computed.
        let hourTimes = witnessMetrics(margin: margin, hourQ: hourQ, length: g.length, combo: g.combo)
        let hierarchy = BackgroundResult { [firstOut = g.firstOut, head = g.head, progress = UncheckedProgress(report: progress)] in
            ContractionHierarchyBuilder.build(firstOut: firstOut, head: head, weight: lowerBoundTime, margin: margin, metrics: hourTimes,
                                              progress: progress.report)
        }
        let lm = LandmarkBuilder.compute(count: landmarks, firstOut: g.firstOut, head: g.head, lowerBoundTime: lowerBoundTime,
                                         length: g.length, progress: progress)
        // Circuity while the hierarchy is still being built on its own thread (it is the long pole).
        progress?("measuring circuity (route length over straight line) by distance band")
        g.circuity = CircuityMeasure.measure(firstOut: g.firstOut, head: g.head, weight: lowerBoundTime, length: g.length,
                                             nodeLat: g.nodeLat, nodeLon: g.nodeLon, nodeArea: g.nodeArea,
                                             edgeClass: g.combo.map { g.comboClass[Int($0)] })
        g.ch = hierarchy.value
        report.hierarchyEdges = g.ch.upHead.count + g.ch.downTail.count
        // A landmark in another area reaches no node of this one: 0 both ways, a bound of 0
        // for every query inside the area (no road joins two areas, so no query crosses).
        var lmTime = lm.time, lmDistance = lm.distance
        if report.areaNodes.count > 1 {
            for i in lmTime.indices where lmTime[i] == .max { lmTime[i] = 0 }
            for i in lmDistance.indices where lmDistance[i] == .max { lmDistance[i] = 0 }
        }
        guard !lmTime.contains(where: { $0 >= UInt32.max / 2 }), !lmDistance.contains(where: { $0 >= UInt32.max / 2 }) else {
            throw PrepareError("\(source): the road network is too large to prepare (distances beyond 21,000 km or 24 days of driving)")
        }
        g.landmarkNodes = lm.nodes; g.landmarkTime = lmTime; g.landmarkDistance = lmDistance
        let grid = SpatialGridBuilder.build(pointLat: g.pointLat, pointLon: g.pointLon, pieceFirstPoint: g.pieceFirstPoint)
        g.grid = grid.0; g.gridCellFirst = grid.cellFirst; g.gridItems = grid.items
        report.nodes = n; report.edges = g.edgeCount; report.pieces = g.pieceCount; report.landmarks = lm.nodes.count
        return g
    }
}

extension GraphPreparer {
    /// From this margin scale on, the hierarchy builder checks witnesses at every hour. Below it
    /// (profile speeds by road class: 1.19 on Seoul) the margin accepts most witnesses the hours
    /// would, and 24 weights of 4 bytes per arc while building would weigh on large imports
    /// (the 3M-node city's 2 GB budget); those hierarchies stay as they were.
    static let hourWitnessMinScale = 2.0

    /// The metrics the hierarchy builder checks witnesses in: each hour's edge times when the
    /// margin is wide (measured speeds per link: 18.9 on Seoul), none otherwise.
    static func witnessMetrics(margin: WitnessMargin, hourQ: [[UInt64]], length: [UInt32], combo: [UInt16]) -> [[UInt32]] {
        margin.scale >= hourWitnessMinScale ? hourEdgeTimes(hourQ: hourQ, length: length, combo: combo) : []
    }

    /// Each distinct hour's edge times (ms; hours with the same factors once), so that the
    /// hierarchy builder can check a witness against a shortcut at every hour.
    static func hourEdgeTimes(hourQ: [[UInt64]], length: [UInt32], combo: [UInt16]) -> [[UInt32]] {
        var distinct: [[UInt64]] = []
        for q in hourQ where !distinct.contains(q) { distinct.append(q) }
        return distinct.map { q in zip(length, combo).map { SpeedFactor.time(cm: $0, q: q[Int($1)]) } }
    }
}

/// A progress callback handed to a worker thread (the callers' callbacks only print a line).
struct UncheckedProgress: @unchecked Sendable {
    let report: ((String) -> Void)?
}

/// A value computed on a thread of its own; `value` waits for it.
final class BackgroundResult<T>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: T?

    init(_ work: @escaping @Sendable () -> T) {
        let thread = Thread { [self] in
            result = work()
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// The result, once the work has finished.
    var value: T {
        done.wait()
        done.signal()
        return result!
    }
}

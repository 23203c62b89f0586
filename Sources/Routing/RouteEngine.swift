import Foundation
import Geo

/// Route queries over a loaded graph: snapping, search, route assembly. Travel time: a
/// bidirectional query in the contraction hierarchy customized for the hour (`CHMetric`,
/// exact because the file's witnesses hold at every hour of the profile it was prepared
/// with); when the engine's profile differs from that one for the hour, or while the hour's
/// customization is being computed, A* (contraction-hierarchy potentials for trips over
/// `hierarchyMinMeters`, landmarks otherwise). Distance: A* with landmarks.
///
/// Safe to call from many threads at once: the graph is read-only and each query borrows
/// its scratch memory from a lock-protected pool.
///
/// Edge travel time at hour h = length / min(traffic speed of the edge's class at h, the
/// edge's speed cap), rounded up to the millisecond; on a graph whose import set hourly
/// speeds (node-link with TOPIS measured speeds), length / the edge's speed at h. The hour is the Seoul hour of the
/// departure, for the whole route. The lower-bound edge times (landmarks and the contraction
/// hierarchy) were computed on every edge's fastest hour; for a query at hour h they are
/// scaled up by the smallest ratio between that hour's edge times and the bounds, which
/// keeps the potential consistent, so A* returns exactly Dijkstra's cost.
public final class RouteEngine: @unchecked Sendable {
    /// The most via points a request may carry.
    public static let maxViaPoints = 25
    /// The largest snapping radius a request may ask for, metres.
    public static let maxSnapLimitMeters = 5000.0
    /// Landmarks used per query: those giving the best bound between source and target.
    public static let activeLandmarks = 8
    /// Straight-line distance (metres) from which a time query uses the CH potential rather
    /// than landmarks: the landmark search grows with the trip, the hierarchy's backward search
    /// costs about the same for every trip, so short trips are cheaper with landmarks (on
    /// central Seoul the two break even around 3-5 km).
    public static let hierarchyMinMeters = 4000.0

    /// Whether nodes `a` and `b` are at least `hierarchyMinMeters` apart (equirectangular).
    @inline(__always)
    func isFar(_ a: Int, _ b: Int) -> Bool {
        let dLat = Double(Int(graph.nodeLat[a]) - Int(graph.nodeLat[b])) * 1e-7
        let dLon = Double(Int(graph.nodeLon[a]) - Int(graph.nodeLon[b])) * 1e-7 * cosLat
        return (dLat * dLat + dLon * dLon) * (111_195 * 111_195) >= Self.hierarchyMinMeters * Self.hierarchyMinMeters
    }

    public let graph: RoadGraph
    public let profile: TrafficProfile
    /// Per hour, per speed combo: ms per cm × 2^20.
    let timeFactors: [[UInt64]]
    /// Per hour: the factor turning lower-bound times into admissible bounds of that hour's times.
    let heuristicScale: [Double]
    let pool: ScratchPool<SearchScratch>
    /// Scratch spaces of the many-to-many search (`table`).
    let tablePool: ScratchPool<TableScratch>
    /// Per hour: the first hour of the file's prepare-time profile with the same metric, when the
    /// hierarchy covers it (its customization is cached under that hour), else nil.
    private let hierarchyKey: [Int?]
    private let hierarchyMetrics: CHMetricCache
    /// Cosine of the graph's middle latitude, for distances in degrees.
    private let cosLat: Double
    /// Street names by id, decoded once.
    let names: [String]

    /// Memory for customized hierarchy metrics by default: 512 MiB, counted at `CHMetric.bytesPerArc`
    /// (28) per hierarchy arc (all 11 distinct hour metrics of central Seoul take 7 MB; a 3M-node
    /// city's take 268 MB each by that count, so 1 is kept).
    public static let defaultHierarchyCacheBytes = 512 << 20

    /// An engine over `graph` with `profile`'s speeds. Time routes use the graph's hierarchy,
    /// customized per distinct hour metric on first use; at most `hierarchyCacheBytes` of those
    /// (`CHMetric.bytesPerArc` per arc each, at least one) are kept, the least recently used dropped beyond it.
    public init(graph: RoadGraph, profile: TrafficProfile, hierarchyCacheBytes: Int = RouteEngine.defaultHierarchyCacheBytes) {
        self.graph = graph
        self.profile = profile
        let metricBytes = max(1, CHMetric.bytesPerArc * (graph.chUpHead.count + graph.chDownTail.count))
        hierarchyMetrics = CHMetricCache(capacity: max(0, hierarchyCacheBytes) / metricBytes)
        // The same factors the preparer stored as `hourQ` when this profile is the prepare-time one.
        // Speeds the import set (node-link with measured speeds) take the place of the profile's.
        let factors = SpeedFactor.hourFactors(profile, comboClass: Array(graph.comboClass), comboCapKmh: Array(graph.comboCap),
                                              comboHourSpeed: Array(graph.comboHourSpeed))
        timeFactors = factors
        heuristicScale = factors.map { q in
            var scale = Double.infinity
            for (c, qh) in q.enumerated() { scale = min(scale, Double(qh) / Double(graph.comboBoundQ[c])) }
            // Slightly below the exact ratio, so rounding in the product never overshoots.
            return scale.isFinite ? scale * (1 - 1e-9) : 1
        }
        let combos = graph.comboClass.count
        hierarchyKey = factors.map { q in
            guard graph.hasContractionHierarchy, graph.hourQ.count == 24 * combos else { return nil }
            return (0..<24).first { h in (0..<combos).allSatisfy { graph.hourQ[h * combos + $0] == q[$0] } }
        }
        pool = ScratchPool(nodeCount: graph.nodeCount)
        tablePool = ScratchPool(nodeCount: graph.nodeCount)
        cosLat = cos(Double(graph.nodeLat[graph.nodeCount / 2]) * 1e-7 * .pi / 180)
        names = (0..<max(1, graph.nameOffsets.count - 1)).map { graph.name($0) }
    }

    /// A point of a request, snapped: each way of standing on the road there.
    struct Endpoint {
        var edge: Int
        /// Position along the edge from its tail, 0…1.
        var fraction: Double
        var hit: SnapHit
    }

    /// The check of a request's via-point count: at most `maxViaPoints` (`tooManyViaPoints`).
    /// `route(_:)` makes it; a caller reading points from text may make it on the count first.
    public static func checkViaCount(_ count: Int) throws(RoutingError) {
        guard count <= maxViaPoints else { throw .tooManyViaPoints(count: count, limit: maxViaPoints) }
    }

    /// The check of a snapping radius: finite, above 0 and at most `maxSnapLimitMeters`
    /// (`invalidOption(.maxSnapMeters)`). `route(_:)` and `table(_:)` make it.
    public static func checkSnapLimit(_ meters: Double) throws(RoutingError) {
        guard meters.isFinite, meters > 0, meters <= maxSnapLimitMeters else {
            throw .invalidOption(.maxSnapMeters, reason: "must be more than 0 and at most \(Int(maxSnapLimitMeters)) metres")
        }
    }

    /// Computes the route for `request`.
    public func route(_ request: RouteRequest) throws(RoutingError) -> RouteResult {
        try Self.checkViaCount(request.via.count)
        try Self.checkSnapLimit(request.maxSnapMeters)
        guard request.departAt.isFinite else { throw .invalidOption(.departure, reason: "must be a finite instant") }
        let points = [request.from] + request.via + [request.to]
        let pointNames: [RoutePoint] = [.origin] + request.via.indices.map { .via($0) } + [.destination]
        var snapped: [[Endpoint]] = []
        for (p, name) in zip(points, pointNames) {
            guard p.isValid else { throw .invalidCoordinate(point: name) }
            let endpoints = endpoints(at: p, maxMeters: request.maxSnapMeters)
            guard !endpoints.isEmpty else {
                throw .outsideCoverage(point: name, coordinate: p, snapLimitMeters: request.maxSnapMeters,
                                       nearestAreaMeters: distanceToServedRoad(p), otherAreaOf: nil)
            }
            snapped.append(endpoints)
        }
        return try route(snapped: snapped, points: points, names: pointNames, request: request)
    }

    /// The route through points already snapped (`snapped[i]` the endpoints of `points[i]`,
    /// named `names[i]` in errors), as `route(_:)` computes it after snapping.
    func route(snapped: [[Endpoint]], points: [Coordinate], names pointNames: [RoutePoint], request: RouteRequest) throws(RoutingError) -> RouteResult {
        var snapped = snapped
        try keepCommonArea(&snapped, points: points, names: pointNames)
        let hour = SeoulTime.hour(request.departAt)
        let hierarchy = request.metric == .time && (request.algorithm == .astar || request.algorithm == .hierarchy)
            ? hierarchyMetric(hour: hour, wait: request.algorithm == .hierarchy) : nil
        let outcome: Result<RouteResult, RoutingError> = pool.withScratch { scratch in
            timeFactors[hour].withUnsafeBufferPointer { q in
                let time = TimeWeights(graph, q: q)
                var legs: [LegPath] = []
                var settled = 0
                for i in 0..<(snapped.count - 1) {
                    let outcome: SearchOutcome?
                    switch request.metric {
                    case .time:
                        outcome = leg(snapped[i], snapped[i + 1], weights: time, landmarks: graph.landmarkTime, hierarchy: hierarchy,
                                      useHierarchy: graph.hasContractionHierarchy, scale: heuristicScale[hour], algorithm: request.algorithm, scratch: scratch)
                    case .distance:
                        outcome = leg(snapped[i], snapped[i + 1], weights: DistanceWeights(length: graph.length.baseAddress!),
                                      landmarks: graph.landmarkDistance, hierarchy: nil, useHierarchy: false, scale: 1, algorithm: request.algorithm, scratch: scratch)
                    }
                    guard let outcome else { return .failure(.noRoute(from: pointNames[i], to: pointNames[i + 1])) }
                    settled += outcome.settled
                    legs.append(LegPath(outcome: outcome, sources: snapped[i], targets: snapped[i + 1]))
                }
                return .success(assemble(legs: legs, requestPoints: points, time: time, metric: request.metric, hour: hour, settled: settled))
            }
        }
        return try outcome.get()
    }

    /// The served areas of the graph, traced on first use (`/v1/coverage`, distances to them).
    public var coverage: CoverageMap { coverageOnce.value { CoverageMap(graph: graph) } }
    private let coverageOnce = OnceBox<CoverageMap>()

    /// Whether a route can join `from` and `to`: both within `maxSnapMeters` of a road of the
    /// same connected area. Nil when it can; else the error `route` would answer with (an
    /// `outsideCoverage` naming the point). For endpoints that estimate what they cannot route.
    public func coverageProblem(from: Coordinate, to: Coordinate, maxSnapMeters: Double = 200) -> RoutingError? {
        var snapped: [[Endpoint]] = []
        for (p, name) in [(from, RoutePoint.origin), (to, .destination)] {
            guard p.isValid else { return .invalidCoordinate(point: name) }
            let e = endpoints(at: p, maxMeters: maxSnapMeters)
            guard !e.isEmpty else {
                return .outsideCoverage(point: name, coordinate: p, snapLimitMeters: maxSnapMeters,
                                        nearestAreaMeters: distanceToServedRoad(p), otherAreaOf: nil)
            }
            snapped.append(e)
        }
        do { try keepCommonArea(&snapped, points: [from, to], names: [.origin, .destination]) } catch { return error }
        return nil
    }

    /// Metres from `p` to the nearest road of the graph: exact within `maxSnapLimitMeters`,
    /// else from the coverage cells (about ±0.5 km).
    func distanceToServedRoad(_ p: Coordinate) -> Double? {
        if let hit = graph.snap(p, maxMeters: Self.maxSnapLimitMeters).min(by: { $0.distance < $1.distance }) { return hit.distance }
        return coverage.distanceToCoverage(p).map { max($0, Self.maxSnapLimitMeters) }
    }

    /// Keeps, for each point, the ways of standing on a road of the area every point can reach;
    /// throws `outsideCoverage` naming the first point whose roads lie in other areas only.
    private func keepCommonArea(_ snapped: inout [[Endpoint]], points: [Coordinate], names: [RoutePoint]) throws(RoutingError) {
        guard graph.areaCount > 1 else { return }
        func areas(_ e: [Endpoint]) -> Set<Int> { Set(e.map { graph.area(ofNode: Int(graph.head[$0.edge])) }) }
        var common = areas(snapped[0])
        for i in 1..<snapped.count {
            let here = areas(snapped[i])
            let both = common.intersection(here)
            guard !both.isEmpty else {
                let first = common.min()!
                let away = CoverageMap(singleArea: coverage.areas[first]).distanceToCoverage(points[i])
                throw .outsideCoverage(point: names[i], coordinate: points[i], snapLimitMeters: 0, nearestAreaMeters: away,
                                       otherAreaOf: names[0])
            }
            common = both
        }
        for i in snapped.indices {
            snapped[i].removeAll { !common.contains(graph.area(ofNode: Int(graph.head[$0.edge]))) }
        }
    }

    /// How many customized hour metrics the engine keeps at most (from `hierarchyCacheBytes`).
    public var hierarchyCacheCapacity: Int { hierarchyMetrics.capacity }
    /// Hour metrics customized so far, and kept now (for tests and diagnostics).
    var hierarchyMetricsComputed: Int { hierarchyMetrics.computedCount }
    var hierarchyMetricsKept: Int { hierarchyMetrics.keptCount }

    /// Customizes the hierarchy for the travel times of `hour` (0-23) now rather than on the
    /// first query at that hour; whether the graph file's hierarchy covers that hour's times
    /// (when not, time queries at that hour use A*).
    @discardableResult
    public func prepareHierarchy(hour: Int) -> Bool {
        (0..<24).contains(hour) && hierarchyMetric(hour: hour, wait: true) != nil
    }

    /// The hierarchy customized for `hour`'s travel times, when the file's hierarchy covers them.
    /// Customized once per metric: without `wait`, a query finding it not ready starts it on a
    /// thread of its own and gets nil (it then answers with A*, as exact, rather than wait).
    func hierarchyMetric(hour: Int, wait: Bool = true) -> CHMetric? {
        guard let key = hierarchyKey[hour] else { return nil }
        return hierarchyMetrics.metric(key, wait: wait) { [self] in
            timeFactors[hour].withUnsafeBufferPointer { q in
                graph.customize(TimeWeights(graph, q: q))
            }
        }
    }

    /// Every edge running along the pieces nearest to `p`, with the position of `p` on it.
    func endpoints(at p: Coordinate, maxMeters: Double) -> [Endpoint] {
        var out: [Endpoint] = []
        for hit in graph.snap(p, maxMeters: maxMeters) {
            for k in Int(graph.pieceFirstEdge[hit.piece])..<Int(graph.pieceFirstEdge[hit.piece + 1]) {
                let e = Int(graph.pieceEdges[k])
                let reversed = graph.edgePiece[e] & 1 == 1
                out.append(Endpoint(edge: e, fraction: reversed ? 1 - hit.pieceFraction : hit.pieceFraction, hit: hit))
            }
        }
        return out
    }

    /// Cost from an edge's tail to `fraction` of the way along it.
    @inline(__always)
    static func partial(_ w: UInt32, _ fraction: Double) -> UInt32 {
        min(w, UInt32((Double(w) * fraction).rounded()))
    }

    /// Where a search from the endpoints `from` to those of `to` starts and ends: sources are
    /// the heads of the start edges (with the rest of their edge to pay), targets the tails of
    /// the end edges (with the part of their edge still to pay), and the best route along one
    /// edge when a start and an end lie on the same piece in that order (the first of the
    /// cheapest). Lengths are those of the same parts, in cm (`RouteAssembly` measures the same).
    func searchEnds<W: EdgeWeights>(_ from: [Endpoint], _ to: [Endpoint], weights: W) -> SearchEnds {
        var ends = SearchEnds()
        let length = graph.length.baseAddress!
        for (i, s) in from.enumerated() {
            let w = weights(s.edge), len = length[s.edge]
            ends.sources.append((graph.head[s.edge], w - Self.partial(w, s.fraction), UInt32(i)))
            ends.sourceLength.append(len - Self.partial(len, s.fraction))
        }
        for (j, t) in to.enumerated() {
            let w = weights(t.edge), len = length[t.edge]
            ends.targets.append((UInt32(graph.tail(of: t.edge)), Self.partial(w, t.fraction), j))
            ends.targetLength.append(Self.partial(len, t.fraction))
        }
        for (i, s) in from.enumerated() {
            for (j, t) in to.enumerated() where graph.edgePiece[s.edge] == graph.edgePiece[t.edge] && s.fraction <= t.fraction {
                let w = weights(s.edge), len = length[s.edge]
                let cost = UInt64(Self.partial(w, t.fraction) - Self.partial(w, s.fraction))
                if cost < ends.direct?.cost ?? .max {
                    ends.direct = (cost, UInt64(Self.partial(len, t.fraction) - Self.partial(len, s.fraction)), i, j)
                }
            }
        }
        return ends
    }

    /// One leg: sources are the heads of the start edges, targets the tails of the end edges.
    func leg<W: EdgeWeights>(_ from: [Endpoint], _ to: [Endpoint], weights: W, landmarks: UnsafeBufferPointer<UInt32>,
                                     hierarchy: CHMetric?, useHierarchy: Bool, scale: Double, algorithm: SearchAlgorithm,
                                     scratch: SearchScratch) -> SearchOutcome?
    {
        let ends = searchEnds(from, to, weights: weights)
        if let hierarchy {
            switch graph.hierarchySearch(ends, metric: hierarchy, scratch: scratch.hierarchy) {
            case .none: return nil  // no route: exact, as A* would find
            case .some(.some(let outcome)): return outcome
            case .some(.none): break  // an arc that does not unpack: search without the hierarchy
            }
        }
        if useHierarchy && (algorithm == .chPotential || algorithm == .hierarchy || algorithm == .astar && isFar(Int(ends.sources[0].node), Int(ends.targets[0].node))) {
            let potential = graph.chPotential(targets: ends.targets, scale: scale, scratch: scratch)
            return graph.search(ends, weights: weights, potential: potential, scratch: scratch)
        }
        switch algorithm {
        case .dijkstra:
            return graph.search(ends, weights: weights, potential: ZeroPotential(), scratch: scratch)
        case .astar, .hierarchy, .chPotential, .alt:
            break
        }
        let l = min(graph.landmarkCount, SearchScratch.maxLandmarks)
        let stride = 2 * graph.landmarkCount
        let lm = landmarks.baseAddress!
        let allFrom = scratch.allFrom, allTo = scratch.allTo, active = scratch.active, bound = scratch.activeBound
        // Bounds toward the virtual target: each target's landmark distance adjusted by its extra cost.
        for k in 0..<l { allFrom[k] = .max; allTo[k] = .min }
        for t in ends.targets {
            let extra = Int64((Double(t.extra) / scale).rounded(.down))
            let row = lm + Int(t.node) * stride
            for k in 0..<l {
                allFrom[k] = min(allFrom[k], Int64(row[k]) + extra)
                allTo[k] = max(allTo[k], Int64(row[graph.landmarkCount + k]) - extra)
            }
        }
        // The landmarks with the best bound at the first source, best first.
        let source = lm + Int(ends.sources[0].node) * stride
        let count = min(Self.activeLandmarks, l)
        for i in 0..<count { bound[i] = .min }
        for k in 0..<l {
            let b = max(allFrom[k] - Int64(source[k]), Int64(source[graph.landmarkCount + k]) - allTo[k])
            var i = count
            while i > 0 && b > bound[i - 1] { i -= 1 }
            guard i < count else { continue }
            var j = count - 1
            while j > i { bound[j] = bound[j - 1]; active[j] = active[j - 1]; j -= 1 }
            bound[i] = b
            active[i] = k
        }
        for i in 0..<count {
            scratch.activeFrom[i] = allFrom[active[i]]
            scratch.activeTo[i] = allTo[active[i]]
        }
        let potential = LandmarkPotential(table: lm, landmarkCount: graph.landmarkCount, active: active, fromBound: scratch.activeFrom,
                                          toBound: scratch.activeTo, activeCount: count, scale: scale)
        return graph.search(ends, weights: weights, potential: potential, scratch: scratch)
    }
}

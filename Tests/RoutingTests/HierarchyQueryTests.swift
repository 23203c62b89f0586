import Foundation
import Geo
@testable import Import
@testable import Routing
import TestSupport
import XCTest

/// The bidirectional query in the hierarchy customized for each hour, against Dijkstra on the
/// same hour's edge times: the same cost, exactly, and a real path of that cost.
final class HierarchyQueryTests: XCTestCase {
    static let hours = [3, 8, 13, 18, 23]

    func timeWeights(_ g: RoadGraph, _ q: [UInt64]) -> TimeWeights {
        let copy = UnsafeMutablePointer<UInt64>.allocate(capacity: q.count)  // lives for the test process
        copy.initialize(from: q, count: q.count)
        return TimeWeights(length: g.length.baseAddress!, combo: g.combo.baseAddress!, q: copy)
    }

    /// Node-to-node: hierarchy distance and unpacked path against Dijkstra, on `pairs` random pairs per hour.
    func checkNodePairs(_ engine: RouteEngine, pairs: Int, seed: UInt64) throws -> (checked: Int, settledHierarchy: Int, settledDijkstra: Int) {
        let g = engine.graph
        let factors = SpeedFactor.hourFactors(engine.profile, comboClass: Array(g.comboClass), comboCapKmh: Array(g.comboCap))
        let scratch = SearchScratch(nodeCount: g.nodeCount)
        var rng = SplitMix64(seed: seed)
        var checked = 0, settledHierarchy = 0, settledDijkstra = 0
        for hour in Self.hours {
            let metric = try XCTUnwrap(engine.hierarchyMetric(hour: hour), "hour \(hour) has no customized hierarchy")
            let weights = timeWeights(g, factors[hour])
            for i in 0..<pairs {
                let s = UInt32(rng.next() % UInt64(g.nodeCount)), t = UInt32(rng.next() % UInt64(g.nodeCount))
                var ends = SearchEnds()
                ends.sources = [(s, 0, 0)]
                ends.targets = [(t, 0, 0)]
                let reference = g.search(ends, weights: weights, potential: ZeroPotential(), scratch: scratch)
                let found = g.hierarchySearch(ends, metric: metric, scratch: scratch.hierarchy)
                if let found { XCTAssertNotNil(found, "hour \(hour), pair \(i): the path did not unpack") }
                let answer = found ?? nil
                XCTAssertEqual(answer?.cost, reference?.cost, "hour \(hour), pair \(i): \(s) → \(t)")
                guard let answer, case .edges(_, let edges, _) = answer.path else {
                    XCTAssertNotNil(answer, "hour \(hour), pair \(i): no answer")
                    continue
                }
                // The unpacked edges chain from s to t and add up to the cost.
                var at = Int(s), sum: UInt64 = 0
                for e in edges {
                    XCTAssertEqual(g.tail(of: Int(e)), at, "hour \(hour), pair \(i): broken path")
                    at = Int(g.head[Int(e)])
                    sum += UInt64(weights(Int(e)))
                }
                XCTAssertEqual(at, Int(t))
                XCTAssertEqual(sum, answer.cost)
                checked += 1
                settledHierarchy += answer.settled
                settledDijkstra += reference?.settled ?? 0
            }
        }
        return (checked, settledHierarchy, settledDijkstra)
    }

    func testCustomizedHierarchyDistancesAndPathsEqualDijkstraOnSeoul() throws {
        let engine = try SeoulFixture.engine()
        let r = try checkNodePairs(engine, pairs: 240, seed: 11)
        XCTAssertEqual(r.checked, 240 * Self.hours.count)
        XCTAssertLessThan(r.settledHierarchy * 20, r.settledDijkstra, "hierarchy settled \(r.settledHierarchy), Dijkstra \(r.settledDijkstra)")
    }

    func testCustomizedHierarchyOnSyntheticCityWithRestrictions() throws {
        let (engine, report) = try HierarchyTests.city.get()
        XCTAssertGreaterThan(report.restrictionsApplied, 0)
        let r = try checkNodePairs(engine, pairs: 100, seed: 12)
        XCTAssertEqual(r.checked, 100 * Self.hours.count)
    }

    /// Whole routes (snapping mid-edge, several starts and ends per point) at every hour of the day.
    func testHierarchyRoutesEqualDijkstraOnSeoul() throws {
        let engine = try SeoulFixture.engine()
        var rng = SplitMix64(seed: 5)
        let day = SeoulTime.parse("2025-05-02T00:00:00+09:00")!
        func point() -> Coordinate {
            let c = engine.graph.coordinate(ofNode: Int(rng.next() % UInt64(engine.graph.nodeCount)))
            return c.offset(eastMeters: Double(rng.next() % 81) - 40, northMeters: Double(rng.next() % 81) - 40)
        }
        var compared = 0
        for i in 0..<1000 {
            let hour = i % 24
            var request = RouteRequest(from: point(), to: point(), departAt: day + Double(hour) * 3600 + 600, algorithm: .hierarchy)
            let answer = try engine.route(request)
            request.algorithm = .dijkstra
            let reference = try engine.route(request)
            XCTAssertEqual(answer.weight, reference.weight, "pair \(i) at \(hour) h")
            let ms = answer.segments.reduce(0.0) { $0 + $1.durationSeconds } * 1000
            XCTAssertEqual(Double(answer.weight), ms, accuracy: 1e-3)
            XCTAssertEqual(answer.hour, hour)
            compared += 1
        }
        XCTAssertEqual(compared, 1000)
    }

    /// The query's arcs (`CHQueryArcs`) leave out arcs dominated through a third node, and the
    /// query answers exactly as on every arc, at several hours: same cost, same edges, same ends;
    /// ties included (the last case: the 18 h hierarchy with arcs weighing whole minutes, where
    /// many routes cost the same, so only arcs strictly dominated may go).
    func testQueryArcsLeaveOutDominatedArcsAndKeepEveryAnswer() throws {
        let engine = try SeoulFixture.engine()
        let g = engine.graph
        let factors = SpeedFactor.hourFactors(engine.profile, comboClass: Array(g.comboClass), comboCapKmh: Array(g.comboCap))
        let scratch = SearchScratch(nodeCount: g.nodeCount)
        func minutes(_ w: [UInt32]) -> [UInt32] { w.map { $0 == CHMetric.infinity ? $0 : $0 / 60_000 + 1 } }
        for (k, (hour, wholeMinutes)) in [(3, false), (8, false), (18, false), (18, true)].enumerated() {
            let customized = try XCTUnwrap(engine.hierarchyMetric(hour: hour))
            let up = wholeMinutes ? minutes(customized.upWeight) : customized.upWeight
            let down = wholeMinutes ? minutes(customized.downWeight) : customized.downWeight
            func metric(pruned: Bool) -> CHMetric {
                CHMetric(upWeight: up, downWeight: down, upUnpack: customized.upUnpack, downUnpack: customized.downUnpack,
                         upLength: customized.upLength, downLength: customized.downLength, hierarchy: g, prunedQuery: pruned)
            }
            let pruned = wholeMinutes ? metric(pruned: true) : customized, every = metric(pruned: false)
            let kept = pruned.query.up.count + pruned.query.down.count, all = every.query.up.count + every.query.down.count
            // Whole minutes tie far more often, and a tie keeps both arcs: fewer left out, but some.
            XCTAssertLessThan(kept, wholeMinutes ? all : all * 9 / 10, "\(hour) h: query arcs \(kept) of \(all): too few left out")
            let weights = timeWeights(g, factors[hour])
            let points = randomPoints(engine, count: 40, seed: 91 + UInt64(k)).map { engine.endpoints(at: $0, maxMeters: 200) }
            var compared = 0
            for (i, from) in points.enumerated() {
                for (j, to) in points.enumerated() {
                    let ends = engine.searchEnds(from, to, weights: weights)
                    let a = g.hierarchySearch(ends, metric: pruned, scratch: scratch.hierarchy) ?? nil
                    let b = g.hierarchySearch(ends, metric: every, scratch: scratch.hierarchy) ?? nil
                    XCTAssertEqual(a?.cost, b?.cost, "\(hour) h\(wholeMinutes ? " in whole minutes" : ""), points \(i) → \(j)")
                    XCTAssertEqual(a.map { "\($0.path)" }, b.map { "\($0.path)" }, "\(hour) h\(wholeMinutes ? " in whole minutes" : ""), points \(i) → \(j)")
                    if a != nil { compared += 1 }
                }
            }
            XCTAssertGreaterThan(compared, 40 * 40 / 2)
        }
    }

    func testViaPointsWithTheHierarchyQuery() throws {
        try HierarchyTests.forEachViaRoute(algorithm: .hierarchy, seed: 6, hoursAfterNight: 8) { answer, reference in
            XCTAssertEqual(answer.weight, reference.weight)
            XCTAssertEqual(answer.legs.count, 3)
            for (a, b) in zip(answer.legs, reference.legs) { XCTAssertEqual(a.durationSeconds, b.durationSeconds, accuracy: 1e-6) }
        }
    }

    /// Serving with another profile than the file was prepared with: no customized hierarchy
    /// (its witnesses were not made for those times), and the routes stay exact through A*.
    func testAnotherProfileFallsBackToAStar() throws {
        let graph = try RoadGraph.load(path: try SeoulFixture.graphPath())
        let profile = try SeoulFixture.profile
        var speeds = profile.speedKmh
        speeds[Int(RoadClass.primary.rawValue) * 24 + 8] *= 0.5
        let slower = RouteEngine(graph: graph, profile: TrafficProfile(speedKmh: speeds, slowShare: profile.slowShare))
        XCTAssertNil(slower.hierarchyMetric(hour: 8))
        XCTAssertNotNil(slower.hierarchyMetric(hour: 3))
        XCTAssertNotNil(try SeoulFixture.engine().hierarchyMetric(hour: 8))
        let pairs = RandomRoutes.pairs(graph, count: 30, seed: 8)
        for (a, b) in pairs {
            var request = RouteRequest(from: a, to: b, departAt: night + 5 * 3600)
            let answer = try slower.route(request)
            request.algorithm = .dijkstra
            XCTAssertEqual(answer.weight, try slower.route(request).weight)
        }
    }

    /// The default search does not wait for a customization: the first query at an hour starts it
    /// in the background and answers with A*; once it is ready the hierarchy answers, alike.
    func testDefaultSearchCustomizesInTheBackground() throws {
        let graph = try RoadGraph.load(path: try SeoulFixture.graphPath())
        let engine = RouteEngine(graph: graph, profile: try SeoulFixture.profile)
        let pairs = RandomRoutes.pairs(graph, count: 20, seed: 31)
        var request = RouteRequest(from: pairs[0].0, to: pairs[0].1, departAt: night + 14 * 3600)
        let first = try engine.route(request)
        XCTAssertEqual(first.hour, 17)
        XCTAssertTrue(engine.prepareHierarchy(hour: 17))
        XCTAssertNotNil(engine.hierarchyMetric(hour: 17, wait: false))
        XCTAssertEqual(try engine.route(request).weight, first.weight)
        for (a, b) in pairs {
            request = RouteRequest(from: a, to: b, departAt: night + 14 * 3600)
            let answer = try engine.route(request)
            request.algorithm = .dijkstra
            XCTAssertEqual(answer.weight, try engine.route(request).weight)
        }
        XCTAssertFalse(engine.prepareHierarchy(hour: 24))
    }

    /// With room for one hour metric, customizing another drops the first, and the first is
    /// customized again when asked for; routes stay exact at both hours. With the default room
    /// (512 MiB, 4 MB on Seoul) both stay.
    func testHierarchyCacheKeepsAtMostItsCapacity() throws {
        let graph = try RoadGraph.load(path: try SeoulFixture.graphPath())
        let oneMetric = 12 * (graph.chUpHead.count + graph.chDownTail.count)
        let small = RouteEngine(graph: graph, profile: try SeoulFixture.profile, hierarchyCacheBytes: oneMetric + oneMetric / 2)
        XCTAssertEqual(small.hierarchyCacheCapacity, 1)
        for hour in [3, 17, 3] { XCTAssertTrue(small.prepareHierarchy(hour: hour)) }
        XCTAssertEqual(small.hierarchyMetricsComputed, 3)
        XCTAssertEqual(small.hierarchyMetricsKept, 1)
        let pairs = RandomRoutes.pairs(graph, count: 20, seed: 41)
        for (a, b) in pairs {
            for offset in [0.0, 14 * 3600.0, 0.0] {
                var request = RouteRequest(from: a, to: b, departAt: night + offset)
                request.algorithm = .hierarchy
                let answer = try small.route(request)
                request.algorithm = .dijkstra
                XCTAssertEqual(answer.weight, try small.route(request).weight)
            }
        }
        XCTAssertLessThanOrEqual(small.hierarchyMetricsKept, 1)
        let roomy = RouteEngine(graph: graph, profile: try SeoulFixture.profile)
        XCTAssertGreaterThanOrEqual(roomy.hierarchyCacheCapacity, 11)
        for hour in [3, 17, 3] { XCTAssertTrue(roomy.prepareHierarchy(hour: hour)) }
        XCTAssertEqual(roomy.hierarchyMetricsComputed, 2)
        XCTAssertEqual(roomy.hierarchyMetricsKept, 2)
    }

    /// The bounds the witness margin rests on: for every speed combo, hour and edge length,
    /// `Rmin_h·M0 ≤ Mh ≤ Rmax_h·(M0 + 1) + 1`, and a witness the margin accepts is no longer
    /// than the shortcut at any hour (here for single-edge witnesses and shortcuts).
    func testWitnessMarginBounds() throws {
        let g = try SeoulFixture.engine().graph
        let combos = g.comboClass.count
        let hourQ = (0..<24).map { h in Array(g.hourQ[(h * combos)..<((h + 1) * combos)]) }
        let margin = WitnessMargin.covering(boundQ: Array(g.comboBoundQ), hourQ: hourQ)
        var rng = SplitMix64(seed: 3)
        var accepted = 0
        for h in 0..<24 {
            let ratios = (0..<combos).map { Double(hourQ[h][$0]) / Double(g.comboBoundQ[$0]) }
            let lo = ratios.min()!, hi = ratios.max()!
            for _ in 0..<2000 {
                let c = Int(rng.next() % UInt64(combos))
                let len = UInt32(rng.next() % 200_000)
                let m0 = SpeedFactor.lowerBound(cm: len, q: g.comboBoundQ[c]), mh = SpeedFactor.time(cm: len, q: hourQ[h][c])
                XCTAssertLessThanOrEqual(lo * Double(m0), Double(mh) + 1e-6)
                XCTAssertLessThanOrEqual(Double(mh), hi * Double(m0 + 1) + 1 + 1e-6)
                // A one-edge witness against a one-edge shortcut of another combo.
                let c2 = Int(rng.next() % UInt64(combos))
                let len2 = UInt32(rng.next() % 200_000)
                let s0 = SpeedFactor.lowerBound(cm: len2, q: g.comboBoundQ[c2]), sh = SpeedFactor.time(cm: len2, q: hourQ[h][c2])
                if margin.witnessSuffices(distance: m0, hops: 1, shortcut: UInt64(s0)) {
                    accepted += 1
                    XCTAssertLessThanOrEqual(mh, sh, "hour \(h): combos \(c) (\(len) cm) and \(c2) (\(len2) cm)")
                }
            }
        }
        XCTAssertGreaterThan(accepted, 1000)
        XCTAssertFalse(margin.witnessSuffices(distance: 100, hops: WitnessMargin.maxHops + 1, shortcut: 1_000_000))
        XCTAssertTrue(WitnessMargin.exact.witnessSuffices(distance: 100, hops: 50, shortcut: 100))
        XCTAssertFalse(WitnessMargin.exact.witnessSuffices(distance: 101, hops: 1, shortcut: 100))
    }
}

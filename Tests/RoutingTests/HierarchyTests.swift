import Foundation
import Geo
@testable import Import
@testable import Routing
import SyntheticCity
import TestSupport
import XCTest

/// The contraction hierarchy stored in the graph file and the A* potential built on it.
final class HierarchyTests: XCTestCase {
    /// A 20,000-node synthetic city (one-way streets, mixed classes, turn restrictions), imported once.
    static let city: Result<(engine: RouteEngine, report: ImportReport), Error> = Result {
        let dir = TestPaths.temporaryDirectory("routing-hierarchy")
        let osm = dir.appendingPathComponent("city.osm").path, graph = dir.appendingPathComponent("city.graph").path
        _ = try SyntheticCity.write(nodes: 20_000, seed: 23, to: osm)
        let report = try OSMImporter.importFile(osm, to: graph, profile: try SeoulFixture.profile)
        return (RouteEngine(graph: try RoadGraph.load(path: graph), profile: try SeoulFixture.profile), report)
    }

    func testHierarchyPotentialAStarEqualsDijkstraOnSyntheticCity() throws {
        let (engine, report) = try Self.city.get()
        XCTAssertGreaterThan(report.restrictionsApplied, 0)
        XCTAssertGreaterThan(report.restrictionCopies, 0)
        XCTAssertTrue(engine.graph.hasContractionHierarchy)
        let pairs = RandomRoutes.pairs(engine.graph, count: 400, seed: 17)
        let day = SeoulTime.parse("2025-05-02T00:00:00+09:00")!
        var settledHierarchy = 0, settledDijkstra = 0
        for (i, (from, to)) in pairs.enumerated() {
            let hour = [3, 18, 8, 13][i % 4]
            // Points a little off the junctions, so most snap onto the middle of an edge.
            var request = RouteRequest(from: from.offset(eastMeters: 17, northMeters: -9), to: to.offset(eastMeters: -12, northMeters: 21),
                                       departAt: day + Double(hour) * 3600 + 60, algorithm: .chPotential)
            let astar = try engine.route(request)
            request.algorithm = .dijkstra
            let reference = try engine.route(request)
            XCTAssertEqual(astar.weight, reference.weight, "pair \(i) at \(hour) h: CH-potential A* \(astar.weight) vs Dijkstra \(reference.weight)")
            if i % 8 == 0 {
                request.algorithm = .astar
                XCTAssertEqual(try engine.route(request).weight, reference.weight, "pair \(i) at \(hour) h: default A* vs Dijkstra")
            }
            XCTAssertEqual(astar.hour, hour)
            settledHierarchy += astar.settledNodes
            settledDijkstra += reference.settledNodes
        }
        XCTAssertLessThan(settledHierarchy * 10, settledDijkstra, "CH potentials settled \(settledHierarchy), Dijkstra \(settledDijkstra)")
    }

    func testViaPointsUseThePotentialPerLeg() throws {
        try Self.forEachViaRoute(algorithm: .chPotential, seed: 5, hoursAfterNight: 15) { answer, reference in
            XCTAssertEqual(answer.weight, reference.weight)
            XCTAssertEqual(answer.legs.count, 3)
        }
    }

    /// Ten routes through two via points each on the synthetic city (random junctions from
    /// `seed`, departing `hoursAfterNight` after `night`), by `algorithm` and by Dijkstra: `check`
    /// gets each pair of answers.
    static func forEachViaRoute(algorithm: SearchAlgorithm, seed: UInt64, hoursAfterNight: Double,
                                _ check: (RouteResult, RouteResult) -> Void) throws
    {
        let (engine, _) = try city.get()
        let p = RandomRoutes.pairs(engine.graph, count: 20, seed: seed)
        for i in stride(from: 0, to: 20, by: 2) {
            var request = RouteRequest(from: p[i].0, to: p[i].1, via: [p[i + 1].0, p[i + 1].1], departAt: night + hoursAfterNight * 3600,
                                       algorithm: algorithm)
            let answer = try engine.route(request)
            request.algorithm = .dijkstra
            check(answer, try engine.route(request))
        }
    }

    /// The lower-bound time of every edge, as the hierarchy was built on.
    func lowerBounds(_ g: RoadGraph) -> [UInt32] {
        (0..<g.edgeCount).map { SpeedFactor.lowerBound(cm: g.length[$0], q: g.comboBoundQ[Int(g.combo[$0])]) }
    }

    func testPotentialIsTheExactLowerBoundDistance() throws {
        let g = try SeoulFixture.engine().graph
        let bound = lowerBounds(g)
        // Reverse graph for a plain backward Dijkstra.
        var reverse = [[(Int, UInt32)]](repeating: [], count: g.nodeCount)
        for v in 0..<g.nodeCount {
            for e in Int(g.firstOut[v])..<Int(g.firstOut[v + 1]) { reverse[Int(g.head[e])].append((v, bound[e])) }
        }
        let scratch = SearchScratch(nodeCount: g.nodeCount)
        var rng = SplitMix64(seed: 41)
        for _ in 0..<4 {
            let t = Int(rng.next() % UInt64(g.nodeCount))
            var dist = [UInt32](repeating: .max, count: g.nodeCount)
            var heap = PackedMinHeap()
            dist[t] = 0
            heap.push(key: 0, node: UInt32(t))
            while let (d, y) = heap.pop() {
                guard d == dist[Int(y)] else { continue }
                for (x, w) in reverse[Int(y)] where d + w < dist[x] { dist[x] = d + w; heap.push(key: d + w, node: UInt32(x)) }
            }
            let potential = g.chPotential(targets: [(UInt32(t), 0, 0)], scale: 1, scratch: scratch)
            var mismatches = 0
            for v in 0..<g.nodeCount where potential.distance(v) != dist[v] { mismatches += 1 }
            XCTAssertEqual(mismatches, 0, "target \(t): \(mismatches) nodes with a potential other than the lower-bound distance")
        }
    }

    func testHierarchySectionRoundTrips() throws {
        let g = try SeoulFixture.engine().graph
        let combos = g.comboClass.count
        let hourQ = (0..<24).map { h in Array(g.hourQ[(h * combos)..<((h + 1) * combos)]) }
        let margin = WitnessMargin.covering(boundQ: Array(g.comboBoundQ), hourQ: hourQ)
        // The margin covers each hour's spread of time-to-bound ratios between speed combos.
        for q in hourQ {
            let ratios = q.indices.map { Double(q[$0]) / Double(g.comboBoundQ[$0]) }
            XCTAssertGreaterThanOrEqual(margin.scale, ratios.max()! / ratios.min()!)
            XCTAssertGreaterThanOrEqual(margin.perHop, margin.scale + 1 / ratios.min()!)
        }
        XCTAssertGreaterThan(margin.scale, 1.001)
        let hourTimes = GraphPreparer.witnessMetrics(margin: margin, hourQ: hourQ, length: Array(g.length), combo: Array(g.combo))
        XCTAssertEqual(hourTimes.count, 0, "profile speeds: the margin alone")
        let built = ContractionHierarchyBuilder.build(firstOut: Array(g.firstOut), head: Array(g.head), weight: lowerBounds(g), margin: margin,
                                                      metrics: hourTimes)
        XCTAssertEqual(Array(g.chRank), built.rank)
        XCTAssertEqual(Array(g.chUpFirst), built.upFirst)
        XCTAssertEqual(Array(g.chUpHead), built.upHead)
        XCTAssertEqual(Array(g.chUpWeight), built.upWeight)
        XCTAssertEqual(Array(g.chDownFirst), built.downFirst)
        XCTAssertEqual(Array(g.chDownTail), built.downTail)
        XCTAssertEqual(Array(g.chDownWeight), built.downWeight)
        // Shortcuts exist, and every original edge is covered by a hierarchy edge at most as long.
        XCTAssertGreaterThan(built.upHead.count + built.downTail.count, g.edgeCount)
    }

    /// With measured speeds per link the margin is useless (scale far above 2): the import checks
    /// witnesses at every hour instead, and its hierarchy is what a build with the hour times
    /// gives, far smaller than the margin alone would leave it.
    func testMeasuredSpeedHierarchyChecksWitnessesAtEveryHour() throws {
        let g = try NodeLinkFixture.gangnam.get().engine.graph
        let combos = g.comboClass.count
        let hourQ = (0..<24).map { h in Array(g.hourQ[(h * combos)..<((h + 1) * combos)]) }
        let margin = WitnessMargin.covering(boundQ: Array(g.comboBoundQ), hourQ: hourQ)
        XCTAssertGreaterThan(margin.scale, GraphPreparer.hourWitnessMinScale)
        let hourTimes = GraphPreparer.witnessMetrics(margin: margin, hourQ: hourQ, length: Array(g.length), combo: Array(g.combo))
        XCTAssertGreaterThan(hourTimes.count, 1)
        let built = ContractionHierarchyBuilder.build(firstOut: Array(g.firstOut), head: Array(g.head), weight: lowerBounds(g), margin: margin,
                                                      metrics: hourTimes)
        XCTAssertEqual(Array(g.chUpHead), built.upHead)
        XCTAssertEqual(Array(g.chDownTail), built.downTail)
        let marginOnly = ContractionHierarchyBuilder.build(firstOut: Array(g.firstOut), head: Array(g.head), weight: lowerBounds(g), margin: margin)
        XCTAssertLessThan(Double(g.chUpHead.count + g.chDownTail.count), 0.8 * Double(marginOnly.upHead.count + marginOnly.downTail.count))
    }

    /// The witness rule with per-hour weights: u → v → x (bounds 10 + 10) against the witness
    /// u → w → x (9 + 9), at two hours. Far beyond the margin (scale 19), the witness stands in
    /// for the shortcut only when it is at most as long at both hours and on the bounds.
    func testWitnessMustHoldAtEveryHour() {
        // Nodes: u 0, v 1, x 2, w 3. Edges u→v, v→x, u→w, w→x.
        let firstOut: [UInt32] = [0, 2, 3, 3, 4], head: [UInt32] = [1, 3, 2, 2]
        let bound: [UInt32] = [10, 9, 10, 9]
        let margin = WitnessMargin(scale: 19, perHop: 20)
        func shortcuts(hourA: [UInt32], hourB: [UInt32], bound: [UInt32] = bound) -> [CHShortcut] {
            let g = CHRemainingGraph(firstOut: firstOut, head: head, weight: bound, metrics: [hourA, hourB])
            var list: [CHShortcut] = []
            _ = withUnsafeMutablePointer(to: &list) {
                ContractionHierarchyBuilder.evaluate(g, 1, CHWitnessSearch(nodeCount: 4), margin: margin, shortcuts: $0)
            }
            return list
        }
        // At hour B the witness is 80 against 60 through v: the shortcut stays.
        XCTAssertEqual(shortcuts(hourA: [10, 9, 10, 9], hourB: [30, 40, 30, 40]).map { [$0.from, $0.to, $0.weight] }, [[0, 2, 20]])
        // At most as long at both hours: no shortcut.
        XCTAssertEqual(shortcuts(hourA: [10, 9, 10, 9], hourB: [30, 25, 30, 25]).count, 0)
        // Shorter at both hours but longer on the bounds (which the A* potential reads): the shortcut stays.
        XCTAssertEqual(shortcuts(hourA: [10, 9, 10, 9], hourB: [30, 25, 30, 25], bound: [10, 11, 10, 11]).count, 1)
        // Without hour weights, the margin alone keeps it.
        let g = CHRemainingGraph(firstOut: firstOut, head: head, weight: bound)
        var list: [CHShortcut] = []
        _ = withUnsafeMutablePointer(to: &list) {
            ContractionHierarchyBuilder.evaluate(g, 1, CHWitnessSearch(nodeCount: 4), margin: margin, shortcuts: $0)
        }
        XCTAssertEqual(list.count, 1)
    }

    /// A copy of the Seoul graph file, the section table entry of `section` and its offset.
    func seoulCopy(_ section: GraphFile.Section) throws -> (path: String, bytes: [UInt8], entry: Int, offset: Int, count: Int) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try SeoulFixture.graphPath())))
        let path = TestPaths.temporaryDirectory("routing-hierarchy-file").appendingPathComponent("copy.graph").path
        let sections = Int(UInt32(bytes[48]) | UInt32(bytes[49]) << 8)
        for i in 0..<sections {
            let o = 64 + 24 * i
            if bytes[o] == UInt8(section.rawValue) {
                let offset = (0..<8).reduce(0) { $0 | Int(bytes[o + 8 + $1]) << (8 * $1) }
                let count = (0..<8).reduce(0) { $0 | Int(bytes[o + 16 + $1]) << (8 * $1) }
                return (path, bytes, o, offset, count)
            }
        }
        XCTFail("no section \(section)")
        return (path, bytes, 0, 0, 0)
    }

    func refusal(_ bytes: [UInt8], at path: String, fixChecksum: Bool) throws -> String {
        var b = bytes
        if fixChecksum {
            var checksum = Checksum()
            b.withUnsafeBytes { checksum.add(UnsafeRawBufferPointer(rebasing: $0[32...])) }
            withUnsafeBytes(of: checksum.value.littleEndian) { for k in 0..<8 { b[24 + k] = $0[k] } }
        }
        try Data(b).write(to: URL(fileURLWithPath: path))
        do {
            _ = try RoadGraph.load(path: path)
            return ""
        } catch { return "\(error)" }
    }

    func testCorruptOrTruncatedHierarchyIsRefused() throws {
        // A flipped byte in the hierarchy: the checksum catches it.
        let up = try seoulCopy(.chUpHead)
        XCTAssertGreaterThan(up.count, 0)
        var flipped = up.bytes
        flipped[up.offset + 5] ^= 0x10
        XCTAssertTrue(try refusal(flipped, at: up.path, fixChecksum: false).contains("corrupt"))
        // An upward edge that leads to its own node, with a matching checksum: the rank check catches it.
        let first = (0..<4).reduce(0) { $0 | UInt32(up.bytes[up.offset + $1]) << (8 * $1) }
        var g = try SeoulFixture.engine().graph
        let v = (0..<g.nodeCount).first { g.chUpFirst[$0] == 0 && g.chUpFirst[$0 + 1] > 0 }!
        XCTAssertEqual(first, g.chUpHead[0])
        var looped = up.bytes
        withUnsafeBytes(of: UInt32(v).littleEndian) { for k in 0..<4 { looped[up.offset + k] = $0[k] } }
        let message = try refusal(looped, at: up.path, fixChecksum: true)
        XCTAssertTrue(message.contains("inconsistent contraction hierarchy"), message)
        XCTAssertTrue(message.hasPrefix(up.path), message)
        // Ranks that are not a permutation.
        let rank = try seoulCopy(.chRank)
        var twice = rank.bytes
        for k in 0..<4 { twice[rank.offset + 4 + k] = twice[rank.offset + k] }
        XCTAssertTrue(try refusal(twice, at: rank.path, fixChecksum: true).contains("ranks are not a permutation"))
        // A section count that no longer matches the nodes.
        let down = try seoulCopy(.chDownFirst)
        var short = down.bytes
        short[down.entry + 16] = short[down.entry + 16] &- 1
        XCTAssertTrue(try refusal(short, at: down.path, fixChecksum: true).contains("inconsistent contraction hierarchy"))
        // Cut inside the last hierarchy section.
        let weight = try seoulCopy(.chDownWeight)
        XCTAssertTrue(try refusal(Array(weight.bytes.prefix(weight.offset + 8)), at: weight.path, fixChecksum: false).contains("truncated"))
        g = try RoadGraph.load(path: try SeoulFixture.graphPath())
        XCTAssertTrue(g.hasContractionHierarchy)
    }

    func testUnsortedHierarchyIsRefused() throws {
        let up = try seoulCopy(.chUpHead)
        let g = try SeoulFixture.engine().graph
        // Swap the first two heads of a rank with two upward arcs (checksum fixed): refused.
        let r = try XCTUnwrap((0..<g.nodeCount).first { Int(g.chUpFirst[$0 + 1]) - Int(g.chUpFirst[$0]) >= 2 })
        let first = up.offset + 4 * Int(g.chUpFirst[r])
        var swapped = up.bytes
        for k in 0..<4 { swapped.swapAt(first + k, first + 4 + k) }
        let message = try refusal(swapped, at: up.path, fixChecksum: true)
        XCTAssertTrue(message.contains("not sorted"), message)
    }
}

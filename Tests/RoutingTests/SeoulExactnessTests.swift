import Geo
import Import
import Routing
import TestSupport
import XCTest

/// A* (CH potentials for time, landmarks for distance) against Dijkstra on the central-Seoul
/// graph: the same cost, exactly.
final class SeoulExactnessTests: XCTestCase {
    func testImportReportAndGraph() throws {
        let (_, engine, report) = try SeoulFixture.loaded.get()
        // PROVENANCE: 15,832 nodes and 12,467 one-way ways; the largest SCC keeps ~15,600 of the nodes.
        XCTAssertEqual(report.osmNodes, 15_832)
        XCTAssertEqual(report.osmWays, 12_467)
        XCTAssertEqual(report.drivableWays, 12_467)
        XCTAssertGreaterThan(report.components, 1)
        XCTAssertGreaterThan(report.removedNodes, 0)
        XCTAssertLessThan(report.removedNodes, report.junctions / 50)
        XCTAssertEqual(engine.graph.landmarkCount, 16)
        XCTAssertEqual(engine.graph.network, "osm")
        XCTAssertEqual(engine.graph.nodeCount, report.nodes)
        let box = engine.graph.boundingBox
        XCTAssertEqual(box.south, 37.529, accuracy: 0.01)
        XCTAssertEqual(box.north, 37.589, accuracy: 0.01)
        XCTAssertTrue(engine.graph.metadata.contains("\"osm_ways\":12467"))
    }

    func testAStarCostEqualsDijkstraOnRandomPairs() throws {
        let engine = try SeoulFixture.engine()
        let points = randomPoints(engine, count: 2400, seed: 7)
        let day = SeoulTime.parse("2025-05-02T00:00:00+09:00")!
        var compared = 0, settledAlt = 0, settledDijkstra = 0, settledHierarchy = 0, settledLandmarksOnTime = 0
        XCTAssertTrue(engine.graph.hasContractionHierarchy)
        for i in 0..<1200 {
            // Time: A* with CH potentials and, every fourth pair, with landmarks and with the default
            // choice between the two; distance: landmarks (the default).
            let metric: RouteMetric = i % 3 == 2 ? .distance : .time
            let departAt = day + Double(i % 24) * 3600 + 1234
            var request = RouteRequest(from: points[2 * i], to: points[2 * i + 1], departAt: departAt, metric: metric,
                                       algorithm: metric == .time ? .chPotential : .astar)
            let alt = try engine.route(request)
            request.algorithm = .dijkstra
            let reference = try engine.route(request)
            XCTAssertEqual(alt.weight, reference.weight, "pair \(i) (\(metric), hour \(i % 24)): A* \(alt.weight) vs Dijkstra \(reference.weight)")
            if metric == .time {
                settledHierarchy += alt.settledNodes
                if i % 4 == 0 {
                    request.algorithm = .alt
                    let landmarks = try engine.route(request)
                    XCTAssertEqual(landmarks.weight, reference.weight, "pair \(i) (time, hour \(i % 24)): ALT vs Dijkstra")
                    settledLandmarksOnTime += landmarks.settledNodes * 4
                    request.algorithm = .astar
                    XCTAssertEqual(try engine.route(request).weight, reference.weight, "pair \(i) (time, hour \(i % 24)): default vs Dijkstra")
                }
            }
            compared += 1
            settledAlt += alt.settledNodes
            settledDijkstra += reference.settledNodes
            // The totals agree with the segments the fare meter walks.
            let ms = alt.segments.reduce(0.0) { $0 + $1.durationSeconds } * 1000
            XCTAssertEqual(alt.durationSeconds * 1000, ms, accuracy: 1e-3)
            if metric == .time { XCTAssertEqual(Double(alt.weight), ms, accuracy: 1e-3) }
            if metric == .distance { XCTAssertEqual(Double(alt.weight) / 100, alt.distanceMeters, accuracy: 1e-3) }
        }
        XCTAssertEqual(compared, 1200)
        // The landmarks must actually prune the search.
        XCTAssertGreaterThan(settledAlt, 1200, "A* settled \(settledAlt)")
        XCTAssertLessThan(settledAlt * 4, settledDijkstra, "A* settled \(settledAlt), Dijkstra \(settledDijkstra)")
        // The CH potential is far tighter than the landmarks' bound.
        XCTAssertLessThan(settledHierarchy * 3, settledLandmarksOnTime, "CH potentials \(settledHierarchy), landmarks ~\(settledLandmarksOnTime)")
    }

    func testRushHourIsSlowerThanNightOnTheSameRoute() throws {
        let engine = try SeoulFixture.engine()
        let cityHall = Coordinate(lon: 126.9780, lat: 37.5665), seoulStation = Coordinate(lon: 126.9706, lat: 37.5547)
        let rush = try engine.route(RouteRequest(from: cityHall, to: seoulStation, departAt: SeoulTime.parse("2025-05-02T08:30:00")!))
        let night = try engine.route(RouteRequest(from: cityHall, to: seoulStation, departAt: SeoulTime.parse("2025-05-02T02:30:00")!))
        XCTAssertEqual(rush.hour, 8)
        XCTAssertEqual(night.hour, 2)
        XCTAssertGreaterThan(rush.durationSeconds, night.durationSeconds * 1.5)
        // About 1.5 km apart in a straight line; the route is longer but not absurdly.
        XCTAssertGreaterThan(night.distanceMeters, cityHall.distance(to: seoulStation))
        XCTAssertLessThan(night.distanceMeters, 3 * cityHall.distance(to: seoulStation))
        XCTAssertFalse(night.streetNames.isEmpty)
        for (a, b) in zip(night.streetNames, night.streetNames.dropFirst()) { XCTAssertNotEqual(a, b) }
        // Geometry runs from the snapped start to the snapped end, with no jumps.
        XCTAssertEqual(night.geometry.first!.distance(to: night.snapped[0]), 0, accuracy: 0.01)
        XCTAssertEqual(night.geometry.last!.distance(to: night.snapped[1]), 0, accuracy: 0.01)
        let drawn = zip(night.geometry, night.geometry.dropFirst()).reduce(0.0) { $0 + $1.0.distance(to: $1.1) }
        XCTAssertEqual(drawn, night.distanceMeters, accuracy: night.distanceMeters * 0.002 + 1)
        // Segments chain end to start.
        for (s, t) in zip(night.segments, night.segments.dropFirst()) { XCTAssertEqual(s.end.distance(to: t.start), 0, accuracy: 0.05) }
    }

    func testConcurrentQueriesGiveTheSameAnswers() throws {
        let engine = try SeoulFixture.engine()
        let points = randomPoints(engine, count: 80, seed: 99)
        // Every pair lies on the served graph (its points within 40 m of a node): all of them answer
        // alone, so the concurrent answers are compared with real routes, never with two failures.
        let expected = try (0..<40).map { i in try engine.route(RouteRequest(from: points[2 * i], to: points[2 * i + 1], departAt: night)).weight }
        XCTAssertEqual(Set(expected).count, 40, "40 distinct routes, not one answer repeated")
        let results = UnsafeMutableBufferPointer<UInt64?>.allocate(capacity: 160)
        results.initialize(repeating: nil)
        defer { results.deallocate() }
        nonisolated(unsafe) let out = results
        DispatchQueue.concurrentPerform(iterations: 160) { k in
            let i = k % 40
            out[k] = try? engine.route(RouteRequest(from: points[2 * i], to: points[2 * i + 1], departAt: night)).weight
        }
        for k in 0..<160 { XCTAssertEqual(results[k], expected[k % 40], "query \(k)") }
    }
}

import Geo
import Import
import Routing
import TestSupport
import XCTest

/// One-way streets, access, snapping onto a segment's middle, via points: small hand-made maps.
final class OneWayAndSnappingTests: XCTestCase {
    /// A 100 m square A(0,0) B(100,0) C(100,100) D(0,100) of one-way streets turning anticlockwise.
    func squareLoop(closingTags: [String: String] = ["highway": "residential", "oneway": "yes"]) -> TinyMap {
        var m = TinyMap()
        m.node(1, 0, 0); m.node(2, 100, 0); m.node(3, 100, 100); m.node(4, 0, 100)
        m.way(10, [1, 2], ["highway": "residential", "oneway": "yes"])
        m.way(11, [2, 3], ["highway": "residential", "oneway": "true"])
        m.way(12, [3, 4], ["highway": "residential", "oneway": "1"])
        m.way(13, [4, 1], closingTags)
        return m
    }

    func testOneWayStreetsAreFollowed() throws {
        let engine = try squareLoop().engine()
        // A → D against the one-way D→A: all the way round (300 m), not the 100 m side.
        let around = try engine.tinyRoute((0, 0), (0, 100))
        XCTAssertEqual(around.distanceMeters, 300, accuracy: 1)
        // D → A with the one-way: 100 m.
        let along = try engine.tinyRoute((0, 100), (0, 0))
        XCTAssertEqual(along.distanceMeters, 100, accuracy: 1)
    }

    func testReverseOneWayTag() throws {
        // Way 13 drawn A→D but tagged oneway=-1: traffic still runs D→A.
        var m = squareLoop()
        m.ways.removeLast()
        m.way(13, [1, 4], ["highway": "residential", "oneway": "-1"])
        let engine = try m.engine()
        XCTAssertEqual(try engine.tinyRoute((0, 100), (0, 0)).distanceMeters, 100, accuracy: 1)
        XCTAssertEqual(try engine.tinyRoute((0, 0), (0, 100)).distanceMeters, 300, accuracy: 1)
    }

    func testImpliedOneWayOnRoundaboutAndForbiddenAccess() throws {
        // The closing side is a roundabout drawn D→A (implied one-way); a parallel private
        // road A→D must not be used.
        var m = squareLoop(closingTags: ["highway": "residential", "junction": "roundabout"])
        m.node(5, -5, 50)
        m.way(14, [1, 5, 4], ["highway": "residential", "access": "private"])
        let engine = try m.engine()
        XCTAssertEqual(try engine.tinyRoute((0, 0), (0, 100)).distanceMeters, 300, accuracy: 1)
    }

    func testOneWaySegmentWithBothPointsOnItRoutesAroundWhenBackwards() throws {
        let engine = try squareLoop().engine()
        // On A→B: from x=80 to x=20 must go round the loop (400 - 60 = 340 m).
        let r = try engine.tinyRoute((80, 0), (20, 0))
        XCTAssertEqual(r.distanceMeters, 340, accuracy: 1)
        // Forward along it: 60 m and a single segment.
        let f = try engine.tinyRoute((20, 0), (80, 0))
        XCTAssertEqual(f.distanceMeters, 60, accuracy: 0.5)
        XCTAssertEqual(f.segments.count, 1)
    }

    func testSnappingProjectsOntoTheMiddleOfASegment() throws {
        // One long two-way street of a single segment, closed into a loop so it stays connected.
        var m = TinyMap()
        m.node(1, 0, 0); m.node(2, 400, 0); m.node(3, 400, 300); m.node(4, 0, 300)
        m.way(1, [1, 2], ["highway": "secondary", "name": "Long Street"])
        m.way(2, [2, 3, 4, 1], ["highway": "residential", "name": "Back Road"])
        let engine = try m.engine()
        let r = try engine.tinyRoute((150, 30), (250, -20))
        // The points project onto the segment's middle, not onto its end nodes.
        XCTAssertEqual(r.snapped[0].distance(to: TinyMap.at(150, 0)), 0, accuracy: 0.3)
        XCTAssertEqual(r.snapped[1].distance(to: TinyMap.at(250, 0)), 0, accuracy: 0.3)
        XCTAssertEqual(r.snapDistancesMeters[0], 30, accuracy: 0.3)
        XCTAssertEqual(r.snapDistancesMeters[1], 20, accuracy: 0.3)
        XCTAssertEqual(r.distanceMeters, 100, accuracy: 0.5)
        XCTAssertEqual(r.streetNames, ["Long Street"])
        XCTAssertEqual(r.geometry.first.map { $0.distance(to: r.snapped[0]) } ?? 99, 0, accuracy: 0.01)
        XCTAssertEqual(r.geometry.last.map { $0.distance(to: r.snapped[1]) } ?? 99, 0, accuracy: 0.01)
        // Secondary at 03:00 runs at the profile's 29.4 km/h: 100 m in 12.2 s.
        XCTAssertEqual(r.durationSeconds, 100 / (29.4 / 3.6), accuracy: 0.1)
    }

    func testTooFarFromRoadNamesThePoint() throws {
        var m = TinyMap()
        m.node(1, 0, 0); m.node(2, 400, 0); m.node(3, 400, 300)
        m.way(1, [1, 2, 3, 1])
        let engine = try m.engine()
        XCTAssertThrowsError(try engine.tinyRoute((100, 0), (100, -500))) { error in
            // Issue 24: a point off the served roads is outside_coverage, with how far the road is.
            guard case RoutingError.outsideCoverage(let point, _, let limit, let nearest, let other) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(point, .destination)
            XCTAssertEqual(limit, 200)
            XCTAssertNil(other)
            XCTAssertEqual(nearest ?? 0, 500, accuracy: 10)
        }
        XCTAssertThrowsError(try engine.tinyRoute((100, 0), (200, 0), via: [(50, 0), (0, 900)])) { error in
            guard case RoutingError.outsideCoverage(let point, _, _, _, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(point, .via(1))
        }
        // A larger snapping radius reaches the road.
        let far = RouteRequest(from: TinyMap.at(100, 0), to: TinyMap.at(100, -500), departAt: night, maxSnapMeters: 600)
        XCTAssertNoThrow(try engine.route(far))
    }

    func testViaPointsMakeLegs() throws {
        // A 3×1 grid of two-way streets: 0─1─2─3 on y=0 and 4─5─6─7 on y=100, with rungs.
        var m = TinyMap()
        for i in 0..<4 { m.node(i, Double(i) * 100, 0); m.node(i + 4, Double(i) * 100, 100) }
        m.way(100, [0, 1, 2, 3]); m.way(101, [4, 5, 6, 7])
        for i in 0..<4 { m.way(110 + i, [i, i + 4]) }
        let engine = try m.engine()
        let direct = try engine.tinyRoute((0, 0), (300, 0))
        XCTAssertEqual(direct.distanceMeters, 300, accuracy: 1)
        let r = try engine.tinyRoute((0, 0), (300, 0), via: [(100, 100), (200, 50)])
        XCTAssertEqual(r.legs.count, 3)
        XCTAssertEqual(r.legs[0].distanceMeters, 200, accuracy: 1)  // (0,0) → (100,100)
        XCTAssertEqual(r.legs[1].distanceMeters, 150, accuracy: 1)  // → (200,50) on the rung at x=200
        XCTAssertEqual(r.legs[2].distanceMeters, 150, accuracy: 1)  // → (300,0)
        XCTAssertEqual(r.distanceMeters, r.legs.reduce(0) { $0 + $1.distanceMeters }, accuracy: 1e-6)
        XCTAssertEqual(r.snapped.count, 4)
        XCTAssertEqual(Set(r.segments.map(\.legIndex)), [0, 1, 2])
        XCTAssertEqual(r.segments.reduce(0) { $0 + $1.distanceMeters }, r.distanceMeters, accuracy: 1e-6)
        // Too many via points.
        let many = Array(repeating: (100.0, 0.0), count: RouteEngine.maxViaPoints + 1)
        XCTAssertThrowsError(try engine.tinyRoute((0, 0), (300, 0), via: many)) { error in
            XCTAssertEqual(error as? RoutingError, .tooManyViaPoints(count: RouteEngine.maxViaPoints + 1, limit: RouteEngine.maxViaPoints))
        }
    }

    func testBarrierAndMissingNodesAreHandled() throws {
        var m = TinyMap()
        m.node(1, 0, 0); m.node(2, 100, 0); m.node(3, 200, 0); m.node(4, 200, 100); m.node(5, 0, 100)
        m.node(6, 100, 100, ["barrier": "bollard"])
        m.way(1, [1, 2, 3, 4, 6, 5, 1])
        m.way(2, [2, 99, 6])  // node 99 is missing from the file
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tiny-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try m.xml.write(to: dir.appendingPathComponent("m.osm"), atomically: true, encoding: .utf8)
        let report = try OSMImporter.importFile(dir.appendingPathComponent("m.osm").path, to: dir.appendingPathComponent("m.graph").path,
                                                profile: try SeoulFixture.profile)
        XCTAssertEqual(report.missingNodeRefs, 1)
        XCTAssertEqual(report.blockedNodeRefs, 2)
    }
}

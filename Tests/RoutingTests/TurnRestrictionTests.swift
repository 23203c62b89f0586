import Geo
import Import
import Routing
import TestSupport
import XCTest

/// Each turn-restriction type on a crossroads X with arms N, E, S, W (100 m) whose tips are
/// joined by diagonal roads (141 m), so that every forbidden turn has a detour. Turning back
/// at another junction is allowed (the graph is node-based), so some detours are
/// "out to a tip and back" (200 m extra).
final class TurnRestrictionTests: XCTestCase {
    // Node ids: X 1, N 2, E 3, S 4, W 5. Way ids: arms 20 (N), 30 (E), 40 (S), 50 (W).
    func crossroads(_ restriction: String? = nil, from: Int = 40, to: Int = 50, extra: (inout TinyMap) -> Void = { _ in }) -> TinyMap {
        var m = TinyMap()
        m.node(1, 0, 0); m.node(2, 0, 100); m.node(3, 100, 0); m.node(4, 0, -100); m.node(5, -100, 0)
        m.way(20, [1, 2]); m.way(30, [1, 3]); m.way(40, [1, 4]); m.way(50, [1, 5])
        m.way(60, [2, 3]); m.way(61, [3, 4]); m.way(62, [4, 5]); m.way(63, [5, 2])
        extra(&m)
        if let restriction { m.restriction(900, restriction, from: from, via: 1, to: to) }
        return m
    }

    let diagonal = 100 * 2.0.squareRoot()
    // Points halfway along each arm.
    let southMid = (0.0, -50.0), northMid = (0.0, 50.0), eastMid = (50.0, 0.0), westMid = (-50.0, 0.0)

    func testUnrestrictedCrossroadsTurnsFreely() throws {
        let engine = try crossroads().engine()
        XCTAssertEqual(try engine.tinyRoute(southMid, westMid).distanceMeters, 100, accuracy: 1)
        XCTAssertEqual(try engine.tinyRoute(southMid, northMid).distanceMeters, 100, accuracy: 1)
        XCTAssertEqual(try engine.tinyRoute(southMid, eastMid).distanceMeters, 100, accuracy: 1)
    }

    func testNoLeftTurn() throws {
        // Heading north from S, west is a left turn.
        let engine = try crossroads("no_left_turn", from: 40, to: 50).engine()
        XCTAssertEqual(try engine.tinyRoute(southMid, westMid).distanceMeters, 50 + diagonal + 50, accuracy: 1)
        XCTAssertEqual(try engine.tinyRoute(southMid, northMid).distanceMeters, 100, accuracy: 1)
        XCTAssertEqual(try engine.tinyRoute(westMid, southMid).distanceMeters, 100, accuracy: 1)  // the other way is free
    }

    func testNoRightTurn() throws {
        let engine = try crossroads("no_right_turn", from: 40, to: 30).engine()
        XCTAssertEqual(try engine.tinyRoute(southMid, eastMid).distanceMeters, 50 + diagonal + 50, accuracy: 1)
        XCTAssertEqual(try engine.tinyRoute(southMid, westMid).distanceMeters, 100, accuracy: 1)
    }

    func testNoStraightOn() throws {
        let engine = try crossroads("no_straight_on", from: 40, to: 20).engine()
        // Detour: turn at X onto E (or W), turn back at its tip, cross X northward: 50 + 200 + 50.
        XCTAssertEqual(try engine.tinyRoute(southMid, northMid).distanceMeters, 300, accuracy: 1)
        XCTAssertEqual(try engine.tinyRoute(southMid, eastMid).distanceMeters, 100, accuracy: 1)
    }

    func testOnlyStraightOn() throws {
        let engine = try crossroads("only_straight_on", from: 40, to: 20).engine()
        XCTAssertEqual(try engine.tinyRoute(southMid, northMid).distanceMeters, 100, accuracy: 1)
        XCTAssertEqual(try engine.tinyRoute(southMid, westMid).distanceMeters, 50 + diagonal + 50, accuracy: 1)
        XCTAssertEqual(try engine.tinyRoute(southMid, eastMid).distanceMeters, 50 + diagonal + 50, accuracy: 1)
    }

    func testOnlyLeftTurn() throws {
        let engine = try crossroads("only_left_turn", from: 40, to: 50).engine()
        XCTAssertEqual(try engine.tinyRoute(southMid, westMid).distanceMeters, 100, accuracy: 1)
        // Straight on is forbidden: left to W, back from its tip, then right at X: 50 + 200 + 50.
        XCTAssertEqual(try engine.tinyRoute(southMid, northMid).distanceMeters, 300, accuracy: 1)
    }

    func testOnlyRightTurn() throws {
        let engine = try crossroads("only_right_turn", from: 40, to: 30).engine()
        XCTAssertEqual(try engine.tinyRoute(southMid, eastMid).distanceMeters, 100, accuracy: 1)
        XCTAssertEqual(try engine.tinyRoute(southMid, westMid).distanceMeters, 50 + diagonal + 50, accuracy: 1)
    }

    func testNoUTurnBetweenCarriageways() throws {
        // The south arm becomes a dual carriageway 10 m wide: way 41 northbound (x=+5 → X),
        // way 42 southbound (X → x=−5), joined to S by short connectors.
        func dual(_ m: inout TinyMap) {
            m.ways.removeAll { $0.id == 40 }
            m.node(6, 5, -100); m.node(7, -5, -100)
            m.way(41, [6, 1], ["highway": "residential", "oneway": "yes"])
            m.way(42, [1, 7], ["highway": "residential", "oneway": "yes"])
            m.way(43, [4, 6]); m.way(44, [7, 4])
        }
        let free = try crossroads(extra: dual).engine()
        // Northbound at y=-50 to southbound at y=-60: up to X and back down.
        XCTAssertEqual(try free.tinyRoute((6, -50), (-6, -60)).distanceMeters, 110, accuracy: 1)
        let engine = try crossroads("no_u_turn", from: 41, to: 42, extra: dual).engine()
        // No U-turn at X: out to a tip, back to X and down: 50 + 200 + 60.
        XCTAssertEqual(try engine.tinyRoute((6, -50), (-6, -60)).distanceMeters, 310, accuracy: 1)
    }

    func testRestrictionsAreCountedAndBadOnesSkipped() throws {
        var m = crossroads("no_left_turn", from: 40, to: 50)
        m.restriction(901, "no_right_turn", from: 40, via: 3, to: 30)  // via node not on the from way
        m.relations.append((902, [("way", 40, "from"), ("way", 20, "via"), ("way", 30, "to")],
                            ["type": "restriction", "restriction": "no_left_turn"]))  // via way: unsupported
        m.relations.append((903, [("way", 40, "from"), ("node", 1, "via"), ("way", 30, "to")],
                            ["type": "restriction", "restriction": "no_right_turn", "except": "motorcar"]))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try m.xml.write(to: dir.appendingPathComponent("m.osm"), atomically: true, encoding: .utf8)
        let report = try OSMImporter.importFile(dir.appendingPathComponent("m.osm").path, to: dir.appendingPathComponent("m.graph").path,
                                                profile: try SeoulFixture.profile)
        XCTAssertEqual(report.restrictionsApplied, 1)
        XCTAssertEqual(report.restrictionsSkipped, 3)
        XCTAssertEqual(report.restrictionCopies, 1)
    }

    func testAStarEqualsDijkstraWithRestrictions() throws {
        let engine = try crossroads("only_left_turn", from: 40, to: 50).engine()
        for (a, b) in [(southMid, northMid), (southMid, eastMid), ((0.0, -90.0), (90.0, 0.0)), (westMid, southMid)] {
            for metric in RouteMetric.allCases {
                let alt = try engine.tinyRoute(a, b, metric: metric)
                var request = RouteRequest(from: TinyMap.at(a.0, a.1), to: TinyMap.at(b.0, b.1), departAt: night, metric: metric)
                request.algorithm = .dijkstra
                XCTAssertEqual(alt.weight, try engine.route(request).weight)
            }
        }
    }
}

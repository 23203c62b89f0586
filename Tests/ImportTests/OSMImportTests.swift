import Foundation
import Import
import Routing
import SyntheticCity
import TestSupport
import XCTest

/// Reading real and malformed OSM files, and the car profile's tag rules.
final class OSMImportTests: XCTestCase {
    func importing(_ text: String, name: String = "bad.osm") throws -> ImportReport {
        let dir = TestPaths.temporaryDirectory("osm-import")
        let path = dir.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return try OSMImporter.importFile(path, to: dir.appendingPathComponent("out.graph").path, profile: try SeoulFixture.profile)
    }

    func assertImportFails(_ text: String, name: String = "bad.osm", mentioning words: [String], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try importing(text, name: name), file: file, line: line) { error in
            let message = "\(error)"
            XCTAssertTrue(message.contains(name), "message should name the file: \(message)", file: file, line: line)
            for w in words { XCTAssertTrue(message.contains(w), "'\(message)' should mention '\(w)'", file: file, line: line) }
        }
    }

    func testMalformedOSMFailsCleanly() throws {
        let good = TinyMapSample.xml
        assertImportFails(String(good.prefix(good.count / 2)), mentioning: ["not a valid OSM file"])  // truncated XML
        assertImportFails("<osm version=\"0.6\"><node id=\"1\" lat=\"37.5\" lon=\"127\"></osm>", mentioning: ["not a valid OSM file"])
        assertImportFails("this is not XML at all", mentioning: ["not a valid OSM file"])
        assertImportFails("<osm version=\"0.6\"></osm>", mentioning: ["no drivable road"])
        assertImportFails(good, name: "roads.txt", mentioning: [".osm"])
        assertImportFails("not a protobuf", name: "bad.osm.pbf", mentioning: ["not a valid OSM file"])
        // Footways only: nothing for cars.
        assertImportFails(good.replacingOccurrences(of: "residential", with: "footway"), mentioning: ["no drivable road"])
        XCTAssertNoThrow(try importing(good))
    }

    func testYeouidoPBFWithTurnRestrictions() throws {
        let dir = TestPaths.temporaryDirectory("yeouido")
        let report = try OSMImporter.importFile(TestPaths.dataDir.appendingPathComponent("osm/extracts/yeouido.osm.pbf").path,
                                                to: dir.appendingPathComponent("y.graph").path, profile: try SeoulFixture.profile)
        XCTAssertEqual(report.osmNodes, 20_177)
        XCTAssertEqual(report.osmWays, 1_858)
        XCTAssertEqual(report.osmRelations, 301)
        XCTAssertGreaterThan(report.restrictionsApplied, 0)
        XCTAssertGreaterThan(report.nodes, 50)
        XCTAssertNoThrow(try RoadGraph.load(path: dir.appendingPathComponent("y.graph").path))
    }

    func testDongjakXMLExtract() throws {
        let dir = TestPaths.temporaryDirectory("dongjak")
        let osm = dir.appendingPathComponent("dongjak_heukseok.osm")
        let gunzip = Process()
        gunzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gunzip.arguments = ["-dc", TestPaths.dataDir.appendingPathComponent("osm/extracts/dongjak_heukseok.osm.gz").path]
        XCTAssertTrue(FileManager.default.createFile(atPath: osm.path, contents: nil))
        gunzip.standardOutput = try FileHandle(forWritingTo: osm)
        try gunzip.run()
        gunzip.waitUntilExit()
        XCTAssertEqual(gunzip.terminationStatus, 0)
        let report = try OSMImporter.importFile(osm.path, to: dir.appendingPathComponent("d.graph").path, profile: try SeoulFixture.profile)
        // PROVENANCE: 5,521 nodes, 756 ways, 8 relations (multipolygons, no restrictions).
        XCTAssertEqual(report.osmNodes, 5_521)
        XCTAssertEqual(report.osmWays, 756)
        XCTAssertEqual(report.osmRelations, 8)
        XCTAssertEqual(report.restrictionsApplied, 0)
        XCTAssertGreaterThan(report.drivableWays, 100)
        let engine = RouteEngine(graph: try RoadGraph.load(path: dir.appendingPathComponent("d.graph").path), profile: try SeoulFixture.profile)
        // Chung-Ang University Hospital area to Sangdo: a route exists.
        let r = try engine.route(RouteRequest(from: engine.graph.coordinate(ofNode: 0), to: engine.graph.coordinate(ofNode: engine.graph.nodeCount - 1),
                                              departAt: night))
        XCTAssertGreaterThan(r.distanceMeters, 0)
    }

    func testMaxspeedParsing() {
        XCTAssertEqual(CarProfile.parseMaxspeed("50"), 50)
        XCTAssertEqual(CarProfile.parseMaxspeed("60 km/h"), 60)
        XCTAssertEqual(CarProfile.parseMaxspeed("30 mph")!, 48.28, accuracy: 0.01)
        XCTAssertEqual(CarProfile.parseMaxspeed("KR:urban"), 50)
        XCTAssertEqual(CarProfile.parseMaxspeed("KR:motorway"), 100)
        XCTAssertEqual(CarProfile.parseMaxspeed("DE:rural"), 90)
        XCTAssertEqual(CarProfile.parseMaxspeed("DE:zone30"), 30)
        XCTAssertEqual(CarProfile.parseMaxspeed("40;60"), 40)
        XCTAssertEqual(CarProfile.parseMaxspeed("walk"), 6)
        XCTAssertNil(CarProfile.parseMaxspeed("none"))
        XCTAssertNil(CarProfile.parseMaxspeed("signals"))
        XCTAssertNil(CarProfile.parseMaxspeed("fast"))
        XCTAssertNil(CarProfile.parseMaxspeed("-30"))
        XCTAssertNil(CarProfile.parseMaxspeed("1e999"))
    }

    func testWayRules() {
        func rule(_ tags: [String: String]) -> WayRule? {
            var t = WayTags()
            for (k, v) in tags { t.set(k, v) }
            return CarProfile.rule(for: t)
        }
        XCTAssertNil(rule(["highway": "footway"]))
        XCTAssertNil(rule(["highway": "residential", "access": "private"]))
        XCTAssertNotNil(rule(["highway": "residential", "access": "no", "motorcar": "yes"]))
        XCTAssertNil(rule(["highway": "service", "service": "emergency_access"]))
        XCTAssertNil(rule(["highway": "primary", "oneway": "reversible"]))
        XCTAssertEqual(rule(["highway": "motorway"]).map { [$0.forward, $0.backward] }, [true, false])
        XCTAssertEqual(rule(["highway": "motorway", "oneway": "no"]).map { [$0.forward, $0.backward] }, [true, true])
        XCTAssertEqual(rule(["highway": "primary", "oneway": "-1"]).map { [$0.forward, $0.backward] }, [false, true])
        XCTAssertEqual(rule(["highway": "trunk_link"])?.roadClass, .trunk)
        XCTAssertEqual(rule(["highway": "residential", "maxspeed": "KR:urban"])?.capForwardKmh, 50)
        XCTAssertEqual(rule(["highway": "residential"])?.capForwardKmh, CarProfile.defaultCapKmh(.residential))
        let split = rule(["highway": "secondary", "maxspeed:forward": "40", "maxspeed:backward": "60"])
        XCTAssertEqual(split?.capForwardKmh, 40)
        XCTAssertEqual(split?.capBackwardKmh, 60)
        XCTAssertEqual(rule(["highway": "primary", "ref": "1"])?.name, "1")
        XCTAssertEqual(rule(["highway": "primary", "name": "세종대로", "ref": "1"])?.name, "세종대로")
    }
}

/// A small valid OSM file: a loop of residential streets.
enum TinyMapSample {
    static var xml: String {
        var m = TinyMap()
        m.node(1, 0, 0); m.node(2, 100, 0); m.node(3, 100, 100); m.node(4, 0, 100)
        m.way(1, [1, 2, 3, 4, 1], ["highway": "residential", "name": "Loop"])
        return m.xml
    }
}

/// The synthetic city: exact node count, deterministic, importable, routable.
final class SyntheticCityTests: XCTestCase {
    func testSyntheticCityImportsAndRoutes() throws {
        let dir = TestPaths.temporaryDirectory("synth")
        let a = dir.appendingPathComponent("a.osm").path, b = dir.appendingPathComponent("b.osm").path
        let summary = try SyntheticCity.write(nodes: 30_000, seed: 5, to: a)
        XCTAssertEqual(summary.nodes, 30_000)
        XCTAssertGreaterThan(summary.restrictions, 0)
        _ = try SyntheticCity.write(nodes: 30_000, seed: 5, to: b)
        XCTAssertEqual(FileManager.default.contents(atPath: a), FileManager.default.contents(atPath: b))
        let graph = dir.appendingPathComponent("a.graph").path
        let report = try OSMImporter.importFile(a, to: graph, profile: try SeoulFixture.profile)
        XCTAssertEqual(report.osmNodes, 30_000)
        XCTAssertEqual(report.restrictionsApplied + report.restrictionsSkipped, summary.restrictions)
        XCTAssertGreaterThan(report.restrictionsApplied, summary.restrictions / 2)
        XCTAssertGreaterThan(report.nodes, 10_000)
        let engine = RouteEngine(graph: try RoadGraph.load(path: graph), profile: try SeoulFixture.profile)
        let pairs = RandomRoutes.pairs(engine.graph, count: 60, seed: 3)
        for (i, (from, to)) in pairs.enumerated() {
            let metric: RouteMetric = i % 2 == 0 ? .time : .distance
            var request = RouteRequest(from: from, to: to, departAt: night + Double(i) * 3600, metric: metric)
            let alt = try engine.route(request)
            request.algorithm = .dijkstra
            XCTAssertEqual(alt.weight, try engine.route(request).weight)
        }
        for n in [16, 17, 100] { XCTAssertEqual(try SyntheticCity.write(nodes: n, seed: 1, to: a).nodes, n) }
        XCTAssertThrowsError(try SyntheticCity.write(nodes: 5, seed: 1, to: a))
    }
}

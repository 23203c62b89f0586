import Foundation
import Geo
import Import
@testable import Routing
import TestSupport
import XCTest

/// Several OSM files into one graph: merging, served areas, circuity, coverage and the
/// outside-coverage answer.
final class MultiExtractTests: XCTestCase {
    static let night = 1_700_000_000.0 + 16 * 3600  // 10:13 Seoul, a weekday

    static func path(_ relative: String) -> String { TestPaths.dataDir.appendingPathComponent(relative).path }

    /// The four staged extracts merged, imported once.
    static let four: Result<(engine: RouteEngine, report: ImportReport), Error> = Result {
        let profile = try SeoulFixture.profile
        let out = TestPaths.temporaryDirectory("four").appendingPathComponent("four.graph").path
        let files = ["osm/seoul-central.osm.pbf", "osm/extracts/yeouido.osm.pbf", "osm/extracts/dongjak_heukseok.osm.gz",
                     "osm/extracts/songpa_jamsil.osm.gz"].map(path)
        let report = try OSMImporter.importFiles(files, to: out, profile: profile)
        return (RouteEngine(graph: try RoadGraph.load(path: out), profile: profile), report)
    }

    /// Inflates a `.osm.gz` with the system gzip.
    static func gunzip(_ relative: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/gzip")
        p.arguments = ["-dc", path(relative)]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// The elements of an OSM XML document (between `<osm …>` and `</osm>`).
    static func body(_ xml: String) -> Substring {
        let start = xml.range(of: "<osm")!.upperBound
        let open = xml[start...].firstIndex(of: ">")!
        let end = xml.range(of: "</osm>", options: .backwards)!.lowerBound
        return xml[xml.index(after: open)..<end]
    }

    func testTwoFilesEqualOneFileHoldingBoth() throws {
        let dir = TestPaths.temporaryDirectory("merge")
        let a = try Self.gunzip("osm/extracts/dongjak_heukseok.osm.gz"), b = try Self.gunzip("osm/extracts/songpa_jamsil.osm.gz")
        let both = dir.appendingPathComponent("both.osm").path
        try ("<?xml version='1.0' encoding='UTF-8'?>\n<osm version=\"0.6\">" + Self.body(a) + Self.body(b) + "</osm>\n")
            .write(toFile: both, atomically: true, encoding: .utf8)
        let profile = try SeoulFixture.profile
        let merged = dir.appendingPathComponent("merged.graph").path, single = dir.appendingPathComponent("single.graph").path
        let r1 = try OSMImporter.importFiles([Self.path("osm/extracts/dongjak_heukseok.osm.gz"), Self.path("osm/extracts/songpa_jamsil.osm.gz")],
                                             to: merged, profile: profile)
        let r2 = try OSMImporter.importFile(both, to: single, profile: profile)
        XCTAssertEqual(r1.inputs, 2)
        XCTAssertEqual(r1.osmNodes, 5_521 + 10_686)
        XCTAssertEqual(r1.osmNodes, r2.osmNodes)
        XCTAssertEqual(r1.areaNodes, r2.areaNodes)
        XCTAssertEqual(r1.areaNodes.count, 2, "Dongjak and Songpa are two areas no road joins")
        let g1 = try RoadGraph.load(path: merged), g2 = try RoadGraph.load(path: single)
        XCTAssertEqual(Array(g1.nodeLat), Array(g2.nodeLat))
        XCTAssertEqual(Array(g1.nodeLon), Array(g2.nodeLon))
        XCTAssertEqual(Array(g1.firstOut), Array(g2.firstOut))
        XCTAssertEqual(Array(g1.head), Array(g2.head))
        XCTAssertEqual(Array(g1.length), Array(g2.length))
        XCTAssertEqual(Array(g1.nodeArea), Array(g2.nodeArea))
        XCTAssertEqual(g1.circuity, g2.circuity)
    }

    func testSharedNodeIsOneNode() throws {
        // The same file twice: every node and way is shared, the graph is the file's own.
        let profile = try SeoulFixture.profile
        let dir = TestPaths.temporaryDirectory("twice")
        let once = try OSMImporter.importFile(Self.path("osm/extracts/dongjak_heukseok.osm.gz"), to: dir.appendingPathComponent("1.graph").path,
                                              profile: profile)
        let twice = try OSMImporter.importFiles(Array(repeating: Self.path("osm/extracts/dongjak_heukseok.osm.gz"), count: 2),
                                                to: dir.appendingPathComponent("2.graph").path, profile: profile)
        XCTAssertEqual(twice.sharedNodes, 5_521)
        XCTAssertEqual(twice.nodes, once.nodes)
        XCTAssertEqual(twice.edges, once.edges)
    }

    func testGzipErrorsNameTheFile() throws {
        let dir = TestPaths.temporaryDirectory("badgz")
        let bad = dir.appendingPathComponent("bad.osm.gz").path
        try "not gzip".write(toFile: bad, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try OSMImporter.importFiles([Self.path("osm/extracts/yeouido.osm.pbf"), bad], to: dir.appendingPathComponent("g").path,
                                                         profile: try SeoulFixture.profile)) { error in
            XCTAssertTrue("\(error)".contains("bad.osm.gz") && "\(error)".contains("gzip"), "\(error)")
        }
    }

    /// A route inside each staged extract works on the merged graph.
    func testRouteInsideEachStagedExtract() throws {
        let (engine, report) = try Self.four.get()
        XCTAssertEqual(report.inputs, 4)
        XCTAssertGreaterThanOrEqual(report.areaNodes.count, 4)
        XCTAssertTrue(report.areaNodes.allSatisfy { $0 >= OSMImporter.defaultMinAreaNodes })
        let trips: [(String, Coordinate, Coordinate)] = [
            ("central: City Hall → Seoul Station", Coordinate(lon: 126.9779, lat: 37.5663), Coordinate(lon: 126.9707, lat: 37.5547)),
            ("Songpa: Jamsil → Olympic Park edge", Coordinate(lon: 127.1002, lat: 37.5133), Coordinate(lon: 127.1120, lat: 37.5160)),
            ("Dongjak: Heukseok → Sangdo", Coordinate(lon: 126.9630, lat: 37.5085), Coordinate(lon: 126.9490, lat: 37.5030)),
            ("Yeouido", Coordinate(lon: 126.9050, lat: 37.5240), Coordinate(lon: 126.9100, lat: 37.5280)),
        ]
        // Each end at the graph node nearest the named place (the extracts' roads are sparse).
        func node(_ c: Coordinate) -> Int {
            (0..<engine.graph.nodeCount).min { engine.graph.coordinate(ofNode: $0).distance(to: c) < engine.graph.coordinate(ofNode: $1).distance(to: c) }!
        }
        var areas = Set<Int>()
        for (name, p, q) in trips {
            let (u, v) = (node(p), node(q))
            XCTAssertLessThan(engine.graph.coordinate(ofNode: u).distance(to: p), 400, name)
            XCTAssertEqual(engine.graph.area(ofNode: u), engine.graph.area(ofNode: v), name)
            let a = engine.graph.coordinate(ofNode: u), b = engine.graph.coordinate(ofNode: v)
            let r = try engine.route(RouteRequest(from: a, to: b, departAt: Self.night))
            XCTAssertGreaterThan(r.distanceMeters, 200, name)
            XCTAssertLessThan(r.distanceMeters, 6_000, name)
            let problem = engine.coverageProblem(from: a, to: b)
            XCTAssertNil(problem, name)
            areas.insert(engine.graph.area(ofNode: u))
        }
        XCTAssertEqual(areas.count, 4, "the four trips lie in four areas")
        // Every area's landmarks give exact routes inside it (A* with landmarks = Dijkstra).
        for a in 0..<engine.graph.areaCount {
            let nodes = (0..<engine.graph.nodeCount).filter { engine.graph.area(ofNode: $0) == a }
            let from = engine.graph.coordinate(ofNode: nodes.first!), to = engine.graph.coordinate(ofNode: nodes.last!)
            let alt = try engine.route(RouteRequest(from: from, to: to, departAt: Self.night, algorithm: .alt))
            let dijkstra = try engine.route(RouteRequest(from: from, to: to, departAt: Self.night, algorithm: .dijkstra))
            XCTAssertEqual(alt.weight, dijkstra.weight, "area \(a)")
        }
    }

    func testOutsideCoverageNamesThePointAndTheDistance() throws {
        let (engine, _) = try Self.four.get()
        let gangnam = Coordinate(lon: 127.0276, lat: 37.4979), cityHall = Coordinate(lon: 126.9779, lat: 37.5663)
        XCTAssertThrowsError(try engine.route(RouteRequest(from: cityHall, to: gangnam, departAt: Self.night))) { error in
            guard case let RoutingError.outsideCoverage(point, _, limit, nearest, other) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(point, .destination)
            XCTAssertEqual(limit, 200)
            XCTAssertNil(other)
            XCTAssertGreaterThan(nearest ?? 0, 2_000)
            XCTAssertLessThan(nearest ?? .infinity, 6_000)
        }
        // Both ends on roads, in areas no road joins: Jamsil from City Hall.
        let jamsil = Coordinate(lon: 127.1002, lat: 37.5133)
        XCTAssertThrowsError(try engine.route(RouteRequest(from: cityHall, to: jamsil, departAt: Self.night))) { error in
            guard case let RoutingError.outsideCoverage(point, _, _, nearest, other) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(point, .destination)
            XCTAssertEqual(other, .origin)
            XCTAssertGreaterThan(nearest ?? 0, 5_000)
            XCTAssertTrue((error as? RoutingError)?.message.contains("no road joins") ?? false)
        }
    }

    func testCircuityIsMeasuredAndStored() throws {
        let (engine, _) = try Self.four.get()
        let bands = engine.graph.circuity.bands
        XCTAssertEqual(bands.count, CircuityTable.edges.count - 1)
        let used = bands.filter { $0.pairs >= CircuityTable.minimumPairs }
        XCTAssertGreaterThanOrEqual(used.count, 3)
        for b in used {
            XCTAssertTrue(1 <= b.p05 && b.p05 <= b.p10 && b.p10 <= b.median && b.median <= b.p90 && b.p90 <= b.p95, "\(b)")
            XCTAssertGreaterThan(b.median, 1.1)
            XCTAssertLessThan(b.median, 2)
            XCTAssertEqual(b.classShare.reduce(0, +), 1, accuracy: 1e-6)
        }
        print("circuity bands: " + used.map { "\(Int($0.minMeters))-\($0.maxMeters) m: n=\($0.pairs) p10 \($0.p10) median \($0.median) p90 \($0.p90)" }.joined(separator: "; "))
    }

    func testCoverageOutlines() throws {
        let (engine, report) = try Self.four.get()
        let map = engine.coverage
        XCTAssertEqual(map.areas.count, report.areaNodes.count)
        XCTAssertEqual(map.areas.map(\.nodes), report.areaNodes)
        for a in map.areas {
            XCTAssertFalse(a.polygons.isEmpty)
            for polygon in a.polygons {
                for ring in polygon {
                    XCTAssertGreaterThanOrEqual(ring.count, 5)
                    XCTAssertEqual(ring.first, ring.last)
                }
            }
            // Every node of the area lies in one of its outer rings' cells (inside or on an edge).
            let nodes = (0..<engine.graph.nodeCount).filter { engine.graph.area(ofNode: $0) == a.id }
            for v in nodes.prefix(200) {
                let c = engine.graph.coordinate(ofNode: v)
                XCTAssertTrue(a.cells.contains(CoverageMap.key(row: CoverageMap.row(c.lat), col: CoverageMap.col(c.lon))))
            }
        }
        XCTAssertEqual(map.distanceToCoverage(Coordinate(lon: 126.9779, lat: 37.5663)), 0)
        XCTAssertGreaterThan(map.distanceToCoverage(Coordinate(lon: 129.0756, lat: 35.1796)) ?? 0, 250_000)  // Busan
    }
}

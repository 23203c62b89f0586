import Foundation
import MapMatching
import TaxiPotServer
import TestSupport
import XCTest

/// `taxipot match-trace` (CSV and GPX) and `taxipot settle` over a folder, with per-trace errors.
final class MatchTraceCLITests: XCTestCase {
    func traceFixes() throws -> (fixes: [TraceFix], route: RouteResult) {
        let dataset = try TestDataset.loaded.get()
        let route = try dataset.routes.route(RouteRequest(from: Coordinate(lon: 126.978, lat: 37.5665), to: Coordinate(lon: 126.9882, lat: 37.5701),
                                                          departAt: 1_764_637_200))
        return (SyntheticTrace.make(route, intervalSeconds: 10, noiseMeters: 5, start: 1_764_637_200, seed: 4), route)
    }

    func testCSVAndGPXGiveTheSameMatch() throws {
        let (fixes, route) = try traceFixes()
        let dir = TestPaths.temporaryDirectory("match-trace")
        let csv = "lon,lat,time\n" + fixes.map { "\($0.coordinate.lon),\($0.coordinate.lat),\(Int($0.time!))" }.joined(separator: "\n") + "\n"
        try csv.write(to: dir.appendingPathComponent("t.csv"), atomically: true, encoding: .utf8)
        let gpx = #"<?xml version="1.0"?><gpx version="1.1" creator="test"><trk><trkseg>"#
            + fixes.map { #"<trkpt lat="\#($0.coordinate.lat)" lon="\#($0.coordinate.lon)"><time>\#(SeoulTime.format($0.time!))</time></trkpt>"# }.joined(separator: "\n")
            + "</trkseg></trk></gpx>"
        try gpx.write(to: dir.appendingPathComponent("t.gpx"), atomically: true, encoding: .utf8)
        let data = try TestDataset.directory()
        let a = try TaxipotCLI.run(["match-trace", dir.appendingPathComponent("t.csv").path, "--data", data])
        XCTAssertEqual(a.status, 0, a.stderr)
        let b = try TaxipotCLI.run(["match-trace", dir.appendingPathComponent("t.gpx").path, "--data", data])
        XCTAssertEqual(b.status, 0, b.stderr)
        let ja = try JSONParser.parse(a.stdout), jb = try JSONParser.parse(b.stdout)
        XCTAssertEqual(ja["matchings"]?[0]?["distance_m"]?.doubleValue ?? 0, route.distanceMeters, accuracy: route.distanceMeters * 0.02)
        XCTAssertEqual(ja["matchings"], jb["matchings"])
        // A bad line is named.
        try "lon,lat,time\n126.97,37.56,1\n126.98,x,2\n".write(to: dir.appendingPathComponent("bad.csv"), atomically: true, encoding: .utf8)
        let bad = try TaxipotCLI.run(["match-trace", dir.appendingPathComponent("bad.csv").path, "--data", data])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("bad.csv:3"), bad.stderr)
    }

    func testSettleBatchReportsEachTrace() throws {
        let (fixes, _) = try traceFixes()
        let dir = TestPaths.temporaryDirectory("settle-batch"), state = TestPaths.temporaryDirectory("settle-batch-state").path
        let service = try PartyService(stateDirectory: state)
        let depart = (Date().timeIntervalSince1970 + 3600).rounded()
        _ = try service.put(Party(id: "p1", origin: Coordinate(lon: 126.978, lat: 37.5665), destination: Coordinate(lon: 126.9882, lat: 37.5701),
                                  departAt: depart, seatsTotal: 4, riders: [PartyRider(id: "r1", seats: 2)]))
        _ = try service.close(backup: false)
        // The ride's fixes from its departure on (a trace of another day is refused: docs/FARES.md).
        let csv = "lon,lat,time\n" + fixes.map { "\($0.coordinate.lon),\($0.coordinate.lat),\(Int($0.time! - fixes[0].time! + depart))" }.joined(separator: "\n") + "\n"
        try csv.write(to: dir.appendingPathComponent("p1.csv"), atomically: true, encoding: .utf8)
        try csv.write(to: dir.appendingPathComponent("nobody.csv"), atomically: true, encoding: .utf8)
        let r = try TaxipotCLI.run(["settle", dir.path, "--state", state, "--data", try TestDataset.directory()])
        XCTAssertEqual(r.status, 2, r.stderr)
        let lines = r.stdoutText.split(separator: "\n").map { try? JSONParser.parse(Array($0.utf8)) }
        XCTAssertEqual(lines.count, 2)
        XCTAssertEqual(lines[0]?["party_id"]?.stringValue, "nobody")
        XCTAssertNotNil(lines[0]?["error"]?.stringValue)
        XCTAssertEqual(lines[1]?["party_id"]?.stringValue, "p1")
        XCTAssertGreaterThan(lines[1]?["fare_total_krw"]?.intValue ?? 0, 4000)
        XCTAssertEqual(lines[1]?["riders"]?[0]?["krw"]?.intValue, lines[1]?["fare_total_krw"]?.intValue)
    }
}

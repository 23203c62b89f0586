import Coordinates
import Foundation
import Geo
import Import
import Routing
import TestSupport
import XCTest

/// The Korean standard node-link network (data/nodelink): its two forms, what the import keeps
/// and reports, bad input, and routing under its turn rules against a plain Dijkstra.
final class NodeLinkImportTests: XCTestCase {
    static let csvDir = NodeLinkFixture.csvDir

    /// The shapefile set written from the CSV by tools/nodelink/make-shapefiles (made when absent).
    static let shapefileDir: Result<String, Error> = Result {
        let dir = TestPaths.dataDir.appendingPathComponent("build/nodelink").path
        if !FileManager.default.fileExists(atPath: dir + "/TURNINFO.dbf") {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: TestPaths.packageRoot.appendingPathComponent("tools/nodelink/make-shapefiles").path)
            try p.run()
            p.waitUntilExit()
            guard p.terminationStatus == 0 else { throw NodeLinkError("tools/nodelink/make-shapefiles failed") }
        }
        return dir
    }

    static func toWGS84() throws -> (Double, Double) throws -> (lon: Double, lat: Double) {
        let t = try CoordinateTransformer(from: "EPSG:5186", to: "EPSG:4326")
        return { x, y in
            let p = try t.transform(XYPoint(x: x, y: y))
            return (p.x, p.y)
        }
    }

    func testCSVImportCountsWhatItLeavesOut() throws {
        let net = try NodeLinkFixture.seoul.get()
        // PROVENANCE: 7,405 nodes, 19,967 links, 5,397 turn rows at Seoul nodes.
        XCTAssertEqual(net.nodes.count, 7405)
        XCTAssertEqual(net.links.count, 19_967)
        XCTAssertEqual(net.turns.count, 5397)
        XCTAssertEqual(net.turns.count + net.turnsOutside, 48_703)
        // Names are CP949 bytes written as Python literals: b'\xc1\xbe\xb7\xce' is 종로.
        XCTAssertEqual(net.links.first { $0.id == 1_000_045_000 }?.name, "종로")
        XCTAssertEqual(net.links.first { $0.id == 1_000_044_700 }?.name, "종로40길")
        let (report, lengthCm) = try NodeLinkFixture.seoulInspection.get()
        XCTAssertEqual(report.linksMissingNode, 307)
        XCTAssertEqual(report.linksClosedToCars, 0)
        XCTAssertGreaterThan(report.linksNotInUse, 400)
        XCTAssertLessThanOrEqual(report.linksNotInUse, 454)
        XCTAssertEqual(report.linksKept + report.linksMissingNode + report.linksNotInUse + report.linksClosedToCars + report.linksLooping,
                       19_967)
        XCTAssertGreaterThan(report.oneWayLinks, 0)
        XCTAssertGreaterThan(report.turnsNamingAbsentLinks, 0)
        XCTAssertGreaterThan(report.turnsProhibited, 2500)
        XCTAssertGreaterThan(report.uTurnsProhibited, 5000)
        XCTAssertGreaterThan(report.uTurnsListed, 1000)
        XCTAssertGreaterThan(report.uTurnsAtDeadEnds, 0)
        XCTAssertTrue(report.examples.contains { $0.contains("Seoul_link.csv: line ") && $0.contains("absent from the node file") },
                      report.examples.joined(separator: "\n"))
        XCTAssertEqual(lengthCm.count, report.linksKept)
        // Real lengths, not the straight line.
        let link = net.links.first { $0.id == 1_000_045_000 }!
        XCTAssertEqual(lengthCm[link.id], UInt32((link.lengthMeters * 100).rounded()))
        XCTAssertEqual(NodeLinkImporter.roadClass(rank: 101, lanes: 3), .motorway)
        XCTAssertEqual(NodeLinkImporter.roadClass(rank: 104, lanes: 3), .primary)
    }

    func testShapefilesReadTheSameNetworkAsTheCSV() throws {
        let csv = try NodeLinkFixture.seoul.get()
        let shp = try NodeLinkImporter.read(.shapefiles(directory: try Self.shapefileDir.get(), toWGS84: try Self.toWGS84()))
        XCTAssertEqual(shp.nodes.count, csv.nodes.count)
        XCTAssertEqual(shp.links.count, csv.links.count)
        XCTAssertEqual(shp.turns.count, csv.turns.count)
        for (a, b) in zip(csv.nodes, shp.nodes) {
            XCTAssertEqual(a.id, b.id)
            XCTAssertEqual(a.lat, b.lat, accuracy: 1e-6)
            XCTAssertEqual(a.lon, b.lon, accuracy: 1e-6)
        }
        var sameNames = 0
        for (a, b) in zip(csv.links, shp.links) {
            XCTAssertEqual(a.id, b.id)
            XCTAssertEqual(a.from, b.from); XCTAssertEqual(a.to, b.to)
            XCTAssertEqual(a.rank, b.rank); XCTAssertEqual(a.roadUse, b.roadUse); XCTAssertEqual(a.maxSpeedKmh, b.maxSpeedKmh)
            XCTAssertEqual(a.lengthMeters, b.lengthMeters, accuracy: 1e-6)
            if a.name == b.name { sameNames += 1 }
        }
        // The DBF field holds 30 bytes: only names longer than 15 Hangul syllables are cut.
        XCTAssertGreaterThan(sameNames, csv.links.count * 99 / 100)
        XCTAssertEqual(shp.links.first { $0.id == 1_000_045_000 }?.name, "종로")
    }

    func testBadShapefileSetsAreRefusedNamingTheFile() throws {
        let source = try Self.shapefileDir.get()
        let dir = TestPaths.temporaryDirectory("nodelink-bad").path
        for f in try FileManager.default.contentsOfDirectory(atPath: source) {
            try? FileManager.default.removeItem(atPath: dir + "/" + f)
            try FileManager.default.copyItem(atPath: source + "/" + f, toPath: dir + "/" + f)
        }
        try "UTF-8".write(toFile: dir + "/MOCT_LINK.cpg", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try NodeLinkImporter.read(.shapefiles(directory: dir, toWGS84: try Self.toWGS84()))) {
            XCTAssertTrue("\($0)".contains("MOCT_LINK.dbf: code page 'UTF-8'"), "\($0)")
        }
        try "CP949".write(toFile: dir + "/MOCT_LINK.cpg", atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: dir + "/MOCT_NODE.shx")
        XCTAssertThrowsError(try NodeLinkImporter.read(.shapefiles(directory: dir, toWGS84: try Self.toWGS84()))) {
            XCTAssertTrue("\($0)".contains("MOCT_NODE.shx: missing"), "\($0)")
        }
    }

    func testBadCSVRowsAreNamedByFileAndLine() throws {
        let dir = TestPaths.temporaryDirectory("nodelink-csv").path
        for f in ["Seoul_node.csv", "TURNINFO.csv"] {
            try? FileManager.default.removeItem(atPath: dir + "/" + f)
            try FileManager.default.copyItem(atPath: Self.csvDir + "/" + f, toPath: dir + "/" + f)
        }
        let links = try String(contentsOfFile: Self.csvDir + "/Seoul_link.csv", encoding: .utf8)
        var lines = links.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[2] = lines[2].replacingOccurrences(of: ",b'\\xc1\\xbe\\xb7\\xce40\\xb1\\xe6',", with: ",b'\\xc1\\xbe\\xb7\\xce40\\xb1\\xq6',")
        try lines.joined(separator: "\n").write(toFile: dir + "/Seoul_link.csv", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try NodeLinkImporter.read(.csv(directory: dir))) {
            XCTAssertTrue("\($0)".hasSuffix("Seoul_link.csv: line 3: ROAD_NAME is not a valid literal of CP949 bytes"), "\($0)")
        }
    }

    /// The network around 강남역 prepared with the measured speeds (shared with HierarchyTests).
    static let gangnam = NodeLinkFixture.gangnam

    /// Routes between the middles of one-way links equal a plain Dijkstra over the links, with the
    /// turn rules derived here from the rows: 002/003/101/102/103 prohibited; a U-turn only where
    /// 011/012 lists it or where no other turn is left.
    func testRoutesEqualPlainDijkstraOverLinksWithTurnRules() throws {
        let (net, engine, report) = try Self.gangnam.get()
        XCTAssertEqual(engine.graph.network, "nodelink")
        XCTAssertGreaterThan(report.uTurnsProhibited, 100)
        XCTAssertGreaterThan(report.turnsProhibited, 50)
        let compared = Self.compareRoutesWithPlainDijkstra(net, engine) { UInt64(($0.lengthMeters * 100).rounded()) }
        XCTAssertGreaterThan(compared, 100)
    }

    /// Routes between the middles of 300 random pairs of one-way links of `net` by `engine`
    /// against a plain Dijkstra over the links with the turn rules derived from the rows and the
    /// link lengths `lengthCm` (failures recorded); how many routes were compared.
    static func compareRoutesWithPlainDijkstra(_ net: NodeLinkNetwork, _ engine: RouteEngine,
                                               lengthCm length: (NodeLinkLink) -> UInt64) -> Int {
        let nodeIds = Set(net.nodes.map(\.id))
        let links = net.links.filter { nodeIds.contains($0.from) && nodeIds.contains($0.to) && $0.roadUse != 1 && $0.restrictedVehicle != 1 && $0.from != $0.to }
        let position = Dictionary(uniqueKeysWithValues: net.nodes.map { ($0.id, Coordinate(lon: $0.lon, lat: $0.lat)) })
        var out = [Int64: [Int]]()
        for (i, l) in links.enumerated() { out[l.from, default: []].append(i) }
        let prohibited = Set(net.turns.filter(\.prohibitsCars).map { [$0.from, $0.node, $0.to] })
        let listedUTurns = Set(net.turns.filter(\.allowsUTurn).map { [$0.from, $0.to] })
        func allowed(_ a: Int, _ b: Int) -> Bool {
            let la = links[a], lb = links[b]
            if prohibited.contains([la.id, la.to, lb.id]) { return false }
            guard lb.to == la.from else { return true }
            if listedUTurns.contains([la.id, lb.id]) { return true }
            return !(out[la.to] ?? []).contains { links[$0].to != la.from && !prohibited.contains([la.id, la.to, links[$0].id]) }
        }
        let lengthCm = links.map(length)
        func dijkstra(from s: Int, to t: Int) -> UInt64? {
            var dist = [UInt64](repeating: .max, count: links.count)
            var heap = [(UInt64, Int)]()
            dist[s] = lengthCm[s] - lengthCm[s] / 2
            heap.append((dist[s], s))
            var best = UInt64.max
            while let (d, a) = heap.min(by: { $0.0 < $1.0 }) {
                heap.remove(at: heap.firstIndex { $0 == (d, a) }!)
                if d > dist[a] || d >= best { continue }
                for b in out[links[a].to] ?? [] where allowed(a, b) {
                    if b == t { best = min(best, d + lengthCm[t] / 2); continue }
                    let nd = d + lengthCm[b]
                    if nd < dist[b] { dist[b] = nd; heap.append((nd, b)) }
                }
            }
            return best == .max ? nil : best
        }
        let pairs = Set(links.map { [$0.from, $0.to] })
        let oneWay = links.indices.filter { !pairs.contains([links[$0].to, links[$0].from]) && links[$0].lengthMeters > 20 }
        XCTAssertGreaterThan(oneWay.count, 20)
        var rng = SplitMix64(seed: 34)
        var compared = 0
        for _ in 0..<300 {
            let s = oneWay[Int(rng.next() % UInt64(oneWay.count))], t = oneWay[Int(rng.next() % UInt64(oneWay.count))]
            guard s != t else { continue }
            func middle(_ i: Int) -> Coordinate {
                let a = position[links[i].from]!, b = position[links[i].to]!
                return Coordinate(lon: (a.lon + b.lon) / 2, lat: (a.lat + b.lat) / 2)
            }
            guard let route = try? engine.route(RouteRequest(from: middle(s), to: middle(t), departAt: night, metric: .distance)),
                  route.snapDistancesMeters.allSatisfy({ $0 < 0.5 })
            else { continue }
            guard let expected = dijkstra(from: s, to: t) else {
                XCTFail("the engine routes link \(links[s].id) → \(links[t].id), Dijkstra finds no way"); continue
            }
            XCTAssertEqual(route.distanceMeters * 100, Double(expected), accuracy: 3, "link \(links[s].id) → \(links[t].id)")
            compared += 1
        }
        return compared
    }

    static let measuredSpeeds = NodeLinkFixture.measuredSpeeds

    /// Durations come from the measured speeds: each link of a route takes its length over its
    /// measured speed at the departure hour (links without one: MAX_SPD × the rank's calibrated
    /// ratio), to the millisecond per link; measured_share is the measured links' share of the
    /// length; night beats the evening rush by 1.3× or more; and the hierarchy's times equal
    /// plain Dijkstra's at both hours (exact under the measured metric).
    func testDurationsComeFromMeasuredSpeeds() throws {
        let (net, engine, report) = try Self.gangnam.get()
        let speeds = try Self.measuredSpeeds.get()
        let calibration = try XCTUnwrap(report.calibration)
        XCTAssertGreaterThan(report.measuredLinks, 300)
        let nodeIds = Set(net.nodes.map(\.id))
        let links = net.links.filter { nodeIds.contains($0.from) && nodeIds.contains($0.to) && $0.roadUse != 1 && $0.restrictedVehicle != 1 && $0.from != $0.to }
        let position = Dictionary(uniqueKeysWithValues: net.nodes.map { ($0.id, Coordinate(lon: $0.lon, lat: $0.lat)) })
        // Links by their ends at the graph's 1e-7° resolution.
        func key(_ a: Coordinate, _ b: Coordinate) -> [Int] {
            [a.lat, a.lon, b.lat, b.lon].map { Int(($0 * 1e7).rounded()) }
        }
        var byEnds = [[Int]: NodeLinkLink]()
        for l in links { byEnds[key(position[l.from]!, position[l.to]!)] = l }
        let pairs = Set(links.map { [$0.from, $0.to] })
        let measuredOneWay = links.filter { !pairs.contains([$0.to, $0.from]) && $0.lengthMeters > 20 && speeds.byLink[$0.id] != nil }
        XCTAssertGreaterThan(measuredOneWay.count, 20)
        func middle(_ l: NodeLinkLink) -> Coordinate {
            let a = position[l.from]!, b = position[l.to]!
            return Coordinate(lon: (a.lon + b.lon) / 2, lat: (a.lat + b.lat) / 2)
        }
        func speed(_ l: NodeLinkLink, _ h: Int) -> (kmh: Double, measured: Bool) {
            if let v = speeds.byLink[l.id]?[h], !v.isNaN { return (v, true) }
            return (calibration.speed(rank: l.rank, capKmh: l.maxSpeedKmh, hour: h)!, false)
        }
        var rng = SplitMix64(seed: 343)
        var checked = 0, nightFaster = 0, longChecked = 0
        for _ in 0..<60 {
            let s = measuredOneWay[Int(rng.next() % UInt64(measuredOneWay.count))]
            let t = measuredOneWay[Int(rng.next() % UInt64(measuredOneWay.count))]
            guard s.id != t.id else { continue }
            var durations = [Double]()
            for (hour, departAt) in [(3, night), (18, night + 15 * 3600)] {
                guard let route = try? engine.route(RouteRequest(from: middle(s), to: middle(t), departAt: departAt, algorithm: .hierarchy)),
                      route.snapDistancesMeters.allSatisfy({ $0 < 0.5 }), route.segments.count >= 3
                else { continue }
                var expected = 0.0, measuredM = 0.0
                for (i, seg) in route.segments.enumerated() {
                    let link = i == 0 ? s : i == route.segments.count - 1 ? t : byEnds[key(seg.start, seg.end)]
                    guard let link else { XCTFail("segment \(i) is no link"); continue }
                    let v = speed(link, hour)
                    expected += seg.distanceMeters / (v.kmh / 3.6)
                    if v.measured { measuredM += seg.distanceMeters }
                }
                // Each link's time is rounded up to the millisecond (and cut pro rata at the ends).
                XCTAssertEqual(route.durationSeconds, expected, accuracy: 0.002 * Double(route.segments.count),
                               "\(s.id) → \(t.id) at \(hour):00")
                XCTAssertEqual(route.measuredShare, measuredM / route.distanceMeters, accuracy: 0.001)
                XCTAssertGreaterThan(route.measuredShare, 0)
                let plain = try engine.route(RouteRequest(from: middle(s), to: middle(t), departAt: departAt, algorithm: .dijkstra))
                XCTAssertEqual(route.weight, plain.weight, "hierarchy vs Dijkstra, \(s.id) → \(t.id) at \(hour):00")
                durations.append(route.durationSeconds)
                checked += 1
                if hour == 18 && route.distanceMeters > 3000 { longChecked += 1 }
            }
            if durations.count == 2 && durations[1] >= 1.3 * durations[0] { nightFaster += 1 }
        }
        XCTAssertGreaterThan(checked, 40)
        XCTAssertGreaterThan(longChecked, 5)
        // Most trips are 1.3× faster at 03:00 than at 18:00 on the measured speeds.
        XCTAssertGreaterThan(Double(nightFaster), 0.5 * Double(checked / 2), "\(nightFaster) of \(checked / 2)")
    }

    func testMeasuredSpeedsCoverHalfTheLinksAndRefuseAMalformedHour() throws {
        let speedPath = Self.csvDir + "/topis_speed_20181023.csv", mappingPath = Self.csvDir + "/topis_standard_link_mapping_202003.csv"
        let speeds = try Self.measuredSpeeds.get()
        // PROVENANCE: 4,737 of the 4,741 TOPIS links are in the mapping; they cover 9,909 links.
        XCTAssertEqual(speeds.serviceLinks, 4741)
        XCTAssertEqual(speeds.mappedServiceLinks, 4737)
        let net = try NodeLinkFixture.seoul.get()
        XCTAssertEqual(Set(net.links.map(\.id)).intersection(speeds.byLink.keys).count, 9909)
        // Night is faster than the evening rush on the measured links.
        let links = speeds.byLink.values.filter { !$0[2].isNaN && !$0[17].isNaN }
        let night = links.map { $0[2] }.reduce(0, +) / Double(links.count), evening = links.map { $0[17] }.reduce(0, +) / Double(links.count)
        XCTAssertGreaterThan(night, evening * 1.3, "03:00 \(night) km/h, 18:00 \(evening) km/h")

        // A malformed hour: the file and line are named.
        let dir = TestPaths.temporaryDirectory("nodelink-speeds").path
        let bytes = try Data(contentsOf: URL(fileURLWithPath: speedPath))
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { Array($0) }
        var fields = lines[3].split(separator: 0x2C, omittingEmptySubsequences: false).map { Array($0) }
        fields[14] = Array("fast".utf8)
        lines[3] = Array(fields.joined(separator: [0x2C]))
        let bad = dir + "/speeds.csv"
        try Data(lines.joined(separator: [0x0A])).write(to: URL(fileURLWithPath: bad))
        XCTAssertThrowsError(try MeasuredSpeeds.read(speedPath: bad, mappingPath: mappingPath)) {
            XCTAssertTrue("\($0)".hasSuffix("speeds.csv: line 4: 03시 'fast' is not a speed in km/h (0–200]"), "\($0)")
        }
    }
}

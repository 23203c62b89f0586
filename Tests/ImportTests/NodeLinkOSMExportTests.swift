import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Geo
import Import
import Routing
import TestSupport
import XCTest

/// `taxipot export osm`: the node-link network as OSM XML, read back with an XML parser (every
/// kept link one one-way way, every prohibition one restriction relation, the tags and ids), and
/// with our own OSM reader, whose graph routes as the node-link rules say.
final class NodeLinkOSMExportTests: XCTestCase {
    /// The elements of an OSM XML file as an XML parser sees them.
    final class OSMFile: NSObject, XMLParserDelegate {
        struct Element { var id: Int64; var lat = 0.0, lon = 0.0; var refs: [Int64] = []; var members: [(String, Int64, String)] = []; var tags: [String: String] = [:] }
        var nodes: [Int64: Element] = [:], ways: [Int64: Element] = [:], relations: [Int64: Element] = [:]
        var current: (kind: String, element: Element)?

        static func parse(_ path: String) throws -> OSMFile {
            let file = OSMFile()
            let parser = try XCTUnwrap(XMLParser(contentsOf: URL(fileURLWithPath: path)))
            parser.delegate = file
            XCTAssertTrue(parser.parse(), "\(path): \(parser.parserError.map { "\($0)" } ?? "")")
            return file
        }

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes a: [String: String] = [:]) {
            switch name {
            case "node", "way", "relation":
                var e = Element(id: Int64(a["id"] ?? "") ?? -1)
                e.lat = Double(a["lat"] ?? "") ?? .nan; e.lon = Double(a["lon"] ?? "") ?? .nan
                current = (name, e)
            case "nd": current?.element.refs.append(Int64(a["ref"] ?? "") ?? -1)
            case "member": current?.element.members.append((a["type"] ?? "", Int64(a["ref"] ?? "") ?? -1, a["role"] ?? ""))
            case "tag": current?.element.tags[a["k"] ?? ""] = a["v"] ?? ""
            default: break
            }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            guard let (kind, e) = current, kind == name else { return }
            switch kind {
            case "node": nodes[e.id] = e
            case "way": ways[e.id] = e
            default: relations[e.id] = e
            }
            current = nil
        }
    }

    /// The whole staged network: ways and relations equal the kept links and the prohibitions,
    /// all one-way with the link's tags; node ids are the network's, below 2^40.
    func testExportHoldsEveryKeptLinkAndProhibition() throws {
        let net = try NodeLinkFixture.seoul.get()
        let (report, lengthCm) = try NodeLinkFixture.seoulInspection.get()
        let path = TestPaths.temporaryDirectory("nodelink-export").appendingPathComponent("seoul.osm").path
        let summary = try NodeLinkOSMExport.write(net, to: path)
        XCTAssertEqual(summary.ways, report.linksKept)
        XCTAssertEqual(summary.relations, report.turnsProhibited + report.uTurnsProhibited)
        XCTAssertGreaterThan(summary.relationsByKind["no_u_turn"] ?? 0, report.uTurnsProhibited - 1)
        XCTAssertGreaterThan(summary.relationsByKind["no_left_turn"] ?? 0, 0)

        let file = try OSMFile.parse(path)
        XCTAssertEqual(file.ways.count, report.linksKept)
        XCTAssertEqual(Set(file.ways.keys), Set(lengthCm.keys))
        XCTAssertEqual(file.relations.count, summary.relations)
        XCTAssertEqual(file.nodes.count, summary.nodes)
        let position = Dictionary(uniqueKeysWithValues: net.nodes.map { ($0.id, ($0.lat, $0.lon)) })
        for (id, n) in file.nodes where id < NodeLinkOSMExport.middleNodeBase {
            XCTAssertTrue(id > 0 && id < 1 << 40, "node \(id)")
            let p = try XCTUnwrap(position[id], "node \(id) is not the network's")
            XCTAssertEqual(n.lat, p.0, accuracy: 1e-7); XCTAssertEqual(n.lon, p.1, accuracy: 1e-7)
        }
        let linkById = Dictionary(net.links.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let highways: Set<String> = ["motorway", "trunk", "primary", "secondary", "tertiary", "unclassified"]
        for (id, w) in file.ways {
            let l = try XCTUnwrap(linkById[id])
            XCTAssertEqual([w.refs.first, w.refs.last], [l.from, l.to], "way \(id)")
            if w.refs.count == 3 {  // a parallel link: through its own middle node, on the straight line
                XCTAssertTrue(w.refs[1] >= NodeLinkOSMExport.middleNodeBase && w.refs[1] < 1 << 40, "way \(id)")
                let m = try XCTUnwrap(file.nodes[w.refs[1]]), a = position[l.from]!, b = position[l.to]!
                XCTAssertEqual(m.lat, (a.0 + b.0) / 2, accuracy: 2e-7); XCTAssertEqual(m.lon, (a.1 + b.1) / 2, accuracy: 2e-7)
            } else {
                XCTAssertEqual(w.refs.count, 2, "way \(id)")
            }
            XCTAssertEqual(w.tags["oneway"], "yes", "way \(id)")
            XCTAssertEqual(w.tags["highway"], NodeLinkImporter.roadClass(rank: l.rank, lanes: l.lanes).osmName, "way \(id)")
            XCTAssertTrue(highways.contains(w.tags["highway"] ?? ""), "way \(id)")
            XCTAssertEqual(w.tags["maxspeed"], l.maxSpeedKmh > 0 ? String(l.maxSpeedKmh) : nil, "way \(id)")
            XCTAssertEqual(w.tags["lanes"], l.lanes > 0 ? String(l.lanes) : nil, "way \(id)")
            XCTAssertEqual(w.tags["name"], l.name.isEmpty ? nil : l.name, "way \(id)")
            XCTAssertTrue(w.refs.allSatisfy { file.nodes[$0] != nil }, "way \(id)")
        }
        // OSRM keeps one edge of parallel ones: each link after the first between the same two
        // nodes in the same direction has a middle node, so every link stays an edge of its own.
        var pairs = [[Int64]: Int]()
        for l in file.ways.values { pairs[[l.refs.first!, l.refs.last!], default: 0] += 1 }
        let parallel = pairs.values.map { $0 - 1 }.reduce(0, +)
        XCTAssertGreaterThan(parallel, 100)
        XCTAssertEqual(summary.parallelLinks, parallel)
        XCTAssertEqual(file.ways.values.filter { $0.refs.count == 3 }.count, parallel)
        XCTAssertEqual(Set(file.ways.values.map { [$0.refs[0], $0.refs[1]] }).count, file.ways.count)
        XCTAssertEqual(file.ways[1_000_045_000]?.tags["name"], "종로")
        XCTAssertEqual(file.ways[1_000_045_000]?.tags["highway"], "primary")

        // Each relation: from-way ending at the via node, to-way leaving it, a no_* restriction;
        // exactly the prohibited rows (002/003/101/102/103) plus the banned U-turns.
        let kinds: Set<String> = ["no_left_turn", "no_right_turn", "no_straight_on", "no_u_turn"]
        var triples = Set<[Int64]>()
        let prohibitedRows = Set(net.turns.filter(\.prohibitsCars).map { [$0.from, $0.node, $0.to] })
        for (id, r) in file.relations {
            XCTAssertEqual(r.tags["type"], "restriction", "relation \(id)")
            XCTAssertTrue(kinds.contains(r.tags["restriction"] ?? ""), "relation \(id): \(r.tags)")
            XCTAssertEqual(r.members.map(\.0), ["way", "node", "way"], "relation \(id)")
            XCTAssertEqual(r.members.map(\.2), ["from", "via", "to"], "relation \(id)")
            let from = try XCTUnwrap(file.ways[r.members[0].1]), to = try XCTUnwrap(file.ways[r.members[2].1])
            XCTAssertEqual(from.refs.last, r.members[1].1, "relation \(id)")
            XCTAssertEqual(to.refs.first, r.members[1].1, "relation \(id)")
            let triple = [r.members[0].1, r.members[1].1, r.members[2].1]
            triples.insert(triple)
            if !prohibitedRows.contains(triple) {  // a U-turn the import's rule bans
                XCTAssertEqual(r.tags["restriction"], "no_u_turn", "relation \(id)")
                XCTAssertEqual(to.refs.last, from.refs.first, "relation \(id)")
            }
        }
        let rows = net.turns.filter { $0.prohibitsCars && file.ways[$0.from] != nil && file.ways[$0.to] != nil
            && linkById[$0.from]!.to == $0.node && linkById[$0.to]!.from == $0.node }
        XCTAssertEqual(Set(rows.map { [$0.from, $0.node, $0.to] }).count, report.turnsProhibited)
        XCTAssertTrue(rows.allSatisfy { triples.contains([$0.from, $0.node, $0.to]) })
        for t in rows where [101, 102, 103].contains(t.type) {
            XCTAssertEqual(file.relations.values.first { $0.members[0].1 == t.from && $0.members[2].1 == t.to }?.tags["restriction"],
                           [101: "no_left_turn", 102: "no_straight_on", 103: "no_right_turn"][t.type], "TURNINFO line \(t.row)")
        }
        let buses = rows.filter { $0.type == 2 }
        XCTAssertTrue(buses.allSatisfy { t in file.relations.values.contains { $0.members[0].1 == t.from && $0.members[2].1 == t.to && $0.tags["except"] == "bus" } })
    }

    /// The export of a Gangnam slice, imported by our OSM importer (readosm), routes exactly as a
    /// plain Dijkstra over the links with the node-link turn rules, on the lengths of the straight
    /// lines between the nodes (an OSM file has no other length).
    func testExportImportedAsOSMRoutesWithTheTurnRules() throws {
        let (net, _, _) = try NodeLinkImportTests.gangnam.get()
        let dir = TestPaths.temporaryDirectory("nodelink-export-gangnam")
        let osm = dir.appendingPathComponent("gangnam.osm").path, graph = dir.appendingPathComponent("gangnam.graph").path
        let summary = try NodeLinkOSMExport.write(net, to: osm)
        let profile = try SeoulFixture.profile
        let imported = try OSMImporter.importFile(osm, to: graph, profile: profile)
        XCTAssertEqual(imported.restrictionsSkipped, 0)
        XCTAssertEqual(imported.restrictionsApplied, summary.relations)
        let engine = RouteEngine(graph: try RoadGraph.load(path: graph), profile: profile)
        let position = Dictionary(uniqueKeysWithValues: net.nodes.map {
            ($0.id, Coordinate(lon: ($0.lon * 1e7).rounded() / 1e7, lat: ($0.lat * 1e7).rounded() / 1e7))
        })
        let compared = NodeLinkImportTests.compareRoutesWithPlainDijkstra(net, engine) { l in
            UInt64((position[l.from]!.distance(to: position[l.to]!) * 100).rounded())
        }
        XCTAssertGreaterThan(compared, 100)
    }

    /// Bad input: a folder without the files, a file name that is not .osm, an unwritable place.
    func testBadInputIsRefusedNamingTheFile() throws {
        let dir = TestPaths.temporaryDirectory("nodelink-export-bad")
        XCTAssertThrowsError(try NodeLinkOSMExport.export(from: .csv(directory: dir.path), to: dir.appendingPathComponent("x.osm").path)) {
            XCTAssertTrue("\($0)".contains("Seoul_node.csv"), "\($0)")
        }
        var (net, _, _) = try NodeLinkImportTests.gangnam.get()
        let kept = try XCTUnwrap(net.links.firstIndex { l in l.roadUse == 0 && l.restrictedVehicle == 0 && net.nodes.contains { $0.id == l.from } })
        let node = net.nodes.firstIndex { $0.id == net.links[kept].from }!
        let original = net.nodes[node].id
        net.nodes[node].id = 1 << 41
        for i in net.links.indices where net.links[i].from == original { net.links[i].from = 1 << 41 }
        for i in net.links.indices where net.links[i].to == original { net.links[i].to = 1 << 41 }
        XCTAssertThrowsError(try NodeLinkOSMExport.write(net, to: dir.appendingPathComponent("big.osm").path)) {
            XCTAssertTrue("\($0)".contains("node \(1 << 41)") && "\($0)".contains("2^40"), "\($0)")
        }
        net = try NodeLinkImportTests.gangnam.get().net
        XCTAssertThrowsError(try NodeLinkOSMExport.write(net, to: dir.appendingPathComponent("x.pbf").path)) {
            XCTAssertTrue("\($0)".contains("x.pbf") && "\($0)".contains(".osm"), "\($0)")
        }
        XCTAssertThrowsError(try NodeLinkOSMExport.write(net, to: dir.appendingPathComponent("no/such/x.osm").path)) {
            XCTAssertTrue("\($0)".contains("no/such/x.osm: cannot write"), "\($0)")
        }
    }
}

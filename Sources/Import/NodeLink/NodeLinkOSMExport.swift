import Foundation
import Geo
import Routing

/// What `taxipot export osm` wrote, with what the import rules kept and left out.
public struct NodeLinkOSMExportSummary: Sendable, CustomStringConvertible {
    /// What the import rules kept and left out of the network (the same counts `taxipot import
    /// nodelink` prints, before its largest strongly connected part).
    public var network: NodeLinkImportReport
    public var nodes = 0, ways = 0, relations = 0
    /// Links in the same direction between the same two nodes as an earlier link, drawn
    /// through a middle node of their own (see `NodeLinkOSMExport`).
    public var parallelLinks = 0
    /// Relations by their `restriction` value.
    public var relationsByKind: [String: Int] = [:]
    public var bytes = 0

    public var description: String {
        let kinds = relationsByKind.keys.sorted().map { "\(relationsByKind[$0]!) \($0)" }.joined(separator: ", ")
        return """
            node-link network: \(network.nodesRead) nodes, \(network.linksRead) links, \(network.turnRowsRead) turn rows at its nodes
              links kept: \(network.linksKept) (\(network.oneWayLinks) one-way); left out: \(network.linksMissingNode) naming an absent node, \(network.linksClosedToCars) closed to cars (REST_VEH 1), \(network.linksNotInUse) not in use (ROAD_USE 1), \(network.linksLooping) from a node to itself
              prohibited turns: \(network.turnsProhibited) from TURNINFO, \(network.uTurnsProhibited) U-turns (allowed only where 011/012 lists them or at a dead end); \(network.turnsNamingAbsentLinks) turn rows naming absent links
            wrote \(nodes) nodes, \(ways) one-way ways (one per kept link; \(parallelLinks) parallel to another through a middle node), \(relations) restriction relations (\(kinds)), \(bytes) bytes
            """ + network.examples.map { "\n  left out: " + $0 }.joined()
    }
}

/// The imported node-link network as an OSM XML file, so that other routers (OSRM) run on
/// exactly the roads and turn rules `taxipot import nodelink` uses.
///
/// - One way per kept link (way id = `LINK_ID`), from its start node to its end node, tagged
///   `oneway=yes`: a link is one direction of travel with its own lanes, speed limit and turn
///   rows, so a pair of links is not merged into one two-way way.
/// - Tags: `highway` from `ROAD_RANK` (the class the import gives it: motorway, trunk, primary,
///   secondary, tertiary, unclassified — all routed by OSRM's car.lua), `maxspeed` (`MAX_SPD`,
///   when given), `lanes` (when given), `name` (`ROAD_NAME`), `bridge=yes` for overpasses and
///   bridges and `tunnel=yes` for underpasses and tunnels (`ROAD_TYPE`).
/// - Nodes: those the ways use (node id = `NODE_ID`; OSRM needs ids below 2^40, checked).
///   A link in the same direction between the same two nodes as an earlier one (162 in the
///   Seoul subset) passes through a middle node of its own (id `middleNodeBase` + k, on the
///   straight line): OSRM keeps one edge of parallel ones, which would drop the link.
/// - Every prohibited turn as a `type=restriction` relation (from-way, via-node, to-way):
///   TURNINFO 101 `no_left_turn`, 102 `no_straight_on`, 103 `no_right_turn`; 002 and 003 by the
///   turn's angle (`no_left_turn`, `no_right_turn`, `no_straight_on` or `no_u_turn`; 002, buses
///   only, with `except=bus`); the U-turns the import bans (not listed 011/012, not at a dead
///   end) `no_u_turn`.
/// Link shapes are straight between their nodes (the staged data has no shape points), so a
/// router that measures lengths from coordinates finds them shorter than the real `LENGTH`.
public enum NodeLinkOSMExport {
    /// OSRM keeps node ids in 40 bits.
    static let idLimit: Int64 = 1 << 40
    /// Ids of the middle nodes of parallel links: above every node-link id (10 digits), below 2^40.
    package static let middleNodeBase: Int64 = 900_000_000_000

    /// Reads the network from `source` and writes it to `output` (OSM XML).
    public static func export(from source: NodeLinkImporter.Source, to output: String) throws(NodeLinkError) -> NodeLinkOSMExportSummary {
        try write(try NodeLinkImporter.read(source), to: output)
    }

    /// Writes the kept part of `net` to `output` (tests export a part of a network).
    package static func write(_ net: NodeLinkNetwork, to output: String) throws(NodeLinkError) -> NodeLinkOSMExportSummary {
        guard output.lowercased().hasSuffix(".osm") else {
            throw NodeLinkError("\(output): the export is OSM XML: the file name must end in .osm")
        }
        let (x, report) = try NodeLinkImporter.roadNetwork(net)
        var summary = NodeLinkOSMExportSummary(network: report)
        var link = [Int64: NodeLinkLink]()
        for l in net.links { link[l.id] = l }
        var turnType = [[Int64]: Int]()
        for t in net.turns where t.prohibitsCars { turnType[[t.from, t.node, t.to]] = t.type }

        var used = Set<Int64>()
        for id in x.refs { used.insert(id) }
        let nodeIds = used.sorted()
        if let big = nodeIds.first(where: { $0 <= 0 || $0 >= idLimit }) {
            throw NodeLinkError("node \(big): OSM routers such as OSRM need node ids between 1 and 2^40 − 1")
        }
        if let big = x.wayIds.first(where: { $0 <= 0 || $0 >= idLimit }) {
            throw NodeLinkError("link \(big): OSM routers such as OSRM need way ids between 1 and 2^40 − 1")
        }

        guard let file = fopen(output, "wb") else {
            throw NodeLinkError("\(output): cannot write (\(String(cString: strerror(errno))))")
        }
        var out = OSMXMLWriter(file: file)
        out.text("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<osm version=\"0.6\" generator=\"taxipot export osm (node-link)\">\n")
        for id in nodeIds {
            let i = x.nodeIndex(id)!
            out.node(id: Int(id), (x.nodeLat[i], x.nodeLon[i]))
        }
        // Parallel links: the middle node of each after the first between the same two nodes.
        var seenPairs = Set<[Int64]>()
        var middle = [Int: Int64]()
        for (w, id) in x.wayIds.enumerated() {
            let l = link[id]!
            guard !seenPairs.insert([l.from, l.to]).inserted else { continue }
            let m = middleNodeBase + Int64(middle.count)
            middle[w] = m
            let a = x.nodeIndex(l.from)!, b = x.nodeIndex(l.to)!
            func mid(_ p: Int32, _ q: Int32) -> Int32 { Int32((Int64(p) + Int64(q)) / 2) }
            out.node(id: Int(m), (mid(x.nodeLat[a], x.nodeLat[b]), mid(x.nodeLon[a], x.nodeLon[b])))
        }
        for (w, id) in x.wayIds.enumerated() {
            let l = link[id]!, rule = x.wayRules[w]
            var tags: [(String, String)] = [("highway", rule.roadClass.osmName), ("oneway", "yes")]
            if l.maxSpeedKmh > 0 { tags.append(("maxspeed", String(l.maxSpeedKmh))) }
            if l.lanes > 0 { tags.append(("lanes", String(l.lanes))) }
            if !l.name.isEmpty { tags.append(("name", l.name)) }
            switch l.roadType {
            case 1, 3: tags.append(("bridge", "yes"))
            case 2, 4: tags.append(("tunnel", "yes"))
            default: break
            }
            out.way(id: Int(id), refs: [Int(l.from)] + (middle[w].map { [Int($0)] } ?? []) + [Int(l.to)], tags: tags)
        }
        for (k, r) in x.restrictions.enumerated() {
            let type = turnType[[r.fromWay, r.viaNode, r.toWay]]
            let kind: String
            switch type {
            case 101: kind = "no_left_turn"
            case 102: kind = "no_straight_on"
            case 103: kind = "no_right_turn"
            case nil: kind = "no_u_turn"  // a U-turn the import's rule bans
            default: kind = turnKind(from: link[r.fromWay]!, to: link[r.toWay]!, x)
            }
            var tags = [("type", "restriction"), ("restriction", kind)]
            if type == 2 { tags.append(("except", "bus")) }
            out.relation(id: k + 1, from: Int(r.fromWay), via: Int(r.viaNode), to: Int(r.toWay), tags: tags)
            summary.relationsByKind[kind, default: 0] += 1
        }
        out.text("</osm>\n")
        out.flush()
        let failed = out.failed
        guard fclose(file) == 0, !failed else { throw NodeLinkError("\(output): write failed (disk full?)") }
        summary.nodes = nodeIds.count + middle.count
        summary.parallelLinks = middle.count
        summary.ways = x.wayIds.count
        summary.relations = x.restrictions.count
        summary.bytes = out.written
        return summary
    }

    /// The restriction value of the turn from link `a` onto link `b` by its angle: within 30° of
    /// straight on `no_straight_on`, beyond 150° (or back to where `a` starts) `no_u_turn`,
    /// else `no_left_turn` or `no_right_turn`.
    static func turnKind(from a: NodeLinkLink, to b: NodeLinkLink, _ x: RoadNetworkInput) -> String {
        if b.to == a.from { return "no_u_turn" }
        func position(_ id: Int64) -> (x: Double, y: Double) {
            let i = x.nodeIndex(id)!
            let lat = Double(x.nodeLat[i]) * 1e-7
            return (Double(x.nodeLon[i]) * 1e-7 * cos(lat * .pi / 180), lat)
        }
        let p = position(a.from), v = position(a.to), q = position(b.to)
        let heading = atan2(v.y - p.y, v.x - p.x), next = atan2(q.y - v.y, q.x - v.x)
        var turn = (next - heading) * 180 / .pi  // counter-clockwise positive: left
        while turn > 180 { turn -= 360 }
        while turn <= -180 { turn += 360 }
        switch abs(turn) {
        case ..<30: return "no_straight_on"
        case 150...: return "no_u_turn"
        default: return turn > 0 ? "no_left_turn" : "no_right_turn"
        }
    }
}

import Foundation
import Routing

/// What a node-link import read, kept and left out (printed by `taxipot import nodelink` and
/// stored in the graph file's metadata).
public struct NodeLinkImportReport: Sendable, CustomStringConvertible {
    public var files: [String] = []
    public var nodesRead = 0, linksRead = 0, turnRowsRead = 0, turnRowsOutside = 0
    /// Links left out: naming a node absent from the node file, closed to cars (`REST_VEH` 1),
    /// not in use (`ROAD_USE` 1), from a node to itself.
    public var linksMissingNode = 0, linksClosedToCars = 0, linksNotInUse = 0, linksLooping = 0
    public var linksKept = 0, oneWayLinks = 0
    /// Turn rows: prohibitions applied (002, 003, 101, 102, 103), rows naming a link that is not
    /// in the network, rows whose links do not meet at their node, other rows (001, 011, 012).
    public var turnsProhibited = 0, turnsNamingAbsentLinks = 0, turnsNotMeetingAtNode = 0, turnsOther = 0
    /// U-turns: allowed by a 011/012 row, allowed at a dead end (the only way on), prohibited.
    public var uTurnsListed = 0, uTurnsAtDeadEnds = 0, uTurnsProhibited = 0
    /// TOPIS measured speeds when given: service links read and mapped, kept links they cover and
    /// their length against all kept links (km).
    public var speedServiceLinks = 0, speedMappedServiceLinks = 0, measuredLinks = 0
    public var measuredKm = 0.0, keptKm = 0.0
    public var speedsGiven = false
    /// The profile by road rank and hour calibrated on the measured links (with speeds).
    package var calibration: MeasuredSpeedProfile?
    /// The first few left-out rows, each naming its file and row.
    public var examples: [String] = []
    public var graph = ImportReport()

    public var description: String {
        """
        node-link network: \(nodesRead) nodes, \(linksRead) links, \(turnRowsRead) turn rows at its nodes (\(turnRowsOutside) rows at other nodes not read)
          links kept: \(linksKept) (\(oneWayLinks) one-way); left out: \(linksMissingNode) naming an absent node, \(linksClosedToCars) closed to cars (REST_VEH 1), \(linksNotInUse) not in use (ROAD_USE 1), \(linksLooping) from a node to itself
          turn rows: \(turnsProhibited) prohibitions applied, \(turnsNamingAbsentLinks) naming absent links, \(turnsNotMeetingAtNode) whose links do not meet at the node, \(turnsOther) allowing a turn
          U-turns: \(uTurnsListed) listed (011/012), \(uTurnsAtDeadEnds) at dead ends, \(uTurnsProhibited) prohibited
          largest strongly connected part: \(graph.nodes) graph nodes of \(graph.junctions + graph.restrictionCopies) (\(graph.junctions) road nodes, \(graph.restrictionCopies) turn-rule copies), \(graph.edges) edges; removed \(graph.removedNodes) nodes, \(graph.removedEdges) edges outside it
          landmarks: \(graph.landmarks); contraction hierarchy: \(graph.hierarchyEdges) edges; file \(graph.fileBytes) bytes
        """ + (speedsGiven ? String(format: "\n  measured speeds (TOPIS): %d service links, %d in the mapping; they cover %d of %d kept links, %.0f of %.0f km: durations by departure hour from the measured speeds there, elsewhere from MAX_SPD × the median measured/MAX_SPD ratio of the link's ROAD_RANK and hour",
                                    speedServiceLinks, speedMappedServiceLinks, measuredLinks, linksKept, measuredKm, keptKm) : "")
            + calibrationLines
            + examples.map { "\n  left out: " + $0 }.joined()
    }

    /// The calibrated ratios of the ranks at 03:00 and 18:00, one line per rank.
    private var calibrationLines: String {
        guard let c = calibration else { return "" }
        return c.ratioByRank.keys.sorted().map { rank in
            let r = c.ratioByRank[rank]!
            return String(format: "\n    ROAD_RANK %d: measured/MAX_SPD %.2f at 03:00, %.2f at 18:00", rank, r[3], r[18])
        }.joined()
    }

    /// Counts how much of the kept links `speeds` covers.
    mutating func addCoverage(of speeds: MeasuredSpeeds, ways: [Int64], lengthCm: [UInt32]) {
        speedsGiven = true
        speedServiceLinks = speeds.serviceLinks; speedMappedServiceLinks = speeds.mappedServiceLinks
        for (id, cm) in zip(ways, lengthCm) {
            keptKm += Double(cm) / 100_000
            if speeds.byLink[id] != nil { measuredLinks += 1; measuredKm += Double(cm) / 100_000 }
        }
    }

    /// The report as JSON fields (the graph file's metadata).
    var jsonFields: String {
        let fields: [(String, Int)] = [
            ("nodelink_nodes", nodesRead), ("nodelink_links", linksRead), ("nodelink_turn_rows", turnRowsRead),
            ("links_missing_node", linksMissingNode), ("links_closed_to_cars", linksClosedToCars), ("links_not_in_use", linksNotInUse),
            ("links_kept", linksKept), ("turns_prohibited", turnsProhibited), ("turns_naming_absent_links", turnsNamingAbsentLinks),
            ("u_turns_prohibited", uTurnsProhibited),
        ]
        return fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",")
    }
}

/// `taxipot import nodelink`: the Korean standard node-link network → prepared road graph.
///
/// Each kept link is a one-way road of its real length (`LENGTH`), drawn straight between its
/// nodes. What a car may use:
/// - `REST_VEH` 1 (cars restricted) and `ROAD_USE` 1 are left out. `ROAD_USE` is read as the
///   specification's 도로사용여부 (0 in use, 1 not in use); in the Seoul subset its 454 links are
///   mostly short local streets such as 인사동길 and 덕수궁길, closed to through traffic.
/// - Class from `ROAD_RANK` (101 motorway, 102 trunk, 103/104 primary, 105/106 secondary, 107
///   tertiary with 2+ lanes else unclassified, 108 unclassified); the speed cap from `MAX_SPD`.
/// - Turns: TURNINFO 002, 003, 101, 102, 103 are prohibited (`TURN_OPER` 1, part of the day, is
///   taken as always on). A U-turn (onto a link back to the node one came from) is allowed only
///   where a 011/012 row lists it or where it is the only way on (a dead end).
/// - The largest strongly connected part is kept.
public enum NodeLinkImporter {
    /// Where the network is read from.
    public enum Source {
        /// The staged CSV subset (`Seoul_node.csv`, `Seoul_link.csv`, `TURNINFO.csv`).
        case csv(directory: String)
        /// The official shapefile set; `toWGS84` converts EPSG:5186 (x, y) to (lon, lat).
        case shapefiles(directory: String, toWGS84: (Double, Double) throws -> (lon: Double, lat: Double))
    }

    /// How many left-out rows the report names.
    static let exampleCount = 8

    /// `speeds`, when given, is the TOPIS speed file and the TOPIS-to-link mapping: read and
    /// checked (a malformed hour is refused naming file and line), their coverage reported.
    public static func importNetwork(from source: Source, to output: String, profile: TrafficProfile, landmarks: Int = 16,
                                     speeds: (file: String, mapping: String)? = nil,
                                     progress: ((String) -> Void)? = nil) throws(NodeLinkError) -> NodeLinkImportReport
    {
        let t0 = Date()
        let net = try read(source)
        let measured = try speeds.map { s throws(NodeLinkError) in try MeasuredSpeeds.read(speedPath: s.file, mappingPath: s.mapping) }
        progress?("read \(net.nodes.count) nodes, \(net.links.count) links, \(net.turns.count) turn rows")
        return try prepare(net, to: output, profile: profile, landmarks: landmarks, speeds: measured,
                           readSeconds: Date().timeIntervalSince(t0), progress: progress)
    }

    /// Prepares the graph of `net` and writes it to `output` (tests prepare a part of a network).
    package static func prepare(_ net: NodeLinkNetwork, to output: String, profile: TrafficProfile, landmarks: Int = 16,
                                speeds: MeasuredSpeeds? = nil, readSeconds: Double = 0,
                                progress: ((String) -> Void)? = nil) throws(NodeLinkError) -> NodeLinkImportReport
    {
        var (input, report) = try roadNetwork(net)
        if let speeds {
            report.addCoverage(of: speeds, ways: input.wayIds, lengthCm: input.wayLengthCm)
            var rankOf = [Int64: Int]()
            for l in net.links { rankOf[l.id] = l.rank }
            let ranks = input.wayIds.map { rankOf[$0] ?? 0 }
            let calibration = MeasuredSpeedProfile(
                speeds: speeds, links: zip(input.wayIds, zip(ranks, input.wayRules)).map { ($0, $1.0, $1.1.capForwardKmh) })
            _ = calibration.apply(speeds, to: &input, ranks: ranks, profile: profile)
            report.calibration = calibration
        }
        report.graph.readSeconds = readSeconds
        report.graph.source = "nodelink:" + (net.files.first.map { ($0 as NSString).deletingLastPathComponent } ?? "")
        report.graph.minAreaNodes = Int.max
        let t1 = Date()
        var graph: GraphData
        do {
            graph = try GraphPreparer.prepare(input, profile: profile, landmarks: landmarks, source: report.graph.source,
                                              report: &report.graph, progress: progress)
        } catch {
            throw NodeLinkError(error.description)
        }
        input = RoadNetworkInput()
        report.graph.prepareSeconds = Date().timeIntervalSince(t1)
        var json = report.graph.json
        json.removeFirst()
        graph.metadata = Array(("{\"network\":\"nodelink\"," + report.jsonFields + "," + json).utf8)
        let t2 = Date()
        do { try GraphFile.write(graph, to: output) } catch { throw NodeLinkError(error.description) }
        report.graph.writeSeconds = Date().timeIntervalSince(t2)
        report.graph.fileBytes = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
        return report
    }

    /// Reads the network from `source`.
    package static func read(_ source: Source) throws(NodeLinkError) -> NodeLinkNetwork {
        switch source {
        case .csv(let directory): try NodeLinkCSVReader.read(directory: directory)
        case .shapefiles(let directory, let toWGS84): try NodeLinkShapefileReader.read(directory: directory, toWGS84: toWGS84)
        }
    }

    /// The road class of a link.
    package static func roadClass(rank: Int, lanes: Int) -> RoadClass {
        switch rank {
        case 101: .motorway
        case 102: .trunk
        case 103, 104: .primary
        case 105, 106: .secondary
        case 107: lanes >= 2 ? .tertiary : .unclassified
        default: .unclassified
        }
    }

    /// What importing `net` keeps and leaves out, and the length (cm) of each kept link (test hook).
    package static func inspect(_ net: NodeLinkNetwork) throws(NodeLinkError) -> (report: NodeLinkImportReport, lengthCm: [Int64: UInt32]) {
        let (x, report) = try roadNetwork(net)
        return (report, Dictionary(uniqueKeysWithValues: zip(x.wayIds, x.wayLengthCm)))
    }

    /// The network as the graph builder's input: kept links as one-way ways of real length,
    /// prohibited turns (and U-turns) as node-via restrictions.
    static func roadNetwork(_ net: NodeLinkNetwork) throws(NodeLinkError) -> (RoadNetworkInput, NodeLinkImportReport) {
        var r = NodeLinkImportReport()
        r.files = net.files
        r.nodesRead = net.nodes.count; r.linksRead = net.links.count
        r.turnRowsRead = net.turns.count; r.turnRowsOutside = net.turnsOutside
        let linkFile = net.files.count > 1 ? net.files[1] : "links", turnFile = net.files.count > 2 ? net.files[2] : "turns"
        func example(_ s: String) { if r.examples.count < exampleCount { r.examples.append(s) } }
        // CSV rows are named by line, DBF rows by record number.
        func at(_ file: String, _ row: Int) -> String { file + (file.lowercased().hasSuffix(".csv") ? ": line \(row)" : ": row \(row)") }

        var x = RoadNetworkInput()
        x.nodesSorted = false
        var seenNodes = Set<Int64>()
        for n in net.nodes where seenNodes.insert(n.id).inserted {
            x.nodeIds.append(n.id)
            x.nodeLat.append(Int32((n.lat * 1e7).rounded()))
            x.nodeLon.append(Int32((n.lon * 1e7).rounded()))
        }
        x.finish()
        x.totalNodes = x.nodeIds.count

        var kept: [NodeLinkLink] = []
        var linkById = [Int64: Int]()
        for l in net.links {
            if x.nodeIndex(l.from) == nil || x.nodeIndex(l.to) == nil {
                r.linksMissingNode += 1
                example("\(at(linkFile, l.row)): link \(l.id) names node \(x.nodeIndex(l.from) == nil ? l.from : l.to), absent from the node file")
                continue
            }
            if l.restrictedVehicle == 1 { r.linksClosedToCars += 1; continue }
            if l.roadUse == 1 { r.linksNotInUse += 1; continue }
            if l.from == l.to { r.linksLooping += 1; continue }
            guard linkById[l.id] == nil else { throw NodeLinkError("\(at(linkFile, l.row)): link id \(l.id) appears twice") }
            linkById[l.id] = kept.count
            kept.append(l)
        }
        r.linksKept = kept.count
        var pairs = Set<[Int64]>()
        for l in kept { pairs.insert([l.from, l.to]) }
        r.oneWayLinks = kept.filter { !pairs.contains([$0.to, $0.from]) }.count
        for l in kept {
            let cls = roadClass(rank: l.rank, lanes: l.lanes)
            let cap = l.maxSpeedKmh > 0 ? l.maxSpeedKmh : CarProfile.defaultCapKmh(cls)
            x.wayIds.append(l.id)
            x.wayRules.append(WayRule(roadClass: cls, forward: true, backward: false, capForwardKmh: cap, capBackwardKmh: cap,
                                      name: l.name.isEmpty ? nil : l.name))
            x.refs.append(l.from); x.refs.append(l.to)
            x.wayFirstRef.append(UInt32(x.refs.count))
            x.wayLengthCm.append(UInt32(min((l.lengthMeters * 100).rounded(), 4e9)))
        }
        x.totalWays = net.links.count

        // Turn rows.
        var prohibited = Set<[Int64]>()
        var uTurnListed = Set<[Int64]>()
        for t in net.turns {
            guard let a = linkById[t.from], let b = linkById[t.to] else {
                r.turnsNamingAbsentLinks += 1
                if linkById[t.from] == nil && linkById[t.to] == nil { continue }
                example("\(at(turnFile, t.row)): turn at node \(t.node) names link \(linkById[t.from] == nil ? t.from : t.to), absent from the kept links")
                continue
            }
            guard kept[a].to == t.node, kept[b].from == t.node else {
                r.turnsNotMeetingAtNode += 1
                example("\(at(turnFile, t.row)): links \(t.from) and \(t.to) do not meet at node \(t.node)")
                continue
            }
            if t.prohibitsCars {
                if prohibited.insert([t.from, t.node, t.to]).inserted { r.turnsProhibited += 1 }
            } else {
                r.turnsOther += 1
                if t.allowsUTurn { uTurnListed.insert([t.from, t.to]) }
            }
        }
        // U-turns: prohibited unless listed or the only way on.
        var outLinks = [Int64: [Int]]()
        for (i, l) in kept.enumerated() { outLinks[l.from, default: []].append(i) }
        for a in kept {
            let exits = outLinks[a.to] ?? []
            let back = exits.filter { kept[$0].to == a.from }
            guard !back.isEmpty else { continue }
            let onward = exits.filter { kept[$0].to != a.from && !prohibited.contains([a.id, a.to, kept[$0].id]) }
            for b in back {
                let bid = kept[b].id
                if prohibited.contains([a.id, a.to, bid]) { continue }
                if uTurnListed.contains([a.id, bid]) { r.uTurnsListed += 1; continue }
                if onward.isEmpty { r.uTurnsAtDeadEnds += 1; continue }
                prohibited.insert([a.id, a.to, bid])
                r.uTurnsProhibited += 1
            }
        }
        for (k, p) in prohibited.sorted(by: { $0.lexicographicallyPrecedes($1) }).enumerated() {
            x.restrictions.append(InputRestriction(id: Int64(k), kind: .prohibitive, uTurn: false, fromWay: p[0], viaNode: p[1], toWay: p[2]))
        }
        x.totalRelations = net.turns.count
        return (x, r)
    }
}

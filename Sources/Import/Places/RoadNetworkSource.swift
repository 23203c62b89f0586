import CSV
import Foundation
import Geo
import Places

/// Assembles the named roads of the node-link network (`data/nodelink/Seoul_link.csv` and
/// `Seoul_node.csv`) at data-build time, for road-name address interpolation.
///
/// Per road name: the links (both directions folded into one edge, the shorter real length
/// kept) form connected pieces; each piece contributes its longest path (a divided road's
/// second carriageway and side branches are left out). Pieces whose ends lie within
/// `joinGap` of each other are one road with gaps (the network leaves out short stretches);
/// farther pieces are different roads of the same name (중앙로 in 양천구 and in 중랑구). Each road is
/// then oriented by the address rules: it starts at its west end, or its south end when it runs
/// more north–south than east–west.
public enum RoadNetworkSource {
    public static let linkFile = "Seoul_link.csv"
    public static let nodeFile = "Seoul_node.csv"
    /// Pieces of one name closer than this (metres, end to end) are one road.
    static let joinGap = 1_500.0

    /// The named roads of the network in `directory`.
    /// A road's districts are the Seoul 시군구 its links are filed under (`DEPT_CODE`) and those
    /// its nodes and link midpoints lie in (`locator`): arterials are filed under city or national
    /// agencies, and roads along a 구 boundary belong to both sides.
    static func roads(directory: String, locator: AdminLocator, warnings: inout [String]) throws -> [NamedRoad] {
        func path(_ f: String) -> String { (directory as NSString).appendingPathComponent(f) }
        var nodes: [String: Coordinate] = [:]
        for node in try self.nodes(directory: directory, warnings: &warnings) { nodes[node.id] = node.coordinate }
        let linkTable = try CSVTable(path: path(linkFile), encoding: .utf8)
        let cSource = try linkTable.column("Source"), cTarget = try linkTable.column("Target")
        let cName = try linkTable.column("ROAD_NAME"), cLength = try linkTable.column("SHAPE_STLe")
        let cDistrict = try linkTable.column("DEPT_CODE")
        // name → edge (node pair) → (length, districts)
        var edges: [String: [NodePair: (length: Double, districts: Set<String>)]] = [:]
        for row in linkTable.rows {
            guard let name = roadName(row[cName]) else { continue }
            let a = row[cSource], b = row[cTarget]
            guard nodes[a] != nil, nodes[b] != nil, a != b, let length = Double(row[cLength]), length.isFinite, length >= 0 else { continue }
            let key = NodePair(a, b)
            var e = edges[name]?[key] ?? (length, [])
            e.length = min(e.length, length)
            if row[cDistrict].hasPrefix(PlaceSources.seoulCode) && row[cDistrict].count == 5 && row[cDistrict] != "11000" {
                e.districts.insert(row[cDistrict])
            }
            let (p, q) = (nodes[a]!, nodes[b]!)
            for point in [p, q, Coordinate(lon: (p.lon + q.lon) / 2, lat: (p.lat + q.lat) / 2)] {
                if let code = locator.locate(point)?.sigungu?.code, code.hasPrefix(PlaceSources.seoulCode) { e.districts.insert(code) }
            }
            edges[name, default: [:]][key] = e
        }
        var out: [NamedRoad] = []
        for name in edges.keys.sorted() {
            out += assemble(name: name, edges: edges[name]!, nodes: nodes)
        }
        return out
    }

    /// One row of the node file: its id, `NODE_NAME` (may be empty) and position.
    struct Node {
        let id: String
        let name: String
        let coordinate: Coordinate
    }

    /// The nodes of `directory/Seoul_node.csv`; rows without a valid coordinate are skipped
    /// with a warning naming the file and line.
    static func nodes(directory: String, warnings: inout [String]) throws -> [Node] {
        let file = (directory as NSString).appendingPathComponent(nodeFile)
        let table = try CSVTable(path: file, encoding: .utf8)
        let cID = try table.column("Id"), cLat = try table.column("latitude"), cLon = try table.column("longitude")
        let cName = table.optionalColumn("NODE_NAME")
        var out: [Node] = []
        for row in table.rows {
            guard let lat = Double(row[cLat]), let lon = Double(row[cLon]), Coordinate(lon: lon, lat: lat).isValid else {
                warnings.append("\(file):\(row.line): no coordinate; node skipped"); continue
            }
            out.append(Node(id: row[cID], name: cName.map { row[$0] } ?? "", coordinate: Coordinate(lon: lon, lat: lat)))
        }
        return out
    }

    /// The address form of a `ROAD_NAME` cell (a Python bytes literal of CP949 text, or plain
    /// text), or nil for names that are not road names of the address system (`-`, link
    /// descriptions such as `월계로-한천로_연결길`).
    static func roadName(_ cell: String) -> String? {
        var text = cell
        if cell.hasPrefix("b'") || cell.hasPrefix("b\"") {
            guard let bytes = bytesLiteral(cell), let decoded = decodeCP949(bytes) else { return nil }
            text = decoded
        }
        text = text.trimmingCharacters(in: .whitespaces)
        guard text.count >= 2, text.hasSuffix("로") || text.hasSuffix("길"),
              text.unicodeScalars.allSatisfy({ HangulJamo.isSyllable($0) || ($0.value >= 0x30 && $0.value <= 0x39) })
        else { return nil }
        return text
    }

    /// The bytes of a Python bytes literal (`b'\xc1\xbe\xb7\xce40'`).
    static func bytesLiteral(_ s: String) -> [UInt8]? {
        let u = Array(s.utf8)
        guard u.count >= 3, u[0] == UInt8(ascii: "b"), u.last == u[1] else { return nil }
        var out: [UInt8] = []
        var i = 2
        func hex(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: return c - 48
            case 97...102: return c - 87
            case 65...70: return c - 55
            default: return nil
            }
        }
        while i < u.count - 1 {
            if u[i] == UInt8(ascii: "\\"), i + 1 < u.count - 1 {
                let e = u[i + 1]
                if e == UInt8(ascii: "x"), i + 3 < u.count, let h = hex(u[i + 2]), let l = hex(u[i + 3]) {
                    out.append(h << 4 | l); i += 4; continue
                }
                out.append(e); i += 2; continue
            }
            out.append(u[i]); i += 1
        }
        return out
    }

    static func decodeCP949(_ bytes: [UInt8]) -> String? {
        guard let converter = try? IconvSource(wrapping: MemorySource(bytes), from: "CP949") else { return nil }
        var utf8: [UInt8] = []
        while let chunk = try? converter.nextChunk() { utf8 += chunk }
        let text = String(decoding: utf8, as: UTF8.self)
        return text.contains("\u{FFFD}") ? nil : text
    }

    struct NodePair: Hashable {
        let a: String, b: String
        init(_ x: String, _ y: String) { (a, b) = x < y ? (x, y) : (y, x) }
    }

    /// One piece's longest path: its nodes and the distance along it to each.
    struct Piece {
        var nodes: [Coordinate]
        var distances: [Double]
        var districts: Set<String>
        var length: Double { distances.last ?? 0 }
    }

    static func assemble(name: String, edges: [NodePair: (length: Double, districts: Set<String>)],
                         nodes: [String: Coordinate]) -> [NamedRoad]
    {
        var adjacency: [String: [(String, Double)]] = [:]
        for (k, e) in edges {
            adjacency[k.a, default: []].append((k.b, e.length))
            adjacency[k.b, default: []].append((k.a, e.length))
        }
        // Connected pieces, each reduced to its longest (tree-diameter-like) path.
        var seen: Set<String> = []
        var pieces: [Piece] = []
        for start in adjacency.keys.sorted() where !seen.contains(start) {
            var stack = [start], members: [String] = []
            seen.insert(start)
            while let u = stack.popLast() {
                members.append(u)
                for (v, _) in adjacency[u]! where !seen.contains(v) { seen.insert(v); stack.append(v) }
            }
            let (far, _) = farthest(from: members.min()!, adjacency)
            let (other, path) = farthest(from: far, adjacency)
            _ = other
            var distances: [Double] = [0]
            var districts: Set<String> = []
            for (u, v) in zip(path, path.dropFirst()) {
                let e = edges[NodePair(u, v)]!
                distances.append(distances.last! + e.length)
                districts.formUnion(e.districts)
            }
            pieces.append(Piece(nodes: path.map { nodes[$0]! }, distances: distances, districts: districts))
        }
        // Longest pieces first; each joins the road group with an end within the gap.
        pieces.sort { $0.length != $1.length ? $0.length > $1.length : $0.nodes[0].lon < $1.nodes[0].lon }
        var groups: [[Piece]] = []
        for p in pieces {
            var best: (gap: Double, group: Int)?
            for (gi, g) in groups.enumerated() {
                for q in g {
                    for e in [p.nodes.first!, p.nodes.last!] {
                        for f in [q.nodes.first!, q.nodes.last!] {
                            let gap = e.distance(to: f)
                            if gap < joinGap && gap < (best?.gap ?? .infinity) { best = (gap, gi) }
                        }
                    }
                }
            }
            if let best { groups[best.group].append(p) } else { groups.append([p]) }
        }
        return groups.map { orient(name: name, $0) }
    }

    /// Orders a group's pieces from the road's start (west, or south for a north–south road)
    /// and chains them, bridging gaps by their straight-line length.
    static func orient(name: String, _ group: [Piece]) -> NamedRoad {
        let main = group[0]
        let projection = LocalProjection(referenceLatitude: main.nodes[0].lat)
        let (x0, y0) = projection.project(main.nodes.first!), (x1, y1) = projection.project(main.nodes.last!)
        let eastWest = abs(x1 - x0) >= abs(y1 - y0)
        func key(_ c: Coordinate) -> Double { eastWest ? c.lon : c.lat }
        var oriented = group.map { p -> Piece in
            guard key(p.nodes.first!) > key(p.nodes.last!) else { return p }
            let total = p.length
            return Piece(nodes: p.nodes.reversed(), distances: p.distances.reversed().map { total - $0 }, districts: p.districts)
        }
        oriented.sort { key($0.nodes[0]) < key($1.nodes[0]) }
        var points: [Coordinate] = [], distances: [Double] = [], districts: Set<String> = []
        for p in oriented {
            let offset = points.isEmpty ? 0 : distances.last! + points.last!.distance(to: p.nodes[0])
            points += p.nodes
            distances += p.distances.map { $0 + offset }
            districts.formUnion(p.districts)
        }
        return NamedRoad(name: name, districts: districts.sorted(), points: points, distances: distances)
    }

    /// The node farthest from `start` along the edges (Dijkstra) and the path to it.
    static func farthest(from start: String, _ adjacency: [String: [(String, Double)]]) -> (String, [String]) {
        var dist: [String: Double] = [start: 0]
        var previous: [String: String] = [:]
        var done: Set<String> = []
        var frontier: Set<String> = [start]
        while let u = frontier.min(by: { dist[$0]! != dist[$1]! ? dist[$0]! < dist[$1]! : $0 < $1 }) {
            frontier.remove(u)
            done.insert(u)
            for (v, w) in adjacency[u]! where !done.contains(v) {
                let d = dist[u]! + w
                if d < dist[v] ?? .infinity { dist[v] = d; previous[v] = u; frontier.insert(v) }
            }
        }
        let far = dist.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }!.key
        var path = [far]
        while let p = previous[path.last!] { path.append(p) }
        return (far, path.reversed())
    }
}

extension RoadNetworkSource {
    /// The folder under the data folder holding the network.
    public static let directory = "nodelink"

    /// The roads of `dataDirectory/nodelink`, or none (with a warning) when the folder is absent:
    /// place search then answers no road-name address.
    static func roadsIfPresent(dataDirectory: String, locator: AdminLocator, warnings: inout [String]) throws -> [NamedRoad] {
        let dir = (dataDirectory as NSString).appendingPathComponent(directory)
        guard FileManager.default.fileExists(atPath: (dir as NSString).appendingPathComponent(linkFile)) else {
            warnings.append("\(dir): no node-link network; road-name addresses will not be placed")
            return []
        }
        return try roads(directory: dir, locator: locator, warnings: &warnings)
    }

    /// The calibrated numbering of roads (data/nodelink/address_calibration.csv, made by
    /// `taxipot-bench --only addresses --addresses-calibration-out FILE`; see ADDRESSES.md), or
    /// none when the file is absent. Rows naming a road the network no longer has are dropped
    /// with a warning.
    public static let calibrationFile = "address_calibration.csv"

    static func calibrationIfPresent(dataDirectory: String, roads: [NamedRoad], warnings: inout [String]) throws -> [String: RoadNumbering] {
        let path = ((dataDirectory as NSString).appendingPathComponent(directory) as NSString).appendingPathComponent(calibrationFile)
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        var table = try AddressCalibration.read(csv: try String(contentsOfFile: path, encoding: .utf8), source: path)
        let known = Set(roads.map(AddressCalibration.key))
        for k in table.keys.sorted() where !known.contains(k) {
            warnings.append("\(path): road \(k) is not in the network; its calibration is dropped")
            table[k] = nil
        }
        return table
    }
}

import CSV
import Foundation

/// Reads the staged CSV subset of the node-link network: `Seoul_node.csv` (WGS84),
/// `Seoul_link.csv` (names as Python literals of CP949 bytes, `SHAPE_STLe` the real length) and
/// `TURNINFO.csv` (the national turn table; rows at other nodes are counted, not kept).
package enum NodeLinkCSVReader {
    package static func read(directory: String) throws(NodeLinkError) -> NodeLinkNetwork {
        func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }
        func table(_ name: String) throws(NodeLinkError) -> CSVTable {
            do { return try CSVTable(path: path(name), encoding: .utf8) } catch { throw NodeLinkError(error.description) }
        }
        func column(_ t: CSVTable, _ name: String) throws(NodeLinkError) -> Int {
            do { return try t.column(name) } catch { throw NodeLinkError(error.description) }
        }
        var net = NodeLinkNetwork()

        let nodes = try table("Seoul_node.csv")
        let nId = try column(nodes, "Id"), nType = try column(nodes, "NODE_TYPE"), nName = try column(nodes, "NODE_NAME")
        let nLat = try column(nodes, "latitude"), nLon = try column(nodes, "longitude")
        for r in nodes.rows {
            guard let id = Int64(r[nId]), let lat = Double(r[nLat]), let lon = Double(r[nLon]),
                  (-90...90).contains(lat), (-180...180).contains(lon)
            else { throw NodeLinkError("\(nodes.path): line \(r.line): expected a node id and WGS84 latitude/longitude") }
            net.nodes.append(NodeLinkNode(id: id, lat: lat, lon: lon, type: Int(r[nType]) ?? 0, name: r[nName]))
        }

        let links = try table("Seoul_link.csv")
        let c = try (id: column(links, "LINK_ID"), from: column(links, "Source"), to: column(links, "Target"),
                     lanes: column(links, "LANES"), rank: column(links, "ROAD_RANK"), type: column(links, "ROAD_TYPE"),
                     speed: column(links, "MAX_SPD"), rest: column(links, "REST_VEH"), use: column(links, "ROAD_USE"),
                     length: column(links, "SHAPE_STLe"), name: column(links, "ROAD_NAME"))
        for r in links.rows {
            func number(_ i: Int, _ field: String) throws(NodeLinkError) -> Double {
                let s = r[i]
                if s.isEmpty { return 0 }
                guard let v = Double(s), v.isFinite else {
                    throw NodeLinkError("\(links.path): line \(r.line): \(field) '\(s)' is not a number")
                }
                return v
            }
            guard let id = Int64(r[c.id]), let from = Int64(r[c.from]), let to = Int64(r[c.to]) else {
                throw NodeLinkError("\(links.path): line \(r.line): LINK_ID, Source and Target must be node-link ids")
            }
            guard let name = NodeLinkText.pythonBytesLiteral(r[c.name]) else {
                throw NodeLinkError("\(links.path): line \(r.line): ROAD_NAME is not a valid literal of CP949 bytes")
            }
            let length = try number(c.length, "SHAPE_STLe")
            guard length >= 0 else { throw NodeLinkError("\(links.path): line \(r.line): SHAPE_STLe is negative") }
            net.links.append(NodeLinkLink(
                id: id, from: from, to: to, lanes: Int(try number(c.lanes, "LANES")), rank: Int(try number(c.rank, "ROAD_RANK")),
                roadType: Int(try number(c.type, "ROAD_TYPE")), maxSpeedKmh: Int(try number(c.speed, "MAX_SPD")),
                restrictedVehicle: Int(try number(c.rest, "REST_VEH")), roadUse: Int(try number(c.use, "ROAD_USE")),
                lengthMeters: length, name: name, row: r.line))
        }

        let turns = try table("TURNINFO.csv")
        let t = try (node: column(turns, "NODE_ID"), from: column(turns, "ST_LINK"), to: column(turns, "ED_LINK"),
                     type: column(turns, "TURN_TYPE"), oper: column(turns, "TURN_OPER"))
        let nodeIds = Set(net.nodes.map(\.id))
        for r in turns.rows {
            guard let node = Int64(r[t.node]), let from = Int64(r[t.from]), let to = Int64(r[t.to]), let type = Int(r[t.type]) else {
                throw NodeLinkError("\(turns.path): line \(r.line): NODE_ID, ST_LINK, ED_LINK and TURN_TYPE must be numbers")
            }
            guard nodeIds.contains(node) else { net.turnsOutside += 1; continue }
            net.turns.append(NodeLinkTurn(node: node, from: from, to: to, type: type, operation: Int(r[t.oper]) ?? 0, row: r.line))
        }
        net.files = [nodes.path, links.path, turns.path]
        return net
    }
}

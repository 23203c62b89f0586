import CShapelib
import Foundation

/// Reads the node-link network in the form MOLIT distributes it, through shapelib: `MOCT_NODE`
/// (points) and `MOCT_LINK` (polylines), each `.shp` + `.shx` + `.dbf`, and `TURNINFO.dbf`;
/// coordinates in EPSG:5186 (Korea 2000 / Central Belt 2010), DBF text in CP949.
///
/// The code page comes from the `.cpg` file, else from the DBF header's language driver id;
/// neither (the national distribution has no `.cpg`) means CP949. Any other code page is refused.
package enum NodeLinkShapefileReader {
    /// The code page names taken as CP949 (as shapelib reports them: `.cpg` text or `LDID/n`).
    static let acceptedCodePages: Set<String> = ["CP949", "949", "UHC", "MS949", "EUC-KR", "EUCKR", "KS_C_5601-1987", "LDID/121"]

    /// Reads the set in `directory`; `toWGS84` turns EPSG:5186 metres (x east, y north) into
    /// (longitude, latitude).
    package static func read(directory: String,
                     toWGS84: (_ x: Double, _ y: Double) throws -> (lon: Double, lat: Double)) throws(NodeLinkError) -> NodeLinkNetwork
    {
        func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }
        for part in ["MOCT_NODE.shp", "MOCT_NODE.shx", "MOCT_NODE.dbf", "MOCT_LINK.shp", "MOCT_LINK.shx", "MOCT_LINK.dbf", "TURNINFO.dbf"]
            where !FileManager.default.isReadableFile(atPath: path(part))
        {
            throw NodeLinkError("\(path(part)): missing: the node-link shapefile set needs MOCT_NODE and MOCT_LINK (.shp, .shx, .dbf) and TURNINFO.dbf")
        }
        for stem in ["MOCT_NODE", "MOCT_LINK"] {
            if let prj = try? String(contentsOfFile: path(stem + ".prj"), encoding: .utf8),
               !(prj.contains("Central_Belt_2010") || prj.contains("Central Belt 2010") || prj.contains("5186"))
            {
                throw NodeLinkError("\(path(stem + ".prj")): the coordinates must be in EPSG:5186 (Korea 2000 / Central Belt 2010)")
            }
        }
        var net = NodeLinkNetwork()

        let nodes = try Table(path: path("MOCT_NODE.dbf"))
        let nodeShapes = try Shapes(path: path("MOCT_NODE.shp"), records: nodes.count)
        let nId = try nodes.field("NODE_ID"), nType = try nodes.field("NODE_TYPE"), nName = try nodes.field("NODE_NAME")
        for i in 0..<nodes.count {
            guard let id = Int64(try nodes.text(i, nId)) else { throw nodes.error(i, "NODE_ID is not a node-link id") }
            guard let (x, y) = nodeShapes.firstPoint(i) else { throw NodeLinkError("\(nodeShapes.path): row \(i + 1): the node has no point") }
            let position: (lon: Double, lat: Double)
            do { position = try toWGS84(x, y) } catch {
                throw NodeLinkError("\(nodeShapes.path): row \(i + 1): point (\(x), \(y)) cannot be converted from EPSG:5186: \(error)")
            }
            net.nodes.append(NodeLinkNode(id: id, lat: position.lat, lon: position.lon, type: Int(try nodes.text(i, nType)) ?? 0,
                                          name: try nodes.text(i, nName)))
        }

        let links = try Table(path: path("MOCT_LINK.dbf"))
        let f = try (id: links.field("LINK_ID"), from: links.field("F_NODE"), to: links.field("T_NODE"), lanes: links.field("LANES"),
                     rank: links.field("ROAD_RANK"), type: links.field("ROAD_TYPE"), speed: links.field("MAX_SPD"),
                     rest: links.field("REST_VEH"), use: links.field("ROAD_USE"), length: links.field("LENGTH"),
                     name: links.field("ROAD_NAME"))
        for i in 0..<links.count {
            guard let id = Int64(try links.text(i, f.id)), let from = Int64(try links.text(i, f.from)), let to = Int64(try links.text(i, f.to))
            else { throw links.error(i, "LINK_ID, F_NODE and T_NODE must be node-link ids") }
            func number(_ field: Int32, _ name: String) throws(NodeLinkError) -> Double {
                let s = try links.text(i, field)
                if s.isEmpty { return 0 }
                guard let v = Double(s), v.isFinite else { throw links.error(i, "\(name) '\(s)' is not a number") }
                return v
            }
            let length = try number(f.length, "LENGTH")
            guard length >= 0 else { throw links.error(i, "LENGTH is negative") }
            net.links.append(NodeLinkLink(
                id: id, from: from, to: to, lanes: Int(try number(f.lanes, "LANES")), rank: Int(try number(f.rank, "ROAD_RANK")),
                roadType: Int(try number(f.type, "ROAD_TYPE")), maxSpeedKmh: Int(try number(f.speed, "MAX_SPD")),
                restrictedVehicle: Int(try number(f.rest, "REST_VEH")), roadUse: Int(try number(f.use, "ROAD_USE")),
                lengthMeters: length, name: try links.text(i, f.name), row: i + 1))
        }

        let turns = try Table(path: path("TURNINFO.dbf"))
        let t = try (node: turns.field("NODE_ID"), from: turns.field("ST_LINK"), to: turns.field("ED_LINK"),
                     type: turns.field("TURN_TYPE"), oper: turns.field("TURN_OPER"))
        let nodeIds = Set(net.nodes.map(\.id))
        for i in 0..<turns.count {
            guard let node = Int64(try turns.text(i, t.node)), let from = Int64(try turns.text(i, t.from)),
                  let to = Int64(try turns.text(i, t.to)), let type = Int(try turns.text(i, t.type))
            else { throw turns.error(i, "NODE_ID, ST_LINK, ED_LINK and TURN_TYPE must be numbers") }
            guard nodeIds.contains(node) else { net.turnsOutside += 1; continue }
            net.turns.append(NodeLinkTurn(node: node, from: from, to: to, type: type, operation: Int(try turns.text(i, t.oper)) ?? 0,
                                          row: i + 1))
        }
        net.files = [nodes.path, links.path, turns.path]
        return net
    }

    /// A DBF table open through shapelib; text fields decoded from CP949.
    final class Table {
        let path: String
        let handle: DBFHandle
        let count: Int

        init(path: String) throws(NodeLinkError) {
            guard let h = DBFOpen(path, "rb") else { throw NodeLinkError("\(path): not a readable DBF table") }
            if let cp = DBFGetCodePage(h) {
                let name = String(cString: cp).trimmingCharacters(in: .whitespacesAndNewlines).uppercased()
                guard NodeLinkShapefileReader.acceptedCodePages.contains(name) else {
                    DBFClose(h)
                    throw NodeLinkError("\(path): code page '\(name)', expected CP949 (EUC-KR) as MOLIT distributes the node-link data")
                }
            }
            self.path = path
            handle = h
            count = Int(DBFGetRecordCount(h))
        }

        deinit { DBFClose(handle) }

        func field(_ name: String) throws(NodeLinkError) -> Int32 {
            let i = DBFGetFieldIndex(handle, name)
            guard i >= 0 else { throw NodeLinkError("\(path): no field \(name)") }
            return i
        }

        /// Field `field` of row `row` (0-based), trimmed, decoded from CP949.
        func text(_ row: Int, _ field: Int32) throws(NodeLinkError) -> String {
            guard let p = DBFReadStringAttribute(handle, Int32(row), field) else { return "" }
            let all = UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: strlen(p))
            // ASCII spaces and tabs trimmed on the bytes; ASCII text (codes, numbers: most fields) is
            // the same in CP949, and has no other whitespace to trim, so it skips the decoder.
            var lo = 0, hi = all.count
            while lo < hi && (all[lo] == 0x20 || all[lo] == 0x09) { lo += 1 }
            while hi > lo && (all[hi - 1] == 0x20 || all[hi - 1] == 0x09) { hi -= 1 }
            let bytes = UnsafeBufferPointer(rebasing: all[lo..<hi])
            if !bytes.contains(where: { $0 >= 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
            guard let s = NodeLinkText.cp949(Array(bytes)) else { throw error(row, "field \(field + 1) is not valid CP949 text") }
            return s.trimmingCharacters(in: .whitespaces)
        }

        func error(_ row: Int, _ message: String) -> NodeLinkError { NodeLinkError("\(path): row \(row + 1): \(message)") }
    }

    /// A shape file open through shapelib.
    final class Shapes {
        let path: String
        let handle: SHPHandle

        init(path: String, records: Int) throws(NodeLinkError) {
            guard let h = SHPOpen(path, "rb") else { throw NodeLinkError("\(path): not a readable shapefile (.shp with its .shx)") }
            var n: Int32 = 0, type: Int32 = 0
            SHPGetInfo(h, &n, &type, nil, nil)
            guard Int(n) == records else {
                SHPClose(h)
                throw NodeLinkError("\(path): \(n) shapes but its .dbf has \(records) rows")
            }
            self.path = path
            handle = h
        }

        deinit { SHPClose(handle) }

        /// The first vertex of shape `i`, or nil for a null shape.
        func firstPoint(_ i: Int) -> (Double, Double)? {
            guard let o = SHPReadObject(handle, Int32(i)) else { return nil }
            defer { SHPDestroyObject(o) }
            guard o.pointee.nVertices > 0 else { return nil }
            return (o.pointee.padfX[0], o.pointee.padfY[0])
        }
    }
}

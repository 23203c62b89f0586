import CSV
import Foundation

/// Why a node-link input could not be used: the file, the row when known, and the cause.
public struct NodeLinkError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A node of the Korean standard node-link network (표준노드링크 `MOCT_NODE`).
package struct NodeLinkNode: Sendable {
    package var id: Int64
    package var lat: Double
    package var lon: Double
    /// `NODE_TYPE`: 101 intersection, 102 road start/end, 103 attribute change, …
    package var type: Int
    package var name: String
}

/// A directed link (`MOCT_LINK`): one direction of travel from `from` to `to`.
package struct NodeLinkLink: Sendable {
    package var id: Int64
    package var from: Int64
    package var to: Int64
    package var lanes: Int
    /// `ROAD_RANK`: 101 expressway … 107 city/county road, 108 other.
    package var rank: Int
    /// `ROAD_TYPE`: 000 ordinary, 001 overpass, 002 underpass, 003 bridge, 004 tunnel.
    package var roadType: Int
    /// `MAX_SPD` in km/h; 0 when not given.
    package var maxSpeedKmh: Int
    /// `REST_VEH`: the vehicle class that may not pass (0 none, 1 cars, …).
    package var restrictedVehicle: Int
    /// `ROAD_USE`: 0 in use, 1 not in use (see `NodeLinkImporter`).
    package var roadUse: Int
    /// The real length along the link's shape, metres (`LENGTH`; `SHAPE_STLe` in the CSV subset).
    package var lengthMeters: Double
    package var name: String
    /// The file row (1-based data row of the DBF, line of the CSV), for messages.
    package var row: Int
}

/// A row of `TURNINFO`: the turn from link `from` (arriving at `node`) onto link `to` (leaving it).
package struct NodeLinkTurn: Sendable {
    package var node: Int64
    package var from: Int64
    package var to: Int64
    /// `TURN_TYPE`: 001 allowed, 002 buses only, 003 prohibited, 011 U-turn, 012 P-turn,
    /// 101 left, 102 straight on, 103 right turn prohibited.
    package var type: Int
    /// `TURN_OPER`: 0 all day, 1 part of the day (taken as always on).
    package var operation: Int
    package var row: Int

    /// A taxi may not make this turn: 002 (buses only), 003, 101, 102, 103.
    package var prohibitsCars: Bool { [2, 3, 101, 102, 103].contains(type) }
    /// The row allows a U-turn (011) or a P-turn (012) here.
    package var allowsUTurn: Bool { type == 11 || type == 12 }
}

/// The node-link network as read, before it becomes a road graph.
package struct NodeLinkNetwork: Sendable {
    package init() {}
    package var nodes: [NodeLinkNode] = []
    package var links: [NodeLinkLink] = []
    package var turns: [NodeLinkTurn] = []
    /// Turn rows at nodes outside the network (the turn table is national), not read further.
    package var turnsOutside = 0
    /// The files read, for the report.
    package var files: [String] = []
}

/// Text decoding of the node-link files: CP949 bytes, and the CSV subset's Python byte literals.
enum NodeLinkText {
    /// `bytes` as CP949 text, or nil when they are not valid CP949.
    static func cp949(_ bytes: [UInt8]) -> String? {
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        guard let source = try? IconvSource(wrapping: MemorySource(bytes), from: "CP949") else { return nil }
        var out: [UInt8] = []
        while let chunk = try? source.nextChunk() { out += chunk }
        guard source.invalidSequences == 0 else { return nil }
        return String(decoding: out, as: UTF8.self)
    }

    /// A CSV cell of the staged subset: `b'…'` is a Python bytes literal of CP949 text
    /// (`\xHH`, `\\`, `\'`, `\"`, `\n`, `\r`, `\t` escapes); anything else is plain text.
    /// Nil when the literal is malformed or its bytes are not CP949.
    static func pythonBytesLiteral(_ cell: String) -> String? {
        let u = Array(cell.utf8)
        guard u.count >= 3, u[0] == UInt8(ascii: "b"), u[1] == UInt8(ascii: "'") || u[1] == UInt8(ascii: "\""),
              u[u.count - 1] == u[1]
        else { return cell }
        var bytes: [UInt8] = []
        var i = 2
        let end = u.count - 1
        func hex(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x61...0x66: c - 0x61 + 10
            case 0x41...0x46: c - 0x41 + 10
            default: nil
            }
        }
        while i < end {
            let c = u[i]
            guard c == UInt8(ascii: "\\") else { bytes.append(c); i += 1; continue }
            guard i + 1 < end else { return nil }
            switch u[i + 1] {
            case UInt8(ascii: "x"):
                guard i + 3 < end, let h = hex(u[i + 2]), let l = hex(u[i + 3]) else { return nil }
                bytes.append(h << 4 | l); i += 4
            case UInt8(ascii: "n"): bytes.append(0x0A); i += 2
            case UInt8(ascii: "r"): bytes.append(0x0D); i += 2
            case UInt8(ascii: "t"): bytes.append(0x09); i += 2
            case UInt8(ascii: "\\"), UInt8(ascii: "'"), UInt8(ascii: "\""): bytes.append(u[i + 1]); i += 2
            default: return nil
            }
        }
        return cp949(bytes)
    }
}

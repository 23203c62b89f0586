import Foundation
import Geo

/// The prepared graph file (`.graph`): a fixed header, a section table and 8-byte aligned
/// little-endian arrays, with a checksum over everything after the first 32 bytes.
///
///     0  magic "TXPGRAPH"        8  format version (UInt32)   12 header size (UInt32)
///     16 file size (UInt64)      24 checksum (UInt64)
///     32 nodes, edges, pieces, landmarks (UInt32 each)
///     48 section count (UInt32), reserved   56 byte-order mark 0x0102030405060708
///     64 sections: id, element size (UInt32 each), offset, element count (UInt64 each)
package enum GraphFile {
    static let magic: [UInt8] = Array("TXPGRAPH".utf8)
    /// Bumped whenever the layout or the meaning of a section changes.
    /// 6: several connected areas (`nodeArea`) and the circuity table measured at import.
    /// 7: per-combo hourly speeds and their measured flags (`comboHourSpeed`, `comboHourMeasured`).
    static let formatVersion: UInt32 = 7
    static let byteOrderMark: UInt64 = 0x0102_0304_0506_0708

    /// Section ids and element sizes.
    enum Section: UInt32, CaseIterable {
        case nodeLat = 1, nodeLon, firstOut, head, length, combo, edgePiece
        case pieceFirstPoint, pieceName, pieceFirstEdge, pieceEdges, pointLat, pointLon, pointOffset
        case comboClass, comboCap, comboBoundQ, boundSpeed, nameOffsets, nameBytes
        case landmarkNodes, landmarkTime, landmarkDistance, gridCellFirst, gridItems, gridParams, metadata
        case chRank, chUpFirst, chUpHead, chUpWeight, chDownFirst, chDownTail, chDownWeight
        case hourQ
        case nodeArea, circuity
        case comboHourSpeed, comboHourMeasured

        var elementSize: Int {
            switch self {
            case .combo: 2
            case .comboClass, .comboCap, .nameBytes, .metadata, .comboHourMeasured: 1
            case .comboBoundQ, .boundSpeed, .gridParams, .hourQ, .circuity, .comboHourSpeed: 8
            default: 4
            }
        }
    }

    /// A section's bytes for writing.
    struct Blob {
        let section: Section
        let count: Int
        let write: (UnsafeMutablePointer<FILE>) -> Bool
        let hash: (inout Checksum) -> Void
    }

    static func blob<T>(_ s: Section, _ array: [T]) -> Blob {
        precondition(MemoryLayout<T>.stride == s.elementSize)
        return Blob(section: s, count: array.count,
                    write: { f in array.withUnsafeBytes { b in b.count == 0 || fwrite(b.baseAddress, 1, b.count, f) == b.count } },
                    hash: { c in array.withUnsafeBytes { c.add(UnsafeRawBufferPointer($0)) } })
    }

    static func padding(_ n: Int) -> Int { (8 - n % 8) % 8 }

    /// Writes `g` to `path` (through a temporary file renamed into place).
    package static func write(_ g: GraphData, to path: String) throws(GraphWriteError) {
        let gp = g.grid
        let blobs: [Blob] = [
            blob(.nodeLat, g.nodeLat), blob(.nodeLon, g.nodeLon), blob(.firstOut, g.firstOut), blob(.head, g.head),
            blob(.length, g.length), blob(.combo, g.combo), blob(.edgePiece, g.edgePiece),
            blob(.pieceFirstPoint, g.pieceFirstPoint), blob(.pieceName, g.pieceName), blob(.pieceFirstEdge, g.pieceFirstEdge),
            blob(.pieceEdges, g.pieceEdges), blob(.pointLat, g.pointLat), blob(.pointLon, g.pointLon),
            blob(.pointOffset, g.pointOffset), blob(.comboClass, g.comboClass), blob(.comboCap, g.comboCapKmh),
            blob(.comboBoundQ, g.comboBoundQ), blob(.boundSpeed, g.boundSpeedKmh), blob(.nameOffsets, g.nameOffsets),
            blob(.nameBytes, g.nameBytes), blob(.landmarkNodes, g.landmarkNodes), blob(.landmarkTime, g.landmarkTime),
            blob(.landmarkDistance, g.landmarkDistance), blob(.gridCellFirst, g.gridCellFirst), blob(.gridItems, g.gridItems),
            blob(.gridParams, [gp.originLat, gp.originLon, gp.cellLat, gp.cellLon, Double(gp.rows), Double(gp.cols)]),
            blob(.metadata, g.metadata),
            blob(.chRank, g.ch.rank), blob(.chUpFirst, g.ch.upFirst), blob(.chUpHead, g.ch.upHead), blob(.chUpWeight, g.ch.upWeight),
            blob(.chDownFirst, g.ch.downFirst), blob(.chDownTail, g.ch.downTail), blob(.chDownWeight, g.ch.downWeight),
            blob(.hourQ, g.hourQ),
            blob(.nodeArea, g.nodeArea), blob(.circuity, g.circuity.encoded),
            blob(.comboHourSpeed, g.comboHourSpeed), blob(.comboHourMeasured, g.comboHourMeasured),
        ]
        let headerSize = 64 + 24 * blobs.count
        var header = [UInt8](repeating: 0, count: headerSize)
        func put<T: FixedWidthInteger>(_ v: T, at o: Int) {
            withUnsafeBytes(of: v.littleEndian) { for (i, b) in $0.enumerated() { header[o + i] = b } }
        }
        for (i, b) in magic.enumerated() { header[i] = b }
        put(formatVersion, at: 8)
        put(UInt32(headerSize), at: 12)
        put(UInt32(g.nodeCount), at: 32)
        put(UInt32(g.edgeCount), at: 36)
        put(UInt32(g.pieceCount), at: 40)
        put(UInt32(g.landmarkNodes.count), at: 44)
        put(UInt32(blobs.count), at: 48)
        put(byteOrderMark, at: 56)
        var offset = headerSize
        for (i, b) in blobs.enumerated() {
            let o = 64 + 24 * i
            put(b.section.rawValue, at: o)
            put(UInt32(b.section.elementSize), at: o + 4)
            put(UInt64(offset), at: o + 8)
            put(UInt64(b.count), at: o + 16)
            let bytes = b.count * b.section.elementSize
            offset += bytes + padding(bytes)
        }
        put(UInt64(offset), at: 16)
        var checksum = Checksum()
        header.withUnsafeBytes { checksum.add(UnsafeRawBufferPointer(rebasing: $0[32...])) }
        let zeros = [UInt8](repeating: 0, count: 8)
        for b in blobs {
            b.hash(&checksum)
            let pad = padding(b.count * b.section.elementSize)
            if pad > 0 { zeros.withUnsafeBytes { checksum.add(UnsafeRawBufferPointer(rebasing: $0[0..<pad])) } }
        }
        put(checksum.value, at: 24)

        let temporary = path + ".tmp-\(getpid())"
        guard let f = fopen(temporary, "wb") else {
            throw GraphWriteError("\(path): cannot write the graph file (\(String(cString: strerror(errno))))")
        }
        var ok = header.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) == $0.count }
        for b in blobs where ok {
            ok = b.write(f)
            let pad = padding(b.count * b.section.elementSize)
            if ok && pad > 0 { ok = zeros.withUnsafeBytes { fwrite($0.baseAddress, 1, pad, f) == pad } }
        }
        ok = fclose(f) == 0 && ok
        guard ok, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw GraphWriteError("\(path): cannot write the graph file (\(reason))")
        }
    }
}

/// Why the graph file could not be written: the path and the cause.
package struct GraphWriteError: Error, CustomStringConvertible, Sendable {
    package let description: String
    init(_ description: String) { self.description = description }
}

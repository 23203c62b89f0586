import Foundation
import Geo

/// Why a graph file was refused: the message names the file and what is wrong with it.
public struct GraphLoadError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let reason: String
    public var description: String { "\(path): \(reason)" }
}

/// A prepared road graph, memory-mapped from a `.graph` file written by `taxipot import osm`.
///
/// Immutable once loaded and safe to share between threads. Loading checks the format
/// version, the size, the checksum and the internal consistency of every array, so a
/// corrupt, truncated or older file is refused with a message, never half-used.
public final class RoadGraph: @unchecked Sendable {
    /// The file it was loaded from.
    public let path: String
    private let mapping: UnsafeMutableRawPointer
    private let mappedSize: Int

    let nodeLat, nodeLon: UnsafeBufferPointer<Int32>
    let firstOut, head, length, edgePiece: UnsafeBufferPointer<UInt32>
    let combo: UnsafeBufferPointer<UInt16>
    let pieceFirstPoint, pieceName, pieceFirstEdge, pieceEdges: UnsafeBufferPointer<UInt32>
    let pointLat, pointLon: UnsafeBufferPointer<Int32>
    let pointOffset: UnsafeBufferPointer<UInt32>
    let comboClass, comboCap, nameBytes, metadataBytes: UnsafeBufferPointer<UInt8>
    let comboBoundQ: UnsafeBufferPointer<UInt64>
    let boundSpeed: UnsafeBufferPointer<Double>
    let nameOffsets, landmarkNodes, landmarkTime, landmarkDistance, gridCellFirst, gridItems: UnsafeBufferPointer<UInt32>
    let grid: GridParameters
    /// The contraction hierarchy of lower-bound times (empty sections when the file has none).
    let chRank, chUpFirst, chUpHead, chUpWeight, chDownFirst, chDownTail, chDownWeight: UnsafeBufferPointer<UInt32>
    /// Per hour, per speed combo: the time factors the hierarchy's witnesses were made to hold for.
    let hourQ: UnsafeBufferPointer<UInt64>
    /// Per hour, per speed combo: the speed set at import (km/h) and whether it was measured;
    /// empty when speeds come from the traffic profile (see `GraphData.comboHourSpeed`).
    let comboHourSpeed: UnsafeBufferPointer<Double>
    let comboHourMeasured: UnsafeBufferPointer<UInt8>
    /// The served area (connected component, 0 = the largest) of each node.
    let nodeArea: UnsafeBufferPointer<UInt32>
    /// Connected areas: no road joins two of them.
    public let areaCount: Int
    /// Nodes of each area (area 0 is the largest).
    public let areaNodeCounts: [Int]
    /// The bounding box of each area's nodes.
    public let areaBoundingBoxes: [BoundingBox]
    /// Route length over straight-line length by distance band, measured at import.
    public let circuity: CircuityTable

    /// The area node `i` belongs to (0 ..< areaCount).
    public func area(ofNode i: Int) -> Int { Int(nodeArea[i]) }

    /// Junctions and restriction copies in the graph.
    public var nodeCount: Int { nodeLat.count }
    /// Directed edges.
    public var edgeCount: Int { head.count }
    /// Landmarks stored for the A* heuristic.
    public var landmarkCount: Int { landmarkNodes.count }
    /// The import report stored in the file (JSON text).
    public var metadata: String { String(decoding: metadataBytes, as: UTF8.self) }

    /// The road network the graph was imported from: `nodelink` (the Korean standard node-link
    /// network, `taxipot import nodelink`) or `osm` (OpenStreetMap, `taxipot import osm`).
    public var network: String { metadata.hasPrefix("{\"network\":\"nodelink\"") ? "nodelink" : "osm" }

    /// A sentence on the served network, for `/health` and `/v1/coverage`.
    public var networkDescription: String {
        network == "nodelink"
            ? "Korean standard node-link network (표준노드링크, MOLIT/ITS), Seoul subset of 24 districts: links drawn straight between their nodes, lengths the real ones"
            : "OpenStreetMap roads"
    }

    /// Position of node `i` (0 ..< nodeCount).
    public func coordinate(ofNode i: Int) -> Coordinate {
        Coordinate(lon: Double(nodeLon[i]) / 1e7, lat: Double(nodeLat[i]) / 1e7)
    }

    /// The bounding box of the graph's nodes.
    public var boundingBox: BoundingBox {
        var b = BoundingBox(west: 180, south: 90, east: -180, north: -90)
        for i in 0..<nodeCount {
            let c = coordinate(ofNode: i)
            b.west = min(b.west, c.lon); b.east = max(b.east, c.lon)
            b.south = min(b.south, c.lat); b.north = max(b.north, c.lat)
        }
        return b
    }

    /// The street name with id `i` (0 is "no name").
    func name(_ i: Int) -> String {
        guard i > 0, i + 1 < nameOffsets.count else { return "" }
        let lo = Int(nameOffsets[i]), hi = Int(nameOffsets[i + 1])
        return String(decoding: UnsafeBufferPointer(rebasing: nameBytes[lo..<hi]), as: UTF8.self)
    }

    deinit { munmap(mapping, mappedSize) }

    /// Maps and checks the graph file at `path`.
    public static func load(path: String) throws(GraphLoadError) -> RoadGraph {
        func fail(_ reason: String) -> GraphLoadError { GraphLoadError(path: path, reason: reason) }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw fail("cannot open the graph file (\(String(cString: strerror(errno)))); build it with 'taxipot import osm'") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { throw fail("not a regular file") }
        let size = Int(st.st_size)
        guard size >= 64 else { throw fail("only \(size) bytes: too short to be a graph file (truncated?)") }
        guard let raw = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), raw != MAP_FAILED else {
            throw fail("cannot map the file (\(String(cString: strerror(errno))))")
        }
        do {
            return try RoadGraph(path: path, mapping: raw, size: size)
        } catch {
            munmap(raw, size)
            throw error
        }
    }

    private init(path: String, mapping: UnsafeMutableRawPointer, size: Int) throws(GraphLoadError) {
        func fail(_ reason: String) -> GraphLoadError { GraphLoadError(path: path, reason: reason) }
        let bytes = UnsafeRawBufferPointer(start: mapping, count: size)
        func u32(_ o: Int) -> UInt32 { UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: o, as: UInt32.self)) }
        func u64(_ o: Int) -> UInt64 { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: o, as: UInt64.self)) }
        guard Array(bytes[0..<8]) == GraphFile.magic else { throw fail("not a Taxipot graph file (bad magic bytes)") }
        let version = u32(8)
        guard version == GraphFile.formatVersion else {
            throw fail("graph format version \(version), but this build reads version \(GraphFile.formatVersion); rebuild it with 'taxipot import osm'")
        }
        guard u64(56) == GraphFile.byteOrderMark else { throw fail("written with another byte order") }
        let declared = u64(16)
        guard declared == UInt64(size) else {
            throw fail(UInt64(size) < declared ? "truncated: \(size) of \(declared) bytes" : "\(size) bytes where the header says \(declared)")
        }
        let headerSize = Int(u32(12)), sectionCount = Int(u32(48))
        guard headerSize == 64 + 24 * sectionCount, headerSize <= size else { throw fail("corrupt header (section table size)") }
        var checksum = Checksum()
        checksum.add(UnsafeRawBufferPointer(rebasing: bytes[32..<size]))
        guard checksum.value == u64(24) else { throw fail("corrupt: the checksum does not match the contents") }

        var table = [UInt32: (offset: Int, count: Int)]()
        for i in 0..<sectionCount {
            let o = 64 + 24 * i
            guard let s = GraphFile.Section(rawValue: u32(o)), Int(u32(o + 4)) == s.elementSize else {
                throw fail("corrupt section table entry \(i)")
            }
            let offset = u64(o + 8), count = u64(o + 16)
            guard offset % 8 == 0, count < UInt64(size), offset <= UInt64(size),
                  count * UInt64(s.elementSize) <= UInt64(size) - offset
            else { throw fail("section \(s) lies outside the file") }
            table[s.rawValue] = (Int(offset), Int(count))
        }
        func section<T>(_ s: GraphFile.Section, _: T.Type) throws(GraphLoadError) -> UnsafeBufferPointer<T> {
            guard let e = table[s.rawValue] else { throw fail("section \(s) is missing") }
            return UnsafeBufferPointer(start: (mapping + e.offset).assumingMemoryBound(to: T.self), count: e.count)
        }
        self.path = path
        self.mapping = mapping
        mappedSize = size
        nodeLat = try section(.nodeLat, Int32.self); nodeLon = try section(.nodeLon, Int32.self)
        firstOut = try section(.firstOut, UInt32.self); head = try section(.head, UInt32.self)
        length = try section(.length, UInt32.self); combo = try section(.combo, UInt16.self)
        edgePiece = try section(.edgePiece, UInt32.self)
        pieceFirstPoint = try section(.pieceFirstPoint, UInt32.self); pieceName = try section(.pieceName, UInt32.self)
        pieceFirstEdge = try section(.pieceFirstEdge, UInt32.self); pieceEdges = try section(.pieceEdges, UInt32.self)
        pointLat = try section(.pointLat, Int32.self); pointLon = try section(.pointLon, Int32.self)
        pointOffset = try section(.pointOffset, UInt32.self)
        comboClass = try section(.comboClass, UInt8.self); comboCap = try section(.comboCap, UInt8.self)
        comboBoundQ = try section(.comboBoundQ, UInt64.self); boundSpeed = try section(.boundSpeed, Double.self)
        nameOffsets = try section(.nameOffsets, UInt32.self); nameBytes = try section(.nameBytes, UInt8.self)
        landmarkNodes = try section(.landmarkNodes, UInt32.self)
        landmarkTime = try section(.landmarkTime, UInt32.self); landmarkDistance = try section(.landmarkDistance, UInt32.self)
        gridCellFirst = try section(.gridCellFirst, UInt32.self); gridItems = try section(.gridItems, UInt32.self)
        metadataBytes = try section(.metadata, UInt8.self)
        chRank = try section(.chRank, UInt32.self)
        chUpFirst = try section(.chUpFirst, UInt32.self); chUpHead = try section(.chUpHead, UInt32.self)
        chUpWeight = try section(.chUpWeight, UInt32.self)
        chDownFirst = try section(.chDownFirst, UInt32.self); chDownTail = try section(.chDownTail, UInt32.self)
        chDownWeight = try section(.chDownWeight, UInt32.self)
        hourQ = try section(.hourQ, UInt64.self)
        comboHourSpeed = try section(.comboHourSpeed, Double.self)
        comboHourMeasured = try section(.comboHourMeasured, UInt8.self)
        nodeArea = try section(.nodeArea, UInt32.self)
        guard let circuity = CircuityTable(encoded: try section(.circuity, Double.self)) else { throw fail("corrupt circuity table") }
        self.circuity = circuity
        var areas = 0
        for a in nodeArea where Int(a) < nodeArea.count { areas = max(areas, Int(a) + 1) }
        areaCount = areas
        var counts = [Int](repeating: 0, count: areas)
        var boxes = [BoundingBox](repeating: BoundingBox(west: 180, south: 90, east: -180, north: -90), count: areas)
        if nodeArea.count == nodeLat.count && nodeLon.count == nodeLat.count {
            for v in 0..<nodeArea.count where Int(nodeArea[v]) < areas {
                let a = Int(nodeArea[v])
                counts[a] += 1
                let lat = Double(nodeLat[v]) / 1e7, lon = Double(nodeLon[v]) / 1e7
                boxes[a].west = min(boxes[a].west, lon); boxes[a].east = max(boxes[a].east, lon)
                boxes[a].south = min(boxes[a].south, lat); boxes[a].north = max(boxes[a].north, lat)
            }
        }
        areaNodeCounts = counts
        areaBoundingBoxes = boxes
        let gp = try section(.gridParams, Double.self)
        guard gp.count == 6, gp.allSatisfy(\.isFinite), gp[2] > 0, gp[3] > 0, gp[4] >= 1, gp[5] >= 1, gp[4] * gp[5] < 1e9 else {
            throw fail("corrupt grid parameters")
        }
        grid = GridParameters(originLat: gp[0], originLon: gp[1], cellLat: gp[2], cellLon: gp[3], rows: Int(gp[4]), cols: Int(gp[5]))
        if let problem = consistencyProblem(nodes: Int(u32(32)), edges: Int(u32(36)), pieces: Int(u32(40)), landmarks: Int(u32(44))) {
            throw fail("inconsistent graph: \(problem)")
        }
        if let problem = hierarchyProblem() {
            throw fail("inconsistent contraction hierarchy: \(problem)")
        }
    }

    /// The first broken invariant of the arrays, or nil: every index must point inside its target.
    private func consistencyProblem(nodes n: Int, edges m: Int, pieces p: Int, landmarks l: Int) -> String? {
        let points = pointLat.count
        guard n > 0, nodeLat.count == n, nodeLon.count == n, firstOut.count == n + 1 else { return "node arrays" }
        guard nodeArea.count == n, areaCount <= n, !areaNodeCounts.contains(0) else { return "area of each node" }
        guard head.count == m, length.count == m, combo.count == m, edgePiece.count == m else { return "edge arrays" }
        guard pieceFirstPoint.count == p + 1, pieceName.count == p, pieceFirstEdge.count == p + 1 else { return "piece arrays" }
        guard pointLon.count == points, pointOffset.count == points else { return "point arrays" }
        guard comboClass.count == comboCap.count, comboBoundQ.count == comboClass.count, hourQ.count == 24 * comboClass.count,
              boundSpeed.count == RoadClass.allCases.count else { return "speed tables" }
        guard comboHourSpeed.isEmpty || comboHourSpeed.count == hourQ.count, comboHourMeasured.count == comboHourSpeed.count,
              comboHourSpeed.allSatisfy({ $0.isFinite && $0 > 0 && $0 <= 250 }) else { return "hourly speeds" }
        guard landmarkNodes.count == l, l > 0, landmarkTime.count == n * 2 * l, landmarkDistance.count == n * 2 * l
        else { return "landmark arrays" }
        guard nameOffsets.count >= 2, nameOffsets[0] == 0, Int(nameOffsets[nameOffsets.count - 1]) == nameBytes.count
        else { return "name table" }
        for i in 0..<(nameOffsets.count - 1) where nameOffsets[i] > nameOffsets[i + 1] { return "name table" }
        guard firstOut[0] == 0, Int(firstOut[n]) == m else { return "edge offsets" }
        for v in 0..<n where firstOut[v] > firstOut[v + 1] { return "edge offsets" }
        let combos = comboClass.count, names = nameOffsets.count - 1
        for c in 0..<combos where Int(comboClass[c]) >= RoadClass.allCases.count || comboCap[c] == 0 || comboBoundQ[c] == 0 {
            return "speed combo \(c)"
        }
        for e in 0..<m where Int(head[e]) >= n || Int(combo[e]) >= combos || Int(edgePiece[e] >> 1) >= p { return "edge \(e)" }
        guard pieceFirstPoint[0] == 0, Int(pieceFirstPoint[p]) == points, pieceFirstEdge[0] == 0,
              Int(pieceFirstEdge[p]) == pieceEdges.count else { return "piece offsets" }
        for q in 0..<p {
            guard pieceFirstPoint[q + 1] >= pieceFirstPoint[q] + 2, pieceFirstEdge[q + 1] >= pieceFirstEdge[q],
                  Int(pieceName[q]) < names else { return "piece \(q)" }
            for k in Int(pieceFirstPoint[q])..<Int(pieceFirstPoint[q + 1] - 1) where pointOffset[k] > pointOffset[k + 1] {
                return "piece \(q) offsets"
            }
        }
        for e in pieceEdges where Int(e) >= m { return "piece edge list" }
        for v in landmarkNodes where Int(v) >= n { return "landmark node" }
        for x in landmarkTime where x == .max { return "landmark distances" }
        for x in landmarkDistance where x == .max { return "landmark distances" }
        guard gridCellFirst.count == grid.rows * grid.cols + 1, gridCellFirst[0] == 0,
              Int(gridCellFirst[gridCellFirst.count - 1]) == gridItems.count else { return "grid offsets" }
        for i in 0..<(gridCellFirst.count - 1) where gridCellFirst[i] > gridCellFirst[i + 1] { return "grid offsets" }
        for s in gridItems where Int(s) + 1 >= points { return "grid item" }
        for i in 0..<points where abs(pointLat[i]) > 900_000_000 || abs(pointLon[i]) > 1_800_000_000 { return "point \(i)" }
        return nil
    }

    /// The first broken invariant of the contraction hierarchy, or nil: ranks are a permutation,
    /// and every upward edge (and every edge coming down to a node) joins a rank to a higher
    /// one, so the potential's recursion always ends.
    private func hierarchyProblem() -> String? {
        let n = nodeCount
        if chRank.isEmpty && chUpFirst.isEmpty && chUpHead.isEmpty && chDownFirst.isEmpty && chDownTail.isEmpty
            && chUpWeight.isEmpty && chDownWeight.isEmpty { return nil }
        guard chRank.count == n, chUpFirst.count == n + 1, chDownFirst.count == n + 1 else { return "node arrays" }
        guard chUpHead.count == chUpWeight.count, chDownTail.count == chDownWeight.count else { return "edge arrays" }
        var seen = [Bool](repeating: false, count: n)
        for r in chRank {
            guard Int(r) < n, !seen[Int(r)] else { return "ranks are not a permutation" }
            seen[Int(r)] = true
        }
        for (first, other, name) in [(chUpFirst, chUpHead, "upward"), (chDownFirst, chDownTail, "downward")] {
            guard first[0] == 0, Int(first[n]) == other.count else { return "\(name) edge offsets" }
            for r in 0..<n {
                guard first[r] <= first[r + 1] else { return "\(name) edge offsets" }
                for e in Int(first[r])..<Int(first[r + 1]) where Int(other[e]) <= r || Int(other[e]) >= n {
                    return "\(name) edge \(e) does not lead to a higher rank"
                }
                for e in Int(first[r])..<Int(first[r + 1]) where e + 1 < Int(first[r + 1]) && other[e] >= other[e + 1] {
                    return "\(name) edges of rank \(r) are not sorted"
                }
            }
        }
        return nil
    }
}

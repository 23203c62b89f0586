import Foundation
import Geo

/// A synthetic city written as OSM XML, to measure import and queries at any size.
///
/// A square grid of streets 120 m apart (jittered) around 37.5 N, 127.0 E: primary arterials
/// every 32 lines, secondary every 8, tertiary every 4, residential streets between (a
/// quarter of them one-way in alternating directions; some living streets, service and
/// unclassified roads); three square ring roads (trunk) and, on large grids, a one-way pair
/// of motorway carriageways around the city joined to the arterials by links. Streets have
/// curved shape points, speed limits in several notations, and about one in ten junctions
/// where ways meet has a turn restriction of one of six types. The node count is exact.
/// Used by `taxipot synth-osm` (scale benchmarks) and the routing tests; not part of the engine.
public enum SyntheticCity {
    /// What was written.
    public struct Summary: Sendable, CustomStringConvertible {
        public let nodes: Int
        public let ways: Int
        public let restrictions: Int
        public let gridSide: Int
        public let bytes: Int
        public var description: String {
            "\(nodes) nodes (grid \(gridSide)×\(gridSide)), \(ways) ways, \(restrictions) turn restrictions, \(bytes) bytes"
        }
    }

    static let spacing = 120.0
    static let origin = Coordinate(lon: 127.0, lat: 37.5)

    /// Writes a city of exactly `nodes` nodes (at least 16) to `path` (OSM XML).
    public static func write(nodes target: Int, seed: UInt64, to path: String) throws(SyntheticCityError) -> Summary {
        guard target >= 16 else { throw SyntheticCityError("a synthetic city needs at least 16 nodes, got \(target)") }
        guard let file = fopen(path, "wb") else {
            throw SyntheticCityError("\(path): cannot write (\(String(cString: strerror(errno))))")
        }
        var out = OSMXMLWriter(file: file)
        let summary = generate(target: target, seed: seed, out: &out)
        out.flush()
        let failed = out.failed
        guard fclose(file) == 0, !failed else { throw SyntheticCityError("\(path): write failed (disk full?)") }
        return Summary(nodes: summary.nodes, ways: summary.ways, restrictions: summary.restrictions, gridSide: summary.gridSide,
                       bytes: out.written)
    }

    private static func generate(target: Int, seed: UInt64, out: inout OSMXMLWriter) -> Summary {
        var rng = SplitMix64(seed: seed)
        // Grid side so that about half of the nodes are junctions, half shape points.
        var side = max(4, Int((Double(target) / 2).squareRoot()))
        while side > 4 && side * side + 2 * side * (side - 1) < target { side += 1 }
        while side > 4 && side * side > target { side -= 1 }
        let center = (side / 2) / 8 * 8
        let ringHalf = side >= 96 ? max(8, (min(center, side - 1 - center) - 8) / 8 * 8) : 0
        let motorwayPositions = ringHalf > 0 ? 8 * ringHalf : 0
        let junctionCount = side * side
        let motorwayNodes = 2 * motorwayPositions
        let edgeCount = 2 * side * (side - 1)
        let shapeTotal = min(edgeCount, max(0, target - junctionCount - motorwayNodes))
        let extraShapes = max(0, target - junctionCount - motorwayNodes - shapeTotal)  // only when the grid is tiny

        let metersLat = earthRadiusMeters * Double.pi / 180
        let metersLon = metersLat * cos(origin.lat * Double.pi / 180)
        func position(_ x: Double, _ y: Double) -> (Int32, Int32) {
            (Int32(((origin.lat + y / metersLat) * 1e7).rounded()), Int32(((origin.lon + x / metersLon) * 1e7).rounded()))
        }
        // Junctions.
        var jx = [Double](repeating: 0, count: junctionCount), jy = [Double](repeating: 0, count: junctionCount)
        out.text("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<osm version=\"0.6\" generator=\"taxipot synth-osm\">\n")
        for j in 0..<side {
            for i in 0..<side {
                let k = j * side + i
                jx[k] = Double(i - center) * spacing + Double(rng.next() % 31) - 15
                jy[k] = Double(j - center) * spacing + Double(rng.next() % 31) - 15
                out.node(id: k + 1, position(jx[k], jy[k]))
            }
        }
        // Shape points: exactly `shapeTotal` block edges get one, chosen by selection sampling.
        var shapeId = [Int32](repeating: 0, count: edgeCount)
        var nextId = junctionCount + 1
        var remaining = shapeTotal
        for e in 0..<edgeCount where remaining > 0 {
            if rng.next() % UInt64(edgeCount - e) < UInt64(remaining) {
                let (a, b) = edgeEnds(e, side: side)
                let bend = Double(rng.next() % 21) - 10
                let dx = jx[b] - jx[a], dy = jy[b] - jy[a]
                let len = max(1, (dx * dx + dy * dy).squareRoot())
                let x = (jx[a] + jx[b]) / 2 - dy / len * bend, y = (jy[a] + jy[b]) / 2 + dx / len * bend
                shapeId[e] = Int32(nextId)
                out.node(id: nextId, position(x, y))
                nextId += 1
                remaining -= 1
            }
        }
        // Motorway ring: inner carriageway clockwise 30 m outside the ring line, outer anticlockwise 50 m.
        var ringGrid: [Int] = []
        var ringOutward: [(Double, Double)] = []
        if ringHalf > 0 {
            let lo = center - ringHalf, hi = center + ringHalf
            for i in lo..<hi { ringGrid.append(hi * side + i); ringOutward.append((0, 1)) }  // top, west → east
            for j in stride(from: hi, to: lo, by: -1) { ringGrid.append(j * side + hi); ringOutward.append((1, 0)) }  // east, north → south
            for i in stride(from: hi, to: lo, by: -1) { ringGrid.append(lo * side + i); ringOutward.append((0, -1)) }  // bottom
            for j in lo..<hi { ringGrid.append(j * side + lo); ringOutward.append((-1, 0)) }  // west, south → north
        }
        let innerBase = nextId
        for (k, g) in ringGrid.enumerated() {
            out.node(id: innerBase + k, position(jx[g] + ringOutward[k].0 * 30, jy[g] + ringOutward[k].1 * 30))
        }
        let outerBase = innerBase + ringGrid.count
        for (k, g) in ringGrid.enumerated() {
            out.node(id: outerBase + k, position(jx[g] + ringOutward[k].0 * 50, jy[g] + ringOutward[k].1 * 50))
        }
        nextId = outerBase + ringGrid.count
        // Tiny grids only: extra shape points on a dead-end spur so the count is still exact.
        let spurBase = nextId
        for k in 0..<extraShapes { out.node(id: spurBase + k, position(jx[0] - Double(k + 1) * 40, jy[0])) }
        let nodeCount = nextId - 1 + extraShapes

        // Ways along grid lines, 8 blocks each.
        let waysPerLine = (side - 1 + 7) / 8
        var wayCount = 0
        func lineWay(row: Bool, line: Int, segment m: Int) -> Int { (row ? 0 : side * waysPerLine) + line * waysPerLine + m + 1 }
        let rings = ringHalf > 0 ? [1, 2, 3].map { max(8, ringHalf * $0 / 4 / 8 * 8) } : []
        for row in [true, false] {
            for line in 0..<side {
                for m in 0..<waysPerLine {
                    let a = m * 8, b = min(side - 1, a + 8)
                    var refs: [Int] = []
                    for t in a...b {
                        let node = row ? line * side + t : t * side + line
                        if t > a {
                            let e = row ? line * (side - 1) + (t - 1) : side * (side - 1) + line * (side - 1) + (t - 1)
                            if shapeId[e] != 0 { refs.append(Int(shapeId[e])) }
                        }
                        refs.append(node + 1)
                    }
                    var tags = streetTags(row: row, line: line, rng: &rng)
                    if let k = rings.firstIndex(where: { d in abs(line - center) == d && a >= center - d && b <= center + d }) {
                        tags = [("highway", "trunk"), ("maxspeed", "80"), ("name", "순환로 \(k + 1)")]
                    }
                    out.way(id: lineWay(row: row, line: line, segment: m), refs: refs, tags: tags)
                    wayCount += 1
                }
            }
        }
        var nextWay = 2 * side * waysPerLine + 1
        if ringHalf > 0 {
            let n = ringGrid.count
            for (base, clockwise) in [(innerBase, true), (outerBase, false)] {
                var k = 0
                while k < n {
                    let end = min(n, k + 32)
                    let ids = (k...end).map { base + $0 % n }
                    out.way(id: nextWay, refs: clockwise ? ids : ids.reversed(),
                            tags: [("highway", "motorway"), ("maxspeed", "100"), ("name", "도시고속도로")])
                    nextWay += 1; wayCount += 1
                    k = end
                }
            }
            for (k, g) in ringGrid.enumerated() {
                let (i, j) = (g % side, g / side)
                guard (ringOutward[k].0 == 0 ? i : j) % 32 == 0 else { continue }
                for base in [innerBase, outerBase] {
                    out.way(id: nextWay, refs: [g + 1, base + k], tags: [("highway", "motorway_link")])
                    out.way(id: nextWay + 1, refs: [base + k, g + 1], tags: [("highway", "motorway_link")])
                    nextWay += 2; wayCount += 2
                }
            }
        }
        if extraShapes > 0 {
            out.way(id: nextWay, refs: [1] + (0..<extraShapes).map { spurBase + $0 }, tags: [("highway", "service")])
            wayCount += 1
        }
        // Turn restrictions where ways meet.
        let kinds = ["no_left_turn", "no_right_turn", "no_straight_on", "only_straight_on", "only_left_turn", "no_u_turn"]
        var restrictions = 0
        for j in stride(from: 8, to: side - 1, by: 8) {
            for i in stride(from: 8, to: side - 1, by: 8) where rng.next() % 10 == 0 {
                let west = lineWay(row: true, line: j, segment: i / 8 - 1), east = lineWay(row: true, line: j, segment: i / 8)
                let south = lineWay(row: false, line: i, segment: j / 8 - 1), north = lineWay(row: false, line: i, segment: j / 8)
                let kind = Int(rng.next() % 6)
                let (from, to) = [(west, north), (west, south), (south, north), (west, east), (south, west), (west, west)][kind]
                out.relation(id: restrictions + 1, from: from, via: j * side + i + 1, to: to, tags: [("type", "restriction"), ("restriction", kinds[kind])])
                restrictions += 1
            }
        }
        out.text("</osm>\n")
        return Summary(nodes: nodeCount, ways: wayCount, restrictions: restrictions, gridSide: side, bytes: out.written)
    }

    /// The junction indices at the ends of block edge `e` (horizontal edges first).
    static func edgeEnds(_ e: Int, side: Int) -> (Int, Int) {
        let h = side * (side - 1)
        if e < h {
            let j = e / (side - 1), i = e % (side - 1)
            return (j * side + i, j * side + i + 1)
        }
        let i = (e - h) / (side - 1), j = (e - h) % (side - 1)
        return (j * side + i, (j + 1) * side + i)
    }

    /// Tags of grid line `line`'s ways: class by line number, one-way residential streets in
    /// alternating directions, speed limits in several notations.
    static func streetTags(row: Bool, line: Int, rng: inout SplitMix64) -> [(String, String)] {
        let name = (row ? "가로 " : "세로 ") + String(line)
        if line % 32 == 0 { return [("highway", "primary"), ("maxspeed", "60"), ("name", name)] }
        if line % 8 == 0 { return [("highway", "secondary"), ("maxspeed", "50 km/h"), ("name", name)] }
        if line % 4 == 0 { return [("highway", "tertiary"), ("maxspeed", "KR:urban"), ("name", name)] }
        var tags: [(String, String)]
        switch rng.next() % 100 {
        case 0..<8: tags = [("highway", "unclassified")]
        case 8..<13: tags = [("highway", "living_street")]
        case 13..<17: tags = [("highway", "service")]
        default: tags = [("highway", "residential")]
        }
        if line % 4 == 2 { tags.append(("oneway", (line / 4) % 2 == 0 ? "yes" : "-1")) }
        if line % 16 == 5 { tags.append(("maxspeed", "20 mph")) } else if line % 4 == 1 { tags.append(("maxspeed", "30")) }
        tags.append(("name", name))
        return tags
    }
}

/// Why a synthetic city could not be written; the message names the file or the size.
public struct SyntheticCityError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

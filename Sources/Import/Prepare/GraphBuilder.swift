import Geo
import Routing

/// Directed edges of the junction graph while it is being built.
struct EdgeList {
    var source: [UInt32] = []
    var target: [UInt32] = []
    /// `piece << 1 | reversed`.
    var pieceDir: [UInt32] = []
    var length: [UInt32] = []
    var combo: [UInt16] = []

    var count: Int { source.count }

    mutating func append(_ s: UInt32, _ t: UInt32, pieceDir p: UInt32, length l: UInt32, combo c: UInt16) {
        source.append(s); target.append(t); pieceDir.append(p); length.append(l); combo.append(c)
    }
}

/// Pieces of road between junctions, as cut from the input's ways.
struct PieceList {
    var way: [Int32] = []
    var firstPoint: [UInt32] = [0]
    var pointLat: [Int32] = []
    var pointLon: [Int32] = []
    var pointOffset: [UInt32] = []
    var count: Int { way.count }
}

/// Turns the input's ways into junctions, pieces and directed edges (the first stage of `prepare`).
struct JunctionGraphBuilder {
    var junctionLat: [Int32] = []
    var junctionLon: [Int32] = []
    var pieces = PieceList()
    var edges = EdgeList()
    /// Junction id of each input node, or -1.
    var junctionOf: [Int32] = []
    var combos = ComboTable()
    var names = NameTable()
    var missingNodeRefs = 0
    var blockedNodeRefs = 0

    /// Cuts the ways of `x` at junctions: way ends, nodes with other than two distinct
    /// neighbours, and the via nodes of turn restrictions.
    init(_ x: RoadNetworkInput) {
        let nodeCount = x.nodeIds.count
        var blocked = [Bool]()
        if !x.blockedNodes.isEmpty {
            blocked = [Bool](repeating: false, count: nodeCount)
            for id in x.blockedNodes { if let i = x.nodeIndex(id) { blocked[i] = true } }
        }
        // Runs: each way's nodes, split where a node is missing or blocks cars.
        var runNodes: [Int32] = []
        var runFirst: [UInt32] = [0]
        var runWay: [Int32] = []
        runNodes.reserveCapacity(x.refs.count)
        for w in 0..<x.wayIds.count {
            var start = runNodes.count
            func flush() {
                if runNodes.count - start >= 2 {
                    runFirst.append(UInt32(runNodes.count))
                    runWay.append(Int32(w))
                } else {
                    runNodes.removeLast(runNodes.count - start)
                }
                start = runNodes.count
            }
            for r in Int(x.wayFirstRef[w])..<Int(x.wayFirstRef[w + 1]) {
                guard let i = x.nodeIndex(x.refs[r]) else { missingNodeRefs += 1; flush(); continue }
                if !blocked.isEmpty && blocked[i] { blockedNodeRefs += 1; flush(); continue }
                if runNodes.count > start, runNodes[runNodes.count - 1] == Int32(i) { continue }
                runNodes.append(Int32(i))
            }
            flush()
        }
        // Junctions.
        var neighbourA = [Int32](repeating: -1, count: nodeCount)
        var neighbourB = [Int32](repeating: -1, count: nodeCount)
        var isJunction = [Bool](repeating: false, count: nodeCount)
        func addNeighbour(_ a: Int, _ b: Int32) {
            if neighbourA[a] == -1 { neighbourA[a] = b } else if neighbourA[a] == b { return }
            else if neighbourB[a] == -1 { neighbourB[a] = b } else if neighbourB[a] != b { isJunction[a] = true }
        }
        for r in 0..<runWay.count {
            let lo = Int(runFirst[r]), hi = Int(runFirst[r + 1])
            isJunction[Int(runNodes[lo])] = true
            isJunction[Int(runNodes[hi - 1])] = true
            for k in lo..<(hi - 1) {
                addNeighbour(Int(runNodes[k]), runNodes[k + 1])
                addNeighbour(Int(runNodes[k + 1]), runNodes[k])
            }
        }
        for rr in x.restrictions { if let i = x.nodeIndex(rr.viaNode) { isJunction[i] = true } }
        junctionOf = [Int32](repeating: -1, count: nodeCount)
        func junction(_ i: Int) -> UInt32 {
            if junctionOf[i] < 0 {
                junctionOf[i] = Int32(junctionLat.count)
                junctionLat.append(x.nodeLat[i])
                junctionLon.append(x.nodeLon[i])
            }
            return UInt32(junctionOf[i])
        }
        // Pieces and edges.
        for r in 0..<runWay.count {
            let w = Int(runWay[r])
            let rule = x.wayRules[w]
            let nameId = names.id(rule.name)
            let comboForward = combos.id(rule.roadClass, capKmh: rule.capForwardKmh, speedRow: rule.speedRow)
            let comboBackward = combos.id(rule.roadClass, capKmh: rule.capBackwardKmh, speedRow: rule.speedRow)
            let lo = Int(runFirst[r]), hi = Int(runFirst[r + 1])
            var pieceStart = lo
            for k in (lo + 1)..<hi where isJunction[Int(runNodes[k])] {
                let p = UInt32(pieces.count)
                var offset = 0.0
                var prev = Coordinate(lon: 0, lat: 0)
                for m in pieceStart...k {
                    let i = Int(runNodes[m])
                    let c = Coordinate(lon: Double(x.nodeLon[i]) / 1e7, lat: Double(x.nodeLat[i]) / 1e7)
                    if m > pieceStart { offset += prev.distance(to: c) * 100 }
                    prev = c
                    pieces.pointLat.append(x.nodeLat[i])
                    pieces.pointLon.append(x.nodeLon[i])
                    pieces.pointOffset.append(UInt32(min(offset.rounded(), 4e9)))
                }
                if !x.wayLengthCm.isEmpty, pieceStart == lo, k == hi - 1, hi - lo == Int(x.wayFirstRef[w + 1] - x.wayFirstRef[w]) {
                    // A whole way of known real length: its offsets scaled to that length.
                    let first = pieces.pointOffset.count - (k - pieceStart + 1)
                    let real = Double(x.wayLengthCm[w]), drawn = offset.rounded()
                    for m in first..<pieces.pointOffset.count {
                        pieces.pointOffset[m] = drawn > 0 ? UInt32(min((Double(pieces.pointOffset[m]) * real / drawn).rounded(), 4e9)) : 0
                    }
                    pieces.pointOffset[pieces.pointOffset.count - 1] = UInt32(min(real, 4e9))
                }
                pieces.firstPoint.append(UInt32(pieces.pointLat.count))
                pieces.way.append(Int32(w))
                names.pieceName.append(nameId)
                let a = junction(Int(runNodes[pieceStart])), b = junction(Int(runNodes[k]))
                let len = pieces.pointOffset[pieces.pointOffset.count - 1]
                if rule.forward { edges.append(a, b, pieceDir: p << 1, length: len, combo: comboForward) }
                if rule.backward { edges.append(b, a, pieceDir: p << 1 | 1, length: len, combo: comboBackward) }
                pieceStart = k
            }
        }
    }
}

/// Distinct (road class, speed cap) pairs: every edge's speed is looked up through one.
struct ComboTable {
    var roadClass: [UInt8] = []
    var capKmh: [UInt8] = []
    /// The input's speed row of each combo, -1 for the traffic profile.
    var speedRow: [Int] = []
    private var index: [Int: UInt16] = [:]

    /// The combo of class `c`, cap `cap` and speed row `row` (see `WayRule.speedRow`); at most
    /// 65,536 combos (`combos.roadClass.count` says when the table is full: ids wrap).
    mutating func id(_ c: RoadClass, capKmh cap: Int, speedRow row: Int = -1) -> UInt16 {
        let capped = UInt8(min(250, max(1, cap)))
        let key = (row + 1) << 16 | Int(c.rawValue) << 8 | Int(capped)
        if let i = index[key] { return i }
        let i = UInt16(truncatingIfNeeded: roadClass.count)
        roadClass.append(c.rawValue)
        capKmh.append(capped)
        speedRow.append(row)
        index[key] = i
        return i
    }
}

/// Interned street names; id 0 is "no name".
struct NameTable {
    var offsets: [UInt32] = [0, 0]
    var bytes: [UInt8] = []
    var pieceName: [UInt32] = []
    private var index: [String: UInt32] = [:]

    mutating func id(_ name: String?) -> UInt32 {
        guard let name, !name.isEmpty else { return 0 }
        if let i = index[name] { return i }
        let i = UInt32(offsets.count - 1)
        bytes.append(contentsOf: Array(name.utf8))
        offsets.append(UInt32(bytes.count))
        index[name] = i
        return i
    }
}

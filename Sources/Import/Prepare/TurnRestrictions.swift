import Routing

/// Turn restrictions built into the graph by splitting their via junctions.
///
/// For every approach to a via junction that some restriction starts from (an edge of the
/// `from` way arriving at the `via` node), the approach leads to a copy of the junction
/// whose outgoing edges are only the turns that approach may take: `no_*` removes the
/// edges of the `to` way, `only_*` keeps just them. Every duplicate of an edge keeps the
/// edge's piece, so the search stays a plain node search and stays exact.
///
/// When the `from` and `to` way are the same, a `*_u_turn` restriction means the edge going
/// back along the approach's piece; any other type means the other edges of that way.
struct RestrictionExpansion {
    /// The edges with restriction copies; copies are nodes `junctionCount …`.
    var edges = EdgeList()
    /// For each copy node, the junction it copies.
    var copyOf: [UInt32] = []
    var applied = 0
    var skipped = 0

    init(junctionCount: Int, edges input: EdgeList, pieceWay: [Int32], input x: RoadNetworkInput, junctionOf: [Int32]) {
        var wayIndex = [Int64: Int32]()
        wayIndex.reserveCapacity(x.wayIds.count)
        for (i, id) in x.wayIds.enumerated() { wayIndex[id] = Int32(i) }
        let m = input.count
        let outFirst = JunctionGraph.firstIndex(keys: input.source, count: junctionCount)
        let outEdges = JunctionGraph.grouped(keys: input.source, first: outFirst)
        let inFirst = JunctionGraph.firstIndex(keys: input.target, count: junctionCount)
        let inEdges = JunctionGraph.grouped(keys: input.target, first: inFirst)
        func way(_ e: UInt32) -> Int32 { pieceWay[Int(input.pieceDir[Int(e)] >> 1)] }

        // Rules per restricted approach edge.
        var only = [UInt32: Set<UInt32>]()
        var forbidden = [UInt32: Set<UInt32>]()
        skipped = x.skippedRestrictions
        for r in x.restrictions {
            guard let vi = x.nodeIndex(r.viaNode), junctionOf[vi] >= 0,
                  let fw = wayIndex[r.fromWay], let tw = wayIndex[r.toWay]
            else { skipped += 1; continue }
            let v = Int(junctionOf[vi])
            let approaches = inEdges[Int(inFirst[v])..<Int(inFirst[v + 1])].filter { way($0) == fw }
            let exits = outEdges[Int(outFirst[v])..<Int(outFirst[v + 1])].filter { way($0) == tw }
            var used = false
            for e in approaches {
                let back = input.pieceDir[Int(e)] ^ 1
                let turns: [UInt32]
                if fw == tw {
                    turns = exits.filter { (input.pieceDir[Int($0)] == back) == r.uTurn }
                } else {
                    turns = exits
                }
                guard !turns.isEmpty else { continue }
                used = true
                switch r.kind {
                case .prohibitive: forbidden[e, default: []].formUnion(turns)
                case .mandatory: only[e, default: []].formUnion(turns)
                }
            }
            if used { applied += 1 } else { skipped += 1 }
        }

        // One copy per restricted approach.
        let restricted = Set(only.keys).union(forbidden.keys).sorted()
        var copyOfEdge = [Int32](repeating: -1, count: m)
        for (k, e) in restricted.enumerated() {
            copyOfEdge[Int(e)] = Int32(junctionCount + k)
            copyOf.append(input.target[Int(e)])
        }
        func target(_ f: Int) -> UInt32 {
            copyOfEdge[f] >= 0 ? UInt32(copyOfEdge[f]) : input.target[f]
        }
        for f in 0..<m {
            edges.append(input.source[f], target(f), pieceDir: input.pieceDir[f], length: input.length[f], combo: input.combo[f])
        }
        for (k, e) in restricted.enumerated() {
            let copy = UInt32(junctionCount + k)
            let v = Int(input.target[Int(e)])
            let onlySet = only[e], noSet = forbidden[e]
            for f in outEdges[Int(outFirst[v])..<Int(outFirst[v + 1])] {
                if let onlySet, !onlySet.contains(f) { continue }
                if let noSet, noSet.contains(f) { continue }
                let fi = Int(f)
                edges.append(copy, target(fi), pieceDir: input.pieceDir[fi], length: input.length[fi], combo: input.combo[fi])
            }
        }
    }
}

/// Small graph utilities used while preparing.
enum JunctionGraph {
    /// CSR start offsets for items keyed `keys` over `count` buckets.
    static func firstIndex(keys: [UInt32], count: Int) -> [UInt32] {
        var first = [UInt32](repeating: 0, count: count + 1)
        for k in keys { first[Int(k) + 1] += 1 }
        for i in 0..<count { first[i + 1] += first[i] }
        return first
    }

    /// Item indices grouped by key (stable), laid out by `first`.
    static func grouped(keys: [UInt32], first: [UInt32]) -> [UInt32] {
        var next = first
        var out = [UInt32](repeating: 0, count: keys.count)
        for (i, k) in keys.enumerated() {
            out[Int(next[Int(k)])] = UInt32(i)
            next[Int(k)] += 1
        }
        return out
    }
}

/// An arc of the point-to-point query's graph: the node at its other end (rank) and its
/// customized weight, side by side so that relaxing it reads one cache line.
struct CHQueryArc {
    var other: UInt32
    var weight: UInt32
}

/// The arcs of one customized metric that the bidirectional point-to-point query relaxes:
/// the hierarchy's arcs (as CSR by rank, like `chUpFirst`/`chDownFirst`) minus those that are
/// strictly dominated, and those of no weight in the metric (`CHMetric.infinity`). An arc
/// `u → x` is dominated when two arcs `u → z → x` through a third node `z` (ranked between or
/// above both; below both, customization already made the arc at most as heavy) weigh strictly
/// less. Every arc weighs a real path, so no cheapest route is made of arcs with a dominated
/// one among them: each cheapest up-down path of the hierarchy is still there, and the labels
/// of its nodes, the meetings and their ties, and so every answer, are those of the full
/// hierarchy (`HierarchyQueryTests` compares both). A layer for speed only (docs/DESIGN.md,
/// "Query arcs").
struct CHQueryArcs {
    let upFirst: [UInt32], up: [CHQueryArc], upIndex: [UInt32]
    let downFirst: [UInt32], down: [CHQueryArc], downIndex: [UInt32]

    /// The query arcs of the hierarchy of ranks `0..<n` (`upFirst`/`upHead`, `downFirst`/`downTail`)
    /// with weights `upW`/`downW` (pruned: a metric the hierarchy is exact for, as every customization
    /// is); without `pruned`, every arc with a weight (for tests that alter a metric's weights).
    init(n: Int, upFirst: UnsafePointer<UInt32>, upHead: UnsafePointer<UInt32>, upW: UnsafePointer<UInt32>,
         downFirst: UnsafePointer<UInt32>, downTail: UnsafePointer<UInt32>, downW: UnsafePointer<UInt32>, pruned: Bool = true)
    {
        (self.upFirst, self.up, self.upIndex) = Self.kept(n: n, first: upFirst, end: upHead, weight: upW) { u, lo, hi, j, x in
            guard pruned else { return false }
            let w = UInt64(upW[j])
            // u → z (z = upHead[i], sorted by rank) then z → x: upward when z is below x, downward above it.
            for i in lo..<hi where i != j && upW[i] != CHMetric.infinity && UInt64(upW[i]) < w {
                let z = Int(upHead[i])
                let second = i < j ? (sortedIndex(upHead, Int(upFirst[z]), Int(upFirst[z + 1]), x), upW)
                    : (sortedIndex(downTail, Int(downFirst[Int(x)]), Int(downFirst[Int(x) + 1]), UInt32(z)), downW)
                if second.0 >= 0 && second.1[second.0] != CHMetric.infinity && UInt64(upW[i]) + UInt64(second.1[second.0]) < w { return true }
            }
            return false
        }
        (self.downFirst, self.down, self.downIndex) = Self.kept(n: n, first: downFirst, end: downTail, weight: downW) { y, lo, hi, j, x in
            guard pruned else { return false }
            // Arc x → y; z = downTail[i] (sorted by rank), z → y, after x → z: downward (stored at z)
            // when z is below x, upward (x's list) above it.
            let w = UInt64(downW[j])
            for i in lo..<hi where i != j && downW[i] != CHMetric.infinity && UInt64(downW[i]) < w {
                let z = Int(downTail[i])
                let first = i < j ? (sortedIndex(downTail, Int(downFirst[z]), Int(downFirst[z + 1]), x), downW)
                    : (sortedIndex(upHead, Int(upFirst[Int(x)]), Int(upFirst[Int(x) + 1]), UInt32(z)), upW)
                if first.0 >= 0 && first.1[first.0] != CHMetric.infinity && UInt64(downW[i]) + UInt64(first.1[first.0]) < w { return true }
            }
            return false
        }
    }

    /// The CSR of the arcs of `first`/`end`/`weight` that have a weight and are not `dominated`
    /// (called with the list's node, its bounds, the arc's index and its other end), with each
    /// kept arc's index in the full hierarchy.
    private static func kept(n: Int, first: UnsafePointer<UInt32>, end: UnsafePointer<UInt32>, weight: UnsafePointer<UInt32>,
                             dominated: (Int, Int, Int, Int, UInt32) -> Bool) -> ([UInt32], [CHQueryArc], [UInt32])
    {
        var keptFirst: [UInt32] = [0]
        var arcs: [CHQueryArc] = [], index: [UInt32] = []
        keptFirst.reserveCapacity(n + 1)
        for v in 0..<n {
            let lo = Int(first[v]), hi = Int(first[v + 1])
            for j in lo..<hi where weight[j] != CHMetric.infinity && !dominated(v, lo, hi, j, end[j]) {
                arcs.append(CHQueryArc(other: end[j], weight: weight[j]))
                index.append(UInt32(j))
            }
            keptFirst.append(UInt32(arcs.count))
        }
        return (keptFirst, arcs, index)
    }

    /// Memory per kept arc: the arc (8 bytes) and its index in the hierarchy (4 bytes).
    static let bytesPerArc = 12
}

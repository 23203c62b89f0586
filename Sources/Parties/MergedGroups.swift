/// What a greedy merge leaves (`ClusterMerger`, `TileBorderMerger`): its input features, each
/// group chained from the feature that absorbed the others (`nextMember`).
protocol MergedGroups {
    var items: [ClusterMerger.Item] { get }
}

extension MergedGroups {
    /// Count of feature `i` (after the merge, of the group it leads).
    func count(_ i: Int) -> Int { items[i].count }
    /// Coordinate sums of feature `i` (after the merge, of the group it leads).
    func sums(_ i: Int) -> (x: Double, y: Double) { (items[i].sumX, items[i].sumY) }
    /// True when feature `g` absorbed no other.
    func isAlone(_ g: Int) -> Bool { items[g].nextMember < 0 }

    /// Calls `body` with each input feature merged into `g` (itself first).
    func forEachMember(of g: Int, _ body: (Int) -> Void) {
        var m = Int32(g)
        while m >= 0 {
            body(Int(m))
            m = items[Int(m)].nextMember
        }
    }
}

extension ClusterMerger.Item {
    /// Feature `j` of `it` joins the group of `i`: counts and sums added, chained after its last member.
    @inline(__always)
    static func absorb(_ j: Int, into i: Int, _ it: UnsafeMutableBufferPointer<ClusterMerger.Item>) {
        it[i].count += it[j].count
        it[i].sumX += it[j].sumX
        it[i].sumY += it[j].sumY
        it[Int(it[i].lastMember)].nextMember = Int32(j)
        it[i].lastMember = it[j].lastMember
    }
}

extension ClusterMerger {
    /// A round after the first of a greedy merge: the seeds in `order`, each (while alive)
    /// absorbing its living candidates (the edge lists from `heads`, which are cleared);
    /// appends the seeds that absorbed to `moved` and returns how many features were absorbed.
    static func absorbCandidates(order: UnsafeBufferPointer<Int32>, heads: UnsafeMutableBufferPointer<Int32>,
                                 edgeTo: UnsafeBufferPointer<Int32>, edgeNext: UnsafeBufferPointer<Int32>,
                                 alive: UnsafeMutableBufferPointer<Bool>, items: UnsafeMutableBufferPointer<Item>,
                                 moved: inout [Int32]) -> Int
    {
        var absorbedCount = 0
        for k in 0..<order.count {
            let i = Int(order[k])
            var e = heads[i]
            guard e >= 0 else { continue }
            heads[i] = -1
            guard alive[i] else { continue }
            var absorbed = false
            while e >= 0 {
                let j = Int(edgeTo[Int(e)])
                if alive[j] {
                    alive[j] = false
                    absorbedCount += 1
                    Item.absorb(j, into: i, items)
                    absorbed = true
                }
                e = edgeNext[Int(e)]
            }
            if absorbed { moved.append(Int32(i)) }
        }
        return absorbedCount
    }
}

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

/// The candidate pairs of a round of a greedy merge, as adjacency lists: feature `i`'s pairs
/// start at `heads[i]` (the merger's per-feature array, −1 for none) and go on through
/// `next`, each naming the other feature in `to`.
struct CandidatePairs {
    private var next: [Int32] = []
    private var to: [Int32] = []

    var isEmpty: Bool { to.isEmpty }

    /// Forgets the pairs, keeping the memory (the heads are the caller's to clear).
    mutating func removeAll() {
        next.removeAll(keepingCapacity: true)
        to.removeAll(keepingCapacity: true)
    }

    /// Records that features `a` and `b` are within the radius (both directions).
    @inline(__always)
    mutating func add<Heads: MutableCollection>(_ a: Int, _ b: Int, heads: inout Heads)
        where Heads.Element == Int32, Heads.Index == Int
    {
        to.append(Int32(b))
        next.append(heads[a])
        heads[a] = Int32(to.count - 1)
        to.append(Int32(a))
        next.append(heads[b])
        heads[b] = Int32(to.count - 1)
    }

    /// A round after the first: the seeds in `order`, each (while alive) absorbing its living
    /// candidates (the lists from `heads`, which are cleared); appends the seeds that absorbed
    /// to `moved` and returns how many features were absorbed.
    func absorb(order: UnsafeBufferPointer<Int32>, heads: UnsafeMutableBufferPointer<Int32>,
                alive: UnsafeMutableBufferPointer<Bool>, items: UnsafeMutableBufferPointer<ClusterMerger.Item>,
                moved: inout [Int32]) -> Int
    {
        to.withUnsafeBufferPointer { to in
            next.withUnsafeBufferPointer { next in
                var absorbedCount = 0
                for k in 0..<order.count {
                    let i = Int(order[k])
                    var e = heads[i]
                    guard e >= 0 else { continue }
                    heads[i] = -1
                    guard alive[i] else { continue }
                    var absorbed = false
                    while e >= 0 {
                        let j = Int(to[Int(e)])
                        if alive[j] {
                            alive[j] = false
                            absorbedCount += 1
                            ClusterMerger.Item.absorb(j, into: i, items)
                            absorbed = true
                        }
                        e = next[Int(e)]
                    }
                    if absorbed { moved.append(Int32(i)) }
                }
                return absorbedCount
            }
        }
    }
}

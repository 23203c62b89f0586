import Foundation

/// A lower bound of the cost still to pay from a node to the search's target.
protocol NodePotential {
    func callAsFunction(_ v: Int) -> UInt32
}

extension NodePotential {
    /// The largest potential a search gets (sums with distances stay within 32 bits).
    static var cap: UInt32 { UInt32.max / 2 }

    /// A lower bound in lower-bound units turned into this query's units by `scale`, capped.
    @inline(__always)
    static func scaled(_ bound: Int64, by scale: Double) -> UInt32 {
        if scale == 1 { return UInt32(min(bound, Int64(cap))) }
        return UInt32(min(Double(bound) * scale, Double(cap)))
    }
}

/// No estimate: A* becomes Dijkstra.
struct ZeroPotential: NodePotential {
    @inline(__always) func callAsFunction(_ v: Int) -> UInt32 { 0 }
}

/// Per-scratch buffers of the CH potential, indexed by rank: backward-search distances and
/// memoized potentials (4 bytes each, so the arrays stay cache-friendly). Entries a query
/// set are listed and reset at the start of the next one.
final class CHScratch {
    /// Backward distance, `unreachable` when the backward search did not reach the rank.
    let back: UnsafeMutablePointer<UInt32>
    /// Memoized potential, `notComputed` when not computed yet in this query.
    let memo: UnsafeMutablePointer<UInt32>
    /// Ranks whose `back` / `memo` entries were set.
    var backSet: UnsafeMutablePointer<UInt32>, backSetCount = 0, backSetCapacity = 1024
    var memoSet: UnsafeMutablePointer<UInt32>, memoSetCount = 0, memoSetCapacity = 1024
    /// Depth-first frames of the memoizing recursion: rank, next upward edge, best so far.
    private(set) var frames: UnsafeMutablePointer<(UInt32, UInt32, UInt32)>
    private(set) var frameCapacity = 256

    static let notComputed = UInt32.max
    static let unreachable = UInt32.max - 1
    /// The largest finite distance (sums are capped here).
    static let finiteLimit = UInt64(UInt32.max - 2)

    init(nodeCount: Int) {
        back = .allocate(capacity: nodeCount); memo = .allocate(capacity: nodeCount)
        back.initialize(repeating: Self.unreachable, count: nodeCount)
        memo.initialize(repeating: Self.notComputed, count: nodeCount)
        backSet = .allocate(capacity: backSetCapacity); memoSet = .allocate(capacity: memoSetCapacity)
        frames = .allocate(capacity: frameCapacity)
    }

    deinit { back.deallocate(); memo.deallocate(); backSet.deallocate(); memoSet.deallocate(); frames.deallocate() }

    /// Resets what the last query set.
    func reset() {
        for i in 0..<backSetCount { back[Int(backSet[i])] = Self.unreachable }
        for i in 0..<memoSetCount { memo[Int(memoSet[i])] = Self.notComputed }
        backSetCount = 0
        memoSetCount = 0
    }

    @inline(__always)
    func setBack(_ r: Int, _ d: UInt32) {
        if back[r] == Self.unreachable {
            if backSetCount == backSetCapacity { backSet = Self.grow(backSet, &backSetCapacity) }
            backSet[backSetCount] = UInt32(r)
            backSetCount += 1
        }
        back[r] = d
    }

    @inline(__always)
    func setMemo(_ r: Int, _ d: UInt32) {
        if memoSetCount == memoSetCapacity { memoSet = Self.grow(memoSet, &memoSetCapacity) }
        memoSet[memoSetCount] = UInt32(r)
        memoSetCount += 1
        memo[r] = d
    }

    private static func grow(_ p: UnsafeMutablePointer<UInt32>, _ capacity: inout Int) -> UnsafeMutablePointer<UInt32> {
        let bigger = UnsafeMutablePointer<UInt32>.allocate(capacity: 2 * capacity)
        bigger.update(from: p, count: capacity)
        p.deallocate()
        capacity *= 2
        return bigger
    }

    /// Doubles the frame stack.
    func growFrames() {
        let bigger = UnsafeMutablePointer<(UInt32, UInt32, UInt32)>.allocate(capacity: 2 * frameCapacity)
        bigger.update(from: frames, count: frameCapacity)
        frames.deallocate()
        frames = bigger
        frameCapacity *= 2
    }
}

/// The CH potential (Strasser & Zeitz): the exact lower-bound-metric distance from a node to
/// the targets, from one full backward search in the hierarchy and, per node, the best
/// upward path to a node that search reached (computed on first use and memoized).
/// Scaled by the hour's factor, it stays a consistent lower bound of that hour's times.
struct CHPotential: NodePotential {
    let rank: UnsafePointer<UInt32>
    let upFirst: UnsafePointer<UInt32>
    let upHead: UnsafePointer<UInt32>
    let upWeight: UnsafePointer<UInt32>
    let scratch: CHScratch
    let scale: Double

    @inline(__always)
    func callAsFunction(_ v: Int) -> UInt32 {
        let d = distance(v)
        if d == CHScratch.unreachable { return Self.cap }
        return Self.scaled(Int64(d), by: scale)
    }

    /// The lower-bound distance from node `v` to the nearest target (`CHScratch.unreachable` when none).
    @inline(__always)
    func distance(_ v: Int) -> UInt32 { distance(rank: Int(rank[v])) }

    /// The same from the node of rank `v` (memo, backward distances and edges go by rank).
    func distance(rank v: Int) -> UInt32 {
        let memo = scratch.memo, back = scratch.back
        if memo[v] != CHScratch.notComputed { return memo[v] }
        // Ranks rise strictly along the frames, so a node is never on the stack twice.
        var frames = scratch.frames
        var top = 1
        frames[0] = (UInt32(v), upFirst[v], back[v])
        outer: while top > 0 {
            let (xx, first, bestSoFar) = frames[top - 1]
            let x = Int(xx)
            var e = Int(first), best = bestSoFar
            let hi = Int(upFirst[x + 1])
            while e < hi {
                let w = Int(upHead[e])
                let m = memo[w]
                if m != CHScratch.notComputed {
                    if m != CHScratch.unreachable {
                        best = min(best, UInt32(min(UInt64(m) + UInt64(upWeight[e]), CHScratch.finiteLimit)))
                    }
                    e += 1
                } else {
                    frames[top - 1] = (xx, UInt32(e), best)
                    if top == scratch.frameCapacity {
                        scratch.growFrames()
                        frames = scratch.frames
                    }
                    frames[top] = (UInt32(w), upFirst[w], back[w])
                    top += 1
                    continue outer
                }
            }
            scratch.setMemo(x, best)
            top -= 1
        }
        return memo[v]
    }
}

extension RoadGraph {
    /// Whether the file carries a contraction hierarchy of the lower-bound travel times.
    public var hasContractionHierarchy: Bool { chUpFirst.count == nodeCount + 1 }

    /// Runs the full backward search from `targets` (each with its cost still to pay, in this
    /// query's units) and returns the potential; `scale` turns lower-bound units into them.
    func chPotential(targets: [(node: UInt32, extra: UInt32, endpoint: Int)], scale: Double, scratch: SearchScratch) -> CHPotential {
        let ch = scratch.ch
        ch.reset()
        let back = ch.back
        var heap = scratch.heap
        heap.removeAll()
        let rank = chRank.baseAddress!
        for t in targets {
            let v = Int(rank[Int(t.node)])
            let d0 = UInt32(min((Double(t.extra) / scale).rounded(.down), Double(CHScratch.finiteLimit)))
            if d0 < back[v] {
                ch.setBack(v, d0)
                heap.push(key: d0, node: UInt32(v))
            }
        }
        let downFirst = chDownFirst.baseAddress!, downTail = chDownTail.baseAddress!, downWeight = chDownWeight.baseAddress!
        while let (key, node) = heap.pop() {
            let y = Int(node)
            if key != back[y] { continue }
            for e in Int(downFirst[y])..<Int(downFirst[y + 1]) {
                let x = Int(downTail[e])
                let nd64 = UInt64(key) + UInt64(downWeight[e])
                guard nd64 <= CHScratch.finiteLimit else { continue }
                let nd = UInt32(nd64)
                if nd < back[x] {
                    ch.setBack(x, nd)
                    heap.push(key: nd, node: UInt32(x))
                }
            }
        }
        scratch.heap = heap
        return CHPotential(rank: rank, upFirst: chUpFirst.baseAddress!, upHead: chUpHead.baseAddress!, upWeight: chUpWeight.baseAddress!,
                           scratch: ch, scale: scale)
    }
}


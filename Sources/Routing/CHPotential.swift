import Foundation

/// A lower bound of the cost still to pay from a node to the search's target.
protocol NodePotential {
    func callAsFunction(_ v: Int) -> UInt32
}

/// No estimate: A* becomes Dijkstra.
struct ZeroPotential: NodePotential {
    @inline(__always) func callAsFunction(_ v: Int) -> UInt32 { 0 }
}

/// Per-scratch buffers of the CH potential: backward-search distances and memoized
/// potentials, each valid when its stamp equals the current generation.
final class CHScratch {
    let back: UnsafeMutablePointer<UInt32>
    let backStamp: UnsafeMutablePointer<UInt32>
    let memo: UnsafeMutablePointer<UInt32>
    let memoStamp: UnsafeMutablePointer<UInt32>
    private(set) var stack: UnsafeMutablePointer<UInt32>
    private(set) var stackCapacity = 1024
    private let nodeCount: Int
    var generation: UInt32 = 0

    init(nodeCount: Int) {
        self.nodeCount = nodeCount
        back = .allocate(capacity: nodeCount); backStamp = .allocate(capacity: nodeCount)
        memo = .allocate(capacity: nodeCount); memoStamp = .allocate(capacity: nodeCount)
        backStamp.initialize(repeating: 0, count: nodeCount)
        memoStamp.initialize(repeating: 0, count: nodeCount)
        stack = .allocate(capacity: stackCapacity)
    }

    deinit { back.deallocate(); backStamp.deallocate(); memo.deallocate(); memoStamp.deallocate(); stack.deallocate() }

    func nextGeneration() -> UInt32 {
        if generation == .max {
            for i in 0..<nodeCount { backStamp[i] = 0; memoStamp[i] = 0 }
            generation = 0
        }
        generation += 1
        return generation
    }

    /// Makes room for at least `n` stack entries.
    func reserveStack(_ n: Int) {
        guard n > stackCapacity else { return }
        let bigger = UnsafeMutablePointer<UInt32>.allocate(capacity: max(n, 2 * stackCapacity))
        bigger.update(from: stack, count: stackCapacity)
        stack.deallocate()
        stack = bigger
        stackCapacity = max(n, 2 * stackCapacity)
    }
}

/// The CH potential (Strasser & Zeitz): the exact lower-bound-metric distance from a node to
/// the targets, from one full backward search in the hierarchy and, per node, the best
/// upward path to a node that search reached (computed on first use and memoized).
/// Scaled by the hour's factor, it stays a consistent lower bound of that hour's times.
struct CHPotential: NodePotential {
    let upFirst: UnsafePointer<UInt32>
    let upHead: UnsafePointer<UInt32>
    let upWeight: UnsafePointer<UInt32>
    let scratch: CHScratch
    let generation: UInt32
    let scale: Double

    static let unreachable = UInt32.max

    @inline(__always)
    func callAsFunction(_ v: Int) -> UInt32 {
        let d = distance(v)
        if d == Self.unreachable { return UInt32.max / 2 }
        if scale == 1 { return min(d, UInt32.max / 2) }
        return UInt32(min(Double(d) * scale, Double(UInt32.max / 2)))
    }

    /// The lower-bound distance from `v` to the nearest target (`unreachable` when none).
    func distance(_ v: Int) -> UInt32 {
        let gen = generation
        let memo = scratch.memo, memoStamp = scratch.memoStamp, back = scratch.back, backStamp = scratch.backStamp
        if memoStamp[v] == gen { return memo[v] }
        var stack = scratch.stack
        var top = 1
        stack[0] = UInt32(v)
        while top > 0 {
            let x = Int(stack[top - 1])
            if memoStamp[x] == gen { top -= 1; continue }
            let lo = Int(upFirst[x]), hi = Int(upFirst[x + 1])
            if top + (hi - lo) > scratch.stackCapacity {
                scratch.reserveStack(top + hi - lo)
                stack = scratch.stack
            }
            var ready = true
            for e in lo..<hi where memoStamp[Int(upHead[e])] != gen {
                stack[top] = upHead[e]
                top += 1
                ready = false
            }
            if !ready { continue }
            var best = backStamp[x] == gen ? back[x] : Self.unreachable
            for e in lo..<hi {
                let m = memo[Int(upHead[e])]
                if m != Self.unreachable { best = min(best, UInt32(min(UInt64(m) + UInt64(upWeight[e]), UInt64(Self.unreachable - 1)))) }
            }
            memo[x] = best
            memoStamp[x] = gen
            top -= 1
        }
        return memo[v]
    }
}

extension RoadGraph {
    /// Whether the file carries a contraction hierarchy of the lower-bound travel times.
    var hasContractionHierarchy: Bool { chUpFirst.count == nodeCount + 1 }

    /// Runs the full backward search from `targets` (each with its cost still to pay, in this
    /// query's units) and returns the potential; `scale` turns lower-bound units into them.
    func chPotential(targets: [(node: UInt32, extra: UInt32, endpoint: Int)], scale: Double, scratch: SearchScratch) -> CHPotential {
        let ch = scratch.ch
        let gen = ch.nextGeneration()
        let back = ch.back, backStamp = ch.backStamp
        var heap = scratch.heap
        heap.removeAll()
        for t in targets {
            let v = Int(t.node)
            let d0 = UInt32((Double(t.extra) / scale).rounded(.down))
            if backStamp[v] != gen || d0 < back[v] {
                back[v] = d0; backStamp[v] = gen
                heap.push(key: d0, node: t.node)
            }
        }
        let downFirst = chDownFirst.baseAddress!, downTail = chDownTail.baseAddress!, downWeight = chDownWeight.baseAddress!
        while let (key, node) = heap.pop() {
            let y = Int(node)
            if key != back[y] { continue }
            for e in Int(downFirst[y])..<Int(downFirst[y + 1]) {
                let x = Int(downTail[e])
                let nd64 = UInt64(key) + UInt64(downWeight[e])
                guard nd64 < UInt64(CHPotential.unreachable) else { continue }
                let nd = UInt32(nd64)
                if backStamp[x] != gen || nd < back[x] {
                    back[x] = nd; backStamp[x] = gen
                    heap.push(key: nd, node: UInt32(x))
                }
            }
        }
        scratch.heap = heap
        return CHPotential(upFirst: chUpFirst.baseAddress!, upHead: chUpHead.baseAddress!, upWeight: chUpWeight.baseAddress!,
                           scratch: ch, generation: gen, scale: scale)
    }
}

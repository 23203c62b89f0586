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
/// potentials, each packed as `generation << 32 | value` and valid when its generation is
/// the current one.
final class CHScratch {
    let back: UnsafeMutablePointer<UInt64>
    let memo: UnsafeMutablePointer<UInt64>
    /// Depth-first frames of the memoizing recursion: node, next upward edge, best so far.
    private(set) var frames: UnsafeMutablePointer<(UInt32, UInt32, UInt32)>
    private(set) var frameCapacity = 256
    private let nodeCount: Int
    var generation: UInt32 = 0

    init(nodeCount: Int) {
        self.nodeCount = nodeCount
        back = .allocate(capacity: nodeCount); memo = .allocate(capacity: nodeCount)
        back.initialize(repeating: 0, count: nodeCount)
        memo.initialize(repeating: 0, count: nodeCount)
        frames = .allocate(capacity: frameCapacity)
    }

    deinit { back.deallocate(); memo.deallocate(); frames.deallocate() }

    func nextGeneration() -> UInt32 {
        if generation == .max {
            for i in 0..<nodeCount { back[i] = 0; memo[i] = 0 }
            generation = 0
        }
        generation += 1
        return generation
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
        let gen = UInt64(generation) << 32
        let memo = scratch.memo, back = scratch.back
        if memo[v] & ~0xFFFF_FFFF == gen { return UInt32(truncatingIfNeeded: memo[v]) }
        @inline(__always) func backward(_ x: Int) -> UInt32 {
            back[x] & ~0xFFFF_FFFF == gen ? UInt32(truncatingIfNeeded: back[x]) : Self.unreachable
        }
        // Ranks rise strictly along the frames, so a node is never on the stack twice.
        var frames = scratch.frames
        var top = 1
        frames[0] = (UInt32(v), upFirst[v], backward(v))
        outer: while top > 0 {
            let (xx, first, bestSoFar) = frames[top - 1]
            let x = Int(xx)
            var e = Int(first), best = bestSoFar
            let hi = Int(upFirst[x + 1])
            while e < hi {
                let w = Int(upHead[e])
                let m = memo[w]
                if m & ~0xFFFF_FFFF == gen {
                    let d = UInt32(truncatingIfNeeded: m)
                    if d != Self.unreachable {
                        best = min(best, UInt32(min(UInt64(d) + UInt64(upWeight[e]), UInt64(Self.unreachable - 1))))
                    }
                    e += 1
                } else {
                    frames[top - 1] = (xx, UInt32(e), best)
                    if top == scratch.frameCapacity {
                        scratch.growFrames()
                        frames = scratch.frames
                    }
                    frames[top] = (UInt32(w), upFirst[w], backward(w))
                    top += 1
                    continue outer
                }
            }
            memo[x] = gen | UInt64(best)
            top -= 1
        }
        return UInt32(truncatingIfNeeded: memo[v])
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
        let back = ch.back, genBits = UInt64(gen) << 32
        @inline(__always) func current(_ x: Int) -> UInt32? {
            back[x] & ~0xFFFF_FFFF == genBits ? UInt32(truncatingIfNeeded: back[x]) : nil
        }
        var heap = scratch.heap
        heap.removeAll()
        for t in targets {
            let v = Int(t.node)
            let d0 = UInt32((Double(t.extra) / scale).rounded(.down))
            if d0 < current(v) ?? .max {
                back[v] = genBits | UInt64(d0)
                heap.push(key: d0, node: t.node)
            }
        }
        let downFirst = chDownFirst.baseAddress!, downTail = chDownTail.baseAddress!, downWeight = chDownWeight.baseAddress!
        while let (key, node) = heap.pop() {
            let y = Int(node)
            if key != current(y) { continue }
            for e in Int(downFirst[y])..<Int(downFirst[y + 1]) {
                let x = Int(downTail[e])
                let nd64 = UInt64(key) + UInt64(downWeight[e])
                guard nd64 < UInt64(CHPotential.unreachable) else { continue }
                let nd = UInt32(nd64)
                if nd < current(x) ?? .max {
                    back[x] = genBits | UInt64(nd)
                    heap.push(key: nd, node: UInt32(x))
                }
            }
        }
        scratch.heap = heap
        return CHPotential(upFirst: chUpFirst.baseAddress!, upHead: chUpHead.baseAddress!, upWeight: chUpWeight.baseAddress!,
                           scratch: ch, generation: gen, scale: scale)
    }
}


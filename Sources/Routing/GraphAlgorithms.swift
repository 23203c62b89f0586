/// A binary min-heap of packed `key << 32 | node` entries, with lazy deletion (stale
/// entries are skipped by the caller when popped).
package struct PackedMinHeap {
    package var items: [UInt64] = []

    package init(capacity: Int = 0) { items.reserveCapacity(capacity) }

    package var isEmpty: Bool { items.isEmpty }
    package var count: Int { items.count }
    package mutating func removeAll() { items.removeAll(keepingCapacity: true) }

    /// The smallest entry, without removing it.
    package var min: UInt64? { items.first }

    @inline(__always)
    package mutating func push(key: UInt32, node: UInt32) {
        items.append(UInt64(key) << 32 | UInt64(node))
        items.withUnsafeMutableBufferPointer { a in
            var i = a.count - 1
            let x = a[i]
            while i > 0 {
                let parent = (i - 1) >> 1
                let p = a[parent]
                if p <= x { break }
                a[i] = p
                i = parent
            }
            a[i] = x
        }
    }

    @inline(__always)
    package mutating func pop() -> (key: UInt32, node: UInt32)? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items.withUnsafeMutableBufferPointer { a in
                let n = a.count
                var i = 0
                while true {
                    var c = 2 * i + 1
                    if c >= n { break }
                    if c + 1 < n && a[c + 1] < a[c] { c += 1 }
                    if a[c] >= last { break }
                    a[i] = a[c]
                    i = c
                }
                a[i] = last
            }
        }
        return (UInt32(truncatingIfNeeded: top >> 32), UInt32(truncatingIfNeeded: top))
    }
}

/// A radix heap (Ahuja, Mehlhorn, Orlin, Tarjan) of packed `key << 32 | node` entries for
/// monotone keys: every key pushed must be at least the last key popped, as in Dijkstra.
/// Amortised O(log C) per entry with linear scans only; used for the full-graph searches
/// of landmark preparation. Buckets are raw buffers owned by this non-copyable value.
package struct RadixHeap: ~Copyable {
    private let storage: UnsafeMutablePointer<UnsafeMutablePointer<UInt64>>
    private let sizes: UnsafeMutablePointer<Int>
    private let capacities: UnsafeMutablePointer<Int>
    private var last: UInt32 = 0
    package private(set) var count = 0

    package init() {
        storage = .allocate(capacity: 33)
        sizes = .allocate(capacity: 33)
        capacities = .allocate(capacity: 33)
        for b in 0..<33 {
            storage[b] = .allocate(capacity: 64)
            sizes[b] = 0
            capacities[b] = 64
        }
    }

    deinit {
        for b in 0..<33 { storage[b].deallocate() }
        storage.deallocate(); sizes.deallocate(); capacities.deallocate()
    }

    package mutating func removeAll() {
        for b in 0..<33 { sizes[b] = 0 }
        last = 0
        count = 0
    }

    @inline(__always)
    private func bucket(_ key: UInt32) -> Int { key == last ? 0 : 32 - (key ^ last).leadingZeroBitCount }

    @inline(__always)
    private func append(_ b: Int, _ x: UInt64) {
        if sizes[b] == capacities[b] {
            let bigger = UnsafeMutablePointer<UInt64>.allocate(capacity: capacities[b] * 2)
            bigger.update(from: storage[b], count: sizes[b])
            storage[b].deallocate()
            storage[b] = bigger
            capacities[b] *= 2
        }
        storage[b][sizes[b]] = x
        sizes[b] += 1
    }

    @inline(__always)
    package mutating func push(key: UInt32, node: UInt32) {
        append(bucket(key), UInt64(key) << 32 | UInt64(node))
        count += 1
    }

    package mutating func pop() -> (key: UInt32, node: UInt32)? {
        guard count > 0 else { return nil }
        if sizes[0] == 0 {
            var i = 1
            while sizes[i] == 0 { i += 1 }
            let items = storage[i], n = sizes[i]
            var smallest = UInt32.max
            for k in 0..<n { smallest = min(smallest, UInt32(truncatingIfNeeded: items[k] >> 32)) }
            last = smallest
            sizes[i] = 0
            // Every item moves to a lower bucket, so bucket i is not appended to while read.
            for k in 0..<n { append(bucket(UInt32(truncatingIfNeeded: items[k] >> 32)), items[k]) }
        }
        count -= 1
        sizes[0] -= 1
        let x = storage[0][sizes[0]]
        return (UInt32(truncatingIfNeeded: x >> 32), UInt32(truncatingIfNeeded: x))
    }
}

/// A graph in CSR form over borrowed arrays: out-edges of node `v` are
/// `firstOut[v] ..< firstOut[v + 1]`, each with a head and a weight.
package struct WeightedCSR: @unchecked Sendable {
    package let firstOut: UnsafeBufferPointer<UInt32>
    package let head: UnsafeBufferPointer<UInt32>
    package let weight: UnsafeBufferPointer<UInt32>
    package var nodeCount: Int { firstOut.count - 1 }

    package init(firstOut: UnsafeBufferPointer<UInt32>, head: UnsafeBufferPointer<UInt32>, weight: UnsafeBufferPointer<UInt32>) {
        self.firstOut = firstOut; self.head = head; self.weight = weight
    }

    /// Distances from `source` to every node (UInt32.max where unreachable), written to
    /// `out[v * stride]` for each node v.
    package func shortestDistances(from source: Int, heap: inout RadixHeap, dist: inout [UInt32], out: UnsafeMutablePointer<UInt32>, stride: Int) {
        let n = nodeCount
        if dist.count != n { dist = [UInt32](repeating: .max, count: n) } else {
            for i in 0..<n { dist[i] = .max }
        }
        heap.removeAll()
        dist[source] = 0
        heap.push(key: 0, node: UInt32(source))
        let firstOut = self.firstOut.baseAddress!, head = self.head.baseAddress!, weight = self.weight.baseAddress!
        dist.withUnsafeMutableBufferPointer { d in
            while let (key, node) = heap.pop() {
                let v = Int(node)
                if key != d[v] { continue }
                for e in Int(firstOut[v])..<Int(firstOut[v + 1]) {
                    let w = Int(head[e])
                    // Saturates below UInt32.max; the preparer refuses graphs whose distances get there.
                    let nd = min(UInt64(key) + UInt64(weight[e]), UInt64(UInt32.max - 1))
                    if nd < UInt64(d[w]) {
                        d[w] = UInt32(nd)
                        heap.push(key: UInt32(nd), node: UInt32(w))
                    }
                }
            }
            for i in 0..<n { out[i * stride] = d[i] }
        }
    }
}

package enum GraphAlgorithms {
    /// Strongly connected components (iterative Tarjan): the component of each node and the
    /// id of the largest component.
    package static func stronglyConnectedComponents(nodeCount n: Int, firstOut: [UInt32], head: [UInt32]) -> (component: [Int32], largest: Int32, count: Int) {
        var index = [Int32](repeating: -1, count: n)
        var low = [Int32](repeating: 0, count: n)
        var onStack = [Bool](repeating: false, count: n)
        var component = [Int32](repeating: -1, count: n)
        var stack: [Int32] = []
        var callNode: [Int32] = []
        var callEdge: [UInt32] = []
        var nextIndex: Int32 = 0
        var sizes: [Int] = []
        for root in 0..<n where index[root] < 0 {
            index[root] = nextIndex; low[root] = nextIndex; nextIndex += 1
            stack.append(Int32(root)); onStack[root] = true
            callNode.append(Int32(root)); callEdge.append(firstOut[root])
            while let v32 = callNode.last {
                let v = Int(v32)
                let e = callEdge[callEdge.count - 1]
                if e < firstOut[v + 1] {
                    callEdge[callEdge.count - 1] = e + 1
                    let w = Int(head[Int(e)])
                    if index[w] < 0 {
                        index[w] = nextIndex; low[w] = nextIndex; nextIndex += 1
                        stack.append(Int32(w)); onStack[w] = true
                        callNode.append(Int32(w)); callEdge.append(firstOut[w])
                    } else if onStack[w] {
                        low[v] = min(low[v], index[w])
                    }
                    continue
                }
                callNode.removeLast(); callEdge.removeLast()
                if let parent = callNode.last { low[Int(parent)] = min(low[Int(parent)], low[v]) }
                if low[v] == index[v] {
                    let id = Int32(sizes.count)
                    var size = 0
                    while let w = stack.popLast() {
                        onStack[Int(w)] = false
                        component[Int(w)] = id
                        size += 1
                        if Int(w) == v { break }
                    }
                    sizes.append(size)
                }
            }
        }
        var largest: Int32 = 0
        for (i, s) in sizes.enumerated() where s > sizes[Int(largest)] { largest = Int32(i) }
        return (component, largest, sizes.count)
    }

    /// The index of (x, y) along a Hilbert curve over a 2^16 × 2^16 grid.
    package static func hilbertIndex(x: UInt32, y: UInt32) -> UInt64 {
        var rx: UInt32, ry: UInt32
        var d: UInt64 = 0
        var x = x, y = y
        var s: UInt32 = 1 << 15
        while s > 0 {
            rx = (x & s) > 0 ? 1 : 0
            ry = (y & s) > 0 ? 1 : 0
            d += UInt64(s) * UInt64(s) * UInt64((3 * rx) ^ ry)
            if ry == 0 {
                if rx == 1 {
                    x = s &- 1 &- x
                    y = s &- 1 &- y
                }
                swap(&x, &y)
            }
            s >>= 1
        }
        return d
    }

    /// A permutation of points (1e-7 degrees) in Hilbert-curve order: `order[newIndex] = oldIndex`.
    package static func hilbertOrder(lat: [Int32], lon: [Int32]) -> [Int] {
        guard let minLat = lat.min(), let maxLat = lat.max(), let minLon = lon.min(), let maxLon = lon.max() else { return [] }
        let spanLat = max(1, Double(maxLat) - Double(minLat)), spanLon = max(1, Double(maxLon) - Double(minLon))
        var keyed = [(UInt64, Int)]()
        keyed.reserveCapacity(lat.count)
        for i in 0..<lat.count {
            let x = UInt32(min(65535, (Double(lon[i]) - Double(minLon)) / spanLon * 65535))
            let y = UInt32(min(65535, (Double(lat[i]) - Double(minLat)) / spanLat * 65535))
            keyed.append((hilbertIndex(x: x, y: y), i))
        }
        keyed.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        return keyed.map(\.1)
    }
}

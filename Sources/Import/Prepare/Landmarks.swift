import Dispatch
import Routing

/// ALT landmarks, chosen and measured at prepare time.
///
/// Selection is "farthest": the first landmark is the node farthest from a start node, each
/// next one maximises the smallest round trip to those already chosen, on lower-bound
/// travel time. For each landmark L the file stores d(L, v) and d(v, L) for every node v,
/// on lower-bound travel time (each edge at the fastest hour of the traffic profile, capped
/// by its speed limit) and on distance. By the triangle inequality they give lower bounds
/// of the remaining cost that stay admissible at every hour of the day.
enum LandmarkBuilder {
    /// Wrapper that lets the parallel loops write disjoint slots of one output array.
    private struct Output: @unchecked Sendable {
        let base: UnsafeMutablePointer<UInt32>
    }

    /// Chooses `count` landmarks and fills both tables (`n · 2 · count` values each).
    static func compute(count: Int, firstOut: [UInt32], head: [UInt32], lowerBoundTime: [UInt32], length: [UInt32],
                        progress: ((String) -> Void)?) -> (nodes: [UInt32], time: [UInt32], distance: [UInt32])
    {
        let n = firstOut.count - 1
        let l = min(count, n)
        // The reverse graph, carrying each edge's original index for its weights.
        let reverseFirst = JunctionGraph.firstIndex(keys: head, count: n)
        var reverseHead = [UInt32](repeating: 0, count: head.count)
        var reverseTime = [UInt32](repeating: 0, count: head.count)
        var reverseLength = [UInt32](repeating: 0, count: head.count)
        var next = reverseFirst
        for v in 0..<n {
            for e in Int(firstOut[v])..<Int(firstOut[v + 1]) {
                let w = Int(head[e])
                let slot = Int(next[w])
                next[w] += 1
                reverseHead[slot] = UInt32(v)
                reverseTime[slot] = lowerBoundTime[e]
                reverseLength[slot] = length[e]
            }
        }
        var time = [UInt32](repeating: 0, count: n * 2 * l)
        var distance = [UInt32](repeating: 0, count: n * 2 * l)
        var nodes: [UInt32] = []

        firstOut.withUnsafeBufferPointer { fo in head.withUnsafeBufferPointer { hd in
        reverseFirst.withUnsafeBufferPointer { rfo in reverseHead.withUnsafeBufferPointer { rhd in
        lowerBoundTime.withUnsafeBufferPointer { lbt in length.withUnsafeBufferPointer { len in
        reverseTime.withUnsafeBufferPointer { rlbt in reverseLength.withUnsafeBufferPointer { rlen in
        time.withUnsafeMutableBufferPointer { timeOut in distance.withUnsafeMutableBufferPointer { distanceOut in
            let forwardTime = WeightedCSR(firstOut: fo, head: hd, weight: lbt)
            let backwardTime = WeightedCSR(firstOut: rfo, head: rhd, weight: rlbt)
            let forwardLength = WeightedCSR(firstOut: fo, head: hd, weight: len)
            let backwardLength = WeightedCSR(firstOut: rfo, head: rhd, weight: rlen)
            let timeBase = Output(base: timeOut.baseAddress!)
            let distanceBase = Output(base: distanceOut.baseAddress!)
            let stride = 2 * l

            // Start: the node farthest from node 0.
            var dist = [UInt32]()
            var far = 0
            var farDistance: UInt32 = 0
            var scratch = [UInt32](repeating: 0, count: n)
            var heap = RadixHeap()
            scratch.withUnsafeMutableBufferPointer { s in
                forwardTime.shortestDistances(from: 0, heap: &heap, dist: &dist, out: s.baseAddress!, stride: 1)
            }
            for v in 0..<n where scratch[v] != .max && scratch[v] > farDistance { farDistance = scratch[v]; far = v }
            var minRoundTrip = [UInt64](repeating: .max, count: n)
            var candidate = far
            for k in 0..<l {
                nodes.append(UInt32(candidate))
                let landmark = candidate
                DispatchQueue.concurrentPerform(iterations: 2) { job in
                    var dist = [UInt32]()
                    var heap = RadixHeap()
                    let out = timeBase.base
                    if job == 0 {
                        forwardTime.shortestDistances(from: landmark, heap: &heap, dist: &dist, out: out + k, stride: stride)
                    } else {
                        backwardTime.shortestDistances(from: landmark, heap: &heap, dist: &dist, out: out + l + k, stride: stride)
                    }
                }
                var best: UInt64 = 0
                for v in 0..<n {
                    let round = UInt64(timeOut[v * stride + k]) + UInt64(timeOut[v * stride + l + k])
                    if round < minRoundTrip[v] { minRoundTrip[v] = round }
                    if minRoundTrip[v] > best { best = minRoundTrip[v]; candidate = v }
                }
                progress?("landmark \(k + 1)/\(l) (travel time)")
            }
            let chosen = nodes
            DispatchQueue.concurrentPerform(iterations: 2 * l) { job in
                var dist = [UInt32]()
                var heap = RadixHeap()
                let k = job >> 1
                let out = distanceBase.base
                if job & 1 == 0 {
                    forwardLength.shortestDistances(from: Int(chosen[k]), heap: &heap, dist: &dist, out: out + k, stride: stride)
                } else {
                    backwardLength.shortestDistances(from: Int(chosen[k]), heap: &heap, dist: &dist, out: out + l + k, stride: stride)
                }
            }
            progress?("landmarks: \(l) on distance")
        } } } } } } } } } }
        return (nodes, time, distance)
    }
}

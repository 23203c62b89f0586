/// Bounded edit distance over search symbols (insertions, deletions, substitutions and
/// adjacent transpositions, each costing 1), for typo-tolerant matching.
package enum EditDistance {
    /// The distance from `query` to the whole `key` and to the closest prefix of `key`.
    /// Values above `maxEdits` come back as `maxEdits + 1`.
    package static func distances(_ query: UnsafeBufferPointer<UInt8>, _ key: UnsafeBufferPointer<UInt8>, maxEdits: Int)
        -> (full: Int, prefix: Int)
    {
        let m = query.count
        let over = maxEdits + 1
        // Only the first m + maxEdits symbols of the key can take part in a prefix match; the
        // full distance is out of reach anyway when the lengths differ by more than maxEdits.
        let n = min(key.count, m + maxEdits)
        let fullReachable = abs(key.count - m) <= maxEdits
        if m == 0 { return (min(key.count, over), 0) }
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: 3 * (n + 1)) { buf -> (Int, Int) in
            var prev2 = UnsafeMutableBufferPointer(rebasing: buf[0..<(n + 1)])
            var prev = UnsafeMutableBufferPointer(rebasing: buf[(n + 1)..<(2 * n + 2)])
            var cur = UnsafeMutableBufferPointer(rebasing: buf[(2 * n + 2)..<(3 * n + 3)])
            for j in 0...n { prev[j] = j; prev2[j] = 0 }
            for i in 1...m {
                cur[0] = i
                var rowMin = i
                let qi = query[i - 1]
                for j in 1...max(1, n) where j <= n {
                    let cost = qi == key[j - 1] ? 0 : 1
                    var v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
                    if i > 1 && j > 1 && qi == key[j - 2] && query[i - 2] == key[j - 1] {
                        v = min(v, prev2[j - 2] + 1)
                    }
                    cur[j] = v
                    if v < rowMin { rowMin = v }
                }
                if rowMin > maxEdits { return (over, over) }
                let t = prev2
                prev2 = prev
                prev = cur
                cur = t
            }
            // `prev` holds the last row: distances from the whole query to each key prefix.
            var prefixBest = over
            for j in 0...n where prev[j] < prefixBest { prefixBest = prev[j] }
            let full = fullReachable && n == key.count ? min(prev[n], over) : over
            return (full, min(prefixBest, over))
        }
    }
}

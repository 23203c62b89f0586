import Foundation

/// The in-memory search structures over every key of every place:
///
/// - all key symbols in one flat buffer, keys sorted lexicographically, so the exact and
///   prefix matches of a query are one binary-searched range;
/// - postings of symbol trigrams (key ids per trigram, CSR layout), for substring and
///   one-edit fuzzy candidates.
struct SearchIndex: Sendable {
    /// Concatenated key symbols.
    let symbols: [UInt8]
    /// Per key (in sorted order): start in `symbols`, length, place, weight.
    let keyStart: [Int32]
    let keyLength: [UInt8]
    let keyPlace: [Int32]
    let keyWeight: [Float]
    /// Distinct trigram codes, ascending, and for each its slice of `postings`.
    let gramCodes: [UInt32]
    let gramOffsets: [Int32]
    /// Key ids (positions in the sorted key order).
    let postings: [Int32]

    var keyCount: Int { keyStart.count }
}

extension SearchIndex {
    /// The index of these keys (`keysPerPlace[p]`: the keys of place `p`).
    init(keysPerPlace: [[SearchKeyForm]]) {
        // All keys unsorted in one buffer, then an order sorted with memcmp.
        var raw: [UInt8] = []
        var rawStart: [Int32] = [], rawLength: [UInt8] = [], rawPlace: [Int32] = [], rawWeight: [Float] = []
        for (p, keys) in keysPerPlace.enumerated() {
            for k in keys {
                rawStart.append(Int32(raw.count))
                rawLength.append(UInt8(k.symbols.count))
                rawPlace.append(Int32(p))
                rawWeight.append(k.weight)
                raw.append(contentsOf: k.symbols)
            }
        }
        var order = Array(0..<Int32(rawStart.count))
        raw.withUnsafeBufferPointer { buf in
            guard let base = buf.baseAddress else { return }
            order.sort { a, b in
                let la = Int(rawLength[Int(a)]), lb = Int(rawLength[Int(b)])
                let c = memcmp(base + Int(rawStart[Int(a)]), base + Int(rawStart[Int(b)]), min(la, lb))
                if c != 0 { return c < 0 }
                if la != lb { return la < lb }
                return rawPlace[Int(a)] < rawPlace[Int(b)]
            }
        }
        var symbols: [UInt8] = []
        symbols.reserveCapacity(raw.count)
        var keyStart: [Int32] = [], keyLength: [UInt8] = [], keyPlace: [Int32] = [], keyWeight: [Float] = []
        keyStart.reserveCapacity(order.count)
        var grams: [UInt64] = []
        grams.reserveCapacity(raw.count)
        var seen: [UInt32] = []
        for (k, o) in order.enumerated() {
            let from = Int(rawStart[Int(o)]), len = Int(rawLength[Int(o)])
            keyStart.append(Int32(symbols.count))
            keyLength.append(UInt8(len))
            keyPlace.append(rawPlace[Int(o)])
            keyWeight.append(rawWeight[Int(o)])
            symbols.append(contentsOf: raw[from..<(from + len)])
            if len >= 3 {
                seen.removeAll(keepingCapacity: true)
                for i in from...(from + len - 3) {
                    let g = SearchIndex.gram(raw[i], raw[i + 1], raw[i + 2])
                    if !seen.contains(g) {
                        seen.append(g)
                        grams.append(UInt64(g) << 32 | UInt64(k))
                    }
                }
            }
        }
        grams.sort()
        var codes: [UInt32] = [], offsets: [Int32] = [], postings: [Int32] = []
        postings.reserveCapacity(grams.count)
        for g in grams {
            let code = UInt32(g >> 32)
            if codes.last != code {
                codes.append(code)
                offsets.append(Int32(postings.count))
            }
            postings.append(Int32(truncatingIfNeeded: g & 0xFFFF_FFFF))
        }
        offsets.append(Int32(postings.count))
        self.init(symbols: symbols, keyStart: keyStart, keyLength: keyLength, keyPlace: keyPlace, keyWeight: keyWeight,
                  gramCodes: codes, gramOffsets: offsets, postings: postings)
    }

    /// The first fault of arrays read back from a file that would make a lookup read out of
    /// bounds or rank with a nonsense weight, or nil. Linear in the arrays' sizes; the key order
    /// is not checked (a misordered index gives wrong answers, never a crash; the file's
    /// checksum is what vouches for it).
    func damage(placeCount: Int) -> String? {
        let n = keyCount
        guard keyLength.count == n, keyPlace.count == n, keyWeight.count == n else {
            return "the key arrays differ in length (key_start \(n), key_length \(keyLength.count), key_place \(keyPlace.count), "
                + "key_weight \(keyWeight.count))"
        }
        guard gramOffsets.count == gramCodes.count + 1 else {
            return "gram_offsets holds \(gramOffsets.count) offsets for \(gramCodes.count) trigrams (expected one more)"
        }
        let symbolCount = symbols.count, postingCount = postings.count
        return keyStart.withUnsafeBufferPointer { start in
            keyLength.withUnsafeBufferPointer { length in
                keyPlace.withUnsafeBufferPointer { place in
                    keyWeight.withUnsafeBufferPointer { weight -> String? in
                        for k in 0..<n {
                            let s = Int(start[k]), e = s + Int(length[k])
                            if s < 0 || e > symbolCount { return "key \(k) spans symbols \(s)..<\(e), outside the \(symbolCount) stored" }
                            if place[k] < 0 || Int(place[k]) >= placeCount {
                                return "key \(k) names place \(place[k]), but the database holds \(placeCount) places"
                            }
                            if !(weight[k] > 0 && weight[k] <= 1) { return "key \(k) has weight \(weight[k]), outside (0, 1]" }
                        }
                        return nil
                    }
                }
            }
        } ?? gramOffsets.withUnsafeBufferPointer { offsets in
            gramCodes.withUnsafeBufferPointer { codes -> String? in
                guard offsets[0] == 0, Int(offsets[codes.count]) == postingCount else {
                    return "gram_offsets runs from \(offsets[0]) to \(offsets[codes.count]), not from 0 to the \(postingCount) postings"
                }
                for i in 0..<codes.count {
                    if offsets[i] > offsets[i + 1] { return "gram_offsets decreases at trigram \(i)" }
                    if i > 0 && codes[i - 1] >= codes[i] { return "gram_codes is not ascending at trigram \(i)" }
                }
                return nil
            }
        } ?? postings.withUnsafeBufferPointer { postings -> String? in
            for i in 0..<postingCount where postings[i] < 0 || Int(postings[i]) >= n {
                return "posting \(i) names key \(postings[i]), but the index holds \(n) keys"
            }
            return nil
        }
    }

    @inline(__always)
    static func gram(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt32 {
        UInt32(a) << 16 | UInt32(b) << 8 | UInt32(c)
    }

    /// The postings of a trigram (empty when no key has it).
    func postingRange(_ code: UInt32) -> Range<Int> {
        var lo = 0, hi = gramCodes.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if gramCodes[mid] < code { lo = mid + 1 } else { hi = mid }
        }
        guard lo < gramCodes.count, gramCodes[lo] == code else { return 0..<0 }
        return Int(gramOffsets[lo])..<Int(gramOffsets[lo + 1])
    }

    /// Compares key `k` with `query` over the query's length: <0, 0 (query is a prefix), >0.
    @inline(__always)
    func comparePrefix(_ k: Int, _ query: UnsafeBufferPointer<UInt8>) -> Int {
        let start = Int(keyStart[k]), len = Int(keyLength[k])
        let n = min(len, query.count)
        for i in 0..<n {
            let a = symbols[start + i], b = query[i]
            if a != b { return a < b ? -1 : 1 }
        }
        return len < query.count ? -1 : 0
    }

    /// The keys that start with `query` (the exact ones first), as a range of key ids.
    func prefixRange(_ query: [UInt8]) -> Range<Int> {
        query.withUnsafeBufferPointer { q in
            var lo = 0, hi = keyCount
            while lo < hi {
                let mid = (lo + hi) >> 1
                if comparePrefix(mid, q) < 0 { lo = mid + 1 } else { hi = mid }
            }
            let start = lo
            hi = keyCount
            while lo < hi {
                let mid = (lo + hi) >> 1
                if comparePrefix(mid, q) <= 0 { lo = mid + 1 } else { hi = mid }
            }
            return start..<lo
        }
    }

    /// The first position > 0 where `query` occurs in key `k`, or nil.
    @inline(__always)
    func innerOccurrence(_ k: Int, _ query: [UInt8]) -> Int? {
        let start = Int(keyStart[k]), len = Int(keyLength[k]), m = query.count
        guard len > m else { return nil }
        var i = 1
        while i + m <= len {
            if symbols[start + i] == query[0] {
                var j = 1
                while j < m && symbols[start + i + j] == query[j] { j += 1 }
                if j == m { return i }
            }
            i += 1
        }
        return nil
    }
}

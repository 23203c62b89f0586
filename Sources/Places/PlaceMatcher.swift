/// Candidate generation: which keys a query's symbols match, and how well.
///
/// Match quality (before the key's weight): exact 1.0 > prefix 0.78–0.95 > substring
/// 0.55–0.75 > fuzzy (one edit, two for long queries) 0.45–0.62; coverage (query length over
/// key length) orders matches within a tier. The best match per place is kept in the scratch.
struct PlaceMatcher {
    let index: SearchIndex

    static let prefixBase: Float = 0.78, prefixSpan: Float = 0.17
    static let substringBase: Float = 0.55, substringSpan: Float = 0.2
    static let fuzzyFull: Float = 0.62, fuzzyPrefixBase: Float = 0.45, fuzzyPrefixSpan: Float = 0.12
    /// Work caps for pathological queries (a single very common trigram).
    static let maximumSubstringKeys = 40_000
    static let maximumFuzzyKeys = 20_000

    /// Exact and prefix matches.
    func prefix(_ q: [UInt8], _ s: ScratchPool.Scratch, factor: Float) {
        guard !q.isEmpty else { return }
        let range = index.prefixRange(q)
        let m = Float(q.count)
        index.keyLength.withUnsafeBufferPointer { lengths in
            index.keyPlace.withUnsafeBufferPointer { places in
                index.keyWeight.withUnsafeBufferPointer { weights in
                    for k in range {
                        let len = Int(lengths[k])
                        let quality: Float = len == q.count ? 1 : PlaceMatcher.prefixBase + PlaceMatcher.prefixSpan * m / Float(len)
                        let p = places[k]
                        s.consider(p, quality * weights[k] * factor)
                    }
                }
            }
        }
    }

    /// Exact and prefix matches of places that pass `filter`, with their best match each.
    func prefixMatches(_ q: [UInt8], filter: RegionFilter) -> [Int32: Float] {
        var out: [Int32: Float] = [:]
        guard !q.isEmpty else { return out }
        let m = Float(q.count)
        for k in index.prefixRange(q) {
            let p = index.keyPlace[k]
            guard filter.matches(p) else { continue }
            let len = Int(index.keyLength[k])
            let quality: Float = len == q.count ? 1 : PlaceMatcher.prefixBase + PlaceMatcher.prefixSpan * m / Float(len)
            let v = quality * index.keyWeight[k]
            if v > out[p] ?? 0 { out[p] = v }
        }
        return out
    }

    /// The trigram of `q[from..<to]` with the shortest posting list.
    func rarestGram(_ q: [UInt8], from: Int, to: Int) -> Range<Int> {
        var best: Range<Int>?
        var i = from
        while i + 3 <= to {
            let r = index.postingRange(SearchIndex.gram(q[i], q[i + 1], q[i + 2]))
            if let b = best, b.count <= r.count {} else { best = r }
            if r.isEmpty { break }
            i += 1
        }
        return best ?? 0..<0
    }

    /// Matches of `q` inside keys (not at their start), aligned on syllables.
    func substring(_ q: [UInt8], _ s: ScratchPool.Scratch, factor: Float) {
        guard q.count >= 3 else { return }
        let r = rarestGram(q, from: 0, to: q.count)
        let m = Float(q.count)
        for pos in r.prefix(PlaceMatcher.maximumSubstringKeys) {
            let k = Int(index.postings[pos])
            guard index.innerOccurrence(k, q) != nil else { continue }
            let quality = PlaceMatcher.substringBase + PlaceMatcher.substringSpan * m / Float(index.keyLength[k])
            s.consider(index.keyPlace[k], quality * index.keyWeight[k] * factor)
        }
    }

    /// Keys within `maxEdits` edits of `q` (whole key or a prefix of it). Candidates come from
    /// the pigeonhole principle: with e edits, one of e + 1 pieces of the query is intact.
    /// When the first piece is intact the key starts with it (a prefix range); when piece j is
    /// intact it sits within e symbols of its place in the key (checked before the distance).
    func fuzzy(_ q: [UInt8], _ s: ScratchPool.Scratch, factor: Float, maxEdits: Int) {
        let pieces = maxEdits + 1
        let m = q.count
        guard m >= 3 * pieces else { return }
        s.nextEpoch()
        let epoch = s.epoch
        var visited = 0
        q.withUnsafeBufferPointer { qb in
            index.symbols.withUnsafeBufferPointer { sym in
                func verify(_ k: Int) {
                    let len = Int(index.keyLength[k])
                    if len + maxEdits < m { return }
                    let start = Int(index.keyStart[k])
                    let key = UnsafeBufferPointer(rebasing: sym[start..<(start + len)])
                    let d = EditDistance.distances(qb, key, maxEdits: maxEdits)
                    var quality: Float = 0
                    if d.full >= 1 && d.full <= maxEdits {
                        quality = PlaceMatcher.fuzzyFull - 0.08 * Float(d.full - 1)
                    } else if d.prefix >= 1 && d.prefix <= maxEdits {
                        quality = PlaceMatcher.fuzzyPrefixBase + PlaceMatcher.fuzzyPrefixSpan * Float(m) / Float(len)
                            - 0.08 * Float(d.prefix - 1)
                    }
                    if quality > 0 { s.consider(index.keyPlace[k], quality * index.keyWeight[k] * factor) }
                }
                // Piece 0 intact: the key starts with it.
                let firstEnd = m / pieces
                for k in index.prefixRange(Array(q[0..<firstEnd])) {
                    if s.keyEpoch[k] == epoch { continue }
                    s.keyEpoch[k] = epoch
                    visited += 1
                    if visited > PlaceMatcher.maximumFuzzyKeys { return }
                    verify(k)
                }
                // Piece j intact: it occurs in the key within maxEdits of where it is in the query.
                for piece in 1..<pieces {
                    let from = piece * m / pieces, to = (piece + 1) * m / pieces
                    for pos in rarestGram(q, from: from, to: to) {
                        let k = Int(index.postings[pos])
                        if s.keyEpoch[k] == epoch { continue }
                        let start = Int(index.keyStart[k]), len = Int(index.keyLength[k])
                        var placed = false
                        for shift in -maxEdits...maxEdits {
                            let at = from + shift
                            guard at >= 0, at + (to - from) <= len else { continue }
                            var i = 0
                            while i < to - from && sym[start + at + i] == qb[from + i] { i += 1 }
                            if i == to - from { placed = true; break }
                        }
                        if !placed { continue }
                        s.keyEpoch[k] = epoch
                        visited += 1
                        if visited > PlaceMatcher.maximumFuzzyKeys { return }
                        verify(k)
                    }
                }
            }
        }
    }
}

/// Whether a place lies in the divisions an address-like query names ("서울 강남구 …"): every
/// context word must name (or begin the name of) the place's 시도, 시군구 or 읍면동.
final class RegionFilter {
    let words: [String]
    let regionOfPlace: [Int32]
    let regionTokens: [[String]]
    private var cache: [Int32: Bool] = [:]

    init(words: [String], regionOfPlace: [Int32], regionTokens: [[String]]) {
        self.words = words
        self.regionOfPlace = regionOfPlace
        self.regionTokens = regionTokens
    }

    func matches(_ place: Int32) -> Bool {
        let region = regionOfPlace[Int(place)]
        guard region >= 0 else { return false }
        if let c = cache[region] { return c }
        let tokens = regionTokens[Int(region)]
        let ok = words.allSatisfy { w in tokens.contains { $0 == w || ($0.hasPrefix(w) && w.count >= 2) } }
        cache[region] = ok
        return ok
    }
}

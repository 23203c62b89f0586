/// Reads an address typed without spaces (강남구역삼동, 서울강남구역삼동, 부산해운대구우동) as
/// division words then a name, the way a spaced address is read.
///
/// The division words are the 시도 names and their short forms (서울, 부산시) and the names of
/// 시군구 (강남구, 수원시, 팔달구); a 동/읍/면 is never a context word, it is what the query names.
/// A reading is kept when the name that remains is at least two syllables long, so 서울역 stays
/// the station and is not read as "역" inside Seoul.
struct AdminRunSegmenter: Sendable {
    /// Folded division words.
    let words: Set<String>
    /// The longest division word, in characters.
    let longest: Int
    /// At most this many readings per query (the shortest context first).
    static let maximumReadings = 4

    init(divisions: [Division]) {
        var w = Set<String>()
        for p in KoreanProvinces.all {
            w.insert(SearchText.fold(p.name))
            for s in p.shortNames { w.insert(SearchText.fold(s)) }
        }
        for d in divisions where d.level == "sido" || d.level == "sigungu" {
            for part in d.name.split(separator: " ") {
                let f = SearchText.fold(String(part))
                if f.count >= 2, let last = f.last, "시도구군".contains(last) { w.insert(f) }
            }
        }
        words = w
        longest = w.map(\.count).max() ?? 0
    }

    /// The (division words, name) readings of one folded word; empty when it does not start
    /// with a division word or is not all Hangul syllables.
    func readings(of folded: String) -> [(context: [String], name: String)] {
        let chars = Array(folded)
        guard chars.count >= 4, folded.unicodeScalars.allSatisfy(HangulJamo.isSyllable) else { return [] }
        var out: [(context: [String], name: String)] = []
        // Depth-first over division words from the start; each split leaves ≥ 2 syllables.
        func walk(_ start: Int, _ context: [String]) {
            guard out.count < Self.maximumReadings else { return }
            let maxLength = min(longest, chars.count - start - 2)
            guard maxLength >= 2 else { return }
            for length in 2...maxLength {
                let word = String(chars[start..<(start + length)])
                guard words.contains(word) else { continue }
                let next = context + [word]
                out.append((next, String(chars[(start + length)...])))
                walk(start + length, next)
            }
        }
        walk(0, [])
        return out
    }
}

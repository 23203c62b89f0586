/// The symbol alphabet the search index works on: folded text spelled out key by key, the
/// way a 두벌식 keyboard types it.
///
/// - 1…19: initial consonants (a syllable starts here, so matches align with syllables);
/// - 20…33: the 14 basic vowel keys (ㅘ is ㅗ + ㅏ, ㅢ is ㅡ + ㅣ, …);
/// - 34…49: the 16 final-consonant keys (ㄳ is ㄱ + ㅅ, …), distinct from initials;
/// - 50…59: digits; 60…85: a…z; 86…255: any other character, hashed.
///
/// Spelling keys out makes "광화ㅁ" a prefix of "광화문" and "왕심리" one substitution from
/// "왕십리"; keeping initials apart from finals keeps substrings on syllable boundaries.
public enum SearchSymbols {
    /// Vowel keys per medial index (ㅏ=0 … ㅣ=13 in the basic order ㅏㅐㅑㅒㅓㅔㅕㅖㅗㅛㅜㅠㅡㅣ).
    static let medialKeys: [[UInt8]] = [
        [0], [1], [2], [3], [4], [5], [6], [7], [8], [8, 0], [8, 1], [8, 13], [9], [10],
        [10, 4], [10, 5], [10, 13], [11], [12], [12, 13], [13],
    ]
    /// Final-consonant keys per final index 1…27 (ㄱ=0 ㄲ=1 ㄴ=2 ㄷ=3 ㄹ=4 ㅁ=5 ㅂ=6 ㅅ=7 ㅆ=8
    /// ㅇ=9 ㅈ=10 ㅊ=11 ㅋ=12 ㅌ=13 ㅍ=14 ㅎ=15); index 0 (no final) is empty.
    static let finalKeys: [[UInt8]] = [
        [], [0], [1], [0, 7], [2], [2, 10], [2, 15], [3], [4], [4, 0], [4, 5], [4, 6], [4, 7],
        [4, 13], [4, 14], [4, 15], [5], [6], [6, 7], [7], [8], [9], [10], [11], [12], [13], [14], [15],
    ]
    /// The initial index a final-consonant key becomes when it starts the next syllable.
    static let finalKeyAsInitial: [UInt8] = [0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 12, 14, 15, 16, 17, 18]
    /// Compatibility consonants (U+3131…U+314E) as initial indices (compound ones as two).
    static let compatibilityConsonants: [[UInt8]] = [
        [0], [1], [0, 9], [2], [2, 12], [2, 18], [3], [4], [5], [5, 0], [5, 6], [5, 7], [5, 9],
        [5, 16], [5, 17], [5, 18], [6], [7], [8], [7, 9], [9], [10], [11], [12], [13], [14], [15],
        [16], [17], [18],
    ]

    public static let initialBase: UInt8 = 1
    public static let vowelBase: UInt8 = 20
    public static let finalBase: UInt8 = 34
    public static let digitBase: UInt8 = 50
    public static let letterBase: UInt8 = 60
    public static let otherBase: UInt8 = 86

    @inline(__always) public static func isInitial(_ s: UInt8) -> Bool { s >= 1 && s < 20 }
    @inline(__always) public static func isFinal(_ s: UInt8) -> Bool { s >= 34 && s < 50 }
    @inline(__always) public static func isLatin(_ s: UInt8) -> Bool { s >= 60 && s < 86 }

    /// Appends the symbols of one scalar of folded text.
    @inline(__always)
    static func append(_ u: Unicode.Scalar, to out: inout [UInt8]) {
        let v = u.value
        if let s = HangulJamo.decompose(u) {
            out.append(initialBase + UInt8(s.initial))
            for k in medialKeys[s.medial] { out.append(vowelBase + k) }
            for k in finalKeys[s.final] { out.append(finalBase + k) }
        } else if v >= 0x61 && v <= 0x7A {
            out.append(letterBase + UInt8(v - 0x61))
        } else if v >= 0x30 && v <= 0x39 {
            out.append(digitBase + UInt8(v - 0x30))
        } else if v >= 0x3131 && v <= 0x314E {
            for k in compatibilityConsonants[Int(v - 0x3131)] { out.append(initialBase + k) }
        } else if v >= 0x314F && v <= 0x3163 {
            for k in medialKeys[Int(v - 0x314F)] { out.append(vowelBase + k) }
        } else {
            out.append(otherBase + UInt8(v % 170))
        }
    }

    /// The symbols of folded text (see `SearchText.fold`).
    public static func encode(_ folded: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(folded.unicodeScalars.count * 3)
        for u in folded.unicodeScalars { append(u, to: &out) }
        return out
    }

    /// The 초성 symbols of folded text: each syllable's initial only, other characters as in
    /// `encode` (강남역 → ㄱㄴㅇ). Nil when the text holds no syllable.
    public static func encodeChoseong(_ folded: String) -> [UInt8]? {
        var out: [UInt8] = []
        var anySyllable = false
        for u in folded.unicodeScalars {
            if let s = HangulJamo.decompose(u) {
                out.append(initialBase + UInt8(s.initial))
                anySyllable = true
            } else {
                append(u, to: &out)
            }
        }
        return anySyllable ? out : nil
    }

    /// The query as typed so far may end in a final consonant that really starts the next
    /// syllable ("갈" on the way to "가로", "광홤" to "광화문"): the variant with the trailing
    /// final key(s) read as an initial, or nil when the symbols do not end in a final.
    public static func trailingFinalAsInitial(_ symbols: [UInt8]) -> [UInt8]? {
        guard let last = symbols.last, isFinal(last) else { return nil }
        var v = symbols
        v[v.count - 1] = initialBase + finalKeyAsInitial[Int(last - finalBase)]
        return v
    }

    /// The number of syllables (initial symbols) and other characters: a length in
    /// "characters the user sees", used to scale match coverage.
    public static func visibleLength(_ symbols: [UInt8]) -> Int {
        var n = 0
        for s in symbols where !(s >= 20 && s < 50) { n += 1 }
        return n
    }
}

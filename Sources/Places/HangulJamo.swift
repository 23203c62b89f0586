/// Hangul syllable arithmetic: decomposition into jamo, 초성 (initial consonants) and the
/// compatibility jamo a keyboard produces while a syllable is being typed.
///
/// A precomposed syllable is `0xAC00 + (initial × 21 + medial) × 28 + final` over
/// 19 initials, 21 medials and 28 finals (0 = none): 11,172 syllables (U+AC00…U+D7A3).
public enum HangulJamo {
    /// First and last precomposed syllable.
    public static let firstSyllable: UInt32 = 0xAC00
    public static let lastSyllable: UInt32 = 0xD7A3

    /// The 19 initial consonants, in syllable-index order, as compatibility jamo.
    public static let initials: [Character] = ["ㄱ", "ㄲ", "ㄴ", "ㄷ", "ㄸ", "ㄹ", "ㅁ", "ㅂ", "ㅃ", "ㅅ",
                                               "ㅆ", "ㅇ", "ㅈ", "ㅉ", "ㅊ", "ㅋ", "ㅌ", "ㅍ", "ㅎ"]
    /// `initials` as scalars (ㄱ U+3131 …).
    static let initialScalars: [Unicode.Scalar] = ["ㄱ", "ㄲ", "ㄴ", "ㄷ", "ㄸ", "ㄹ", "ㅁ", "ㅂ", "ㅃ", "ㅅ",
                                                   "ㅆ", "ㅇ", "ㅈ", "ㅉ", "ㅊ", "ㅋ", "ㅌ", "ㅍ", "ㅎ"]
    /// The 21 medial vowels, in syllable-index order, as compatibility jamo.
    public static let medials: [Character] = ["ㅏ", "ㅐ", "ㅑ", "ㅒ", "ㅓ", "ㅔ", "ㅕ", "ㅖ", "ㅗ", "ㅘ", "ㅙ",
                                              "ㅚ", "ㅛ", "ㅜ", "ㅝ", "ㅞ", "ㅟ", "ㅠ", "ㅡ", "ㅢ", "ㅣ"]
    /// The 27 final consonants (index 1…27; index 0 is "no final"), as compatibility jamo.
    public static let finals: [Character] = ["ㄱ", "ㄲ", "ㄳ", "ㄴ", "ㄵ", "ㄶ", "ㄷ", "ㄹ", "ㄺ", "ㄻ", "ㄼ", "ㄽ",
                                             "ㄾ", "ㄿ", "ㅀ", "ㅁ", "ㅂ", "ㅄ", "ㅅ", "ㅆ", "ㅇ", "ㅈ", "ㅊ", "ㅋ",
                                             "ㅌ", "ㅍ", "ㅎ"]

    /// The parts of one precomposed syllable: indices into `initials`, `medials` and
    /// `finals` (`final` 0 = none, else 1…27).
    public struct Syllable: Sendable, Hashable {
        public let initial: Int
        public let medial: Int
        public let final: Int
    }

    /// True for a precomposed Hangul syllable (가…힣).
    @inline(__always)
    public static func isSyllable(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= firstSyllable && scalar.value <= lastSyllable
    }

    /// True for a compatibility jamo (ㄱ…ㅣ, U+3131…U+3163), what a keyboard shows mid-syllable.
    @inline(__always)
    public static func isCompatibilityJamo(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0x3131 && scalar.value <= 0x3163
    }

    /// True for a compatibility consonant (ㄱ…ㅎ, U+3131…U+314E).
    @inline(__always)
    public static func isCompatibilityConsonant(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0x3131 && scalar.value <= 0x314E
    }

    /// The initial, medial and final of a precomposed syllable; nil for any other scalar.
    @inline(__always)
    public static func decompose(_ scalar: Unicode.Scalar) -> Syllable? {
        guard isSyllable(scalar) else { return nil }
        let s = Int(scalar.value - firstSyllable)
        return Syllable(initial: s / 588, medial: (s % 588) / 28, final: s % 28)
    }

    /// The syllable with these parts (indices as in `Syllable`), or nil when out of range.
    public static func compose(initial: Int, medial: Int, final: Int = 0) -> Unicode.Scalar? {
        guard (0..<19).contains(initial), (0..<21).contains(medial), (0..<28).contains(final) else { return nil }
        return Unicode.Scalar(firstSyllable + UInt32((initial * 21 + medial) * 28 + final))
    }

    /// The 초성 string: each syllable replaced by its initial consonant (강남역 → ㄱㄴㅇ);
    /// other characters are kept.
    public static func choseong(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for u in text.unicodeScalars {
            if let s = decompose(u) {
                out.append(initialScalars[s.initial])
            } else {
                out.append(u)
            }
        }
        return String(out)
    }

    /// The text with every syllable spelled out as compatibility jamo (강 → ㄱㅏㅇ).
    public static func jamoString(_ text: String) -> String {
        var out = ""
        for u in text.unicodeScalars {
            if let s = decompose(u) {
                out.append(initials[s.initial])
                out.append(medials[s.medial])
                if s.final > 0 { out.append(finals[s.final - 1]) }
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// True when the text is made only of compatibility consonants (a 초성 query like ㅎㄷㅇㄱ),
    /// ignoring spaces; false for an empty text.
    public static func isChoseongOnly(_ text: String) -> Bool {
        var any = false
        for u in text.unicodeScalars where u != " " {
            guard isCompatibilityConsonant(u) else { return false }
            any = true
        }
        return any
    }
}

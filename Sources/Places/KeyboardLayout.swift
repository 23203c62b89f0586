/// The Korean 2-set (두벌식, KS X 5002) keyboard: Latin keys ↔ Hangul, for queries typed with
/// the keyboard left in English mode (`rkdskadur` → 강남역, `ghdeo` → 홍대).
///
/// `hangul(fromKeys:)` runs the usual input-method automaton: each consonant key starts or
/// ends a syllable, a vowel after a final consonant takes it as its initial (a compound final
/// gives up its second half), two vowels or two finals combine when the layout allows
/// (ㅗ+ㅏ = ㅘ, ㄹ+ㄱ = ㄺ). `keys(fromHangul:)` types text back. Shifted keys: Q W E R T O P
/// give ㅃ ㅉ ㄸ ㄲ ㅆ ㅒ ㅖ; other capitals type as their lower-case key.
public enum KeyboardLayout {
    /// A jamo as the automaton sees it: a consonant (its compatibility index) or a vowel.
    enum Jamo: Equatable {
        /// Index into `HangulJamo.initials` (19 consonants that can start a syllable).
        case consonant(Int)
        /// Index into `HangulJamo.medials`.
        case vowel(Int)
    }

    /// The jamo typed by one key, or nil for a key that types no jamo.
    static func jamo(forKey key: Unicode.Scalar) -> Jamo? {
        switch key {
        case "Q": return .consonant(8)   // ㅃ
        case "W": return .consonant(13)  // ㅉ
        case "E": return .consonant(4)   // ㄸ
        case "R": return .consonant(1)   // ㄲ
        case "T": return .consonant(10)  // ㅆ
        case "O": return .vowel(3)       // ㅒ
        case "P": return .vowel(7)       // ㅖ
        default: break
        }
        let v = key.value
        let lower: UInt32
        if v >= 0x61 && v <= 0x7A { lower = v } else if v >= 0x41 && v <= 0x5A { lower = v + 0x20 } else { return nil }
        return letterJamo[Int(lower - 0x61)]
    }

    /// a…z on the 2-set layout.
    static let letterJamo: [Jamo] = [
        .consonant(6),   // a ㅁ
        .vowel(17),      // b ㅠ
        .consonant(14),  // c ㅊ
        .consonant(11),  // d ㅇ
        .consonant(3),   // e ㄷ
        .consonant(5),   // f ㄹ
        .consonant(18),  // g ㅎ
        .vowel(8),       // h ㅗ
        .vowel(2),       // i ㅑ
        .vowel(4),       // j ㅓ
        .vowel(0),       // k ㅏ
        .vowel(20),      // l ㅣ
        .vowel(18),      // m ㅡ
        .vowel(13),      // n ㅜ
        .vowel(1),       // o ㅐ
        .vowel(5),       // p ㅔ
        .consonant(7),   // q ㅂ
        .consonant(0),   // r ㄱ
        .consonant(2),   // s ㄴ
        .consonant(9),   // t ㅅ
        .vowel(6),       // u ㅕ
        .consonant(17),  // v ㅍ
        .consonant(12),  // w ㅈ
        .consonant(16),  // x ㅌ
        .vowel(12),      // y ㅛ
        .consonant(15),  // z ㅋ
    ]

    /// The key typing each consonant (by initial index) and each vowel (by medial index, the
    /// simple ones; compound vowels are two keys).
    static let consonantKey: [String] = ["r", "R", "s", "e", "E", "f", "a", "q", "Q", "t", "T", "d", "w", "W", "c", "z", "x", "v", "g"]
    static let vowelKeys: [String] = ["k", "o", "i", "O", "j", "p", "u", "P", "h", "hk", "ho", "hl", "y", "n", "nj", "np", "nl",
                                      "b", "m", "ml", "l"]

    /// Compound vowels: (first, second) medial → compound medial.
    static let compoundVowel: [Int: [Int: Int]] = [8: [0: 9, 1: 10, 20: 11], 13: [4: 14, 5: 15, 20: 16], 18: [20: 19]]
    /// Initial index → final index (0 when that consonant cannot end a syllable: ㄸ ㅃ ㅉ).
    static let finalOfInitial: [Int] = [1, 2, 4, 7, 0, 8, 16, 17, 0, 19, 20, 21, 22, 0, 23, 24, 25, 26, 27]
    /// Final index → initial index when it moves to the next syllable (simple finals only).
    static let initialOfFinal: [Int: Int] = {
        var m: [Int: Int] = [:]
        for (i, f) in finalOfInitial.enumerated() where f > 0 { m[f] = i }
        return m
    }()
    /// Compound finals: (final, next consonant initial) → compound final; and the split back.
    static let compoundFinal: [Int: [Int: Int]] = [
        1: [9: 3],                  // ㄱ+ㅅ = ㄳ
        4: [12: 5, 18: 6],          // ㄴ+ㅈ = ㄵ, ㄴ+ㅎ = ㄶ
        8: [0: 9, 6: 10, 7: 11, 9: 12, 16: 13, 17: 14, 18: 15],  // ㄺ ㄻ ㄼ ㄽ ㄾ ㄿ ㅀ
        17: [9: 18],                // ㅂ+ㅅ = ㅄ
    ]
    /// Compound final → (the final it keeps, the initial it gives the next syllable).
    static let splitFinal: [Int: (keep: Int, initial: Int)] = {
        var m: [Int: (keep: Int, initial: Int)] = [:]
        for (first, seconds) in compoundFinal {
            for (initial, compound) in seconds { m[compound] = (first, initial) }
        }
        return m
    }()

    /// Text with every run of Latin letters read as 2-set keystrokes and composed into Hangul;
    /// other characters are kept as they are. `ghdeo` → 홍대, `강남dur` → 강남역.
    public static func hangul(fromKeys text: String) -> String {
        var out = String.UnicodeScalarView()
        var run: [Jamo] = []
        for u in text.unicodeScalars {
            if let j = jamo(forKey: u) {
                run.append(j)
            } else {
                if !run.isEmpty { compose(run, into: &out); run.removeAll() }
                out.append(u)
            }
        }
        if !run.isEmpty { compose(run, into: &out) }
        return String(out)
    }

    /// Whether `text` holds a Latin letter (a candidate for `hangul(fromKeys:)`).
    public static func hasLatinLetter(_ text: String) -> Bool {
        text.unicodeScalars.contains { ($0.value >= 0x61 && $0.value <= 0x7A) || ($0.value >= 0x41 && $0.value <= 0x5A) }
    }

    /// The keys that type `text` on the 2-set layout: each syllable and compatibility jamo as
    /// its keystrokes, other characters kept. `keys(fromHangul: "강남역")` = `rkdskadur`.
    public static func keys(fromHangul text: String) -> String {
        var out = ""
        for u in text.unicodeScalars {
            if let s = HangulJamo.decompose(u) {
                out += consonantKey[s.initial]
                out += vowelKeys[s.medial]
                if s.final > 0 { out += finalKeys(s.final) }
            } else if HangulJamo.isCompatibilityJamo(u) {
                let ch = Character(u)
                if let i = HangulJamo.initials.firstIndex(of: ch) {
                    out += consonantKey[i]
                } else if let m = HangulJamo.medials.firstIndex(of: ch) {
                    out += vowelKeys[m]
                } else if let f = HangulJamo.finals.firstIndex(of: ch) {
                    out += finalKeys(f + 1)
                } else {
                    out.unicodeScalars.append(u)
                }
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }

    static func finalKeys(_ final: Int) -> String {
        if let split = splitFinal[final] { return consonantKey[initialOfFinal[split.keep]!] + consonantKey[split.initial] }
        return consonantKey[initialOfFinal[final]!]
    }

    /// The syllable being typed.
    private struct Pending {
        var initial: Int?
        var medial: Int?
        /// Final index (0 = none yet).
        var final = 0
    }

    /// Runs the automaton over one run of jamo.
    static func compose(_ jamo: [Jamo], into out: inout String.UnicodeScalarView) {
        var p = Pending()
        func flush() {
            if let i = p.initial, let m = p.medial {
                out.append(HangulJamo.compose(initial: i, medial: m, final: p.final)!)
            } else if let i = p.initial {
                out.append(HangulJamo.initialScalars[i])
            } else if let m = p.medial {
                out.append(HangulJamo.medials[m].unicodeScalars.first!)
            }
            p = Pending()
        }
        for j in jamo {
            switch j {
            case .consonant(let c):
                if p.initial != nil, p.medial != nil {
                    if p.final == 0, finalOfInitial[c] > 0 {
                        p.final = finalOfInitial[c]
                        continue
                    }
                    if p.final > 0, let compound = compoundFinal[p.final]?[c] {
                        p.final = compound
                        continue
                    }
                }
                flush()
                p.initial = c
            case .vowel(let v):
                if p.initial != nil, let m = p.medial {
                    if p.final > 0 {
                        // The final starts the next syllable (a compound one gives its second half).
                        let next: Int
                        if let split = splitFinal[p.final] {
                            p.final = split.keep
                            next = split.initial
                        } else {
                            next = initialOfFinal[p.final]!
                            p.final = 0
                        }
                        flush()
                        p.initial = next
                        p.medial = v
                        continue
                    }
                    if let compound = compoundVowel[m]?[v] {
                        p.medial = compound
                        continue
                    }
                    flush()
                    p.medial = v
                } else if p.initial != nil {
                    p.medial = v
                } else if let m = p.medial, let compound = compoundVowel[m]?[v] {
                    p.medial = compound
                } else {
                    flush()
                    p.medial = v
                }
            }
        }
        flush()
    }
}

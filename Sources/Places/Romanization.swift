/// Revised Romanization of Korean (국어의 로마자 표기법, 2000) for place names.
///
/// Letters follow the standard tables; the sound changes across syllable boundaries that
/// place names show are applied: liaison (십일 → sibil), nasalisation (왕십리 → wangsimni,
/// 종로 → jongno, 독립문 → dongnimmun), lateralisation (신림 → sillim, 선릉 → seolleung) and
/// ㅎ aspiration (좋고 → joko). As in the standard, aspiration after ㄱ/ㄷ/ㅂ is not written
/// in nouns (묵호 → mukho) and ㄴ-insertion (학여울 → hangnyeoul) is not modelled.
public enum Romanization {
    static let initialLetters = ["g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s",
                                 "ss", "", "j", "jj", "ch", "k", "t", "p", "h"]
    static let medialLetters = ["a", "ae", "ya", "yae", "eo", "e", "yeo", "ye", "o", "wa", "wae",
                                "oe", "yo", "u", "wo", "we", "wi", "yu", "eu", "ui", "i"]

    /// How a final consonant sounds at the end of a syllable, by final index 1…27.
    enum FinalSound { case k, n, t, l, m, p, ng, h }
    static let finalSounds: [FinalSound] = [
        .k, .k, .k, .n, .n, .n, .t, .l, .k, .m, .l, .l, .l, .p, .l,  // ㄱ ㄲ ㄳ ㄴ ㄵ ㄶ ㄷ ㄹ ㄺ ㄻ ㄼ ㄽ ㄾ ㄿ ㅀ
        .m, .p, .p, .t, .t, .ng, .t, .t, .k, .t, .p, .h,  // ㅁ ㅂ ㅄ ㅅ ㅆ ㅇ ㅈ ㅊ ㅋ ㅌ ㅍ ㅎ
    ]
    /// A final followed by a vowel moves over as the next initial: the part that stays (a
    /// final index, 0 = none) and the initial index that moves (nil = silent ㅎ / ㅇ).
    static let liaison: [(stays: Int, moves: Int?)] = [
        (0, 0), (0, 1), (1, 9), (0, 2), (4, 12), (0, 2), (0, 3), (0, 5), (8, 0), (8, 6), (8, 7), (8, 9),
        (8, 16), (8, 17), (0, 5), (0, 6), (0, 7), (17, 9), (0, 9), (0, 10), (21, nil), (0, 12), (0, 14),
        (0, 15), (0, 16), (0, 17), (0, nil),
    ]

    static func letters(of sound: FinalSound) -> String {
        switch sound {
        case .k: return "k"
        case .n: return "n"
        case .t, .h: return "t"
        case .l: return "l"
        case .m: return "m"
        case .p: return "p"
        case .ng: return "ng"
        }
    }

    /// The romanisation of `text` in lower case: Hangul runs romanised with the sound changes
    /// above, every other character kept as it is (spaces included).
    public static func romanize(_ text: String) -> String {
        var out = ""
        var run: [HangulJamo.Syllable] = []
        for u in text.unicodeScalars {
            if let s = HangulJamo.decompose(u) {
                run.append(s)
            } else {
                if !run.isEmpty { out += romanizeRun(run); run.removeAll() }
                out.unicodeScalars.append(u)
            }
        }
        if !run.isEmpty { out += romanizeRun(run) }
        return out
    }

    /// Letter-by-letter transliteration without sound changes (왕십리 → wangsipri): what people
    /// who spell out each syllable type.
    public static func transliterate(_ text: String) -> String {
        var out = ""
        for u in text.unicodeScalars {
            if let s = HangulJamo.decompose(u) {
                out += initialLetters[s.initial] + medialLetters[s.medial]
                if s.final > 0 { out += letters(of: finalSounds[s.final - 1]) }
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// A loose spelling that maps the common ways of romanising the same sounds together:
    /// older and informal spellings (Kangnam, Shinchon, Apgujung, Jongro, Dongdaemoon, Yoido)
    /// and the Revised Romanization (Gangnam, Sinchon, Apgujeong, Jongno, Dongdaemun, Yeouido)
    /// fold alike. Vowels ㅓ/ㅗ/ㅜ/ㅡ become "o", ㅐ/ㅔ "e"; k/t/p/ch/r become g/d/b/j/l; doubled
    /// letters are single. Input: lower-case ASCII (folded text); other characters pass.
    public static func looseForm(_ latin: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(latin.utf8.count)
        latin.utf8.withContiguousStorageIfAvailable { s in
            var i = 0
            outer: while i < s.count {
                for (from, to) in looseRules where i + from.count <= s.count {
                    var k = 0
                    while k < from.count && s[i + k] == from[k] { k += 1 }
                    guard k == from.count else { continue }
                    for b in to where out.last != b { out.append(b) }
                    i += from.count
                    continue outer
                }
                let b = s[i]
                if out.last != b || !(b >= 97 && b <= 122) { out.append(b) }
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The rewrites of `looseForm`, longest first where they overlap.
    static let looseRules: [([UInt8], [UInt8])] = [
        ("yeo", "yo"), ("eo", "o"), ("eu", "o"), ("oo", "o"), ("ou", "o"), ("wo", "o"), ("ae", "e"), ("ai", "e"),
        ("ee", "i"), ("ch", "j"), ("sh", "s"), ("ph", "b"), ("u", "o"), ("k", "g"), ("t", "d"), ("p", "b"),
        ("r", "l"), ("f", "b"), ("z", "j"), ("c", "g"),
    ].map { (Array($0.0.utf8), Array($0.1.utf8)) }

    /// One run of syllables, with the sound changes at each boundary.
    static func romanizeRun(_ run: [HangulJamo.Syllable]) -> String {
        var initials = run.map { initialLetters[$0.initial] }
        var finals = run.map { $0.final > 0 ? letters(of: finalSounds[$0.final - 1]) : "" }
        for i in 0..<(run.count - 1) where run[i].final > 0 {
            let f = run[i].final
            let sound = finalSounds[f - 1]
            let next = run[i + 1]
            switch next.initial {
            case 11:  // ㅇ: liaison
                let (stays, moves) = liaison[f - 1]
                finals[i] = stays > 0 ? letters(of: finalSounds[stays - 1]) : ""
                if let m = moves {
                    if next.medial == 20 && m == 3 {
                        initials[i + 1] = "j"  // 굳이 → guji
                    } else if next.medial == 20 && m == 16 {
                        initials[i + 1] = "ch"  // 같이 → gachi
                    } else {
                        initials[i + 1] = initialLetters[m]
                    }
                }
            case 2, 6:  // ㄴ, ㅁ: nasalisation
                switch sound {
                case .k: finals[i] = "ng"
                case .t, .h: finals[i] = "n"
                case .p: finals[i] = "m"
                case .l where next.initial == 2: initials[i + 1] = "l"
                default: break
                }
            case 5:  // ㄹ
                switch sound {
                case .n, .l: finals[i] = "l"; initials[i + 1] = "l"
                case .k, .ng: finals[i] = "ng"; initials[i + 1] = "n"
                case .p, .m: finals[i] = "m"; initials[i + 1] = "n"
                case .t, .h: finals[i] = "n"; initials[i + 1] = "n"
                }
            case 0, 3, 12, 9:  // ㅎ (also in ㄶ, ㅀ) before ㄱ ㄷ ㅈ ㅅ aspirates them
                if f == 27 || f == 6 || f == 15 {
                    finals[i] = f == 6 ? "n" : (f == 15 ? "l" : "")
                    initials[i + 1] = ["k", "", "", "t", "", "", "", "", "", "ss", "", "", "ch"][next.initial]
                }
            default:
                break
            }
        }
        var out = ""
        for i in 0..<run.count {
            out += initials[i]
            out += medialLetters[run[i].medial]
            out += finals[i]
        }
        return out
    }

    /// A display form: the romanisation with the first letter of each word capitalised
    /// (강남역 → "Gangnamyeok", "서울 숲" → "Seoul Sup").
    public static func displayForm(_ text: String) -> String {
        let r = romanize(text)
        var out = ""
        var startOfWord = true
        for ch in r {
            if startOfWord, ch.isLetter { out += ch.uppercased(); startOfWord = false } else { out.append(ch) }
            if ch == " " || ch == "-" { startOfWord = true }
        }
        return out
    }
}

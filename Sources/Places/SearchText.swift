import Foundation

/// Normalisation of names and queries before matching: Unicode composition, case, spacing
/// and punctuation.
///
/// The folded form keeps letters (Hangul syllables, compatibility jamo, Latin, Han, …) and
/// decimal digits, lower-cases them, and drops everything else: spaces, punctuation, symbols.
/// So "홍대 입구", "홍대입구" and "홍대-입구" fold alike, and FTS syntax (`"`, `*`, `:`, `(`,
/// `-`) is plain text that simply disappears. Decomposed Hangul (NFD, as macOS keyboards send
/// it) and full-width Latin are composed first (NFKC).
public enum SearchText {
    /// The folded form of `text` (see the type's description).
    public static func fold(_ text: String) -> String {
        var needsCompatibilityMapping = false
        for u in text.unicodeScalars where u.value >= 0x1100 {
            let v = u.value
            if (0x1100...0x11FF).contains(v) || (0xA960...0xA97F).contains(v) || (0xD7B0...0xD7FF).contains(v)
                || (0xFF00...0xFFEF).contains(v) || (0x3200...0x33FF).contains(v)
            {
                needsCompatibilityMapping = true
                break
            }
        }
        let source = needsCompatibilityMapping ? text.precomposedStringWithCompatibilityMapping : text
        var out = String.UnicodeScalarView()
        for u in source.unicodeScalars {
            let v = u.value
            if v < 0x80 {
                if v >= 0x41 && v <= 0x5A {
                    out.append(Unicode.Scalar(UInt8(v + 0x20)))
                } else if (v >= 0x61 && v <= 0x7A) || (v >= 0x30 && v <= 0x39) {
                    out.append(u)
                }
            } else if HangulJamo.isSyllable(u) || HangulJamo.isCompatibilityJamo(u) {
                out.append(u)
            } else if u.properties.isAlphabetic || u.properties.generalCategory == .decimalNumber {
                let lower = u.properties.lowercaseMapping
                out.append(contentsOf: lower.unicodeScalars)
            }
        }
        return String(out)
    }

    /// The words of `text`: split on spaces, commas, slashes and other separators, each folded;
    /// empty words are dropped. Used to read address-like queries ("서울 강남구 역삼동").
    public static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        for ch in text {
            if ch.isWhitespace || ch == "," || ch == "/" || ch == "|" || ch == ";" {
                if !current.isEmpty { words.append(current); current = "" }
            } else {
                current.append(ch)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words.map(fold).filter { !$0.isEmpty }
    }

    /// A name split into its main part and parenthesised parts:
    /// "왕십리(성동구청)" → ("왕십리", ["성동구청"]); "홍대입구역(중)" → ("홍대입구역", ["중"]).
    public static func splitParentheses(_ name: String) -> (base: String, inner: [String]) {
        var base = ""
        var inner: [String] = []
        var depth = 0
        var current = ""
        for ch in name {
            if ch == "(" || ch == "[" || ch == "（" {
                depth += 1
                if depth == 1 { current = ""; continue }
            } else if ch == ")" || ch == "]" || ch == "）" {
                if depth > 0 {
                    depth -= 1
                    if depth == 0 {
                        let t = current.trimmingCharacters(in: .whitespaces)
                        if !t.isEmpty { inner.append(t) }
                        continue
                    }
                }
                else { continue }
            }
            if depth > 0 { current.append(ch) } else { base.append(ch) }
        }
        if depth > 0 {
            let t = current.trimmingCharacters(in: .whitespaces)
            if !t.isEmpty { inner.append(t) }
        }
        return (base.trimmingCharacters(in: .whitespaces), inner)
    }

    /// The parts of a compound name joined by "." or "·" ("가락시장역4번출구.제일오피스텔"),
    /// trimmed; a single part when there is no separator. Decimal points ("4.19민주묘지",
    /// "호텔2.4") do not split.
    public static func compoundParts(_ name: String) -> [String] {
        let chars = Array(name)
        var parts: [String] = []
        var current = ""
        for (i, ch) in chars.enumerated() {
            let isSeparator: Bool
            if ch == "·" || ch == "ㆍ" || ch == "•" {
                isSeparator = true
            } else if ch == "." {
                let before = i > 0 ? chars[i - 1] : " "
                let after = i + 1 < chars.count ? chars[i + 1] : " "
                isSeparator = !(before.isNumber && after.isNumber)
            } else {
                isSeparator = false
            }
            if isSeparator {
                let t = current.trimmingCharacters(in: .whitespaces)
                if !t.isEmpty { parts.append(t) }
                current = ""
            } else {
                current.append(ch)
            }
        }
        let t = current.trimmingCharacters(in: .whitespaces)
        if !t.isEmpty { parts.append(t) }
        return parts
    }

    /// The words people put after a junction's name ("강남역사거리", "광화문 사거리"), which the
    /// node-link data leaves out (it names those junctions "강남역", "광화문").
    public static let junctionWords = ["사거리", "삼거리", "오거리", "교차로", "로터리"]

    /// The name before a junction word ending the folded query (`fold`ed): "강남역사거리" →
    /// "강남역"; nil when the query does not end in one or nothing is left before it.
    public static func junctionStem(_ folded: String) -> String? {
        for word in junctionWords where folded.hasSuffix(word) && folded.count > word.count {
            return String(folded.dropLast(word.count))
        }
        return nil
    }

    /// True when the text contains at least one Hangul syllable or jamo.
    public static func containsHangul(_ text: String) -> Bool {
        text.unicodeScalars.contains { HangulJamo.isSyllable($0) || HangulJamo.isCompatibilityJamo($0) }
    }
}

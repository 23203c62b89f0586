/// The search keys of a place: every form of its names a query may match, as symbol
/// sequences with a weight (how fully a match on that form names the place).
///
/// For each Korean name (the display name and its aliases): the folded name, the name without
/// parenthesised parts and its parts (weight 0.85), the parts of a compound "A.B" name (0.9),
/// the 초성 of each, the Revised Romanization, and the loose spelling (0.9) of it and of the
/// plain letter-by-letter transliteration (왕십리 → wangsipri → wangsibli). For English
/// names: the folded name, and for stations also
/// "… station". Stations are also found by their romanised name + "station".
struct SearchKeyForm: Hashable {
    let symbols: [UInt8]
    let weight: Float
}

enum SearchKeys {
    static let subNameWeight: Float = 0.85
    static let compoundPartWeight: Float = 0.9
    static let aliasWeight: Float = 0.97
    static let looseWeight: Float = 0.9

    /// True for an alias that is simply the place's name as people say it: a station without
    /// 역 ("강남" for 강남역), a 시도's short name ("서울").
    static func isPlainName(_ alias: String, of place: Place) -> Bool {
        switch place.category {
        case PlaceCategory.station: return place.name == alias + "역"
        case PlaceCategory.sido: return true
        default: return false
        }
    }

    /// Every key of a place, each symbol sequence once (with its best weight).
    static func keys(for place: Place, aliases: [String]) -> [SearchKeyForm] {
        var best: [[UInt8]: Float] = [:]
        func add(_ folded: String, _ weight: Float) {
            guard !folded.isEmpty else { return }
            let s = SearchSymbols.encode(folded)
            guard s.count <= 255 else { return }
            if (best[s] ?? 0) < weight { best[s] = weight }
        }
        func addKorean(_ name: String, _ weight: Float) {
            let folded = SearchText.fold(name)
            guard !folded.isEmpty else { return }
            add(folded, weight)
            if let ch = SearchSymbols.encodeChoseong(folded), ch.count >= 2, ch.count <= 255, (best[ch] ?? 0) < weight {
                best[ch] = weight
            }
            if SearchText.containsHangul(folded) {
                let rr = Romanization.romanize(folded)
                add(rr, weight)
                let looseRR = Romanization.looseForm(rr)
                add(looseRR, weight * looseWeight)
                let tr = Romanization.transliterate(folded)
                if tr != rr {
                    let looseTR = Romanization.looseForm(tr)
                    if looseTR != looseRR { add(looseTR, weight * looseWeight) }
                }
                if place.category == PlaceCategory.station && weight >= aliasWeight && !folded.hasSuffix("역") {
                    add(rr + "station", weight)
                }
            }
        }
        func addName(_ name: String, _ weight: Float) {
            let (base, inner) = SearchText.splitParentheses(name)
            addKorean(name, weight)
            if base != name { addKorean(base, weight) }
            for sub in inner where sub.count >= 2 { addKorean(sub, weight * subNameWeight) }
            let parts = SearchText.compoundParts(base)
            if parts.count > 1 {
                for part in parts where SearchText.fold(part).count >= 2 { addKorean(part, weight * compoundPartWeight) }
            }
        }
        addName(place.name, 1)
        for a in aliases { addName(a, isPlainName(a, of: place) ? 1 : aliasWeight) }
        if let en = place.englishName {
            let base = SearchText.splitParentheses(en).base
            for form in Set([en, base]) {
                let folded = SearchText.fold(form)
                add(folded, 1)
                if place.category == PlaceCategory.station && !folded.hasSuffix("station") { add(folded + "station", 1) }
            }
        }
        // Unordered: the index sorts all keys together.
        return best.map { SearchKeyForm(symbols: $0.key, weight: $0.value) }
    }
}

import Geo

/// Keyword search: interpret the query, gather matches, rank, page.
///
/// score = match (quality × key weight, see `PlaceMatcher`) + 0.3 × importance
///         + 0.25 / (1 + distance / 5 km) when `near` is given.
///
/// The query is read three ways and each place keeps its best reading: as a whole with spaces
/// and punctuation dropped ("홍대 입구" = "홍대입구"), as typed so far (a trailing final
/// consonant may start the next syllable), and, for several words, as divisions then a name
/// ("부산 해운대구 우동": 우동 inside 부산 and 해운대구). A query ending in a junction word
/// (사거리, 삼거리, 오거리, 교차로, 로터리) that names no place as typed is also read as the name
/// before it ("강남역사거리": the junction 강남역, or the station it is named after), a little below
/// a place named with the word itself.
extension PlaceIndex {
    static let importanceWeight: Float = 0.3
    static let nearWeight = 0.25
    static let nearScale = 5_000.0
    /// A match read as "divisions + name" counts a little less than a whole-query match, plus
    /// a small bonus per division word that matched.
    static let addressFactor: Float = 0.95
    static let addressWordBonus: Float = 0.05
    /// A reading of Latin keys as 2-set Hangul counts a little less than the text as typed, so
    /// a romanised name that matches as typed keeps its rank.
    static let keyboardFactor: Float = 0.97
    /// The reading of "<name>사거리" as "<name>" counts a little less than the text as typed.
    static let junctionFactor: Float = 0.96
    /// A match at least this good counts as exact (an exact key of weight ≥ 0.9).
    static let exactMatchFloor: Float = 0.9
    /// At most this many results over all pages.
    public static let maximumResults = 300

    /// Runs a search. Errors are the 400 cases of the API (see `PlaceSearchError`).
    public func search(_ query: PlaceQuery) throws(PlaceSearchError) -> PlaceSearchResult {
        let folded = try query.validated()
        var categoryCode: UInt8?
        if let c = query.category {
            guard knownCategories.contains(c) else { throw .unknownCategory(c, known: knownCategories) }
            // A known category with no place in this DB matches nothing.
            guard let i = categories.firstIndex(of: c) else { return PlaceSearchResult(places: [], nextCursor: nil) }
            categoryCode = UInt8(i)
        }
        let fingerprint = cursorFingerprint(query)
        let offset = try decodeCursor(query.cursor, fingerprint: fingerprint)

        let scratch = pool.take()
        defer { pool.give(scratch) }
        gather(text: query.text, folded: folded, scratch)

        // Filter and score the candidates.
        var candidates: [(place: Int32, score: Float, distance: Double)] = []
        candidates.reserveCapacity(min(scratch.touched.count, 8192))
        var bestMatch: Float = 0
        // A flat-earth distance is plenty for ranking and radius tests (≪ 1% off within 20 km);
        // the hits get the great-circle distance.
        let projection = LocalProjection(referenceLatitude: query.near?.lat ?? 0)
        let origin = query.near.map { projection.project($0) } ?? (0, 0)
        for p in scratch.touched {
            let i = Int(p)
            if let categoryCode, categoryOfPlace[i] != categoryCode { continue }
            if let rect = query.rect, !rect.contains(coordinates[i]) { continue }
            var distance = -1.0
            var score = scratch.best[i] + PlaceIndex.importanceWeight * importance[i]
            if query.near != nil {
                let (x, y) = projection.project(coordinates[i])
                distance = ((x - origin.0) * (x - origin.0) + (y - origin.1) * (y - origin.1)).squareRoot()
                if let r = query.radiusMeters, distance > r { continue }
                score += Float(PlaceIndex.nearWeight / (1 + distance / PlaceIndex.nearScale))
            }
            bestMatch = max(bestMatch, scratch.best[i])
            candidates.append((p, score, distance))
        }
        if query.sort == .distance {
            // Sorting by distance keeps only the good matches, else a far-fetched typo reading
            // next door would come first.
            let floor = bestMatch - 0.3
            candidates = candidates.filter { scratch.best[Int($0.place)] >= floor }
        }

        let wanted = min(offset + query.limit, PlaceIndex.maximumResults)
        let ordered = topK(candidates, wanted + 1, byDistance: query.sort == .distance)
        // An address answer takes one place in the ranking (see PlaceIndex+Addresses).
        let address = addressHit(query)
        let addressAt = address.map { addressPosition(ordered, folded: folded, $0) }
        let total = ordered.count + (address == nil ? 0 : 1)
        let hits = (offset..<max(offset, min(total, offset + query.limit))).map { k -> PlaceHit in
            if let address, let addressAt, k == addressAt { return address }
            let c = ordered[addressAt.map { k > $0 ? k - 1 : k } ?? k]
            return PlaceHit(place: places[Int(c.place)], distanceMeters: query.near.map { $0.distance(to: coordinates[Int(c.place)]) },
                            score: Double(c.score))
        }
        let hasMore = total > offset + query.limit && offset + query.limit < PlaceIndex.maximumResults
        let next = hasMore ? encodeCursor(offset + query.limit, fingerprint: fingerprint) : nil
        return PlaceSearchResult(places: hits, nextCursor: next)
    }

    /// Fills the scratch with the best match of every place for the query's readings.
    func gather(text: String, folded: String, _ s: ScratchPool.Scratch) {
        let matcher = PlaceMatcher(index: index)
        let symbols = SearchSymbols.encode(folded)
        matcher.prefix(symbols, s, factor: 1)
        if let typing = SearchSymbols.trailingFinalAsInitial(symbols) {
            matcher.prefix(typing, s, factor: 1)
        }
        // Latin text is also read loosely (Kangnam = Gangnam, Apgujung = Apgujeong).
        var loose: [UInt8]?
        if folded.utf8.allSatisfy({ $0 < 0x80 }) && folded.utf8.contains(where: { $0 >= 97 }) {
            let l = SearchSymbols.encode(Romanization.looseForm(folded))
            if l != symbols {
                matcher.prefix(l, s, factor: 1)
                loose = l
            }
        }
        matcher.substring(symbols, s, factor: 1)
        // Typos are looked for only when nothing matches exactly: what the user typed exists
        // as typed, and the fuzzy pass is the costliest.
        let hasExact = s.touched.contains { s.best[Int($0)] >= PlaceIndex.exactMatchFloor }
        // "강남역사거리" when no place is named so: the junction (or place) "강남역".
        if !hasExact, let stem = SearchText.junctionStem(folded) {
            matcher.prefix(SearchSymbols.encode(stem), s, factor: PlaceIndex.junctionFactor)
        }
        if !hasExact && !HangulJamo.isChoseongOnly(folded) {
            matcher.fuzzy(symbols, s, factor: 1, maxEdits: symbols.count >= 14 ? 2 : 1)
            if let loose { matcher.fuzzy(loose, s, factor: 1, maxEdits: loose.count >= 14 ? 2 : 1) }
        }
        // Typed with the keyboard in English mode: the Latin runs read as 2-set keystrokes
        // (rkdskadur = 강남역, 강남dur = 강남역), one more reading a little below the text as typed.
        if KeyboardLayout.hasLatinLetter(text) {
            let converted = SearchText.fold(KeyboardLayout.hangul(fromKeys: text))
            if converted != folded && SearchText.containsHangul(converted) {
                let keyed = SearchSymbols.encode(converted)
                matcher.prefix(keyed, s, factor: PlaceIndex.keyboardFactor)
                if let typing = SearchSymbols.trailingFinalAsInitial(keyed) {
                    matcher.prefix(typing, s, factor: PlaceIndex.keyboardFactor)
                }
            }
        }
        let words = SearchText.words(text)
        if words.count >= 2 && words.count <= 6 {
            for split in 1..<words.count {
                addressReading(context: Array(words[..<split]), name: words[split...].joined(), matcher, s)
            }
        } else if words.count == 1 {
            // Divisions run together: 강남구역삼동, 서울강남구역삼동, 부산해운대구우동.
            for (context, name) in adminRuns.readings(of: words[0]) {
                addressReading(context: context, name: name, matcher, s)
            }
        }
    }

    /// The "divisions + name" reading: places named `name` inside the divisions `context` names.
    func addressReading(context: [String], name: String, _ matcher: PlaceMatcher, _ s: ScratchPool.Scratch) {
        let filter = RegionFilter(words: context, regionOfPlace: regionOfPlace, regionTokens: regionTokens)
        // Each division word that matched adds a little.
        let bonus = PlaceIndex.addressWordBonus * Float(context.count)
        for (p, match) in matcher.prefixMatches(SearchSymbols.encode(name), filter: filter) {
            s.consider(p, match * PlaceIndex.addressFactor + bonus)
        }
    }

    /// The best `k` candidates in order (score, then importance, then place number; or distance).
    func topK(_ c: [(place: Int32, score: Float, distance: Double)], _ k: Int, byDistance: Bool)
        -> [(place: Int32, score: Float, distance: Double)]
    {
        func before(_ a: (place: Int32, score: Float, distance: Double), _ b: (place: Int32, score: Float, distance: Double)) -> Bool {
            if byDistance && a.distance != b.distance { return a.distance < b.distance }
            if a.score != b.score { return a.score > b.score }
            let ia = importance[Int(a.place)], ib = importance[Int(b.place)]
            if ia != ib { return ia > ib }
            return a.place < b.place
        }
        guard c.count > k else { return c.sorted(by: before) }
        var top: [(place: Int32, score: Float, distance: Double)] = []
        top.reserveCapacity(k + 1)
        for x in c {
            if top.count == k, let last = top.last, !before(x, last) { continue }
            var lo = 0, hi = top.count
            while lo < hi {
                let mid = (lo + hi) >> 1
                if before(top[mid], x) { lo = mid + 1 } else { hi = mid }
            }
            top.insert(x, at: lo)
            if top.count > k { top.removeLast() }
        }
        return top
    }

    /// A short hash of everything but the cursor and the limit, so a cursor only continues the
    /// search it came from.
    func cursorFingerprint(_ q: PlaceQuery) -> String {
        var parts = [q.text, q.category ?? "", q.sort.rawValue]
        if let n = q.near { parts.append("\(n.lon),\(n.lat)") }
        if let r = q.radiusMeters { parts.append("r\(r)") }
        if let b = q.rect { parts.append("\(b.west),\(b.south),\(b.east),\(b.north)") }
        return String(PlaceSources.stableHash(parts.joined(separator: "\u{1F}")).prefix(8))
    }

    func encodeCursor(_ offset: Int, fingerprint: String) -> String { "\(offset).\(fingerprint)" }

    func decodeCursor(_ cursor: String?, fingerprint: String) throws(PlaceSearchError) -> Int {
        guard let cursor else { return 0 }
        let parts = cursor.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1] == fingerprint, parts[0].count <= 4, let n = Int(parts[0]),
              n > 0, n < PlaceIndex.maximumResults
        else { throw .invalidCursor(cursor) }
        return n
    }
}

/// What keyword search needs beyond the place rows, all derived from them and the divisions:
/// the search index over every place's keys (`SearchKeys`, `SearchIndex`) and each place's
/// region names (for address-like queries, "서울 강남구 …").
///
/// Deriving them is most of a place DB's load time, so `taxipot import places` derives them
/// once and stores them in the file (`PlaceStore.writeSearchIndex`); `PlaceIndex.open` reads
/// them back and checks them. `init(rows:divisionsByCode:)` is the only derivation, used by the
/// builder and in memory alike, so the stored and the derived structures are the same arrays.
///
/// The stored structures follow this build's key rules only if the file was built by it: the
/// Makefile rebuilds the place DB when `Sources/Places` changes, and opening re-derives a
/// sample of places and refuses a file whose stored keys differ (`staleness`).
struct SearchStructures: Sendable {
    let index: SearchIndex
    /// Index into `regionTokens` per place (-1 when the place has no division code).
    let regionOfPlace: [Int32]
    /// Folded names of each region's 시도, 시군구 and 읍면동 (with short forms and stems).
    let regionTokens: [[String]]
}

extension SearchStructures {
    /// The structures of these places (in place-number order) over these divisions.
    init(rows: [PlaceRow], divisionsByCode: [String: Division]) {
        index = SearchIndex(keysPerPlace: rows.map { SearchKeys.keys(for: $0.place, aliases: $0.aliases) })
        var regionIndex: [String: Int32] = [:]
        var tokens: [[String]] = []
        regionOfPlace = rows.map { r in
            guard !r.regionCode.isEmpty else { return -1 }
            if let i = regionIndex[r.regionCode] { return i }
            let i = Int32(tokens.count)
            tokens.append(Self.regionTokens(code: r.regionCode, divisionsByCode))
            regionIndex[r.regionCode] = i
            return i
        }
        regionTokens = tokens
    }

    /// The folded names an address may use for the divisions above (and at) `code`:
    /// "서울특별시", "서울", "서울시", "강남구", "강남", "역삼동", "역삼".
    static func regionTokens(code: String, _ divisions: [String: Division]) -> [String] {
        var out: [String] = []
        func add(_ s: String) {
            let f = SearchText.fold(s)
            if !f.isEmpty && !out.contains(f) { out.append(f) }
        }
        if let p = KoreanProvinces.byCode(code) {
            add(p.name)
            p.shortNames.forEach(add)
        }
        for length in [5, 8, 10] where code.count >= length {
            guard let d = divisions[String(code.prefix(length))] else { continue }
            add(d.name)
            for part in d.name.split(separator: " ").map(String.init) {
                add(part)
                if let stem = PlaceSources.divisionStem(part) { add(stem) }
            }
        }
        return out
    }

    /// How many places `staleness` re-derives (evenly spread over the id order, so every
    /// source and category is sampled).
    static let staleSample = 256

    /// A place of an evenly spread sample whose stored keys or region names are not the ones this
    /// build derives (the file was built by other rules), or nil.
    func staleness(rows: [PlaceRow], divisionsByCode: [String: Division]) -> String? {
        let sample = Array(stride(from: 0, to: rows.count, by: max(1, rows.count / Self.staleSample)))
        var inSample = [Bool](repeating: false, count: rows.count)
        for p in sample { inSample[p] = true }
        var stored: [Int: Set<SearchKeyForm>] = [:]
        for k in 0..<index.keyCount where inSample[Int(index.keyPlace[k])] {
            let s = Int(index.keyStart[k])
            let form = SearchKeyForm(symbols: Array(index.symbols[s..<(s + Int(index.keyLength[k]))]), weight: index.keyWeight[k])
            stored[Int(index.keyPlace[k]), default: []].insert(form)
        }
        for p in sample {
            let row = rows[p]
            let derived = Set(SearchKeys.keys(for: row.place, aliases: row.aliases))
            let kept = stored[p] ?? []
            if kept != derived {
                return "place \(row.place.id) has \(kept.count) stored search keys, \(kept.subtracting(derived).count) of them "
                    + "not among the \(derived.count) this taxipot derives"
            }
            let region = regionOfPlace[p]
            let names = region < 0 ? [] : regionTokens[Int(region)]
            let expected = row.regionCode.isEmpty ? [] : Self.regionTokens(code: row.regionCode, divisionsByCode)
            if names != expected {
                return "place \(row.place.id) has the stored region names \(names), but this taxipot derives \(expected)"
            }
        }
        return nil
    }
}

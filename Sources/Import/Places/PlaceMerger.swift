import Geo
import Places

/// Near-duplicate removal: the same place delivered twice (both sides of a road for a bus
/// stop, an OSM node beside the official record, a station's OSM stop).
enum PlaceMerger {
    /// Places with the same folded name at most this far apart are one place.
    static let sameNameDistance = 50.0
    /// An OSM station stop this close to the station of the same name is that station.
    static let osmStationDistance = 600.0

    /// Category precedence when equally important places merge (the first wins).
    static let categoryRank: [String: Int] = Dictionary(uniqueKeysWithValues: PlaceCategory.builtIn.enumerated().map { ($1, $0) })

    /// The name key two places must share to merge: folded, without parenthesised parts.
    static func mergeKey(_ name: String) -> String {
        SearchText.fold(SearchText.splitParentheses(name).base)
    }

    /// Station key: the merge key without a final 역 ("강남역" and "강남" alike).
    static func stationKey(_ name: String) -> String {
        let k = mergeKey(name)
        return k.count > 1 && k.hasSuffix("역") ? String(k.dropLast()) : k
    }

    /// Folds OSM station stops into the official stations of the same name nearby (adding
    /// their English names); stops with no such station stay as stations of their own.
    static func foldOSMStations(stations: inout [PlaceRecord], osm: [PlaceRecord]) -> (kept: [PlaceRecord], folded: Int) {
        var byKey: [String: [Int]] = [:]
        for (i, s) in stations.enumerated() { byKey[stationKey(s.name), default: []].append(i) }
        var kept: [PlaceRecord] = []
        var folded = 0
        for p in osm {
            guard p.category == PlaceCategory.station else { kept.append(p); continue }
            let candidates = byKey[stationKey(p.name)] ?? []
            let nearest = candidates.min { stations[$0].coordinate.distance(to: p.coordinate) < stations[$1].coordinate.distance(to: p.coordinate) }
            if let i = nearest, stations[i].coordinate.distance(to: p.coordinate) <= osmStationDistance {
                if stations[i].englishName == nil, let en = p.englishName { stations[i].englishName = en }
                folded += 1
            } else {
                var s = p
                if !s.name.hasSuffix("역") {
                    s.aliases.append(s.name)
                    s.name += "역"
                }
                byKey[stationKey(s.name), default: []].append(stations.count)
                stations.append(s)
            }
        }
        return (kept, folded)
    }

    /// Merges records of the same name within 50 m; returns the survivors and how many merged away.
    static func mergeSameName(_ records: [PlaceRecord]) -> (places: [PlaceRecord], merged: Int) {
        var byKey: [String: [Int]] = [:]
        for (i, r) in records.enumerated() where !PlaceCategory.divisions.contains(r.category) {
            byKey[mergeKey(r.name), default: []].append(i)
        }
        var removed = Set<Int>()
        var result = records
        for key in byKey.keys.sorted() {
            guard let members = byKey[key], members.count > 1 else { continue }
            for cluster in StationSource.clusters(members.map { records[$0].coordinate }, within: sameNameDistance)
            where cluster.count > 1 {
                let group = cluster.map { members[$0] }
                let rep = group.min { better(records[$0], than: records[$1]) } ?? group[0]
                var merged = records[rep]
                for i in group where i != rep {
                    let other = records[i]
                    merged.importance = max(merged.importance, other.importance)
                    if merged.englishName == nil { merged.englishName = other.englishName }
                    if merged.address.isEmpty { merged.address = other.address }
                    for a in [other.name] + other.aliases where a != merged.name && !merged.aliases.contains(a) {
                        merged.aliases.append(a)
                    }
                    if other.category == merged.category, !other.detail.isEmpty, !merged.detail.contains(other.detail) {
                        merged.detail = merged.detail.isEmpty ? other.detail
                            : merged.detail + ", " + other.detail.replacingOccurrences(of: "ARS ", with: "")
                    }
                    removed.insert(i)
                }
                result[rep] = merged
            }
        }
        let survivors = result.enumerated().filter { !removed.contains($0.offset) }.map(\.element)
        return (survivors, removed.count)
    }

    /// A node named "in front of X" (`X앞`) this close to a place whose name holds X is that
    /// place's doorstep.
    static let doorstepDistance = 300.0

    /// Adds the intersections to `places`: the nodes of one junction with the same name within
    /// 50 m become one intersection; an intersection within 50 m of a same-name place of
    /// another category (the station, bus stop or building the junction is named after), or
    /// named `X앞` within 300 m of a place whose name holds X (여의도성모병원앞 by 가톨릭대학교
    /// 여의도성모병원), is that place and is left out, so that place keeps its own category, id,
    /// details and rank. Returns how many intersection records merged or folded away.
    static func addIntersections(_ intersections: [PlaceRecord], to places: inout [PlaceRecord]) -> Int {
        let (junctions, merged) = mergeSameName(intersections)
        let others = places.filter { !PlaceCategory.divisions.contains($0.category) }
        var byKey: [String: [Coordinate]] = [:]
        for p in others { byKey[mergeKey(p.name), default: []].append(p.coordinate) }
        let points = others.map(\.coordinate)
        let grid = SpatialGrid(points: points)
        let keys = others.map { mergeKey($0.name) }
        func isDoorstep(_ j: PlaceRecord) -> Bool {
            let key = mergeKey(j.name)
            guard key.hasSuffix("앞"), key.count >= 3 else { return false }
            let named = String(key.dropLast())
            return grid.within(doorstepDistance, of: j.coordinate, points: points).contains { keys[$0.index].contains(named) }
        }
        var folded = 0
        for j in junctions {
            let sameName = byKey[mergeKey(j.name)]?.contains { $0.distance(to: j.coordinate) <= sameNameDistance } ?? false
            if sameName || isDoorstep(j) {
                folded += 1
            } else {
                places.append(j)
            }
        }
        return merged + folded
    }

    /// Landmarks whose bus stop spells their name a little differently get that spelling as
    /// an extra name: the stop "남산서울타워" by "남산&N서울타워" makes the tower findable as
    /// 남산서울타워 (and ranked above its stop). A stop name (or one part of a compound
    /// "A.B" name) within one key press of a landmark's name, within 1 km, counts.
    static func aliasLandmarksFromBusStops(_ records: inout [PlaceRecord]) -> Int {
        let landmarkCategories: Set<String> = [PlaceCategory.tourist, PlaceCategory.attraction, PlaceCategory.park,
                                               PlaceCategory.shopping, PlaceCategory.publicOffice, PlaceCategory.medical,
                                               PlaceCategory.education, PlaceCategory.hotel]
        let landmarks = records.indices.filter { landmarkCategories.contains(records[$0].category) }
        let grid = SpatialGrid(points: landmarks.map { records[$0].coordinate })
        let landmarkPoints = landmarks.map { records[$0].coordinate }
        let landmarkKeys = landmarks.map { SearchSymbols.encode(mergeKey(records[$0].name)) }
        var added = 0
        for stop in records where stop.category == PlaceCategory.busStop {
            for part in SearchText.compoundParts(SearchText.splitParentheses(stop.name).base) {
                let key = SearchSymbols.encode(SearchText.fold(part))
                guard key.count >= 6 else { continue }
                for (j, _) in grid.within(1_000, of: stop.coordinate, points: landmarkPoints) {
                    let lk = landmarkKeys[j]
                    guard lk != key, abs(lk.count - key.count) <= 1 else { continue }
                    let d = key.withUnsafeBufferPointer { a in lk.withUnsafeBufferPointer { b in EditDistance.distances(a, b, maxEdits: 1) } }
                    guard d.full <= 1 else { continue }
                    let i = landmarks[j]
                    if !records[i].aliases.contains(part) {
                        records[i].aliases.append(part)
                        added += 1
                    }
                }
            }
        }
        return added
    }

    /// True when `a` should represent a merged group rather than `b`.
    static func better(_ a: PlaceRecord, than b: PlaceRecord) -> Bool {
        if a.importance != b.importance { return a.importance > b.importance }
        let ra = categoryRank[a.category] ?? 99, rb = categoryRank[b.category] ?? 99
        if ra != rb { return ra < rb }
        return a.id < b.id
    }
}

import Foundation
import Geo

/// The place DB loaded into memory with its search index: keyword search, reverse geocoding
/// and region lookup. Open once and share: every method is safe to call from many threads.
///
/// The SQLite file stays the source of truth; `open` reads the place table and builds the
/// in-memory keys (names, aliases, 초성, romanisations, English names) and trigram postings.
public final class PlaceIndex: Sendable {
    /// The DB file this index was loaded from.
    public let path: String
    /// Every place, in id order; positions are the internal place numbers.
    public let places: [Place]
    let coordinates: [Coordinate]
    let importance: [Float]
    let categoryOfPlace: [UInt8]
    /// Distinct categories in the DB, indexed by `categoryOfPlace`.
    let categories: [String]
    /// The categories a query may filter on: the built-in ones, then user categories.
    public let knownCategories: [String]
    /// Index into `regionTokens` per place (-1 when unknown).
    let regionOfPlace: [Int32]
    /// Folded names of each region's 시도, 시군구 and 읍면동 (with short forms and stems).
    let regionTokens: [[String]]
    /// The division names a run-together address may start with (강남구역삼동).
    let adminRuns: AdminRunSegmenter
    let index: SearchIndex
    let grid: SpatialGrid
    let admin: AdminLocator
    let pool: ScratchPool
    let placeByID: [String: Int32]
    /// Road-name and lot addresses over the DB's `roads` table and divisions.
    let addresses: AddressLocator

    /// Loads the place DB at `path` and builds the search index.
    public static func open(path: String) throws(PlaceDatabaseError) -> PlaceIndex {
        do {
            let db = try PlaceStore.open(path: path, readOnly: true)
            let rows = try PlaceStore.readPlaces(db)
            let divisions = try PlaceStore.readDivisions(db)
            let boundaries = try PlaceStore.readBoundaries(db)
            let roads = try PlaceStore.readRoads(db)
            let numbering = try PlaceStore.readNumbering(db)
            return PlaceIndex(path: path, rows: rows, divisions: divisions, boundaries: boundaries, roads: roads, numbering: numbering)
        } catch {
            throw PlaceDatabaseError.wrap(error)
        }
    }

    init(path: String, rows: [(place: Place, aliases: [String], regionCode: String)], divisions: [Division],
         boundaries: [Boundary], roads: [NamedRoad] = [], numbering: [String: RoadNumbering] = [:])
    {
        self.path = path
        places = rows.map(\.place)
        coordinates = places.map(\.coordinate)
        importance = places.map { Float($0.importance) }
        var cats: [String] = []
        var catIndex: [String: UInt8] = [:]
        categoryOfPlace = places.map { p in
            if let i = catIndex[p.category] { return i }
            let i = UInt8(min(cats.count, 255))
            cats.append(p.category)
            catIndex[p.category] = i
            return i
        }
        categories = cats
        knownCategories = PlaceCategory.builtIn + cats.filter { !PlaceCategory.builtIn.contains($0) }.sorted()

        let admin = AdminLocator(divisions: divisions, boundaries: boundaries)
        self.admin = admin
        var regionIndex: [String: Int32] = [:]
        var tokens: [[String]] = []
        regionOfPlace = rows.map { r in
            guard !r.regionCode.isEmpty else { return -1 }
            if let i = regionIndex[r.regionCode] { return i }
            let i = Int32(tokens.count)
            tokens.append(PlaceIndex.regionTokens(code: r.regionCode, admin.divisionsByCode))
            regionIndex[r.regionCode] = i
            return i
        }
        regionTokens = tokens
        adminRuns = AdminRunSegmenter(divisions: divisions)

        let keys = rows.map { SearchKeys.keys(for: $0.place, aliases: $0.aliases) }
        index = SearchIndex(keysPerPlace: keys)
        grid = SpatialGrid(points: coordinates)
        pool = ScratchPool(placeCount: places.count, keyCount: index.keyCount)
        var byID: [String: Int32] = [:]
        for (i, p) in places.enumerated() { byID[p.id] = Int32(i) }
        placeByID = byID
        addresses = AddressLocator(roads: roads, divisions: divisions, admin: admin, calibration: numbering)
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

    /// The number of places.
    public var count: Int { places.count }

    /// The number of search keys (names, aliases, 초성, romanisations) in the index.
    public var keyCount: Int { index.keyCount }

    /// The place with this id.
    public func place(id: String) -> Place? { placeByID[id].map { places[Int($0)] } }

    /// A region locator sharing this DB's divisions and Seoul polygons.
    public var regionLocator: RegionLocator { RegionLocator(locator: admin) }
}

/// What is at a point: its divisions and the places around it.
public struct ReverseResult: Sendable {
    public let coordinate: Coordinate
    /// The 시도/시군구/동 holding the point (nil at sea or abroad).
    public let area: AdminArea?
    /// Places (not divisions) within the radius, nearest first.
    public let nearby: [PlaceHit]
    /// The nearest road-name address estimate (nil when no named road is within 100 m).
    public var address: ReverseAddress? = nil
}

extension PlaceIndex {
    /// Default radius of `reverse(at:)`.
    public static let reverseRadius = 300.0

    /// The divisions containing `point` (point-in-polygon in Seoul, the nearest division
    /// elsewhere, marked approximate) and up to `limit` places within `radiusMeters`.
    public func reverse(at point: Coordinate, radiusMeters: Double = PlaceIndex.reverseRadius, limit: Int = 10) -> ReverseResult {
        guard point.isValid else { return ReverseResult(coordinate: point, area: nil, nearby: []) }
        let area = admin.locate(point)
        var near = grid.within(max(0, min(radiusMeters, 5_000)), of: point, points: coordinates)
        near.removeAll { PlaceCategory.divisions.contains(places[$0.index].category) }
        near.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.index < $1.index }
        var hits: [PlaceHit] = []
        for n in near.prefix(max(0, limit)) {
            hits.append(PlaceHit(place: places[n.index], distanceMeters: n.distance, score: 0))
        }
        var result = ReverseResult(coordinate: point, area: area, nearby: hits)
        result.address = nearestAddress(to: point)
        return result
    }
}

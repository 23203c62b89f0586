import Foundation
import Geo

/// The place DB loaded into memory with its search index: keyword search, reverse geocoding
/// and region lookup. Open once and share: every method is safe to call from many threads.
///
/// The SQLite file stays the source of truth: `open` reads the place table and the search
/// structures `taxipot import places` derived from it (keys: names, aliases, 초성,
/// romanisations, English names; trigram postings; region names), see `SearchStructures`.
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

    /// Loads the place DB at `path` with its stored search index.
    public static func open(path: String) throws(PlaceDatabaseError) -> PlaceIndex {
        try open(path: path, storedSearch: true)
    }

    /// Loads the place DB at `path`; with `storedSearch` false, derives the search structures
    /// from its rows as the builder does instead of reading the stored ones (the tests compare both).
    package static func open(path: String, storedSearch: Bool) throws(PlaceDatabaseError) -> PlaceIndex {
        do {
            let db = try PlaceStore.open(path: path, readOnly: true)
            let rows = try PlaceStore.readPlaces(db)
            let divisions = try PlaceStore.readDivisions(db)
            let admin = AdminLocator(divisions: divisions, boundaries: try PlaceStore.readBoundaries(db))
            let search = storedSearch
                ? try PlaceStore.readSearchIndex(db, rows: rows, divisionsByCode: admin.divisionsByCode)
                : SearchStructures(rows: rows, divisionsByCode: admin.divisionsByCode)
            return PlaceIndex(path: path, rows: rows, divisions: divisions, admin: admin, search: search,
                              roads: try PlaceStore.readRoads(db), numbering: try PlaceStore.readNumbering(db))
        } catch {
            throw PlaceDatabaseError.wrap(error)
        }
    }

    init(path: String, rows: [PlaceRow], divisions: [Division], admin: AdminLocator, search: SearchStructures,
         roads: [NamedRoad], numbering: [String: RoadNumbering])
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

        self.admin = admin
        regionOfPlace = search.regionOfPlace
        regionTokens = search.regionTokens
        adminRuns = AdminRunSegmenter(divisions: divisions)
        index = search.index
        grid = SpatialGrid(points: coordinates)
        pool = ScratchPool(placeCount: places.count, keyCount: index.keyCount)
        var byID: [String: Int32] = [:]
        for (i, p) in places.enumerated() { byID[p.id] = Int32(i) }
        placeByID = byID
        addresses = AddressLocator(roads: roads, divisions: divisions, admin: admin, calibration: numbering)
    }

    /// The search structures as the place DB stores them, array by array (the tests compare the
    /// stored ones with those derived in memory).
    package var searchIndexBlobs: [(name: String, bytes: [UInt8])] {
        SearchStructures(index: index, regionOfPlace: regionOfPlace, regionTokens: regionTokens).blobs
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

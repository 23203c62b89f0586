import Foundation
import Geo

/// The fare region (시도) of a point.
public struct RegionMatch: Sendable, Hashable {
    /// Lower-case id: "seoul", "busan", "incheon", "gyeonggi", "daegu", … (see `KoreanProvinces`).
    public let id: String
    /// The 시도 name ("서울특별시").
    public let sidoName: String
    /// The 2-digit 시도 code ("11").
    public let sidoCode: String
    /// False when decided by the district polygons (Seoul); true when taken from the nearest
    /// division (elsewhere, or just outside Seoul).
    public let approximate: Bool
}

/// Which 시도 a point is in: by the 25 Seoul district polygons inside Seoul, by the nearest
/// 읍면동 elsewhere. Load it once (from the place DB or the data folder) and share it.
public struct RegionLocator: Sendable {
    let locator: AdminLocator

    init(locator: AdminLocator) { self.locator = locator }

    /// Loads the divisions and boundaries stored in a place DB (`taxipot import places`).
    public init(databasePath: String) throws(PlaceDatabaseError) {
        do {
            let db = try PlaceStore.open(path: databasePath, readOnly: true)
            locator = AdminLocator(divisions: try PlaceStore.readDivisions(db), boundaries: try PlaceStore.readBoundaries(db))
        } catch {
            throw PlaceDatabaseError.wrap(error)
        }
    }

    /// Loads the sources in a data folder: `places/kr_legal_divisions_centroids.csv` and
    /// `places/seoul_sigungu_emd_boundaries.geojson`.
    public init(dataDirectory: String) throws(PlaceDatabaseError) {
        let dir = (dataDirectory as NSString).appendingPathComponent("places")
        do {
            var warnings: [String] = []
            let divisions = try DivisionSource.read(path: (dir as NSString).appendingPathComponent(PlaceSources.divisionsFile),
                                                    warnings: &warnings)
            let boundaries = try BoundaryCodec.readGeoJSON(path: (dir as NSString).appendingPathComponent(PlaceSources.boundariesFile))
            locator = AdminLocator(divisions: divisions, boundaries: boundaries)
        } catch {
            throw PlaceDatabaseError.wrap(error)
        }
    }

    /// The region at `point`, or nil when it is in no region (at sea, abroad: more than 30 km
    /// from any 읍면동).
    public func region(at point: Coordinate) -> RegionMatch? {
        guard let area = locator.locate(point), let sido = area.sido, let p = KoreanProvinces.byCode(sido.code) else { return nil }
        return RegionMatch(id: p.id, sidoName: p.name, sidoCode: p.code, approximate: area.approximate)
    }

    /// True when `point` is inside region `regionID`: the exact polygon test for Seoul (the
    /// union of its 25 districts), the nearest-division answer elsewhere. False for an unknown id.
    public func isInside(regionID: String, _ point: Coordinate) -> Bool {
        guard let p = KoreanProvinces.byID(regionID), point.isValid else { return false }
        if locator.polygonSidoCodes.contains(p.code) { return locator.isInsidePolygons(sidoCode: p.code, point) }
        return region(at: point)?.id == regionID
    }

    /// The 시도/시군구/읍면동 at `point` (nil as for `region(at:)`).
    public func adminArea(at point: Coordinate) -> AdminArea? { locator.locate(point) }

    /// The region ids this locator knows.
    public static var knownRegionIDs: [String] { KoreanProvinces.all.map(\.id) }
}

import CSV
import Foundation
import Geo

/// The place sources in `data/places/` and the readers turning their rows into place records.
/// Rail stations and OSM POIs have their own files (StationSource, OSMPOISource).
public enum PlaceSources {
    public static let divisionsFile = "kr_legal_divisions_centroids.csv"
    public static let boundariesFile = "seoul_sigungu_emd_boundaries.geojson"
    public static let railStationsFile = "urban_rail_stations.csv"
    public static let seoulStationMasterFile = "seoul_metro_station_master.csv"
    public static let busStopsFile = "seoul_bus_stops_molit_20251031.csv"
    public static let touristSitesFile = "kr_tourist_spots_std.csv"
    public static let osmPOIsFile = "osm_named_pois.csv"

    /// Every file the builder reads, in reading order.
    public static let allFiles = [divisionsFile, boundariesFile, railStationsFile, seoulStationMasterFile,
                                  busStopsFile, touristSitesFile, osmPOIsFile]

    /// Importance by category: districts and stations above sights, sights above bus stops.
    static func defaultImportance(_ category: String) -> Double {
        switch category {
        case PlaceCategory.sido: return 1.0
        case PlaceCategory.station: return 0.84
        case PlaceCategory.sigungu: return 0.8
        case PlaceCategory.emd: return 0.62
        case PlaceCategory.tourist, PlaceCategory.attraction: return 0.6
        case PlaceCategory.user: return 0.6
        case PlaceCategory.shopping, PlaceCategory.park: return 0.5
        case PlaceCategory.publicOffice, PlaceCategory.medical, PlaceCategory.education: return 0.45
        case PlaceCategory.hotel: return 0.4
        case PlaceCategory.finance, PlaceCategory.worship, PlaceCategory.transport: return 0.35
        case PlaceCategory.ri: return 0.3
        case PlaceCategory.busStop: return 0.3
        default: return 0.3
        }
    }

    /// A short stable id from text: 12 hex digits of FNV-1a 64.
    static func stableHash(_ text: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        let s = String(h, radix: 16)
        return String(repeating: "0", count: max(0, 16 - s.count)) + s
    }

    /// The name without its last suffix (동, 구, 시, 군, 읍, 면, 가), when at least two
    /// characters remain: 역삼동 → 역삼, 강남구 → 강남; 중구 stays.
    static func divisionStem(_ name: String) -> String? {
        guard let last = name.last, "동구시군읍면".contains(last) else { return nil }
        let stem = String(name.dropLast())
        guard stem.count >= 2, !(stem.last?.isNumber ?? false) else { return nil }
        return stem
    }

    /// The legal divisions as places: 시도 with their short names, 시군구 and 읍면동 with their
    /// stems ("강남", "역삼") as extra names, 리.
    static func divisionPlaces(_ divisions: [Division]) -> [PlaceRecord] {
        divisions.map { d in
            var aliases: [String] = []
            if d.level == PlaceCategory.sido, let p = KoreanProvinces.byCode(d.code) { aliases += p.shortNames }
            let parts = d.name.split(separator: " ").map(String.init)
            if parts.count > 1, let last = parts.last { aliases.append(last) }  // "수원시 장안구" → "장안구"
            if d.level != PlaceCategory.ri, d.level != PlaceCategory.sido, let stem = divisionStem(parts.last ?? d.name) {
                aliases.append(stem)
            }
            var importance = defaultImportance(d.level)
            if d.code.hasPrefix(PlaceDatabaseBuilder.seoulCode) && d.level != PlaceCategory.sido {
                importance += PlaceDatabaseBuilder.seoulBonus
            }
            return PlaceRecord(id: "div:\(d.code)", name: d.name, category: d.level, address: d.fullName,
                               lon: d.inner.lon, lat: d.inner.lat, importance: importance, englishName: nil,
                               aliases: aliases, regionCode: d.code, detail: "", source: divisionsFile)
        }
    }

    /// Seoul bus stops (MOLIT national bus-stop data, city code 11).
    static func busStops(path: String, warnings: inout [String]) throws(CSVTable.ReadError) -> [PlaceRecord] {
        let t = try CSVTable(path: path)
        let cID = try t.column("정류장번호"), cName = try t.column("정류장명")
        let cLat = try t.column("위도"), cLon = try t.column("경도")
        let cARS = t.optionalColumn("모바일단축번호")
        var out: [PlaceRecord] = []
        for row in t.rows {
            guard let lat = NumberParsing.finiteDouble(row[cLat]), let lon = NumberParsing.finiteDouble(row[cLon]),
                  Coordinate(lon: lon, lat: lat).isValid, !row[cName].isEmpty, !row[cID].isEmpty
            else {
                warnings.append("\(path):\(row.line): skipped: no name, id or valid 위도/경도")
                continue
            }
            let ars = cARS.map { row[$0] } ?? ""
            out.append(PlaceRecord(id: "bus:\(row[cID])", name: row[cName], category: PlaceCategory.busStop, address: "",
                                   lon: lon, lat: lat, importance: defaultImportance(PlaceCategory.busStop),
                                   englishName: nil, detail: ars.isEmpty ? "" : "ARS \(ars)", source: busStopsFile))
        }
        return out
    }

    /// National tourist sites (관광지/관광단지).
    static func touristSites(path: String, warnings: inout [String]) throws(CSVTable.ReadError) -> [PlaceRecord] {
        let t = try CSVTable(path: path)
        let cName = try t.column("관광지명"), cKind = try t.column("관광지구분")
        let cRoad = try t.column("소재지도로명주소"), cLot = try t.column("소재지지번주소")
        let cLat = try t.column("위도"), cLon = try t.column("경도")
        var out: [PlaceRecord] = []
        for row in t.rows {
            guard let lat = NumberParsing.finiteDouble(row[cLat]), let lon = NumberParsing.finiteDouble(row[cLon]),
                  Coordinate(lon: lon, lat: lat).isValid, !row[cName].isEmpty
            else {
                warnings.append("\(path):\(row.line): skipped: no name or valid 위도/경도")
                continue
            }
            // The search keys cover the name without its parenthesised part, and that part.
            let name = row[cName]
            let importance = defaultImportance(PlaceCategory.tourist) + (row[cKind] == "관광단지" ? 0.05 : 0)
            out.append(PlaceRecord(id: "tour:\(stableHash("\(name)|\(row[cLat])|\(row[cLon])"))", name: name,
                                   category: PlaceCategory.tourist, address: row[cRoad].isEmpty ? row[cLot] : row[cRoad],
                                   lon: lon, lat: lat, importance: importance, englishName: nil,
                                   detail: row[cKind], source: touristSitesFile))
        }
        return out
    }
}

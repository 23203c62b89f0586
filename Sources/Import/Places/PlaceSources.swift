import CSV
import Foundation
import Geo
import Places

/// The readers turning the rows of the place sources (file names in Places' `PlaceSources`)
/// into place records. Rail stations and OSM POIs have their own files (StationSource, OSMPOISource).
extension PlaceSources {
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
        case PlaceCategory.busStop, PlaceCategory.intersection: return 0.3
        default: return 0.3
        }
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

import Foundation

/// The place sources in `data/places/` (read by the import stage's place database builder, and
/// by `RegionLocator(dataDirectory:)`), and the names' helpers that search shares with it.
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

    /// A short stable id from text: 12 hex digits of FNV-1a 64.
    package static func stableHash(_ text: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        let s = String(h, radix: 16)
        return String(repeating: "0", count: max(0, 16 - s.count)) + s
    }

    /// The name without its last suffix (동, 구, 시, 군, 읍, 면, 가), when at least two
    /// characters remain: 역삼동 → 역삼, 강남구 → 강남; 중구 stays.
    package static func divisionStem(_ name: String) -> String? {
        guard let last = name.last, "동구시군읍면".contains(last) else { return nil }
        let stem = String(name.dropLast())
        guard stem.count >= 2, !(stem.last?.isNumber ?? false) else { return nil }
        return stem
    }
}

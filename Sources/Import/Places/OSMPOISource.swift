import CSV
import Geo
import Places

/// Named OpenStreetMap POIs (`osm_named_pois.csv`): shops, restaurants, hotels, offices, parks,
/// station stops and entrances.
enum OSMPOISource {
    /// Tags that are whole rail lines, not places (their point is meaningless).
    static let skippedTags: Set<String> = ["railway=rail", "railway=subway", "railway=light_rail",
                                           "railway=construction", "railway=proposed", "railway=platform"]

    /// The place category of an OSM `key=value` tag.
    static func category(of tag: String) -> String {
        let parts = tag.split(separator: "=", maxSplits: 1).map(String.init)
        let key = parts.first ?? "", value = parts.count > 1 ? parts[1] : ""
        switch (key, value) {
        case ("railway", "stop"), ("railway", "station"), ("railway", "halt"), ("public_transport", "station"):
            return PlaceCategory.station
        case ("public_transport", "platform"), ("highway", "bus_stop"): return PlaceCategory.busStop
        case ("railway", "subway_entrance"), ("amenity", "parking"), ("amenity", "fuel"), ("amenity", "ferry_terminal"):
            return PlaceCategory.transport
        case ("tourism", "theme_park"), ("tourism", "museum"), ("tourism", "attraction"), ("tourism", "artwork"),
             ("historic", _), ("amenity", "theatre"), ("amenity", "cinema"):
            return PlaceCategory.attraction
        case ("tourism", "hotel"), ("tourism", "hostel"), ("tourism", "motel"), ("tourism", "guest_house"):
            return PlaceCategory.hotel
        case ("tourism", _): return PlaceCategory.attraction
        case ("shop", _): return PlaceCategory.shopping
        case ("amenity", "restaurant"), ("amenity", "cafe"), ("amenity", "bar"), ("amenity", "pub"), ("amenity", "fast_food"):
            return PlaceCategory.food
        case ("amenity", "bank"): return PlaceCategory.finance
        case ("amenity", "hospital"), ("amenity", "doctors"), ("amenity", "dentist"), ("amenity", "pharmacy"):
            return PlaceCategory.medical
        case ("amenity", "school"), ("amenity", "kindergarten"), ("amenity", "library"), ("amenity", "university"):
            return PlaceCategory.education
        case ("amenity", "townhall"), ("amenity", "police"), ("amenity", "fire_station"), ("amenity", "post_office"),
             ("office", "government"), ("office", "diplomatic"):
            return PlaceCategory.publicOffice
        case ("amenity", "place_of_worship"): return PlaceCategory.worship
        case ("leisure", _): return PlaceCategory.park
        default: return PlaceCategory.poi
        }
    }

    /// Extra importance for the landmarks people take a taxi to.
    static let landmarkTags: Set<String> = ["tourism=theme_park", "shop=mall", "shop=department_store", "tourism=museum",
                                            "leisure=park", "amenity=hospital", "office=government", "amenity=townhall"]

    static func read(path: String, warnings: inout [String]) throws(CSVTable.ReadError) -> [PlaceRecord] {
        let t = try CSVTable(path: path)
        let cType = try t.column("osm_type"), cID = try t.column("osm_id"), cName = try t.column("name")
        let cKo = try t.column("name_ko"), cEn = try t.column("name_en"), cTag = try t.column("category")
        let cLat = try t.column("lat"), cLon = try t.column("lon")
        var out: [PlaceRecord] = []
        for row in t.rows {
            let tag = row[cTag]
            if skippedTags.contains(tag) { continue }
            guard let lat = NumberParsing.finiteDouble(row[cLat]), let lon = NumberParsing.finiteDouble(row[cLon]),
                  Coordinate(lon: lon, lat: lat).isValid, !row[cName].isEmpty || !row[cKo].isEmpty
            else {
                warnings.append("\(path):\(row.line): skipped: no name or valid lat/lon")
                continue
            }
            // Prefer the Korean name for display; keep the other as a search name.
            let ko = row[cKo], raw = row[cName], en = row[cEn]
            let name = !ko.isEmpty && SearchText.containsHangul(ko) ? ko : (raw.isEmpty ? ko : raw)
            var aliases: [String] = []
            for other in [raw, ko] where !other.isEmpty && other != name && !aliases.contains(other) { aliases.append(other) }
            let category = category(of: tag)
            var importance = PlaceSources.defaultImportance(category)
            if category == PlaceCategory.station { importance = 0.8 }
            if landmarkTags.contains(tag) { importance = max(importance, 0.6) }
            out.append(PlaceRecord(id: "osm:\(row[cType])/\(row[cID])", name: name, category: category, address: "",
                                   lon: lon, lat: lat, importance: importance,
                                   englishName: en.isEmpty || en == name ? nil : en, aliases: aliases,
                                   detail: tag, source: PlaceSources.osmPOIsFile))
        }
        return out
    }
}

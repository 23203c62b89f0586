// Codable conformances: a library caller can hand these results on as JSON (or any
// Coder) and read them back. Keys are snake_case, like the HTTP API's.
import Geo

extension Place: Codable {
    enum CodingKeys: String, CodingKey {
        case id = "id"
        case name = "name"
        case category = "category"
        case address = "address"
        case lon = "lon"
        case lat = "lat"
        case importance = "importance"
        case englishName = "english_name"
        case romanizedName = "romanized_name"
        case detail = "detail"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        name = try c.decode(String.self, forKey: .name)
        category = try c.decode(String.self, forKey: .category)
        address = try c.decode(String.self, forKey: .address)
        lon = try c.decode(Double.self, forKey: .lon)
        lat = try c.decode(Double.self, forKey: .lat)
        importance = try c.decode(Double.self, forKey: .importance)
        englishName = try c.decodeIfPresent(String.self, forKey: .englishName)
        romanizedName = try c.decode(String.self, forKey: .romanizedName)
        detail = try c.decode(String.self, forKey: .detail)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(category, forKey: .category)
        try c.encode(address, forKey: .address)
        try c.encode(lon, forKey: .lon)
        try c.encode(lat, forKey: .lat)
        try c.encode(importance, forKey: .importance)
        try c.encodeIfPresent(englishName, forKey: .englishName)
        try c.encode(romanizedName, forKey: .romanizedName)
        try c.encode(detail, forKey: .detail)
    }
}

extension PlaceHit: Codable {
    enum CodingKeys: String, CodingKey {
        case place = "place"
        case distanceMeters = "distance_meters"
        case score = "score"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        place = try c.decode(Place.self, forKey: .place)
        distanceMeters = try c.decodeIfPresent(Double.self, forKey: .distanceMeters)
        score = try c.decode(Double.self, forKey: .score)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(place, forKey: .place)
        try c.encodeIfPresent(distanceMeters, forKey: .distanceMeters)
        try c.encode(score, forKey: .score)
    }
}

extension PlaceSearchResult: Codable {
    enum CodingKeys: String, CodingKey {
        case places = "places"
        case nextCursor = "next_cursor"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        places = try c.decode([PlaceHit].self, forKey: .places)
        nextCursor = try c.decodeIfPresent(String.self, forKey: .nextCursor)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(places, forKey: .places)
        try c.encodeIfPresent(nextCursor, forKey: .nextCursor)
    }
}

extension Division: Codable {
    enum CodingKeys: String, CodingKey {
        case code = "code"
        case level = "level"
        case name = "name"
        case fullName = "full_name"
        case centroid = "centroid"
        case inner = "inner"
        case bbox = "bbox"
        case areaKm2 = "area_km2"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        code = try c.decode(String.self, forKey: .code)
        level = try c.decode(String.self, forKey: .level)
        name = try c.decode(String.self, forKey: .name)
        fullName = try c.decode(String.self, forKey: .fullName)
        centroid = try c.decode(Coordinate.self, forKey: .centroid)
        inner = try c.decode(Coordinate.self, forKey: .inner)
        bbox = try c.decode(BoundingBox.self, forKey: .bbox)
        areaKm2 = try c.decode(Double.self, forKey: .areaKm2)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(code, forKey: .code)
        try c.encode(level, forKey: .level)
        try c.encode(name, forKey: .name)
        try c.encode(fullName, forKey: .fullName)
        try c.encode(centroid, forKey: .centroid)
        try c.encode(inner, forKey: .inner)
        try c.encode(bbox, forKey: .bbox)
        try c.encode(areaKm2, forKey: .areaKm2)
    }
}

extension AdminArea: Codable {
    enum CodingKeys: String, CodingKey {
        case sido = "sido"
        case sigungu = "sigungu"
        case emd = "emd"
        case approximate = "approximate"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        sido = try c.decodeIfPresent(Division.self, forKey: .sido)
        sigungu = try c.decodeIfPresent(Division.self, forKey: .sigungu)
        emd = try c.decodeIfPresent(Division.self, forKey: .emd)
        approximate = try c.decode(Bool.self, forKey: .approximate)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(sido, forKey: .sido)
        try c.encodeIfPresent(sigungu, forKey: .sigungu)
        try c.encodeIfPresent(emd, forKey: .emd)
        try c.encode(approximate, forKey: .approximate)
    }
}

extension ReverseResult: Codable {
    enum CodingKeys: String, CodingKey {
        case coordinate = "coordinate"
        case area = "area"
        case nearby = "nearby"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        coordinate = try c.decode(Coordinate.self, forKey: .coordinate)
        area = try c.decodeIfPresent(AdminArea.self, forKey: .area)
        nearby = try c.decode([PlaceHit].self, forKey: .nearby)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(coordinate, forKey: .coordinate)
        try c.encodeIfPresent(area, forKey: .area)
        try c.encode(nearby, forKey: .nearby)
    }
}

import Geo

/// A named place: a legal division, a rail station, a bus stop, a named intersection, a
/// tourist site, a POI or a user's own place.
public struct Place: Sendable, Hashable {
    /// Stable identifier, prefixed by source: `div:1168010100`, `station:0222`,
    /// `bus:SEB111900059`, `node:1000007300`, `tour:…`, `osm:node/…`, `user:…`.
    public let id: String
    /// The display name in Korean (stations end in 역: "강남역").
    public let name: String
    /// One of `PlaceCategory.builtIn` or a user category.
    public let category: String
    /// A road address when the source has one, else the legal division ("서울특별시 강남구 역삼동").
    public let address: String
    public let lon: Double
    public let lat: Double
    /// 0…1: how prominent the place is; ranks stations and districts above bus stops.
    public let importance: Double
    /// The English name when a source gives one ("Seoul Station"), else nil.
    public let englishName: String?
    /// The Revised Romanization of the name ("Gangnamyeok").
    public let romanizedName: String
    /// Extra facts: the lines of a station ("2호선, 신분당선"), a bus stop's ARS number, ….
    public let detail: String

    public init(id: String, name: String, category: String, address: String, lon: Double, lat: Double,
                importance: Double, englishName: String? = nil, romanizedName: String? = nil, detail: String = "")
    {
        self.id = id
        self.name = name
        self.category = category
        self.address = address
        self.lon = lon
        self.lat = lat
        self.importance = importance
        self.englishName = englishName
        self.romanizedName = romanizedName ?? Romanization.displayForm(name)
        self.detail = detail
    }

    /// The position as a coordinate.
    public var coordinate: Coordinate { Coordinate(lon: lon, lat: lat) }
}

/// The built-in place categories. User imports may add their own (lower-case words).
public enum PlaceCategory {
    public static let sido = "sido"
    public static let sigungu = "sigungu"
    public static let emd = "emd"
    public static let ri = "ri"
    public static let station = "station"
    public static let busStop = "bus_stop"
    /// A named node of the road network: a junction (…사거리, …교차로) or the building or
    /// station it is named after.
    public static let intersection = "intersection"
    public static let tourist = "tourist"
    public static let attraction = "attraction"
    public static let shopping = "shopping"
    public static let food = "food"
    public static let hotel = "hotel"
    public static let publicOffice = "public_office"
    public static let medical = "medical"
    public static let education = "education"
    public static let park = "park"
    public static let worship = "worship"
    public static let finance = "finance"
    public static let transport = "transport"
    public static let poi = "poi"
    public static let user = "user"

    /// Every built-in category, in the order error messages list them.
    public static let builtIn: [String] = [
        sido, sigungu, emd, ri, station, busStop, intersection, tourist, attraction, shopping, food, hotel,
        publicOffice, medical, education, park, worship, finance, transport, poi, user,
    ]

    /// The legal-division categories (시도, 시군구, 읍면동, 리).
    public static let divisions: Set<String> = [sido, sigungu, emd, ri]

    /// True for a name usable as a user category: 1–32 of a–z, 0–9, `_`.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 32
            && name.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 }
    }
}

/// How results are ordered.
public enum PlaceSort: String, Sendable, CaseIterable {
    /// Best match first (name match, importance, closeness to `near`).
    case accuracy
    /// Nearest to `near` first, among the matches.
    case distance
}

/// A keyword search: text plus optional location bias, filters and paging.
public struct PlaceQuery: Sendable {
    /// Longest accepted query, in Unicode code points (as JSON Schema's maxLength counts).
    public static let maximumLength = 100
    /// Largest page.
    public static let maximumLimit = 50
    /// Largest `radiusMeters`.
    public static let maximumRadius = 20_000.0

    /// What the user typed: a name, part of one, 초성, romanised, or an address.
    public var text: String
    /// Location bias: closer places rank higher; required by `radiusMeters` and `.distance`.
    public var near: Coordinate?
    /// Only places within this many metres of `near` (1…20,000).
    public var radiusMeters: Double?
    /// Only places inside this rectangle.
    public var rect: BoundingBox?
    /// Only places of this category.
    public var category: String?
    public var sort: PlaceSort
    /// Page size, 1…50.
    public var limit: Int
    /// The `nextCursor` of the previous page, or nil for the first page.
    public var cursor: String?

    public init(text: String, near: Coordinate? = nil, radiusMeters: Double? = nil, rect: BoundingBox? = nil,
                category: String? = nil, sort: PlaceSort = .accuracy, limit: Int = 15, cursor: String? = nil)
    {
        self.text = text
        self.near = near
        self.radiusMeters = radiusMeters
        self.rect = rect
        self.category = category
        self.sort = sort
        self.limit = limit
        self.cursor = cursor
    }
}

/// One search result: the place, how far it is from `near` and its score.
public struct PlaceHit: Sendable {
    public let place: Place
    /// Metres from the query's `near`, when given (or from the reverse-geocoded point).
    public let distanceMeters: Double?
    /// The ranking score (higher is better); comparable only within one answer.
    public let score: Double
    /// For an address answer (category `address`): how much of it is known; nil for places.
    public var precision: AddressPrecision? = nil
}

/// One page of results.
public struct PlaceSearchResult: Sendable {
    public let places: [PlaceHit]
    /// Pass as `PlaceQuery.cursor` for the next page; nil on the last page.
    public let nextCursor: String?
}

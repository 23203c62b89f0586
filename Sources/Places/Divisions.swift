import CSV
import Geo

/// A legal division (법정구역): 시도, 시군구, 읍면동 or 리, with its centroid, a point surely
/// inside it and its bounding box.
public struct Division: Sendable, Hashable {
    /// The legal code: 2 digits (시도), 5 (시군구), 8 (읍면동) or 10 (리); a prefix of its children's.
    public let code: String
    /// "sido", "sigungu", "emd" or "ri" (the place categories of the same names).
    public let level: String
    /// The division's own name ("역삼동", "수원시 장안구").
    public let name: String
    /// The whole hierarchy, space-joined ("서울특별시 강남구 역삼동").
    public let fullName: String
    public let centroid: Coordinate
    /// A representative point inside the polygon (better than the centroid for crescents).
    public let inner: Coordinate
    public let bbox: BoundingBox
    /// Approximate area in km².
    public let areaKm2: Double

    public init(code: String, level: String, name: String, fullName: String, centroid: Coordinate,
                inner: Coordinate, bbox: BoundingBox, areaKm2: Double)
    {
        self.code = code
        self.level = level
        self.name = name
        self.fullName = fullName
        self.centroid = centroid
        self.inner = inner
        self.bbox = bbox
        self.areaKm2 = areaKm2
    }
}

/// The 17 시도: codes, names, the short forms people write, and the region ids the fares
/// engine uses.
public enum KoreanProvinces {
    /// One 시도.
    public struct Province: Sendable {
        public let code: String
        public let name: String
        /// Lower-case ASCII id: "seoul", "busan", "incheon", "gyeonggi", ….
        public let id: String
        /// Short forms ("서울", "서울시"), as written in addresses.
        public let shortNames: [String]
    }

    public static let all: [Province] = [
        Province(code: "11", name: "서울특별시", id: "seoul", shortNames: ["서울", "서울시"]),
        Province(code: "26", name: "부산광역시", id: "busan", shortNames: ["부산", "부산시"]),
        Province(code: "27", name: "대구광역시", id: "daegu", shortNames: ["대구", "대구시"]),
        Province(code: "28", name: "인천광역시", id: "incheon", shortNames: ["인천", "인천시"]),
        Province(code: "29", name: "광주광역시", id: "gwangju", shortNames: ["광주", "광주시"]),
        Province(code: "30", name: "대전광역시", id: "daejeon", shortNames: ["대전", "대전시"]),
        Province(code: "31", name: "울산광역시", id: "ulsan", shortNames: ["울산", "울산시"]),
        Province(code: "36", name: "세종특별자치시", id: "sejong", shortNames: ["세종", "세종시"]),
        Province(code: "41", name: "경기도", id: "gyeonggi", shortNames: ["경기"]),
        Province(code: "42", name: "강원특별자치도", id: "gangwon", shortNames: ["강원", "강원도"]),
        Province(code: "43", name: "충청북도", id: "chungbuk", shortNames: ["충북"]),
        Province(code: "44", name: "충청남도", id: "chungnam", shortNames: ["충남"]),
        Province(code: "45", name: "전라북도", id: "jeonbuk", shortNames: ["전북", "전북특별자치도"]),
        Province(code: "46", name: "전라남도", id: "jeonnam", shortNames: ["전남"]),
        Province(code: "47", name: "경상북도", id: "gyeongbuk", shortNames: ["경북"]),
        Province(code: "48", name: "경상남도", id: "gyeongnam", shortNames: ["경남"]),
        Province(code: "50", name: "제주특별자치도", id: "jeju", shortNames: ["제주", "제주도"]),
    ]

    /// The province with this 2-digit code.
    public static func byCode(_ code: some StringProtocol) -> Province? {
        all.first { $0.code == code.prefix(2) }
    }

    /// The province with this id.
    public static func byID(_ id: String) -> Province? { all.first { $0.id == id } }
}

/// Reads `kr_legal_divisions_centroids.csv`.
package enum DivisionSource {
    /// Cities whose 구 the source lists without the city (고양시 덕양구 appears as "덕양구").
    package static let cityOfDistrict: [String: String] = [
        "41281": "고양시", "41285": "고양시", "41287": "고양시",
        "41461": "용인시", "41463": "용인시", "41465": "용인시",
    ]

    /// 시도 codes of the metropolitan cities (특별시, 광역시): their 구 have no city in between.
    static let metropolitanCodes: Set<String> = ["11", "26", "27", "28", "29", "30", "31"]

    /// The display name of a 시군구 as the source writes it: "수원시장안구" → "수원시 장안구",
    /// "덕양구" (code 41281) → "고양시 덕양구", "서울시노원구" (code 11350: the source repeats the
    /// 시도 for 성북구, 도봉구 and 노원구) → "노원구".
    package static func sigunguName(_ raw: String, code: String) -> String {
        if let city = cityOfDistrict[code] { return "\(city) \(raw)" }
        let chars = Array(raw)
        if raw.hasSuffix("구"), let si = chars.firstIndex(of: "시"), si > 0, si < chars.count - 2 {
            let district = String(chars[(si + 1)...])
            return metropolitanCodes.contains(String(code.prefix(2))) ? district : String(chars[...si]) + " " + district
        }
        return raw
    }

    package static func read(path: String, warnings: inout [String]) throws(CSVTable.ReadError) -> [Division] {
        let t = try CSVTable(path: path)
        let cLevel = try t.column("level"), cCode = try t.column("code"), cName = try t.column("name")
        let cSido = try t.column("sido"), cSigungu = try t.column("sigungu"), cEmd = try t.column("emd")
        let cRi = try t.column("ri"), cLat = try t.column("lat"), cLon = try t.column("lon")
        let cInLat = try t.column("inner_lat"), cInLon = try t.column("inner_lon")
        let cMinLat = try t.column("min_lat"), cMinLon = try t.column("min_lon")
        let cMaxLat = try t.column("max_lat"), cMaxLon = try t.column("max_lon"), cArea = try t.column("area_km2")
        var out: [Division] = []
        out.reserveCapacity(t.rows.count)
        for row in t.rows {
            let level = row[cLevel], code = row[cCode], rawName = row[cName]
            guard ["sido", "sigungu", "emd", "ri"].contains(level), !code.isEmpty, code.allSatisfy(\.isNumber) else {
                throw CSVTable.ReadError(message: "\(path):\(row.line): expected level sido|sigungu|emd|ri and a numeric code")
            }
            guard !rawName.isEmpty else {
                warnings.append("\(path):\(row.line): skipped \(level) \(code): no name")
                continue
            }
            func number(_ c: Int) throws(CSVTable.ReadError) -> Double {
                guard let v = NumberParsing.finiteDouble(row[c]) else {
                    throw CSVTable.ReadError(message: "\(path):\(row.line): column '\(t.header[c])' is not a number: '\(row[c])'")
                }
                return v
            }
            let sigunguCode = String(code.prefix(5))
            var parts = [row[cSido]]
            if !row[cSigungu].isEmpty { parts.append(sigunguName(row[cSigungu], code: sigunguCode)) }
            if !row[cEmd].isEmpty { parts.append(row[cEmd]) }
            if !row[cRi].isEmpty { parts.append(row[cRi]) }
            let name = level == "sigungu" ? sigunguName(rawName, code: sigunguCode) : rawName
            let centroid = Coordinate(lon: try number(cLon), lat: try number(cLat))
            let inner = Coordinate(lon: try number(cInLon), lat: try number(cInLat))
            let bbox = BoundingBox(west: try number(cMinLon), south: try number(cMinLat),
                                   east: try number(cMaxLon), north: try number(cMaxLat))
            guard centroid.isValid, inner.isValid, bbox.isValid else {
                throw CSVTable.ReadError(message: "\(path):\(row.line): coordinates out of range")
            }
            out.append(Division(code: code, level: level, name: name, fullName: parts.filter { !$0.isEmpty }.joined(separator: " "),
                                centroid: centroid, inner: inner, bbox: bbox, areaKm2: try number(cArea)))
        }
        return out
    }
}

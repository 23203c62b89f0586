import Geo

/// A fatal batch failure: nothing (or nothing more) can be done. Exit code 1.
public struct BatchError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { message }
    public init(_ message: String) { self.message = message }
}

/// Where each known column sits in the input header.
///
/// Names are matched case-insensitively after trimming spaces. Trip ends come either from
/// coordinates (`origin_lon, origin_lat, dest_lon, dest_lat`) or from place text (`origin`,
/// `destination`); when a file has both, a row uses the coordinates when they are filled in
/// and the text otherwise. Optional: `depart_at`, `riders`, `taxi_class`, `split`.
public struct BatchSchema: Sendable, Equatable {
    /// The header as read; the output repeats it.
    public let inputColumns: [String]
    public let originLon: Int?
    public let originLat: Int?
    public let destLon: Int?
    public let destLat: Int?
    public let originPlace: Int?
    public let destinationPlace: Int?
    public let departAt: Int?
    public let riders: Int?
    public let taxiClass: Int?
    public let split: Int?

    /// The columns the output adds after the input columns.
    public static let resultColumns = ["distance_m", "duration_s", "fare_krw", "per_person_krw",
                                       "night_krw", "schedule"] + errorColumns
    /// The last columns: a failed row's code and message apart (for filtering in pandas or a
    /// spreadsheet), then both as `code: message` in `error` (the column older readers know).
    public static let errorColumns = ["error_code", "error_message", "error"]
    /// The column `taxipot batch` ends each row with (`BatchOptions.rowCheck`).
    public static let rowCheckColumn = "row_check"

    /// The known columns, by their English name.
    public static let knownColumns = ["origin_lon", "origin_lat", "dest_lon", "dest_lat", "origin", "destination",
                                      "depart_at", "riders", "taxi_class", "split"]

    /// The usual Korean headers of each known column (compared without spaces, as `출발지경도`).
    public static let koreanHeaders: [String: [String]] = [
        "origin_lon": ["출발지 경도", "출발 경도", "승차 경도", "승차지 경도", "출발지 x", "출발 x"],
        "origin_lat": ["출발지 위도", "출발 위도", "승차 위도", "승차지 위도", "출발지 y", "출발 y"],
        "dest_lon": ["도착지 경도", "도착 경도", "목적지 경도", "하차 경도", "하차지 경도", "도착지 x", "도착 x"],
        "dest_lat": ["도착지 위도", "도착 위도", "목적지 위도", "하차 위도", "하차지 위도", "도착지 y", "도착 y"],
        "origin": ["출발지", "출발", "출발지명", "승차지", "출발 장소"],
        "destination": ["도착지", "도착", "도착지명", "목적지", "하차지", "도착 장소"],
        "depart_at": ["출발시각", "출발 시각", "출발시간", "출발 시간", "출발일시", "출발 일시"],
        "riders": ["인원", "인원수", "승객수", "탑승인원", "탑승 인원"],
        "taxi_class": ["차종", "택시 종류", "택시종류"],
        "split": ["분담", "분담 방식", "정산 방식"],
    ]

    /// A header name as compared: trimmed, lower case, spaces dropped.
    static func key<S: StringProtocol>(_ name: S) -> String {
        String(name.trimmingSpaces()).lowercased().filter { $0 != " " }
    }

    /// Every accepted header (compared form) → its English name.
    static let aliases: [String: String] = {
        var map: [String: String] = [:]
        for name in knownColumns { map[key(name)] = name }
        for (name, korean) in koreanHeaders { for k in korean { map[key(k)] = name } }
        return map
    }()

    /// The option that names each known column's header (`--origin-lon-col` …).
    public static func optionName(_ column: String) -> String {
        column == "destination" ? "dest-col" : column.replacingOccurrences(of: "_", with: "-") + "-col"
    }

    /// Reads the header; throws naming every missing required column, or a duplicated known one.
    ///
    /// Columns are found by their English name or a usual Korean header (`출발지 경도`, `도착지`,
    /// `인원`, `출발시각` …); `chosen` maps an English name to the header that holds it (the
    /// `--origin-lon-col` … options), which then wins over any name match.
    public init(header: [String], chosen: [String: String] = [:]) throws {
        inputColumns = header
        var index: [String: Int] = [:]
        var duplicates: [String] = []
        for (name, wanted) in chosen.sorted(by: { $0.key < $1.key }) {
            guard let i = header.firstIndex(where: { Self.key($0) == Self.key(wanted) }) else {
                let found = header.prefix(30).map { "'\(RowParser.excerpt($0))'" }.joined(separator: ", ")
                throw BatchError("option --\(Self.optionName(name)): the header has no column '\(RowParser.excerpt(wanted))' (it has \(found))")
            }
            index[name] = i
        }
        let taken = Set(index.values)
        for (i, raw) in header.enumerated() where !taken.contains(i) {
            guard let name = Self.aliases[Self.key(raw)], chosen[name] == nil else { continue }
            if index[name] != nil { duplicates.append(name) } else { index[name] = i }
        }
        if !duplicates.isEmpty {
            throw BatchError("the header names these columns more than once: \(duplicates.joined(separator: ", ")) "
                + "(pick one with --\(Self.optionName(duplicates[0])))")
        }
        originLon = index["origin_lon"]
        originLat = index["origin_lat"]
        destLon = index["dest_lon"]
        destLat = index["dest_lat"]
        originPlace = index["origin"]
        destinationPlace = index["destination"]
        departAt = index["depart_at"]
        riders = index["riders"]
        taxiClass = index["taxi_class"]
        split = index["split"]

        var missing: [String] = []
        func require(_ lonName: String, _ lon: Int?, _ latName: String, _ lat: Int?, _ placeName: String, _ place: Int?) {
            if place != nil {
                // Text is enough; a half pair of coordinates would be silently unused, so refuse it.
                if (lon == nil) != (lat == nil) { missing.append(lon == nil ? lonName : latName) }
                return
            }
            var pair: [String] = []
            if lon == nil { pair.append(lonName) }
            if lat == nil { pair.append(latName) }
            if !pair.isEmpty { missing.append("\(pair.joined(separator: " and ")) (or \(placeName))") }
        }
        require("origin_lon", originLon, "origin_lat", originLat, "origin", originPlace)
        require("dest_lon", destLon, "dest_lat", destLat, "destination", destinationPlace)
        if !missing.isEmpty {
            let found = header.isEmpty ? "none" : header.prefix(30).map { "'\(RowParser.excerpt($0))'" }.joined(separator: ", ") + (header.count > 30 ? ", …" : "")
            throw BatchError("missing required column\(missing.count > 1 ? "s" : ""): \(missing.joined(separator: "; ")) (the header has \(found))")
        }
    }

    /// True when some rows may need geocoding (the file has a place-text column).
    public var usesPlaceText: Bool { originPlace != nil || destinationPlace != nil }

    /// The output header: the input columns, then the result columns.
    public var outputColumns: [String] { inputColumns + Self.resultColumns }

    /// The columns `--estimate` adds before the error columns.
    public static let estimateColumns = ["estimated", "fare_low_krw", "fare_high_krw"]

    /// The output header with the estimate columns (`--estimate`) or without.
    public func outputColumns(withEstimates: Bool) -> [String] {
        withEstimates ? inputColumns + Self.resultColumns.dropLast(Self.errorColumns.count) + Self.estimateColumns + Self.errorColumns
            : outputColumns
    }

    /// The columns `--place-columns` adds before `error`: for each trip end read from place text,
    /// the place the text was taken to be (name, lon, lat).
    public var placeColumns: [String] {
        (originPlace != nil ? ["origin_place", "origin_place_lon", "origin_place_lat"] : [])
            + (destinationPlace != nil ? ["dest_place", "dest_place_lon", "dest_place_lat"] : [])
    }

    /// The output header: the input columns, the result columns, the estimate columns
    /// (`--estimate`) and the place columns (`--place-columns`) when asked, then `error`.
    public func outputColumns(withEstimates: Bool, withPlaces: Bool) -> [String] {
        outputColumns(withEstimates: withEstimates).dropLast(Self.errorColumns.count) + (withPlaces ? placeColumns : []) + Self.errorColumns
    }

    /// Input columns that clash with a result column's name (they are kept; the output repeats the name).
    public var clashingColumns: [String] {
        inputColumns.filter { Self.resultColumns.contains(String($0.trimmingSpaces()).lowercased()) }
    }
}

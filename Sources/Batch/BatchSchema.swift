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
                                       "night_krw", "schedule", "error"]

    /// Reads the header; throws naming every missing required column, or a duplicated known one.
    public init(header: [String]) throws {
        inputColumns = header
        var index: [String: Int] = [:]
        var duplicates: [String] = []
        let known: Set<String> = ["origin_lon", "origin_lat", "dest_lon", "dest_lat", "origin", "destination",
                                  "depart_at", "riders", "taxi_class", "split"]
        for (i, raw) in header.enumerated() {
            let name = String(raw.trimmingSpaces()).lowercased()
            guard known.contains(name) else { continue }
            if index[name] != nil { duplicates.append(name) } else { index[name] = i }
        }
        if !duplicates.isEmpty {
            throw BatchError("the header names these columns more than once: \(duplicates.joined(separator: ", "))")
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

    /// The columns `--estimate` adds before `error`.
    public static let estimateColumns = ["estimated", "fare_low_krw", "fare_high_krw"]

    /// The output header with the estimate columns (`--estimate`) or without.
    public func outputColumns(withEstimates: Bool) -> [String] {
        withEstimates ? inputColumns + Self.resultColumns.dropLast() + Self.estimateColumns + ["error"] : outputColumns
    }

    /// Input columns that clash with a result column's name (they are kept; the output repeats the name).
    public var clashingColumns: [String] {
        inputColumns.filter { Self.resultColumns.contains(String($0.trimmingSpaces()).lowercased()) }
    }
}

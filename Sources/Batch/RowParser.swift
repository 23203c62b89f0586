import CSV
import Geo

/// Turns one CSV record into a `TripRequest`, or the row's error naming the field.
public struct RowParser: Sendable {
    public let schema: BatchSchema
    /// The departure used when a row has no `depart_at` (the run's start, by default).
    public let defaultDepartAt: Double

    /// The largest number of riders one taxi takes.
    public static let maxRiders = 10

    public init(schema: BatchSchema, defaultDepartAt: Double) {
        self.schema = schema
        self.defaultDepartAt = defaultDepartAt
    }

    /// The request for `record`, or why the row cannot be estimated.
    public func parse(_ record: CSVRecord) -> Result<TripRequest, RowError> {
        let f = record.fields
        if let limit = record.exceededLimit {
            return .failure(RowError(.recordTooLong, "the record starting on line \(record.line) is longer than \(limit) bytes "
                + "(the limit for one record); it was skipped"))
        }
        if let i = record.firstInvalidField {
            let column = i < schema.inputColumns.count ? "column '\(Self.excerpt(schema.inputColumns[i]))'" : "field \(i + 1)"
            return .failure(RowError(.badEncoding, "\(column) holds bytes that are not valid text in the input encoding (written as \u{FFFD})"))
        }
        if f.count != schema.inputColumns.count {
            return .failure(RowError(.badFieldCount, "the row has \(f.count) field\(f.count == 1 ? "" : "s"), the header has \(schema.inputColumns.count)"))
        }
        do {
            let origin = try endpoint(f, lon: (schema.originLon, "origin_lon"), lat: (schema.originLat, "origin_lat"),
                                      place: (schema.originPlace, "origin"))
            let destination = try endpoint(f, lon: (schema.destLon, "dest_lon"), lat: (schema.destLat, "dest_lat"),
                                           place: (schema.destinationPlace, "destination"))
            var departAt = defaultDepartAt
            if let text = value(f, schema.departAt), !text.isEmpty {
                guard let t = SpreadsheetValues.instant(String(text)) else {
                    throw RowError(.badDate, "depart_at '\(Self.excerpt(text))' is not a date-time: ISO 8601 (2024-05-01T22:30:00+09:00), "
                        + "Excel's Korean forms (2024-05-01 오후 10:30:00, 2024. 5. 1. 22:30, 2024/05/01 22:30) or Unix seconds")
                }
                departAt = t
            }
            var riders = 1
            if let text = value(f, schema.riders), !text.isEmpty {
                guard let n = SpreadsheetValues.wholeNumber(text), (1...Self.maxRiders).contains(n) else {
                    throw RowError(.badRiders, "riders '\(Self.excerpt(text))' is not a whole number from 1 to \(Self.maxRiders)")
                }
                riders = n
            }
            let taxiClass = value(f, schema.taxiClass).map { $0.isEmpty ? "mid" : String($0).lowercased() } ?? "mid"
            let split = value(f, schema.split).map { $0.isEmpty ? "equal" : String($0).lowercased() } ?? "equal"
            return .success(TripRequest(origin: origin, destination: destination, departAt: departAt, riders: riders,
                                        taxiClass: taxiClass, split: split, line: record.line))
        } catch let e as RowError {
            return .failure(e)
        } catch {
            return .failure(RowError(.estimateFailed, "\(error)"))
        }
    }

    /// The trimmed field at `index`, nil when the column is absent.
    private func value(_ fields: [String], _ index: Int?) -> Substring? {
        guard let i = index else { return nil }
        let text = fields[i]
        let edges = (text.utf8.first, text.utf8.last)
        if edges.0 != 0x20, edges.0 != 0x09, edges.1 != 0x20, edges.1 != 0x09 { return Substring(text) }
        return text.trimmingSpaces()
    }

    /// A trip end: the coordinates when the row fills them in, else the place text.
    private func endpoint(_ f: [String], lon: (Int?, String), lat: (Int?, String), place: (Int?, String)) throws -> TripEndpoint {
        let lonText = value(f, lon.0)
        let latText = value(f, lat.0)
        let placeText = value(f, place.0)
        let hasCoordinates = lon.0 != nil && lat.0 != nil
        let coordinatesEmpty = (lonText ?? "").isEmpty && (latText ?? "").isEmpty
        if let text = placeText, !text.isEmpty, !hasCoordinates || coordinatesEmpty {
            if let c = Coordinate.parse(text) { return .coordinate(c) }
            return .place(String(text))
        }
        guard hasCoordinates else {
            throw RowError(.emptyField, "\(place.1) is empty")
        }
        if coordinatesEmpty, place.0 != nil {
            throw RowError(.emptyField, "\(lon.1), \(lat.1) and \(place.1) are all empty")
        }
        let x = try number(lonText ?? "", name: lon.1)
        let y = try number(latText ?? "", name: lat.1)
        guard abs(y) <= 90 else {
            let hint = abs(x) <= 90 ? " (are \(lon.1) and \(lat.1) swapped?)" : ""
            throw RowError(.outOfRange, "\(lat.1) \(Self.excerpt(latText ?? "")) is outside -90…90\(hint)")
        }
        guard abs(x) <= 180 else {
            throw RowError(.outOfRange, "\(lon.1) \(Self.excerpt(lonText ?? "")) is outside -180…180")
        }
        return .coordinate(Coordinate(lon: x, lat: y))
    }

    private func number(_ text: Substring, name: String) throws -> Double {
        guard !text.isEmpty else { throw RowError(.emptyField, "\(name) is empty") }
        guard let v = NumberParsing.finiteDouble(text) else {
            throw RowError(.notANumber, "\(name) '\(Self.excerpt(text))' is not a number")
        }
        return v
    }

    /// At most 40 characters of a field, escaped (no control character), for messages.
    static func excerpt<S: StringProtocol>(_ text: S) -> String {
        Escaped.excerpt(text, limit: 40)
    }
}

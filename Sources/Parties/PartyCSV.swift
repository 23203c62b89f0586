import CSV
import Geo
import PartyModel

/// Parties as CSV rows, for bulk loading (`taxipot parties import`).
///
/// Columns, in order: `id,origin_lon,origin_lat,dest_lon,dest_lat,depart_at,seats_total,seats_taken[,title]`.
/// `depart_at` is ISO 8601 (no offset means Asia/Seoul) or Unix seconds. Fields may be quoted
/// RFC 4180 style (`"…"`, `""` for a quote), read by the CSV module. A first row whose first field
/// is `id` is a header.
public enum PartyCSV {
    /// The column names, in order (`title` optional).
    public static let columns = ["id", "origin_lon", "origin_lat", "dest_lon", "dest_lat", "depart_at", "seats_total", "seats_taken", "title"]

    /// True when `fields` is the header row (its first field is `id`).
    public static func isHeader(_ fields: [String]) -> Bool {
        fields.first.map { $0.trimmingSpaces().lowercased() == "id" } ?? false
    }

    /// The party one CSV line describes (parsed by `CSVReader`), or why it does not describe one.
    public static func party(_ line: Substring) -> Result<Party, PartyCSVError> {
        let reader = CSVReader(source: MemorySource(Array(line.utf8)))
        do {
            guard let record = try reader.next() else { return .failure(PartyCSVError("the row is empty")) }
            return party(fields: record.fields)
        } catch {
            return .failure(PartyCSVError("\(error)"))
        }
    }

    /// The party a row's fields describe, or why they do not describe one (naming the column).
    public static func party(fields: [String]) -> Result<Party, PartyCSVError> {
        guard fields.count == 8 || fields.count == 9 else {
            return .failure(PartyCSVError("expected 8 or 9 columns (\(columns.joined(separator: ","))), got \(fields.count)"))
        }
        var numbers = [Double]()
        for k in 1...4 {
            guard let v = NumberParsing.finiteDouble(fields[k].trimmingSpaces()) else {
                return .failure(PartyCSVError("\(columns[k]) must be a number, got '\(fields[k].prefix(40))'"))
            }
            numbers.append(v)
        }
        let departText = String(fields[5].trimmingSpaces())
        guard let departAt = NumberParsing.finiteDouble(departText) ?? SeoulTime.parse(departText) else {
            return .failure(PartyCSVError("depart_at must be ISO 8601 or Unix seconds, got '\(departText.prefix(40))'"))
        }
        guard let total = Int(fields[6].trimmingSpaces()) else {
            return .failure(PartyCSVError("seats_total must be a whole number, got '\(fields[6].prefix(40))'"))
        }
        guard let taken = Int(fields[7].trimmingSpaces()) else {
            return .failure(PartyCSVError("seats_taken must be a whole number, got '\(fields[7].prefix(40))'"))
        }
        let title = fields.count == 9 && !fields[8].isEmpty ? fields[8] : nil
        let p = Party(id: String(fields[0].trimmingSpaces()), origin: Coordinate(lon: numbers[0], lat: numbers[1]),
                      destination: Coordinate(lon: numbers[2], lat: numbers[3]), departAt: departAt,
                      seatsTotal: total, seatsTaken: taken, title: title)
        do {
            try p.validate()
        } catch {
            return .failure(PartyCSVError(error.description))
        }
        return .success(p)
    }

    /// A row of `party` (the inverse of `party(_:)`).
    public static func row(_ p: Party) -> String {
        var s = "\(p.id),\(p.origin.lon),\(p.origin.lat),\(p.destination.lon),\(p.destination.lat),\(SeoulTime.format(p.departAt)),\(p.seatsTotal),\(p.seatsTaken)"
        if let t = p.title { s += ",\"" + t.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        return s
    }
}

/// Why a CSV row is not a party.
public struct PartyCSVError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

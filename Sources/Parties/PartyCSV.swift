import Geo

/// Parties as CSV rows, for bulk loading (`taxipot parties import`).
///
/// Columns, in order: `id,origin_lon,origin_lat,dest_lon,dest_lat,depart_at,seats_total,seats_taken[,title]`.
/// `depart_at` is ISO 8601 (no offset means Asia/Seoul) or Unix seconds. Fields may be quoted
/// RFC 4180 style (`"…"`, `""` for a quote). A first line starting with `id,` is a header.
public enum PartyCSV {
    /// The column names, in order (`title` optional).
    public static let columns = ["id", "origin_lon", "origin_lat", "dest_lon", "dest_lat", "depart_at", "seats_total", "seats_taken", "title"]

    /// True when `line` is the header row.
    public static func isHeader(_ line: Substring) -> Bool { line.hasPrefix("id,") }

    /// The party a row describes, or why it does not describe one (naming the column).
    public static func party(_ line: Substring) -> Result<Party, PartyCSVError> {
        guard let fields = split(line) else { return .failure(PartyCSVError("a quoted field is not closed")) }
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

    /// True when `text` ends inside a quoted field (the row continues on the next line).
    public static func isOpen<S: StringProtocol>(_ text: S) -> Bool {
        var open = false
        for c in text.utf8 where c == 0x22 { open.toggle() }
        return open
    }

    /// The fields of a row; nil when a quote is not closed.
    static func split(_ line: Substring) -> [String]? {
        var fields = [String]()
        var field = ""
        var quoted = false
        var i = line.startIndex
        var atFieldStart = true
        while i < line.endIndex {
            let c = line[i]
            if quoted {
                if c == "\"" {
                    let next = line.index(after: i)
                    if next < line.endIndex && line[next] == "\"" {
                        field.append("\"")
                        i = line.index(after: next)
                        continue
                    }
                    quoted = false
                } else {
                    field.append(c)
                }
            } else if c == "," {
                fields.append(field)
                field = ""
                atFieldStart = true
                i = line.index(after: i)
                continue
            } else if c == "\"" && atFieldStart {
                quoted = true
            } else if c != "\r" {
                field.append(c)
            }
            atFieldStart = false
            i = line.index(after: i)
        }
        guard !quoted else { return nil }
        fields.append(field)
        return fields
    }
}

/// Why a CSV row is not a party.
public struct PartyCSVError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

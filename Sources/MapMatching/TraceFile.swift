import CSV
import Foundation
import Geo

/// A trace read from a file: CSV (header `lon,lat` with optional `time` and `accuracy` columns;
/// time as Unix seconds or ISO 8601) or GPX 1.0/1.1 (`<trkpt lat lon>` with optional `<time>`).
///
/// GPX is read by a small strict reader of the `trkpt` elements rather than Foundation's
/// XMLParser: on Linux that parser lives in FoundationXML, which links libxml2 at run time (a
/// dependency the static release binary does not carry) for a format this narrow.
public enum TraceFile {
    public struct ReadError: Error, Sendable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// The fixes of the file at `path` (GPX when it ends in `.gpx` or starts with `<`).
    public static func read(path: String) throws(ReadError) -> [TraceFix] {
        guard let data = FileManager.default.contents(atPath: path) else { throw ReadError(message: "\(path): cannot be read") }
        return try read(bytes: [UInt8](data), path: path)
    }

    public static func read(bytes: [UInt8], path: String) throws(ReadError) -> [TraceFix] {
        let firstByte = bytes.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 && $0 != 0xEF && $0 != 0xBB && $0 != 0xBF }
        if path.lowercased().hasSuffix(".gpx") || firstByte == UInt8(ascii: "<") { return try gpx(bytes, path: path) }
        return try csv(bytes, path: path)
    }

    static func time(_ text: String) -> Double? {
        if let v = NumberParsing.finiteDouble(text) { return v }
        return SeoulTime.parse(text)
    }

    static func csv(_ bytes: [UInt8], path: String) throws(ReadError) -> [TraceFix] {
        let table: CSVTable
        do throws(CSVTable.ReadError) { table = try CSVTable(bytes: bytes, path: path) } catch { throw ReadError(message: error.message) }
        let lon: Int, lat: Int
        do throws(CSVTable.ReadError) { lon = try table.column("lon"); lat = try table.column("lat") } catch { throw ReadError(message: error.message) }
        let t = table.optionalColumn("time"), acc = table.optionalColumn("accuracy")
        var out: [TraceFix] = []
        for row in table.rows {
            func field(_ i: Int) -> String { i < row.fields.count ? row.fields[i].trimmingCharacters(in: .whitespaces) : "" }
            guard let x = NumberParsing.finiteDouble(field(lon)), let y = NumberParsing.finiteDouble(field(lat)) else {
                throw ReadError(message: "\(path):\(row.line): lon and lat must be numbers, got '\(field(lon).prefix(30))','\(field(lat).prefix(30))'")
            }
            var fix = TraceFix(Coordinate(lon: x, lat: y))
            if let t, !field(t).isEmpty {
                guard let v = time(field(t)) else { throw ReadError(message: "\(path):\(row.line): time must be Unix seconds or ISO 8601, got '\(field(t).prefix(40))'") }
                fix.time = v
            }
            if let acc, !field(acc).isEmpty {
                guard let v = NumberParsing.finiteDouble(field(acc)) else { throw ReadError(message: "\(path):\(row.line): accuracy must be metres, got '\(field(acc).prefix(30))'") }
                fix.accuracyMeters = v
            }
            out.append(fix)
        }
        return out
    }

    /// The `trkpt` elements in document order: `lat` and `lon` attributes required, `<time>`
    /// and `<hdop>`-free. Anything that is not well-formed around them is an error naming the line.
    static func gpx(_ bytes: [UInt8], path: String) throws(ReadError) -> [TraceFix] {
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.contains("<gpx") else { throw ReadError(message: "\(path): not a GPX document (no <gpx> element)") }
        var out: [TraceFix] = []
        var rest = text[...]
        func line(_ at: Substring.Index) -> Int { text[..<at].reduce(1) { $1 == "\n" ? $0 + 1 : $0 } }
        while let open = rest.range(of: "<trkpt") {
            guard let tagEnd = rest[open.upperBound...].firstIndex(of: ">") else { throw ReadError(message: "\(path):\(line(open.lowerBound)): <trkpt> not closed") }
            let attributes = rest[open.upperBound..<tagEnd]
            func attribute(_ name: String) -> Double? {
                for quote in ["\"", "'"] {
                    if let r = attributes.range(of: " \(name)=\(quote)"), let end = attributes[r.upperBound...].range(of: quote) {
                        return NumberParsing.finiteDouble(String(attributes[r.upperBound..<end.lowerBound]))
                    }
                }
                return nil
            }
            guard let lat = attribute("lat"), let lon = attribute("lon") else {
                throw ReadError(message: "\(path):\(line(open.lowerBound)): <trkpt> needs numeric lat and lon attributes")
            }
            var fix = TraceFix(Coordinate(lon: lon, lat: lat))
            var next = rest.index(after: tagEnd)
            if attributes.last != "/" {
                guard let close = rest[next...].range(of: "</trkpt>") else { throw ReadError(message: "\(path):\(line(open.lowerBound)): <trkpt> has no </trkpt>") }
                let body = rest[next..<close.lowerBound]
                if let t0 = body.range(of: "<time>") {
                    guard let t1 = body[t0.upperBound...].range(of: "</time>"), let t = time(String(body[t0.upperBound..<t1.lowerBound]).trimmingCharacters(in: .whitespacesAndNewlines)) else {
                        throw ReadError(message: "\(path):\(line(t0.lowerBound)): <time> must be ISO 8601")
                    }
                    fix.time = t
                }
                next = close.upperBound
            }
            out.append(fix)
            rest = rest[next...]
        }
        return out
    }
}

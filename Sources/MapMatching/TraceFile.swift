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

    /// The fixes of the file at `path` (GPX when it ends in `.gpx` or starts with `<`); a
    /// file of more than `maxFixes` is refused, naming the limit (a GPX file as soon as its
    /// fix `maxFixes + 1` is found: the rest is not read).
    public static func read(path: String, maxFixes: Int = MatchOptions.maxFixes) throws(ReadError) -> [TraceFix] {
        guard let data = FileManager.default.contents(atPath: path) else { throw ReadError(message: "\(path): cannot be read") }
        return try read(bytes: [UInt8](data), path: path, maxFixes: maxFixes)
    }

    public static func read(bytes: [UInt8], path: String, maxFixes: Int = MatchOptions.maxFixes) throws(ReadError) -> [TraceFix] {
        let firstByte = bytes.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 && $0 != 0xEF && $0 != 0xBB && $0 != 0xBF }
        if path.lowercased().hasSuffix(".gpx") || firstByte == UInt8(ascii: "<") { return try gpx(bytes, path: path, maxFixes: maxFixes) }
        return try csv(bytes, path: path, maxFixes: maxFixes)
    }

    /// The refusal of a trace with more than `limit` fixes, at `place` (`path:line`).
    static func tooMany(_ place: String, limit: Int) -> ReadError {
        ReadError(message: "\(place): the trace has more than \(limit) fixes, the most one may hold; split it")
    }

    static func time(_ text: String) -> Double? {
        if let v = NumberParsing.finiteDouble(text) { return v }
        return SeoulTime.parse(text)
    }

    static func csv(_ bytes: [UInt8], path: String, maxFixes: Int) throws(ReadError) -> [TraceFix] {
        let table: CSVTable
        do throws(CSVTable.ReadError) { table = try CSVTable(bytes: bytes, path: path) } catch { throw ReadError(message: error.message) }
        let lon: Int, lat: Int
        do throws(CSVTable.ReadError) { lon = try table.column("lon"); lat = try table.column("lat") } catch { throw ReadError(message: error.message) }
        let t = table.optionalColumn("time"), acc = table.optionalColumn("accuracy")
        if table.rows.count > maxFixes { throw tooMany("\(path):\(table.rows[maxFixes].line)", limit: maxFixes) }
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
    /// One pass over the bytes (each search starts where the last one ended); lines are counted
    /// only for an error.
    static func gpx(_ bytes: [UInt8], path: String, maxFixes: Int) throws(ReadError) -> [TraceFix] {
        let scan = ByteScan(bytes)
        guard scan.find("<gpx", from: 0, to: bytes.count) != nil else { throw ReadError(message: "\(path): not a GPX document (no <gpx> element)") }
        func place(_ at: Int) -> String { "\(path):\(bytes[..<at].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 })" }
        var out: [TraceFix] = []
        var pos = 0
        while let open = scan.find("<trkpt", from: pos, to: bytes.count) {
            if out.count == maxFixes { throw tooMany(place(open), limit: maxFixes) }
            let afterName = open + 6
            guard let tagEnd = bytes[afterName...].firstIndex(of: UInt8(ascii: ">")) else { throw ReadError(message: "\(place(open)): <trkpt> not closed") }
            func attribute(_ name: String) -> Double? {
                for quote in ["\"", "'"] {
                    if let r = scan.find(" \(name)=\(quote)", from: afterName, to: tagEnd) {
                        let valueStart = r + name.utf8.count + 3
                        if let end = scan.find(quote, from: valueStart, to: tagEnd) {
                            return NumberParsing.finiteDouble(String(decoding: bytes[valueStart..<end], as: UTF8.self))
                        }
                    }
                }
                return nil
            }
            guard let lat = attribute("lat"), let lon = attribute("lon") else {
                throw ReadError(message: "\(place(open)): <trkpt> needs numeric lat and lon attributes")
            }
            var fix = TraceFix(Coordinate(lon: lon, lat: lat))
            var next = tagEnd + 1
            if bytes[tagEnd - 1] != UInt8(ascii: "/") || tagEnd == afterName {
                guard let close = scan.find("</trkpt>", from: next, to: bytes.count) else { throw ReadError(message: "\(place(open)): <trkpt> has no </trkpt>") }
                if let t0 = scan.find("<time>", from: next, to: close) {
                    guard let t1 = scan.find("</time>", from: t0 + 6, to: close),
                          let t = time(String(decoding: bytes[(t0 + 6)..<t1], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
                        throw ReadError(message: "\(place(t0)): <time> must be ISO 8601")
                    }
                    fix.time = t
                }
                next = close + 8
            }
            out.append(fix)
            pos = next
        }
        return out
    }
}

/// Finds ASCII needles in a byte buffer, between two offsets.
private struct ByteScan {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The offset of the first `needle` starting in `from..<to` and ending by `to`, or nil.
    func find(_ needle: String, from: Int, to: Int) -> Int? {
        let n = Array(needle.utf8)
        guard let first = n.first, to - from >= n.count else { return nil }
        var i = from
        let last = to - n.count
        while i <= last {
            if bytes[i] == first, bytes[(i + 1)..<(i + n.count)].elementsEqual(n[1...]) { return i }
            i += 1
        }
        return nil
    }
}

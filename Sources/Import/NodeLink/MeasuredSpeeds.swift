import CSV
import Foundation

/// TOPIS measured hourly speeds spread over standard node-link links through the TOPIS-to-link
/// mapping: the speed file (CP949; `링크아이디` and `01시` … `24시`, the mean km/h in the hour
/// ending at that time) and the mapping (`서비스링크`, `표준링크아이디`).
///
/// Hour index h is departure hour h: column `01시` (00:00–01:00) is hour 0. An empty cell is an
/// hour without measurement (NaN); any other cell must be a speed in (0, 200] km/h.
package struct MeasuredSpeeds: Sendable {
    /// km/h by standard link id, 24 values (NaN where not measured).
    package var byLink: [Int64: [Double]] = [:]
    /// Service links in the speed file, of them found in the mapping, and empty hour cells.
    package var serviceLinks = 0, mappedServiceLinks = 0, emptyCells = 0

    package static func read(speedPath: String, mappingPath: String) throws(NodeLinkError) -> MeasuredSpeeds {
        func table(_ path: String, _ encoding: InputEncoding) throws(NodeLinkError) -> CSVTable {
            do { return try CSVTable(path: path, encoding: encoding) } catch { throw NodeLinkError(error.description) }
        }
        func column(_ t: CSVTable, _ name: String) throws(NodeLinkError) -> Int {
            do { return try t.column(name) } catch { throw NodeLinkError(error.description) }
        }
        let mapping = try table(mappingPath, .utf8)
        let mService = try column(mapping, "서비스링크"), mStandard = try column(mapping, "표준링크아이디")
        var standardLinks = [Int64: [Int64]]()
        for r in mapping.rows {
            guard let s = Int64(r[mService]), let l = Int64(r[mStandard]) else {
                throw NodeLinkError("\(mappingPath): line \(r.line): 서비스링크 and 표준링크아이디 must be link ids")
            }
            standardLinks[s, default: []].append(l)
        }

        let speeds = try table(speedPath, .cp949)
        let sLink = try column(speeds, "링크아이디")
        let hours = try (1...24).map { h throws(NodeLinkError) in try column(speeds, String(format: "%02d시", h)) }
        var result = MeasuredSpeeds()
        var sum = [Int64: [Double]](), count = [Int64: [Int]]()
        for r in speeds.rows {
            guard let service = Int64(r[sLink]) else { throw NodeLinkError("\(speedPath): line \(r.line): 링크아이디 '\(r[sLink])' is not a link id") }
            result.serviceLinks += 1
            var values = [Double](repeating: .nan, count: 24)
            for (h, c) in hours.enumerated() {
                let cell = r[c]
                if cell.isEmpty { result.emptyCells += 1; continue }
                guard let v = Double(cell), v > 0, v <= 200 else {
                    throw NodeLinkError("\(speedPath): line \(r.line): \(String(format: "%02d시", h + 1)) '\(cell)' is not a speed in km/h (0–200]")
                }
                values[h] = v
            }
            guard let links = standardLinks[service] else { continue }
            result.mappedServiceLinks += 1
            for l in links {
                var s = sum[l] ?? [Double](repeating: 0, count: 24), n = count[l] ?? [Int](repeating: 0, count: 24)
                for h in 0..<24 where !values[h].isNaN { s[h] += values[h]; n[h] += 1 }
                sum[l] = s; count[l] = n
            }
        }
        for (l, s) in sum {
            let n = count[l]!
            result.byLink[l] = (0..<24).map { n[$0] > 0 ? s[$0] / Double(n[$0]) : .nan }
        }
        return result
    }
}

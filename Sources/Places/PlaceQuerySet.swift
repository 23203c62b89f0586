import Foundation
import Geo

/// A query set for judging search quality: each case is a query, an optional location, and the
/// place the user means (its name, and a piece of its address when the name is ambiguous).
///
/// File format (UTF-8 TSV with a header row; `data/places/queries.tsv`):
/// `kind  query  near  expected_name  expected_address  note`, where `near` is "lon,lat" or
/// empty and `expected_address` is a substring the top result's address must contain (or empty).
public struct PlaceQueryCase: Sendable {
    public let kind: String
    public let query: String
    public let near: Coordinate?
    public let expectedName: String
    public let expectedAddress: String?
    public let note: String
    /// The line of the file.
    public let line: Int

    /// True when `place` is the one this case expects.
    public func isExpected(_ place: Place) -> Bool {
        place.name == expectedName && (expectedAddress.map { place.address.contains($0) } ?? true)
    }
}

/// Loading and running a query set.
public enum PlaceQuerySet {
    /// Reads a query-set TSV file.
    public static func load(path: String) throws(PlaceDatabaseError) -> [PlaceQueryCase] {
        guard let data = FileManager.default.contents(atPath: path) else { throw PlaceDatabaseError("\(path): cannot read the query set") }
        let text = String(decoding: data, as: UTF8.self)
        var out: [PlaceQueryCase] = []
        for (i, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            if i == 0 || line.trimmingCharacters(in: .whitespaces).isEmpty || line.hasPrefix("#") { continue }
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 4, !f[0].isEmpty, !f[1].isEmpty, !f[3].isEmpty else {
                throw PlaceDatabaseError("\(path):\(i + 1): expected kind, query, near, expected_name[, expected_address, note] separated by tabs")
            }
            var near: Coordinate?
            if !f[2].isEmpty {
                guard let c = Coordinate.parse(f[2]) else { throw PlaceDatabaseError("\(path):\(i + 1): near '\(f[2])' is not lon,lat") }
                near = c
            }
            let address = f.count > 4 && !f[4].isEmpty ? f[4] : nil
            out.append(PlaceQueryCase(kind: f[0], query: f[1], near: near, expectedName: f[3], expectedAddress: address,
                                      note: f.count > 5 ? f[5] : "", line: i + 1))
        }
        return out
    }

    /// The outcome of running a query set against an index.
    public struct Evaluation: Sendable {
        /// Per kind: cases whose top result was the expected place, and all cases.
        public let byKind: [String: (correct: Int, total: Int)]
        /// Cases whose top result was another place (or none), with what came first.
        public let misses: [(case: PlaceQueryCase, top: Place?)]
        /// Time of each search, in seconds, in case order.
        public let latencies: [Double]

        public var correct: Int { byKind.values.reduce(0) { $0 + $1.correct } }
        public var total: Int { byKind.values.reduce(0) { $0 + $1.total } }
        public var accuracy: Double { total == 0 ? 0 : Double(correct) / Double(total) }

        /// One line per kind, then one per miss.
        public var report: String {
            var s = ""
            for kind in byKind.keys.sorted() {
                let k = byKind[kind] ?? (0, 0)
                s += "\(kind): \(k.correct)/\(k.total) (\(String(format: "%.0f", 100 * Double(k.correct) / Double(max(1, k.total))))%)\n"
            }
            s += "overall: \(correct)/\(total) (\(String(format: "%.1f", 100 * accuracy))%)\n"
            for m in misses {
                let got = m.top.map { "\($0.name) [\($0.category)] \($0.address)" } ?? "nothing"
                s += "miss line \(m.case.line) \(m.case.kind) '\(m.case.query)': expected \(m.case.expectedName)"
                    + (m.case.expectedAddress.map { " (\($0))" } ?? "") + ", got \(got)\n"
            }
            return s
        }
    }

    /// Runs every case (limit 1) and checks the top result.
    public static func evaluate(_ cases: [PlaceQueryCase], on index: PlaceIndex) -> Evaluation {
        var byKind: [String: (correct: Int, total: Int)] = [:]
        var misses: [(PlaceQueryCase, Place?)] = []
        var latencies: [Double] = []
        for c in cases {
            let start = DispatchTime.now().uptimeNanoseconds
            let top = (try? index.search(PlaceQuery(text: c.query, near: c.near, limit: 1)))?.places.first?.place
            latencies.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            var k = byKind[c.kind] ?? (0, 0)
            k.total += 1
            if let top, c.isExpected(top) { k.correct += 1 } else { misses.append((c, top)) }
            byKind[c.kind] = k
        }
        return Evaluation(byKind: byKind, misses: misses, latencies: latencies)
    }
}

import Foundation
import Geo

/// Where a road's basic numbers (기초번호) lie along it: `offset + interval × b` metres from the
/// start of the assembled road for basic number `b` (building numbers 2b + 1 and 2b + 2), measured
/// from the other end when `reversed`.
///
/// The rule (`RoadNumbering.rule`) is offset 0, interval 20 m, not reversed. A road calibrated on
/// known address → position pairs (`AddressCalibration`) may differ: numbered from its other end
/// (a road whose start is not its west or south end), every 10 m (테헤란로 and other 강남구 roads),
/// or offset where the network's road begins before or after the real start.
public struct RoadNumbering: Sendable, Hashable {
    public var reversed: Bool
    /// Metres from the numbering end of the assembled road to basic number 0.
    public var offset: Double
    /// Metres between consecutive basic numbers.
    public var interval: Double

    public init(reversed: Bool, offset: Double, interval: Double) {
        self.reversed = reversed
        self.offset = offset
        self.interval = interval
    }

    /// The address rule: from the start every 20 m.
    public static let rule = RoadNumbering(reversed: false, offset: 0, interval: NamedRoad.basicInterval)

    /// The basic number a building number lies on (1 and 2 → 0, 3 and 4 → 1, …).
    public static func basic(ofNumber n: Int) -> Int { max(0, (n - 1) / 2) }

    /// Metres along `road` (from its first point) of building number `n`; may lie outside
    /// 0…length when the number is past the road's known ends.
    public func along(ofNumber n: Int, on road: NamedRoad) -> Double {
        let d = offset + interval * Double(RoadNumbering.basic(ofNumber: n))
        return reversed ? road.length - d : d
    }

    /// The basic number at `along` metres along `road` (nil before basic number 0).
    public func basic(atAlong along: Double, on road: NamedRoad) -> Int? {
        let d = (reversed ? road.length - along : along) - offset
        guard d >= -interval / 2, interval > 0 else { return nil }
        return max(0, Int((d / interval).rounded(.down)))
    }

    /// Whether odd numbers lie on the left of the road as assembled (looking from its first
    /// point): they lie on the left looking from the numbering start.
    public var oddOnLeft: Bool { !reversed }
}

/// Per-road numbering fitted on known address → position pairs (see data/nodelink/ADDRESSES.md).
///
/// Each road with at least `minimumPairs` pairs of distinct numbers gets the numbering that fits
/// them best: both directions are tried, each a Theil–Sen line (metres along against basic
/// number, its slope held to `intervalRange`), and the one with the smaller summed distance is
/// kept when it beats the rule's on the same pairs. Roads with fewer pairs keep the rule.
public enum AddressCalibration {
    /// A known position of a building number on a road.
    public struct Pair: Sendable {
        public let road: NamedRoad
        public let number: Int
        public let truth: Coordinate
        public init(road: NamedRoad, number: Int, truth: Coordinate) {
            self.road = road
            self.number = number
            self.truth = truth
        }
    }

    /// Fewer pairs than this on a road leave it to the rule (two stations' noise fits any line).
    public static let minimumPairs = 3
    /// The fitted metres per basic number stay within this (the rule's 20 m and the 10 m some
    /// roads were numbered with, with room for the network's length differing from the road's).
    public static let intervalRange = 8.0...25.0

    /// The key of a road in a calibration table: its name and its first point
    /// ("테헤란로@127.0276,37.4980").
    public static func key(_ road: NamedRoad) -> String {
        let p = road.points.first ?? Coordinate(lon: 0, lat: 0)
        return "\(road.name)@" + String(format: "%.4f,%.4f", p.lon, p.lat)
    }

    /// The numbering of every road `pairs` calibrate, by `key`.
    public static func fit(_ pairs: [Pair]) -> [String: RoadNumbering] {
        var byRoad: [String: [Pair]] = [:]
        for p in pairs { byRoad[key(p.road), default: []].append(p) }
        var out: [String: RoadNumbering] = [:]
        for (k, list) in byRoad {
            if let n = fit(road: list[0].road, list) { out[k] = n }
        }
        return out
    }

    /// The numbering of one road from its pairs, or nil when they are too few or the rule fits
    /// them as well.
    static func fit(road: NamedRoad, _ pairs: [Pair]) -> RoadNumbering? {
        var seen: Set<Int> = []
        let points = pairs.filter { seen.insert($0.number).inserted }
            .map { (b: Double(RoadNumbering.basic(ofNumber: $0.number)), along: road.project($0.truth).along) }
        guard points.count >= minimumPairs else { return nil }
        func cost(_ n: RoadNumbering) -> Double {
            points.reduce(0) { s, p in
                let d = n.offset + n.interval * p.b
                return s + abs((n.reversed ? road.length - d : d) - p.along)
            }
        }
        var best: (cost: Double, numbering: RoadNumbering)?
        for reversed in [false, true] {
            // Theil–Sen: the median of the pairwise slopes, then the median offset; one station
            // filed under a far-off number (수유역, 도봉로 지하 50) does not tilt the line.
            let ys = points.map { reversed ? road.length - $0.along : $0.along }
            var slopes: [Double] = []
            for i in points.indices {
                for j in points.indices where j > i && points[j].b != points[i].b {
                    slopes.append((ys[j] - ys[i]) / (points[j].b - points[i].b))
                }
            }
            let slope = slopes.isEmpty ? NamedRoad.basicInterval : median(slopes)
            let interval = min(max(slope, intervalRange.lowerBound), intervalRange.upperBound)
            let offset = median(zip(points, ys).map { $1 - interval * $0.b })
            let n = RoadNumbering(reversed: reversed, offset: offset, interval: interval)
            let c = cost(n)
            if c < best?.cost ?? .infinity { best = (c, n) }
        }
        guard let best, best.cost < cost(.rule) else { return nil }
        return best.numbering
    }

    static func median(_ xs: [Double]) -> Double {
        let s = xs.sorted(), n = s.count
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2
    }

    /// The header of a calibration table file.
    public static let header = "road,reversed,offset_m,interval_m,pairs"

    /// A calibration table as CSV (`header`, then one road a line, by key).
    public static func csv(_ table: [String: RoadNumbering], pairs: [String: Int] = [:]) -> String {
        var out = header + "\n"
        for k in table.keys.sorted() {
            let n = table[k]!
            out += "\(k),\(n.reversed ? 1 : 0)," + String(format: "%.1f,%.2f", n.offset, n.interval) + ",\(pairs[k] ?? 0)\n"
        }
        return out
    }

    /// Reads a calibration table written by `csv`; a malformed line is an error naming it.
    public static func read(csv text: String, source: String) throws(PlaceDatabaseError) -> [String: RoadNumbering] {
        var out: [String: RoadNumbering] = [:]
        for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if i == 0 {
                guard line == header else { throw PlaceDatabaseError("\(source):1: expected the header '\(header)'") }
                continue
            }
            if line.isEmpty { continue }
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            // The key holds one comma itself (name@lon,lat).
            guard f.count == 6, let r = Int(f[2]), r == 0 || r == 1, let offset = Double(f[3]), offset.isFinite,
                  let interval = Double(f[4]), intervalRange.contains(interval)
            else { throw PlaceDatabaseError("\(source):\(i + 1): expected road@lon,lat,reversed (0|1),offset_m,interval_m (8–25),pairs") }
            out["\(f[0]),\(f[1])"] = RoadNumbering(reversed: r == 1, offset: offset, interval: interval)
        }
        return out
    }
}

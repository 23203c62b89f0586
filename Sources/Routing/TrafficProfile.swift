import Foundation

/// Typical traffic by road class and hour of day: the average speed a taxi makes and the
/// share of its time spent below the fare meter's time-charging threshold.
///
/// Routing takes edge speeds from it (so the ETA is the one the fare uses), and the fare
/// meter takes the slow share from it. Loaded from CSV data (`data/traffic/profile.csv`):
///
///     class,hour,speed_kmh,slow_share
///     primary,8,18.5,0.42
///
/// Every class must have all 24 hours.
public struct TrafficProfile: Sendable {
    /// Average speed in km/h, indexed `[class.rawValue * 24 + hour]`.
    public private(set) var speedKmh: [Double]
    /// Share (0…1) of driving time below the time-charging threshold, same indexing.
    public private(set) var slowShare: [Double]

    public init(speedKmh: [Double], slowShare: [Double]) {
        precondition(speedKmh.count == RoadClass.allCases.count * 24 && slowShare.count == speedKmh.count)
        self.speedKmh = speedKmh
        self.slowShare = slowShare
    }

    @inline(__always)
    public func speed(_ c: RoadClass, hour: Int) -> Double { speedKmh[Int(c.rawValue) * 24 + hour] }

    @inline(__always)
    public func slow(_ c: RoadClass, hour: Int) -> Double { slowShare[Int(c.rawValue) * 24 + hour] }

    /// Why a profile file was refused: the file and line at fault.
    public struct LoadError: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// Reads the CSV at `path`.
    public static func load(path: String) throws(LoadError) -> TrafficProfile {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw LoadError(description: "\(path): cannot read the traffic profile")
        }
        return try parse(text, source: path)
    }

    /// Parses profile CSV text; `source` names it in errors.
    public static func parse(_ text: String, source: String) throws(LoadError) -> TrafficProfile {
        let n = RoadClass.allCases.count * 24
        var speed = [Double](repeating: .nan, count: n)
        var slow = [Double](repeating: .nan, count: n)
        var lineNo = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNo += 1
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if line.isEmpty || line.hasPrefix("#") { continue }
            if lineNo == 1 || line.hasPrefix("class,") { continue }
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            guard f.count == 4, let cls = RoadClass(osmHighway: String(f[0])), let hour = Int(f[1]), (0..<24).contains(hour),
                  let s = Double(f[2]), s.isFinite, s > 0, s <= 200, let w = Double(f[3]), w >= 0, w <= 1
            else {
                throw LoadError(description: "\(source): line \(lineNo): expected class,hour(0-23),speed_kmh(>0),slow_share(0-1), got '\(line)'")
            }
            speed[Int(cls.rawValue) * 24 + hour] = s
            slow[Int(cls.rawValue) * 24 + hour] = w
        }
        for c in RoadClass.allCases {
            for h in 0..<24 where speed[Int(c.rawValue) * 24 + h].isNaN {
                throw LoadError(description: "\(source): no row for class \(c.osmName) hour \(h)")
            }
        }
        return TrafficProfile(speedKmh: speed, slowShare: slow)
    }
}

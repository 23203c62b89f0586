import Routing

/// Hourly speeds of the kept node-link links from TOPIS measurements: a measured link drives at
/// its measured speed in each hour it has one; every other link (and a measured link's hours
/// without a measurement) at its `MAX_SPD` times the calibrated ratio of its `ROAD_RANK` and
/// hour: the median, over the measured links of that rank, of measured speed / `MAX_SPD` at that
/// hour. A rank without measured links at an hour takes the median over all ranks at that hour;
/// an hour without any measurement falls back to the traffic profile of the link's class.
package struct MeasuredSpeedProfile: Sendable {
    /// Calibrated ratio (measured speed / MAX_SPD) by road rank, 24 hours (NaN: no sample).
    package var ratioByRank: [Int: [Double]] = [:]
    /// The median over all ranks, 24 hours (NaN: no sample).
    package var ratioAll: [Double] = []

    /// Calibrates on the measured ones of `links` (each with its rank and speed cap, km/h).
    package init(speeds: MeasuredSpeeds, links: [(id: Int64, rank: Int, capKmh: Int)]) {
        var samples = [Int: [[Double]]](), all = [[Double]](repeating: [], count: 24)
        for l in links {
            guard let v = speeds.byLink[l.id], l.capKmh > 0 else { continue }
            // Appended in place (a copy taken out and put back would copy the rank's 24 lists per link).
            for h in 0..<24 where !v[h].isNaN {
                samples[l.rank, default: [[Double]](repeating: [], count: 24)][h].append(v[h] / Double(l.capKmh))
                all[h].append(v[h] / Double(l.capKmh))
            }
            if samples[l.rank] == nil { samples[l.rank] = [[Double]](repeating: [], count: 24) }
        }
        ratioByRank = samples.mapValues { $0.map(Self.median) }
        ratioAll = all.map(Self.median)
    }

    static func median(_ v: [Double]) -> Double {
        guard !v.isEmpty else { return .nan }
        let s = v.sorted(), m = s.count / 2
        return s.count % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2
    }

    /// The calibrated speed (km/h) of a link of `rank` and cap `capKmh` at `hour`, or nil when no
    /// link was measured at that hour.
    package func speed(rank: Int, capKmh: Int, hour: Int) -> Double? {
        var r = ratioByRank[rank]?[hour] ?? .nan
        if r.isNaN { r = ratioAll.isEmpty ? .nan : ratioAll[hour] }
        guard !r.isNaN else { return nil }
        return min(200, max(1, r * Double(capKmh)))
    }

    /// Sets the hourly speed row of every way of `x` (ways are the kept links, `ranks` theirs);
    /// returns how many ways got measured speeds.
    func apply(_ speeds: MeasuredSpeeds, to x: inout RoadNetworkInput, ranks: [Int], profile: TrafficProfile) -> Int {
        struct Row: Hashable { var speed: [Double], measured: [Bool] }
        var rowIndex = [Row: Int]()
        var measuredWays = 0
        for w in 0..<x.wayIds.count {
            let rule = x.wayRules[w], cap = rule.capForwardKmh
            let measured = speeds.byLink[x.wayIds[w]]
            if measured != nil { measuredWays += 1 }
            var row = Row(speed: [], measured: [])
            for h in 0..<24 {
                if let v = measured?[h], !v.isNaN {
                    row.speed.append(v); row.measured.append(true)
                } else {
                    row.speed.append(speed(rank: ranks[w], capKmh: cap, hour: h)
                        ?? min(profile.speed(rule.roadClass, hour: h), Double(cap)))
                    row.measured.append(false)
                }
            }
            if let i = rowIndex[row] {
                x.wayRules[w].speedRow = i
            } else {
                rowIndex[row] = x.speedRows.count
                x.wayRules[w].speedRow = x.speedRows.count
                x.speedRows.append(row.speed); x.speedRowMeasured.append(row.measured)
            }
        }
        return measuredWays
    }
}

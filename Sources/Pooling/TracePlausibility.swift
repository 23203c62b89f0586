import Geo
import MapMatching
import PartyModel

/// The checks a trace passes before it is settled (docs/FARES.md, "What a trace must be"): a
/// trace that cannot be a taxi ride of the party is refused, naming the reason and the fix.
public struct TracePlausibility: Sendable {
    /// Fastest a taxi is taken to drive between two fixes, after the noise allowance (km/h).
    public static let maxSpeedKmh = 200.0
    /// How long before the party's departure a fix may be (the taxi came early), in seconds.
    public static let earlySlackSeconds = 3600.0
    /// Least distance the trace must reach from its first fix (a ride that did not move), metres.
    public static let minExtentMeters = 50.0
    /// Farthest a fix may be from the party's origin, metres.
    public static let maxExtentMeters = 200_000.0

    /// How long after the departure a fix may be (the settle window), seconds.
    public var latestAfterDepartureSeconds: Double

    public init(latestAfterDepartureSeconds: Double) {
        self.latestAfterDepartureSeconds = latestAfterDepartureSeconds
    }

    /// What was found.
    public struct Reading: Sendable, Equatable {
        /// Fixes whose both neighbours are plausible together while the fix jumps beyond the speed
        /// cap from both (a lone glitch): tolerated and left to the matcher.
        public var outliers: [Int] = []
    }

    /// Checks `trace` for `party` (times, speeds, extent); throws the first problem, naming the fix.
    public func check(_ trace: [TraceFix], party: Party, defaultAccuracyMeters: Double) throws(SettlementError) -> Reading {
        guard trace.count >= 2 else { return Reading() }  // the matcher names it
        let earliest = party.departAt - Self.earlySlackSeconds, latest = party.departAt + latestAfterDepartureSeconds
        for (i, f) in trace.enumerated() {
            guard f.coordinate.isValid else { continue }  // the matcher names it
            let away = f.coordinate.distance(to: party.origin)
            if away > Self.maxExtentMeters {
                throw .implausible(fix: i, reason: "\(Int(away / 1000)) km from the party's origin (at most \(Int(Self.maxExtentMeters / 1000)) km)")
            }
            guard let t = f.time else { continue }
            guard t.isFinite, t >= earliest, t <= latest else {
                throw .implausible(fix: i, reason: "time \(t) is outside the ride's window \(SeoulTime.format(earliest)) … \(SeoulTime.format(latest)) "
                                   + "(departure \(SeoulTime.format(party.departAt)) − \(Int(Self.earlySlackSeconds)) s … + \(Int(latestAfterDepartureSeconds)) s)")
            }
        }
        let first = trace[0].coordinate
        guard trace.contains(where: { $0.coordinate.isValid && $0.coordinate.distance(to: first) >= Self.minExtentMeters }) else {
            throw .implausible(fix: trace.count - 1, reason: "no fix is \(Int(Self.minExtentMeters)) m or more from the first: the trace does not move")
        }
        guard trace[0].time != nil else { return Reading() }
        // Speeds: from the last plausible fix to each next one; a fix beyond the cap whose next
        // fix is plausible from the last one is a lone glitch, else the trace is refused there.
        let cap = Self.maxSpeedKmh / 3.6
        func tooFast(_ a: Int, _ b: Int) -> Double? {
            guard let ta = trace[a].time, let tb = trace[b].time, tb >= ta else { return nil }  // the matcher names a time going back
            let sa = trace[a].accuracyMeters ?? defaultAccuracyMeters, sb = trace[b].accuracyMeters ?? defaultAccuracyMeters
            let moved = max(0, trace[a].coordinate.distance(to: trace[b].coordinate) - 3 * (sa + sb))
            guard moved > 0 else { return nil }
            let speed = moved / max(tb - ta, 1e-9)
            return speed > cap ? speed : nil
        }
        var reading = Reading()
        var last = 0, i = 1
        while i < trace.count {
            if let speed = tooFast(last, i) {
                if i + 1 < trace.count, tooFast(last, i + 1) == nil {
                    reading.outliers.append(i)
                    i += 1
                    continue
                }
                throw .implausible(fix: i, reason: "reached from fix \(last) at \(Int(speed * 3.6)) km/h after a noise allowance of 3σ per fix "
                                   + "(at most \(Int(Self.maxSpeedKmh)) km/h)")
            }
            last = i
            i += 1
        }
        return reading
    }
}

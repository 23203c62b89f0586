import Fares
import Geo
import Routing

/// Trips for the fare meter built from a distance alone, with the time and the slow time the
/// traffic profile gives, for fare estimates without a route (`POST /v1/fare`, `taxipot fare`).
///
/// Assumption (docs/FARES.md is silent): a trip without a route is driven on `assumedClass`
/// (`primary`: Seoul's arterial roads, such as 종로 and 한남대로 that the official reference
/// trips take) at the profile's speed for each clock hour it is driven, spending the profile's
/// slow share of each hour below the meter's threshold.
public enum ProfileTrip {
    /// The road class of a trip without a route.
    public static let assumedClass: RoadClass = .primary

    /// A trip of `distanceM` from `departure`, timed by the profile: one segment per clock hour
    /// driven, each at that hour's speed and slow share.
    public static func segments(distanceM: Double, departure: Double, profile: TrafficProfile,
                                roadClass: RoadClass = assumedClass) -> [TripSegment]
    {
        var out = [TripSegment]()
        var remaining = max(0, distanceM)
        var local = SeoulTime.secondOfDay(departure)  // seconds since the departure day's midnight
        while remaining > 1e-9 {
            let (hour, untilNextHour) = clockHour(local)
            let speed = profile.speed(roadClass, hour: hour) / 3.6  // m/s, > 0 by the profile's validation
            let duration = min(untilNextHour, remaining / speed)
            let distance = duration == untilNextHour ? min(remaining, duration * speed) : remaining
            out.append(TripSegment(distanceM: distance, durationS: duration, slowS: duration * profile.slow(roadClass, hour: hour)))
            remaining -= distance
            local += duration
        }
        if out.isEmpty { out.append(TripSegment(distanceM: 0, durationS: 0, slowS: 0)) }
        return out
    }

    /// A trip of `distanceM` lasting `durationS` from `departure`, distance spread evenly over
    /// the time; the slow time is the profile's slow share of each clock hour driven.
    public static func segments(distanceM: Double, durationS: Double, departure: Double, profile: TrafficProfile,
                                roadClass: RoadClass = assumedClass) -> [TripSegment]
    {
        guard durationS > 0 else { return [TripSegment(distanceM: distanceM, durationS: 0, slowS: 0)] }
        var out = [TripSegment]()
        let start = SeoulTime.secondOfDay(departure)
        var elapsed = 0.0
        while durationS - elapsed > 1e-9 {
            let (hour, untilNextHour) = clockHour(start + elapsed)
            let piece = min(durationS - elapsed, untilNextHour)
            out.append(TripSegment(distanceM: distanceM * piece / durationS, durationS: piece,
                                   slowS: piece * profile.slow(roadClass, hour: hour)))
            elapsed += piece
        }
        return out
    }

    /// A trip with the given duration and slow time, both spread evenly over the trip
    /// (the meter still switches night bands where the clock crosses them).
    public static func segments(distanceM: Double, durationS: Double, slowS: Double) -> [TripSegment] {
        [TripSegment(distanceM: distanceM, durationS: durationS, slowS: slowS)]
    }

    /// A trip timed by the profile whose slow time is replaced by `slowS`, spread evenly over
    /// the profile's duration; nil when `slowS` exceeds that duration.
    public static func segments(distanceM: Double, slowS: Double, departure: Double, profile: TrafficProfile,
                                roadClass: RoadClass = assumedClass) -> [TripSegment]?
    {
        var trip = segments(distanceM: distanceM, departure: departure, profile: profile, roadClass: roadClass)
        let duration = trip.reduce(0) { $0 + $1.durationS }
        guard slowS <= duration else { return nil }
        for i in trip.indices { trip[i].slowS = duration > 0 ? slowS * trip[i].durationS / duration : 0 }
        return trip
    }

    /// The clock hour (0–23) at `local` seconds after some Seoul midnight, and the seconds
    /// until the next hour starts (a time within a microsecond of an hour counts as that hour).
    static func clockHour(_ local: Double) -> (hour: Int, untilNext: Double) {
        let hours = ((local + 1e-6) / 3600).rounded(.down)
        let hour = Int(hours.truncatingRemainder(dividingBy: 24))
        return (hour < 0 ? hour + 24 : hour, (hours + 1) * 3600 - local)
    }
}

import Fares
import Geo
import Routing

/// The fare meter's trip along a route: each route segment with its slow time from the traffic
/// profile (its road class at the clock hour the taxi reaches it; the clock advances along the
/// route by the segments' durations) and whether it is out of the city.
public enum RouteTrip {
    /// The trip of `route` departing at `departure`. `isOutside` tests a segment's midpoint
    /// against the city boundary; nil: no segment is tested (every point of the route is known
    /// to lie inside). Consecutive segments over the same stretch (an estimate's road classes)
    /// share one test.
    public static func segments(_ route: RouteResult, departure: Double, profile: TrafficProfile,
                                isOutside: ((Coordinate) -> Bool)?) -> [TripSegment]
    {
        segments(route.segments.lazy.map { ($0, $0.legIndex) }, count: route.segments.count, departure: departure, profile: profile,
                 isOutside: isOutside)
    }

    /// The trip of a route put together from the legs of other routes: leg i is the segments of
    /// `legs[i]` (whatever leg index they carry there).
    public static func segments(legs: [ArraySlice<RouteSegment>], departure: Double, profile: TrafficProfile,
                                isOutside: ((Coordinate) -> Bool)?) -> [TripSegment]
    {
        segments(legs.enumerated().lazy.flatMap { i, leg in leg.lazy.map { ($0, i) } }, count: legs.reduce(0) { $0 + $1.count },
                 departure: departure, profile: profile, isOutside: isOutside)
    }

    private static func segments<S: Sequence<(RouteSegment, Int)>>(_ legSegments: S, count: Int, departure: Double, profile: TrafficProfile,
                                                                    isOutside: ((Coordinate) -> Bool)?) -> [TripSegment]
    {
        var trip = [TripSegment]()
        trip.reserveCapacity(count)
        var local = SeoulTime.secondOfDay(departure)
        var lastMidpoint: Coordinate?, lastOutside = false
        for (s, leg) in legSegments {
            let hour = Int((local / 3600).rounded(.down)) % 24
            var outside = false
            if let isOutside {
                let mid = Coordinate(lon: (s.start.lon + s.end.lon) / 2, lat: (s.start.lat + s.end.lat) / 2)
                if mid == lastMidpoint {
                    outside = lastOutside
                } else {
                    outside = isOutside(mid)
                    lastMidpoint = mid
                    lastOutside = outside
                }
            }
            trip.append(TripSegment(distanceM: s.distanceMeters, durationS: s.durationSeconds,
                                    slowS: s.durationSeconds * profile.slow(s.roadClass, hour: hour),
                                    outOfCity: outside, leg: leg))
            local += s.durationSeconds
        }
        return trip
    }
}

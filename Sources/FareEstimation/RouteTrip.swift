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
        var trip = [TripSegment]()
        trip.reserveCapacity(route.segments.count)
        var local = SeoulTime.secondOfDay(departure)
        var lastMidpoint: Coordinate?, lastOutside = false
        for s in route.segments {
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
                                    outOfCity: outside, leg: s.legIndex))
            local += s.durationSeconds
        }
        return trip
    }
}

import Fares
import Geo
import Routing

/// What the meter of a ride runs along (`RideMeter.run`).
public enum MeterPath {
    /// A trip already built (a fare without a route: `ProfileTrip`).
    case trip([TripSegment])
    /// A route; each segment counts towards the leg it carries.
    case route(RouteResult)
    /// A route put together from the legs of other routes: leg i is the segments of `legs[i]`
    /// (whatever leg index they carry there).
    case legs([ArraySlice<RouteSegment>])
    /// A route as driven (a settled trace): each stretch's segments with the slow shares of the
    /// clock hour the stretch starts at (the clock advancing by the stretches' `seconds`), their
    /// durations and slow times scaled so the stretch lasts `seconds`, counted towards `leg`.
    case driven([DrivenStretch])
}

/// A stretch of a driven route (`MeterPath.driven`).
public struct DrivenStretch: Sendable {
    public var segments: ArraySlice<RouteSegment>
    /// How long the stretch took (by the trace's clock).
    public var seconds: Double
    /// The meter leg it counts towards (legs never decrease along the route).
    public var leg: Int

    public init(segments: ArraySlice<RouteSegment>, seconds: Double, leg: Int) {
        self.segments = segments
        self.seconds = seconds
        self.leg = leg
    }
}

/// A metered ride: the meter's trip and its breakdown.
public struct MeteredRide: Sendable {
    public var trip: [TripSegment]
    /// `legKrw` holds at least the `legs` asked for (legs past the route's last add 0 won).
    public var fare: FareBreakdown
}

/// The meter of one ride: its fare region, the schedule of its taxi class in force at the
/// departure, and the region's city boundary (for the out-of-city surcharge). Made by
/// `FareEstimator.rideMeter(region:…)` for a named region, or `RideQuoter.rideMeter(at:…)` for
/// the region of an origin (the quote engine's rules); every fare, quote, table cell, party
/// price and settlement is metered by `run`.
public struct RideMeter: Sendable {
    public let region: String
    public let schedule: FareSchedule
    let profile: TrafficProfile
    /// Whether a point lies outside the region's city boundary; nil: no point of a route is
    /// tested (a route's points are then taken to lie inside).
    let isOutside: (@Sendable (Coordinate) -> Bool)?
    /// True when every point the road graph can route through lies inside the region, so the
    /// segments of a route on the graph are not tested (`run`'s `testEverySegment` overrides).
    let graphInside: Bool

    public init(region: String, schedule: FareSchedule, profile: TrafficProfile, isOutside: (@Sendable (Coordinate) -> Bool)?,
                graphInside: Bool) {
        self.region = region
        self.schedule = schedule
        self.profile = profile
        self.isOutside = isOutside
        self.graphInside = graphInside
    }

    /// Meters `path` departing at `departure` (Unix seconds), adding `tollKrw`, with the
    /// per-leg amounts padded to `legs`. `testEverySegment`: test each segment against the city
    /// boundary even when the graph lies inside it (an estimated route runs off the graph).
    ///
    /// Errors: a `.trip` the meter refuses is `.invalidTrip` (it came from the request); any
    /// other path is the engine's own, so its refusal is `.internalFailure`.
    public func run(_ path: MeterPath, departure: Double, tollKrw: Int = 0, legs: Int = 0,
                    testEverySegment: Bool = false) throws(FareRequestError) -> MeteredRide
    {
        let outside = testEverySegment || !graphInside ? isOutside : nil
        let trip: [TripSegment]
        switch path {
        case .trip(let segments):
            trip = segments
        case .route(let route):
            trip = RouteTrip.segments(route, departure: departure, profile: profile, isOutside: outside)
        case .legs(let legs):
            trip = RouteTrip.segments(legs: legs, departure: departure, profile: profile, isOutside: outside)
        case .driven(let stretches):
            var driven: [TripSegment] = []
            var clock = departure
            for stretch in stretches {
                var part = RouteTrip.segments(legs: [stretch.segments], departure: clock, profile: profile, isOutside: outside)
                let engineSeconds = part.reduce(0) { $0 + $1.durationS }
                let scale = engineSeconds > 0 ? stretch.seconds / engineSeconds : 1
                for i in part.indices {
                    part[i].durationS *= scale
                    part[i].slowS *= scale
                    part[i].leg = stretch.leg
                }
                driven += part
                clock += stretch.seconds
            }
            trip = driven
        }
        var fare: FareBreakdown
        do {
            fare = try FareMeter(schedule: schedule).run(trip, departure: departure, tollKrw: tollKrw)
        } catch {
            switch path {
            case .trip: throw .invalidTrip(error)
            case .driven: throw .internalFailure("metering the trace failed: \(error)")
            case .route, .legs: throw .internalFailure("metering the route failed: \(error)")
            }
        }
        if fare.legKrw.count < legs { fare.legKrw += Array(repeating: 0, count: legs - fare.legKrw.count) }
        return MeteredRide(trip: trip, fare: fare)
    }
}

extension FareEstimator {
    /// The meter of a ride in the named `region` (its boundary never tested: for trips
    /// without a route), with lookup failures as `.schedule` errors.
    public func rideMeter(region: String, taxiClass: String, departure: Double) throws(FareRequestError) -> RideMeter {
        let schedule: FareSchedule
        do {
            schedule = try book.schedule(region: region, taxiClass: taxiClass, at: departure)
        } catch {
            throw .schedule(error)
        }
        return RideMeter(region: region, schedule: schedule, profile: profile, isOutside: nil, graphInside: true)
    }
}

import FareEstimation
import Fares
import Geo
import Routing

/// Where some riders of a pooled ride get off before the destination.
public struct DropOff: Sendable, Hashable {
    public var coordinate: Coordinate
    /// Persons getting off here (at least 1).
    public var riders: Int

    public init(coordinate: Coordinate, riders: Int = 1) {
        self.coordinate = coordinate
        self.riders = riders
    }
}

/// A quote: a pooled taxi ride from `origin` to `destination` through the drop-offs in order.
public struct QuoteRequest: Sendable {
    public var origin: Coordinate
    public var destination: Coordinate
    public var dropOffs: [DropOff]
    /// All persons in the taxi (1–10); those not getting off at a drop-off ride to the
    /// destination, the host (rider 0) among them.
    public var riders: Int
    public var departure: Double
    public var taxiClass: String
    public var split: SplitPolicy
    public var roundingKrw: Int
    public var tollKrw: Int
    /// When a point is outside the served road network (`outside_coverage`), price a
    /// straight-line estimate instead of refusing (`"estimate":"allow"`); the quote says so.
    public var allowEstimate: Bool

    public init(origin: Coordinate, destination: Coordinate, dropOffs: [DropOff] = [], riders: Int? = nil,
                departure: Double, taxiClass: String = FareRequest.defaultTaxiClass, split: SplitPolicy = .equal,
                roundingKrw: Int = 10, tollKrw: Int = 0, allowEstimate: Bool = false)
    {
        self.allowEstimate = allowEstimate
        self.origin = origin
        self.destination = destination
        self.dropOffs = dropOffs
        self.riders = riders ?? (1 + dropOffs.reduce(0) { $0 + max(0, $1.riders) })
        self.departure = departure
        self.taxiClass = taxiClass
        self.split = split
        self.roundingKrw = roundingKrw
        self.tollKrw = tollKrw
    }

    /// The most drop-offs before the destination (each carries at least one of ≤ 10 riders).
    public static let maxDropOffs = 9

    /// The check of the drop-off count: at most `maxDropOffs` (`invalid(.dropOffs)`).
    /// `RideQuoter.quote` makes it; a caller reading a list may make it on the count first.
    public static func checkDropOffCount(_ count: Int) throws(FareRequestError) {
        guard count <= maxDropOffs else { throw .invalid(.dropOffs, reason: "may list at most \(maxDropOffs) stops, got \(count)") }
    }
}

/// A priced pooled ride.
public struct Quote: Sendable {
    public var route: RouteResult
    /// The region of the origin, whose schedule applies.
    public var region: String
    public var schedule: FareSchedule
    /// The meter's input: the route's segments with slow time and out-of-city flags.
    public var trip: [TripSegment]
    public var fare: FareBreakdown
    /// One share per person; rider 0 is the host.
    public var split: [Int]
    /// For each person, the drop-off they get off at (nil: the destination).
    public var riderDropOffs: [Int?]
    /// Each person's solo fare, when the split needed it (`proportional`).
    public var soloFaresKrw: [Int]?
    public var perPersonKrw: Int
    public var departure: Double
    /// Set when the road graph could not route the trip and the quote is a straight-line
    /// estimate (asked for with `allowEstimate`); nil for a routed quote.
    public var estimate: QuoteEstimate?

    /// Seconds below the meter's threshold over the whole route.
    public var slowS: Double { trip.reduce(0) { $0 + $1.slowS } }
    /// Metres driven outside the origin region's city boundary.
    public var outOfCityM: Double { trip.reduce(0) { $0 + ($1.outOfCity ? $1.distanceM : 0) } }
}

/// What an estimated quote is: how it was made and how far its fare may be off.
public struct QuoteEstimate: Sendable {
    /// "straight_line": great-circle distance × the graph's circuity for the distance band.
    public var method = "straight_line"
    /// The factor used (route length over straight-line length, the band's median).
    public var circuity: Double
    /// Straight-line length through the points, metres.
    public var straightMeters: Double
    /// The fare at the band's 5th and 95th percentile circuity.
    public var fareLowKrw: Int
    public var fareHighKrw: Int
    /// Why the trip was not routed (an `outsideCoverage` error, its points the route's:
    /// `RequestField(quotePoint:)` names them), or nil when the estimate was asked for.
    public var reason: RoutingError?
}

/// Which fare region a point is in, and whether a point is inside a region's city boundary.
/// `RegionLocator` of the Places module is the real one.
public protocol RegionLookup: Sendable {
    /// The region id (`seoul`, `busan`, …) at a point, or nil when it is in none.
    func regionID(at point: Coordinate) -> String?
    /// True when the point is inside the region's boundary.
    func isInside(regionID: String, _ point: Coordinate) -> Bool
}

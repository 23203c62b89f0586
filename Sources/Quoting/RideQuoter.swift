import FareEstimation
import Fares
import Geo
import Routing

/// Quotes for pooled rides: the route (origin → drop-offs in order → destination), the fare
/// the meter would show along it, and each rider's share.
///
/// - The region (and so the schedule) is the origin's; the schedule is the one in force at
///   the departure.
/// - Each route segment is metered with its own distance and duration; its slow time is its
///   duration × the traffic profile's slow share for its road class at the clock hour the taxi
///   reaches it (the clock advances along the route by the segments' durations).
/// - A segment is out of the city when its midpoint is outside the origin region's boundary.
///   When every node of the road graph lies inside the region (central Seoul in Seoul), no
///   segment is tested: segments are edges between graph nodes (tens of metres), so one
///   leaving the region between two inside nodes is taken to be impossible.
/// - `proportional` splits weigh each person by their solo fare: the fare of a route from the
///   origin straight to their own drop-off (one extra route per stop, only for that policy).
public struct RideQuoter: Sendable {
    public let routes: RouteEngine
    public let fares: FareEstimator
    public let regions: any RegionLookup
    /// The region of the graph's first node: origins are tested against it first (one
    /// boundary test instead of a full region lookup).
    public let homeRegion: String?
    /// True when every node of the graph lies inside `homeRegion`.
    public let graphInsideHomeRegion: Bool

    /// Composes the engines; tests every graph node against its region once (about 0.5 µs a node).
    public init(routes: RouteEngine, fares: FareEstimator, regions: any RegionLookup) {
        self.routes = routes
        self.fares = fares
        self.regions = regions
        let graph = routes.graph
        let home = graph.nodeCount > 0 ? regions.regionID(at: graph.coordinate(ofNode: 0)) : nil
        homeRegion = home
        graphInsideHomeRegion = home.map { h in (0..<graph.nodeCount).allSatisfy { regions.isInside(regionID: h, graph.coordinate(ofNode: $0)) } } ?? false
    }

    /// The fare region of a point: the home region when the point is inside it, else a full lookup.
    public func region(at point: Coordinate) -> String? {
        if let home = homeRegion, regions.isInside(regionID: home, point) { return home }
        return regions.regionID(at: point)
    }

    /// Prices a pooled ride; errors say what kind of failure they are and which field is at fault. With
    /// `allowEstimate`, a trip the graph cannot route (`outside_coverage`) gets a straight-line
    /// estimate, labelled in `Quote.estimate`.
    public func quote(_ r: QuoteRequest) throws(FareRequestError) -> Quote {
        try price(r, estimating: nil)
    }

    /// A straight-line estimate of the ride whether or not the graph could route it, labelled
    /// (`Quote.estimate`, whose reason is `reason`'s message, or "requested" when nil): for
    /// endpoints that price what they cannot route (matching, tables). Costs a few meter runs
    /// over about 10 segments per leg, less than a route.
    public func estimate(_ r: QuoteRequest, because reason: RoutingError? = nil) throws(FareRequestError) -> Quote {
        try price(r, estimating: .some(reason))
    }

    /// `estimating`: nil to route (estimating only as `allowEstimate` allows), .some to estimate.
    private func price(_ r: QuoteRequest, estimating forced: RoutingError??) throws(FareRequestError) -> Quote {
        try FareEstimator.validateCommon(distanceM: 0, departure: r.departure, riders: r.riders,
                                         roundingKrw: r.roundingKrw, tollKrw: r.tollKrw)
        guard r.origin.isValid else { throw .invalid(.origin, reason: "must be a valid lon/lat") }
        guard r.destination.isValid else { throw .invalid(.destination, reason: "must be a valid lon/lat") }
        try QuoteRequest.checkDropOffCount(r.dropOffs.count)
        var dropping = 0
        for (i, d) in r.dropOffs.enumerated() {
            guard d.coordinate.isValid else { throw .invalid(.dropOff(i), reason: "must be a valid lon/lat") }
            guard d.riders >= 1 else { throw .invalid(.dropOffRiders(i), reason: "must be at least 1, got \(d.riders)") }
            dropping += d.riders
        }
        guard dropping < r.riders else {
            throw .conflicting(.riders, reason: "must exceed the riders getting off at drop-offs (\(dropping)): the host rides to the destination")
        }

        let rideMeter = try rideMeter(at: r.origin, field: .origin, taxiClass: r.taxiClass, departure: r.departure)

        // Outside the served roads, an estimate when asked for (and only then, labelled).
        let points = [r.origin] + r.dropOffs.map(\.coordinate) + [r.destination]
        var outside: RoutingError?? = forced
        if forced == nil, r.allowEstimate, let problem = routes.coverageProblem(through: points), case .outsideCoverage = problem {
            outside = .some(problem)
        }
        let estimating = outside != nil
        if estimating { try Self.checkEstimateRange(points) }
        func tripRoute(_ pts: [Coordinate], level: CircuityLevel = .median) throws(FareRequestError) -> RouteResult {
            if estimating { return routes.straightLineRoute(through: pts, departAt: r.departure, level: level) }
            return try self.route(from: pts[0], via: Array(pts.dropFirst().dropLast()), to: pts[pts.count - 1], departure: r.departure)
        }
        func meter(_ route: RouteResult, toll: Int) throws(FareRequestError) -> ([TripSegment], FareBreakdown) {
            let metered = try rideMeter.run(.route(route), departure: r.departure, tollKrw: toll, testEverySegment: estimating)
            return (metered.trip, metered.fare)
        }
        let route = try tripRoute(points)
        if estimating, route.distanceMeters > Self.maxEstimateMeters {
            throw .outsideEstimateRange(nil, reason: "the estimated route is \(Int((route.distanceMeters / 1000).rounded())) km long; "
                + "straight-line estimates go up to \(Int(Self.maxEstimateMeters / 1000)) km (as fares without a route do)")
        }
        let (trip, fare) = try meter(route, toll: r.tollKrw)
        var estimate: QuoteEstimate?
        if let outside {
            let low = try meter(tripRoute(points, level: .low), toll: r.tollKrw).1.totalKrw
            let high = try meter(tripRoute(points, level: .high), toll: r.tollKrw).1.totalKrw
            var straight = 0.0
            for i in 0..<(points.count - 1) { straight += points[i].distance(to: points[i + 1]) }
            estimate = QuoteEstimate(circuity: routes.estimateCircuity(through: points), straightMeters: straight,
                                     fareLowKrw: min(low, fare.totalKrw), fareHighKrw: max(high, fare.totalKrw),
                                     reason: outside)
        }

        // Persons: those riding to the destination first (the host is rider 0), then each drop-off's.
        var stops: [Int?] = Array(repeating: nil, count: r.riders - dropping)
        for (i, d) in r.dropOffs.enumerated() { stops += Array(repeating: i, count: d.riders) }
        let lastLeg = r.dropOffs.count
        var riders = stops.map { SplitRider(count: 1, lastLeg: $0 ?? lastLeg, soloFareKrw: 0) }
        var solos: [Int]?
        if r.split == .proportional {
            var soloByStop: [Int: Int] = [:]  // stop index (lastLeg for the destination) → solo fare
            for stop in Set(riders.map(\.lastLeg)) {
                let target = stop == lastLeg ? r.destination : r.dropOffs[stop].coordinate
                let solo = try tripRoute([r.origin, target])
                soloByStop[stop] = try meter(solo, toll: 0).1.totalKrw
            }
            for i in riders.indices { riders[i].soloFareKrw = soloByStop[riders[i].lastLeg] ?? 0 }
            solos = riders.map(\.soloFareKrw)
        }
        let shares = try FareEstimator.split(fare: fare, riders: riders, policy: r.split, roundingKrw: r.roundingKrw)
        return Quote(route: route, region: rideMeter.region, schedule: rideMeter.schedule, trip: trip, fare: fare, split: shares,
                     riderDropOffs: stops, soloFaresKrw: solos,
                     perPersonKrw: FareSplit.perPerson(totalKrw: fare.totalKrw, persons: r.riders, roundingKrw: r.roundingKrw),
                     departure: r.departure, estimate: estimate)
    }

    /// Where straight-line estimates reach: South Korea's extent, a box around its land and
    /// islands (Baengnyeongdo 124.6°E, Dokdo 131.9°E, Marado 33.1°N, Goseong 38.6°N). The
    /// circuity and the road-class shares an estimate uses were measured on Korean roads, and
    /// every fare region lies inside; a trip leaving the box has no taxi fare to estimate. The
    /// box also holds the sea around and a strip of North Korea; the fare regions decide the
    /// origin, this the other points.
    public static let estimateArea = BoundingBox(west: 124.5, south: 33.0, east: 132.0, north: 38.7)
    /// The longest estimated route (metres): the limit of a fare without a route
    /// (`FareRequest.maxDistanceM`, 1,000 km; Seoul–Busan is about 400 km by road).
    public static let maxEstimateMeters = FareRequest.maxDistanceM

    /// The range check of an estimate through `points` (the origin, the drop-offs, the
    /// destination): each inside `estimateArea`, else `outsideEstimateRange` naming the first
    /// point outside. The route's length is checked once it is estimated (`maxEstimateMeters`).
    public static func checkEstimateRange(_ points: [Coordinate]) throws(FareRequestError) {
        for (i, p) in points.enumerated() where !estimateArea.contains(p) {
            let field: RequestField = i == 0 ? .origin : i == points.count - 1 ? .destination : .dropOff(i - 1)
            let a = estimateArea
            throw .outsideEstimateRange(field, reason: "(\(p.lon),\(p.lat)) is beyond the reach of a straight-line estimate: "
                + "estimates cover South Korea (longitude \(a.west)…\(a.east), latitude \(a.south)…\(a.north))")
        }
    }

    /// The meter of a ride from `origin` at `departure` by the quote's rules: the origin's fare
    /// region, the schedule of `taxiClass` in force then, segments tested against the region's
    /// boundary unless the whole graph lies inside it. Errors name `field`: a point in no fare
    /// region (`outsideFareRegions`), a region without schedules (`noScheduleForRegion`).
    public func rideMeter(at origin: Coordinate, field: RequestField, taxiClass: String, departure: Double) throws(FareRequestError) -> RideMeter {
        guard let region = region(at: origin) else {
            throw .outsideFareRegions(field, origin)
        }
        let schedule: FareSchedule
        do {
            schedule = try fares.book.schedule(region: region, taxiClass: taxiClass, at: departure)
        } catch {
            if case .unknownRegion(_, let allowed) = error {
                throw .noScheduleForRegion(field, region: region, regionsWithSchedules: allowed)
            }
            throw .schedule(error)
        }
        let regions = self.regions
        return RideMeter(region: region, schedule: schedule, profile: fares.profile, isOutside: { !regions.isInside(regionID: region, $0) },
                         graphInside: graphInsideHomeRegion && region == homeRegion)
    }

    /// A route; its failing point is the route's (`RequestField(quotePoint:)` names it after the quote's fields).
    func route(from: Coordinate, via: [Coordinate], to: Coordinate, departure: Double) throws(FareRequestError) -> RouteResult {
        do {
            return try routes.route(RouteRequest(from: from, to: to, via: via, departAt: departure))
        } catch {
            throw .route(error)
        }
    }
}

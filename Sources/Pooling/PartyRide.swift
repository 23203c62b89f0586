import PartyModel
import Quoting
import FareEstimation
import Fares
import Geo
import Routing

/// A party's ride in order: from the origin through the stops (the drop-offs, then the
/// destination), and which riders get off at each stop.
public struct PartyRide: Sendable {
    public var origin: Coordinate
    /// The drop-offs in riding order, then the destination (always last).
    public var stops: [Coordinate]
    /// Per rider (organiser first): its id, seats and the index in `stops` where it gets off.
    public var riders: [(id: String, seats: Int, stop: Int)]
    public var departure: Double

    /// The rider ids in the order they get off (those at one stop in rider order).
    public var dropOffOrder: [String] {
        riders.enumerated().sorted { ($0.element.stop, $0.offset) < ($1.element.stop, $1.offset) }.map(\.element.id)
    }

    /// The ride of `party` with its drop-offs in `order` (indices 1…k into
    /// `party.intermediateDropOffs`, as `StopOrder` answers).
    ///
    /// The host rides to the destination: when none of the party's seated riders does (a party
    /// listing no rider, or riders who all get off before the destination), the ride carries
    /// its host there as rider 0: one person, id `organiser` (or the first of `organiser-2`,
    /// `organiser-3`, … no rider of the party nor `avoiding` has), taking none of the party's
    /// counted seats. So every leg has someone aboard.
    public init(party: Party, order: [Int], avoiding: String? = nil) {
        let drops = party.intermediateDropOffs
        origin = party.origin
        stops = order.map { drops[$0 - 1] } + [party.destination]
        let last = order.count
        riders = party.seatedRiders.map { r in
            let stop = r.dropOff.flatMap { d in d == party.destination ? nil : order.firstIndex { drops[$0 - 1] == d } } ?? last
            return (r.id, r.seats, stop)
        }
        if !riders.contains(where: { $0.stop == last }) {
            let taken = Set(riders.map(\.id) + (avoiding.map { [$0] } ?? []))
            var id = PartyRider.impliedOrganiserID, n = 1
            while taken.contains(id) { n += 1; id = "\(PartyRider.impliedOrganiserID)-\(n)" }
            riders.insert((id, 1, last), at: 0)
        }
        departure = party.departAt
    }
}

/// A priced ride: the route through the stops, the metered fare, and each rider's share.
public struct PricedRide: Sendable {
    public var ride: PartyRide
    public var route: RouteResult
    public var region: String
    public var schedule: FareSchedule
    public var fare: FareBreakdown
    public var split: SplitPolicy
    /// Per rider, in `ride.riders` order: the rider id and its share in won.
    public var shares: [(riderID: String, krw: Int)]
    /// Per rider, its solo fare (origin straight to its own stop), when the split needed it.
    public var soloFaresKrw: [Int]?
}

/// Meters party rides with the quote engine's rules (the origin's region and the schedule in
/// force at the departure; slow time from the traffic profile along the route).
public struct RidePricer: Sendable {
    public let quotes: RideQuoter

    public init(quotes: RideQuoter) { self.quotes = quotes }

    /// The route of a ride from `origin` through `stops` (the last is the end), as a single
    /// route request with the others as via points would return it.
    func route(from origin: Coordinate, stops: [Coordinate], departure: Double) throws(FareRequestError) -> RouteResult {
        do {
            return try quotes.routes.route(RouteRequest(from: origin, to: stops[stops.count - 1], via: Array(stops.dropLast()), departAt: departure))
        } catch {
            throw .route(error)
        }
    }

    /// Meters `route` (from `origin` at `departure`); the per-leg amounts padded to `legs`.
    func meter(_ route: RouteResult, origin: Coordinate, departure: Double, legs: Int,
               taxiClass: String = FareRequest.defaultTaxiClass) throws(FareRequestError) -> (RideMeter, FareBreakdown)
    {
        let meter = try quotes.rideMeter(at: origin, field: .origin, taxiClass: taxiClass, departure: departure)
        return (meter, try meter.run(.route(route), departure: departure, legs: legs).fare)
    }

    /// The metered fare of riding alone from `origin` to `destination` at `departure`.
    public func soloFare(from origin: Coordinate, to destination: Coordinate, departure: Double) throws(FareRequestError) -> Int {
        let r = try route(from: origin, stops: [destination], departure: departure)
        return try meter(r, origin: origin, departure: departure, legs: 1).1.totalKrw
    }

    /// The party's own ride (planned as `planned`, from `origin` at `departure`) routed through
    /// its snapped points and metered, kept with the plan; nil when a point is off the roads,
    /// or it has no route or fare.
    func routed(_ planned: PlannedRide, origin: Coordinate, departure: Double) -> RoutedRide? {
        guard let points = planned.snappedPoints else { return nil }
        let routes = quotes.routes
        let kept = planned.routed {
            do throws(FareRequestError) {
                let route: RouteResult
                do throws(RoutingError) { route = try routes.route(through: points, departAt: departure) } catch { throw .route(error) }
                let (meter, fare) = try self.meter(route, origin: origin, departure: departure, legs: points.count - 1)
                var ranges: [Range<Int>] = []
                var start = 0
                for leg in 0..<(points.count - 1) {
                    var end = start
                    while end < route.segments.count && route.segments[end].legIndex == leg { end += 1 }
                    ranges.append(start..<end)
                    start = end
                }
                return .success(RoutedRide(segments: route.segments, legRanges: ranges, legMeters: route.legs.map(\.distanceMeters),
                                           meter: meter, legKrw: fare.legKrw, totalKrw: fare.totalKrw))
            } catch {
                return .failure(error)
            }
        }
        return try? kept.get()
    }

    /// Whether the ride of `planned` with `rider`'s stop inserted has the party's own legs
    /// unchanged: every point stands on roads of one and the same area (a route through them
    /// all then has, for each leg, the route of that leg alone).
    func keepsOwnLegs(_ planned: PlannedRide, rider: SnappedPoint) -> Bool {
        guard let points = planned.snappedPoints, rider.areas.count == 1 else { return false }
        return points.allSatisfy { $0.areas == rider.areas }
    }

    /// A lower bound of what `pooledShare` answers, without routing anything new: the party's
    /// own legs before the rider's stop as metered, the leg to the stop (`toStop`: its duration
    /// and distance) at the least the meter can add over it, each split among those aboard,
    /// less what the split's rounding can take (`splitSlack`). Nil
    /// when there is none to give (the ride's legs change, or the party's ride is not priced).
    func leastPooledShare(_ ride: PartyRide, planned: PlannedRide, rider: SnappedPoint, position j: Int, toStop: TravelCell,
                          roundingKrw: Int = 10) -> Double?
    {
        guard keepsOwnLegs(planned, rider: rider), let own = routed(planned, origin: ride.origin, departure: ride.departure),
              let seats = ride.riders.last?.seats, j < own.legKrw.count else { return nil }
        func aboard(_ k: Int) -> Double { Double(ride.riders.reduce(0) { $0 + ($1.stop >= k ? $1.seats : 0) }) }
        var share = 0.0, travelled = 0.0
        for k in 0..<j {
            share += Double(own.legKrw[k] * seats) / aboard(k)
            travelled += own.legMeters[k]
        }
        let least = FareMeter(schedule: own.meter.schedule).leastLegKrw(distanceM: toStop.distance, durationS: toStop.duration, travelledM: travelled, first: j == 0)
        share += Double(least * seats) / aboard(j)
        return share - Self.splitSlack(ride, position: j, schedule: own.meter.schedule, roundingKrw: roundingKrw)
    }

    /// How far below its exact by-leg part `a` (the sum over legs 0…j of the leg's meter amount
    /// × seats ÷ aboard) the last rider's share of `ride` can come out, whatever the legs after
    /// its stop `j` add. `FareSplit` hands out `units = ⌊T/u⌋` units (u = `roundingKrw`) by the
    /// weights, whose sum is C·L (L: the legs' amounts summed; each person aboard leg k weighs
    /// C·amount ÷ aboard(k)), each person's share rounded down to a unit, so the rider's `seats`
    /// persons together pay more than (T − u)·a/L − seats·u ≥ T·a/L − (seats + 1)·u; the meter's
    /// total T = L + its rounding (more than −U/2, U: the schedule's unit) + tolls (≥ 0), so
    /// T·a/L ≥ a − (U/2)·a/L; and a/L is at most f = the largest seats ÷ aboard(k) over k ≤ j.
    /// Slack: (U/2)·f + (seats + 1)·u, and one won more.
    static func splitSlack(_ ride: PartyRide, position j: Int, schedule: FareSchedule, roundingKrw: Int) -> Double {
        guard let seats = ride.riders.last?.seats else { return Double(schedule.roundingKrw + 2 * roundingKrw + 1) }
        var share = 0.0
        for k in 0...j {
            let aboard = ride.riders.reduce(0) { $0 + ($1.stop >= k ? $1.seats : 0) }
            share = max(share, aboard > 0 ? min(1, Double(seats) / Double(aboard)) : 1)
        }
        return Double(schedule.roundingKrw) / 2 * share + Double((seats + 1) * roundingKrw + 1)
    }

    /// A closer lower bound of what `pooledShare` answers than `leastPooledShare`, with one
    /// leg routed: the leg to the rider's stop (`ride.stops[position]`), returned to be reused.
    /// The meter's amounts on the legs up to the stop are then exact (the meter credits each
    /// leg as it goes), so the bound is the rider's part of them less the rounding slack. Nil
    /// when the party's own legs change with the stop, or the leg has no route.
    func pooledShareUpToStop(_ ride: PartyRide, planned: PlannedRide, rider: RiderStop, position j: Int,
                             roundingKrw: Int = 10) -> (least: Double, leg: RouteResult)?
    {
        guard keepsOwnLegs(planned, rider: rider.point), let points = planned.snappedPoints, points.count == ride.stops.count,
              let own = routed(planned, origin: ride.origin, departure: ride.departure), let seats = ride.riders.last?.seats,
              let leg = legToStop(planned, points, j, rider, departure: ride.departure) else { return nil }
        let legs = own.legRanges.prefix(j).map { own.segments[$0] } + [leg.segments[...]]
        guard let fare = try? own.meter.run(.legs(legs), departure: ride.departure).fare else { return nil }
        var share = 0.0
        for k in 0...j where k < fare.legKrw.count {
            share += Double(fare.legKrw[k] * seats) / Double(ride.riders.reduce(0) { $0 + ($1.stop >= k ? $1.seats : 0) })
        }
        return (share - Self.splitSlack(ride, position: j, schedule: own.meter.schedule, roundingKrw: roundingKrw), leg)
    }

    /// The by-leg share of the last rider of `ride`: `planned`'s ride with that rider's stop
    /// (`rider`, snapped) inserted before `stops[position]`, as `price(ride, split: .byLeg)`
    /// gives it. The party's own legs are reused when they stay unchanged (`keepsOwnLegs`):
    /// only the two legs to and from the rider's stop are routed; else the whole ride is.
    /// Nil when it has no route.
    func pooledShare(_ ride: PartyRide, planned: PlannedRide, rider: RiderStop, position j: Int, toStop: RouteResult? = nil,
                     roundingKrw: Int = 10) -> Int?
    {
        let routes = quotes.routes
        guard let points = planned.snappedPoints, points.count == ride.stops.count,
              let own = routed(planned, origin: ride.origin, departure: ride.departure) else {
            return (try? price(ride, split: .byLeg, roundingKrw: roundingKrw))?.shares.last?.krw
        }
        var legs: [ArraySlice<RouteSegment>]
        if keepsOwnLegs(planned, rider: rider.point) {
            // Each leg of a route through points of one area is the route of that leg alone.
            guard let first = toStop ?? legToStop(planned, points, j, rider, departure: ride.departure),
                  let second = legFromStop(planned, points, j, rider, departure: ride.departure) else { return nil }
            legs = own.legRanges.map { own.segments[$0] }
            legs.replaceSubrange(j...j, with: [first.segments[...], second.segments[...]])
        } else {
            var withRider = points
            withRider.insert(rider.point, at: j + 1)
            guard let whole = try? routes.route(through: withRider, departAt: ride.departure) else { return nil }
            legs = (0..<(withRider.count - 1)).map { leg in ArraySlice(whole.segments.filter { $0.legIndex == leg }) }
        }
        guard let fare = try? own.meter.run(.legs(legs), departure: ride.departure, legs: ride.stops.count).fare else { return nil }
        let riders = ride.riders.map { SplitRider(count: $0.seats, lastLeg: $0.stop) }
        return (try? FareSplit.split(totalKrw: fare.totalKrw, riders: riders, policy: .byLeg, roundingKrw: roundingKrw, legKrw: fare.legKrw))?.last
    }

    /// The by-leg share of the last rider of `ride`: `planned`'s ride unchanged, the rider
    /// getting off at one of its stops (`RidePlan.joiningStop`), as `price(ride, split: .byLeg)`
    /// gives it: the party's own metered route split once more. Nil when it has no route.
    func sharedStopShare(_ ride: PartyRide, planned: PlannedRide, roundingKrw: Int = 10) -> Int? {
        guard let own = routed(planned, origin: ride.origin, departure: ride.departure), own.legKrw.count == ride.stops.count else {
            return (try? price(ride, split: .byLeg, roundingKrw: roundingKrw))?.shares.last?.krw
        }
        let riders = ride.riders.map { SplitRider(count: $0.seats, lastLeg: $0.stop) }
        return (try? FareSplit.split(totalKrw: own.totalKrw, riders: riders, policy: .byLeg, roundingKrw: roundingKrw, legKrw: own.legKrw))?.last
    }

    /// The route from the ride's point `j` (`points`: the ride's snapped points) to the rider's
    /// stop: read from their kept searches (`RouteEngine.route(from:to:)`) when both are kept,
    /// else routed; nil when there is no road route.
    func legToStop(_ planned: PlannedRide, _ points: [SnappedPoint], _ j: Int, _ rider: RiderStop, departure: Double) -> RouteResult? {
        if let from = planned.prepared.forward?[j], let to = rider.backward, let leg = quotes.routes.route(from: from, to: to) { return leg }
        return try? quotes.routes.route(through: [points[j], rider.point], departAt: departure)
    }

    /// The route from the rider's stop to the ride's point `j + 1`, as `legToStop`.
    func legFromStop(_ planned: PlannedRide, _ points: [SnappedPoint], _ j: Int, _ rider: RiderStop, departure: Double) -> RouteResult? {
        if let from = rider.forward, let to = planned.prepared.backward?[j], let leg = quotes.routes.route(from: from, to: to) { return leg }
        return try? quotes.routes.route(through: [rider.point, points[j + 1]], departAt: departure)
    }

    /// Routes and meters `ride`, and splits the fare between its riders by `split`
    /// (`proportional` weighs each by its solo fare to its own stop: one more route per stop).
    public func price(_ ride: PartyRide, split: SplitPolicy, roundingKrw: Int = 10) throws(FareRequestError) -> PricedRide {
        let route = try self.route(from: ride.origin, stops: ride.stops, departure: ride.departure)
        let (meter, fare) = try self.meter(route, origin: ride.origin, departure: ride.departure, legs: ride.stops.count)
        var solos: [Int]?
        if split == .proportional {
            var byStop: [Int: Int] = [:]
            for r in ride.riders where byStop[r.stop] == nil {
                byStop[r.stop] = try soloFare(from: ride.origin, to: ride.stops[r.stop], departure: ride.departure)
            }
            solos = ride.riders.map { byStop[$0.stop] ?? 0 }
        }
        var shares: [(String, Int)] = []
        if !ride.riders.isEmpty {
            let riders = ride.riders.enumerated().map { i, r in SplitRider(count: r.seats, lastLeg: r.stop, soloFareKrw: solos?[i] ?? 0) }
            do {
                let krw = try FareSplit.split(totalKrw: fare.totalKrw, riders: riders, policy: split, roundingKrw: roundingKrw, legKrw: fare.legKrw)
                shares = zip(ride.riders, krw).map { ($0.id, $1) }
            } catch {
                throw .internalFailure("splitting the fare failed: \(error.message)")
            }
        }
        return PricedRide(ride: ride, route: route, region: meter.region, schedule: meter.schedule, fare: fare, split: split, shares: shares, soloFaresKrw: solos)
    }
}

/// An offer request's rider stop, snapped, with its upward searches in the hierarchy of one
/// departure hour, kept while the request prices the candidates of that hour: each priced leg
/// to or from the stop is then read from them and the party's kept ones (`RidePricer.legToStop`).
struct RiderStop {
    let point: SnappedPoint
    /// Nil when the hour's metric has no hierarchy (the legs are routed then).
    let forward: HierarchySearchSpace?
    let backward: HierarchySearchSpace?

    init(_ point: SnappedPoint, hour: Int, routes: RouteEngine) {
        self.point = point
        forward = routes.searchSpace(point, hour: hour, direction: .forward)
        backward = routes.searchSpace(point, hour: hour, direction: .backward)
    }
}

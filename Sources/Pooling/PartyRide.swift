import Engine
import FareEstimation
import Fares
import Geo
import Parties
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
    public init(party: Party, order: [Int]) {
        let drops = party.intermediateDropOffs
        origin = party.origin
        stops = order.map { drops[$0 - 1] } + [party.destination]
        let last = order.count
        riders = party.seatedRiders.map { r in
            let stop = r.dropOff.flatMap { d in d == party.destination ? nil : order.firstIndex { drops[$0 - 1] == d } } ?? last
            return (r.id, r.seats, stop)
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
    public let quotes: QuoteEngine

    public init(quotes: QuoteEngine) { self.quotes = quotes }

    /// The fare region and schedule for a ride from `origin` at `departure`.
    func schedule(origin: Coordinate, departure: Double, taxiClass: String) throws(FareRequestError) -> (String, FareSchedule) {
        guard let region = quotes.region(at: origin) else {
            throw .outsideFareRegions(.origin, origin)
        }
        return (region, try quotes.fares.schedule(region: region, taxiClass: taxiClass, departure: departure))
    }

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
               taxiClass: String = FareRequest.defaultTaxiClass) throws(FareRequestError) -> (String, FareSchedule, FareBreakdown)
    {
        let (region, schedule) = try self.schedule(origin: origin, departure: departure, taxiClass: taxiClass)
        var fare: FareBreakdown
        do {
            fare = try FareMeter(schedule: schedule).run(quotes.meterTrip(route, region: region, departure: departure), departure: departure)
        } catch {
            throw .internalFailure("metering the route failed: \(error)")
        }
        if fare.legKrw.count < legs { fare.legKrw += Array(repeating: 0, count: legs - fare.legKrw.count) }
        return (region, schedule, fare)
    }

    /// The metered fare of riding alone from `origin` to `destination` at `departure`.
    public func soloFare(from origin: Coordinate, to destination: Coordinate, departure: Double) throws(FareRequestError) -> Int {
        let r = try route(from: origin, stops: [destination], departure: departure)
        return try meter(r, origin: origin, departure: departure, legs: 1).2.totalKrw
    }

    /// Routes and meters `ride`, and splits the fare between its riders by `split`
    /// (`proportional` weighs each by its solo fare to its own stop: one more route per stop).
    public func price(_ ride: PartyRide, split: SplitPolicy, roundingKrw: Int = 10) throws(FareRequestError) -> PricedRide {
        let route = try self.route(from: ride.origin, stops: ride.stops, departure: ride.departure)
        let (region, schedule, fare) = try meter(route, origin: ride.origin, departure: ride.departure, legs: ride.stops.count)
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
        return PricedRide(ride: ride, route: route, region: region, schedule: schedule, fare: fare, split: split, shares: shares, soloFaresKrw: solos)
    }
}

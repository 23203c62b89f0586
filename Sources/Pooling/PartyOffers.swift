import PartyModel
import Quoting
import FareEstimation
import Fares
import Foundation
import Geo

/// A rider looking for a party to join (`GET /v1/match`).
public struct OfferRequest: Sendable {
    /// Where the rider is: a party's meeting point (its origin) must be within `walkMeters`.
    public var origin: Coordinate
    /// Where the rider goes: inserted among the party's stops.
    public var destination: Coordinate
    /// When the rider wants to leave (Unix seconds).
    public var departAt: Double
    /// A party departing within this many minutes of `departAt` (before or after, never
    /// already departed) is a candidate.
    public var windowMinutes: Double
    /// The farthest walk to a party's origin, metres.
    public var walkMeters: Double
    /// Seats the rider needs.
    public var seats: Int
    /// A party whose ride grows by more than this share of its duration is left out.
    public var maxDetourPercent: Double
    /// At most this many offers.
    public var limit: Int
    /// The rider's id in `drop_off_order`.
    public var riderID: String
    /// When the rider's own trip is outside the served roads (`outside_coverage`), estimate
    /// its solo fare in a straight line (labelled in `PartyOffer.soloEstimate`) instead of
    /// failing the request (`estimate=allow`). Parties whose ride cannot take the rider's
    /// stop by road are still left out.
    public var allowEstimate = false

    public init(origin: Coordinate, destination: Coordinate, departAt: Double, windowMinutes: Double = 30, walkMeters: Double = 800,
                seats: Int = 1, maxDetourPercent: Double = JoinOffer.defaultMaxDetourPercent, limit: Int = 10, riderID: String = "you")
    {
        self.origin = origin
        self.destination = destination
        self.departAt = departAt
        self.windowMinutes = windowMinutes
        self.walkMeters = walkMeters
        self.seats = seats
        self.maxDetourPercent = maxDetourPercent
        self.limit = limit
        self.riderID = riderID
    }

    /// Accepted ranges.
    public static let windowRange: ClosedRange<Double> = 0...1440
    public static let walkRange: ClosedRange<Double> = 0...5000
    public static let detourRange: ClosedRange<Double> = 0...1000
    public static let limitRange = 1...50
    /// Candidates examined at most (the nearest first).
    public static let maxCandidates = 2000

    /// Throws `PoolingError.invalid` naming the first field out of range.
    public func validate() throws(PoolingError) {
        guard origin.isValid else { throw .invalid(.origin, reason: "must be lon,lat within ±180/±90") }
        guard destination.isValid else { throw .invalid(.destination, reason: "must be lon,lat within ±180/±90") }
        guard departAt.isFinite, Party.departRange.contains(departAt) else { throw .invalid(.departure, reason: "must be an instant between 2000 and 2100") }
        try Self.checkWindow(windowMinutes)
        try Self.checkWalk(walkMeters)
        try Self.checkSeats(seats)
        try Self.checkDetour(maxDetourPercent)
        try Self.checkLimit(limit)
        try Self.checkRiderID(riderID)
    }

    // The checks of the options one by one, in the order `validate()` makes them (a caller
    // reading the options from text may make each as it reads it).

    /// `windowMinutes` within `windowRange`.
    public static func checkWindow(_ v: Double) throws(PoolingError) {
        guard v.isFinite, windowRange.contains(v) else { throw .invalid(.window, reason: "must be 0–1440 minutes, got \(v)") }
    }

    /// `walkMeters` within `walkRange`.
    public static func checkWalk(_ v: Double) throws(PoolingError) {
        guard v.isFinite, walkRange.contains(v) else { throw .invalid(.walk, reason: "must be 0–5000 metres, got \(v)") }
    }

    /// `seats` from 1 to `Party.maxSeats`.
    public static func checkSeats(_ n: Int) throws(PoolingError) {
        guard (1...Party.maxSeats).contains(n) else { throw .invalid(.seats, reason: "must be 1–\(Party.maxSeats), got \(n)") }
    }

    /// `maxDetourPercent` within `detourRange`.
    public static func checkDetour(_ v: Double) throws(PoolingError) {
        guard v.isFinite, detourRange.contains(v) else { throw .invalid(.maxDetour, reason: "must be 0–1000, got \(v)") }
    }

    /// `limit` within `limitRange`.
    public static func checkLimit(_ n: Int) throws(PoolingError) {
        guard limitRange.contains(n) else { throw .invalid(.limit, reason: "must be 1–50, got \(n)") }
    }

    /// `riderID` a valid id (`Party.isValidID`).
    public static func checkRiderID(_ id: String) throws(PoolingError) {
        guard Party.isValidID(id) else { throw .invalid(.riderID, reason: "must be 1–64 characters of A–Z, a–z, 0–9, '_' or '-'") }
    }
}

/// One party a rider could join, with what joining costs the party and saves the rider.
public struct PartyOffer: Sendable {
    public var party: Party
    /// Straight-line metres from the rider's origin to the party's origin.
    public var walkMeters: Double
    /// Rider ids in the order they get off, the asking rider (`OfferRequest.riderID`) among them.
    public var dropOffOrder: [String]
    /// How much longer the party's ride gets with the rider's drop-off in it.
    public var addedSeconds: Double
    public var addedMeters: Double
    /// `addedSeconds` as a percentage of the party's ride without the rider.
    public var detourPercent: Double
    /// How much later each rider already in the party (in the ride's rider order, the host
    /// first) arrives with the rider's drop-off in the ride: each within `maxDetourPercent` of
    /// their own arrival in the party's current plan.
    public var riderDelays: [RiderDelay]
    /// The rider's metered fare riding alone from its origin to its destination at `departAt`.
    public var soloKrw: Int
    /// Set when `soloKrw` is a straight-line estimate (the rider's own trip is outside the
    /// served roads and the request allowed estimates): how it was estimated, and why.
    public var soloEstimate: QuoteEstimate?
    /// The rider's `by_leg` share of the party's metered ride with the rider in it.
    public var pooledKrw: Int
    public var savingKrw: Int { soloKrw - pooledKrw }
    /// The party's ride with the rider in it: the ride of the party the join writes.
    public var ride: PartyRide
    /// The request's limit (`OfferRequest.maxDetourPercent`).
    public var maxDetourPercent: Double

    /// What a join accepting this offer hands back (`PoolingService.placeJoin`).
    public var offer: JoinOffer { JoinOffer(dropOffOrder: dropOffOrder, pooledKrw: pooledKrw, maxDetourPercent: maxDetourPercent) }
}

/// How much later a rider already in a party arrives when a new rider's drop-off is inserted.
public struct RiderDelay: Sendable, Equatable {
    public var riderID: String
    /// Seconds later than in the party's current plan (0 for those getting off before the new stop).
    public var addedSeconds: Double
    /// `addedSeconds` as a percentage of the rider's arrival time (from the departure) in the
    /// current plan.
    public var percent: Double

    public init(riderID: String, addedSeconds: Double, percent: Double) {
        self.riderID = riderID
        self.addedSeconds = addedSeconds
        self.percent = percent
    }
}

/// Where a rider's drop-off goes in a planned ride: before `stops[position]`, or (`joinsStop`)
/// at `stops[position]` itself, a stop of the ride already (the ride is unchanged).
struct Insertion {
    var position: Int
    var added: TravelCell
    /// The leg from the stop before (the origin, or `stops[position - 1]`) to the new point.
    var toStop: TravelCell
    var joinsStop = false
}

/// `part` as a percentage of `whole`: infinite when `whole` is zero and `part` is not.
func percent(_ part: Double, of whole: Double) -> Double {
    whole > 0 ? part / whole * 100 : (part > 0 ? .infinity : 0)
}

extension RidePlan {
    /// The rider getting off at `point` when it is one of the ride's stops (a drop-off or the
    /// destination): they get off there with the riders of that stop, delaying nobody.
    func joiningStop(_ point: Coordinate) -> Insertion? {
        stops.firstIndex(of: point).map { Insertion(position: $0, added: TravelCell(duration: 0, distance: 0), toStop: legs[$0], joinsStop: true) }
    }

    /// The position that lengthens the ride least (in time, to the millisecond that route
    /// durations carry; the earliest of equals) among those within `maxDetourPercent`, given the
    /// cells from each stop-before (the origin, then `stops[i]`) to the new point and from the
    /// new point to each stop. A position is within the limit when the ride's time grows by at
    /// most that share of the plan's, and so does the arrival of everyone getting off at or
    /// after it (riders get off at every stop of a plan, its host at the last): inserting before
    /// `stops[j]` delays each of them by the added time, the earliest (`arrivals[j]`) most in
    /// share. Nil and why when no position qualifies.
    func cheapestInsertion(maxDetourPercent: Double, toNew: (Int) -> TravelCell?,
                           fromNew: (Int) -> TravelCell?) -> Result<Insertion, DroppedCandidate>
    {
        var best: Insertion?
        var routed = false, withinRide = false
        let arrivals = self.arrivals, base = duration
        for j in 0..<stops.count {
            guard let a = toNew(j), let b = fromNew(j) else { continue }
            routed = true
            let added = TravelCell(duration: ((a.duration + b.duration - legs[j].duration) * 1000).rounded() / 1000,
                                   distance: ((a.distance + b.distance - legs[j].distance) * 100).rounded() / 100)
            guard percent(added.duration, of: base) <= maxDetourPercent else { continue }
            withinRide = true
            guard percent(added.duration, of: arrivals[j]) <= maxDetourPercent else { continue }
            if best == nil || added.duration < best!.added.duration { best = Insertion(position: j, added: added, toStop: a) }
        }
        if let best { return .success(best) }
        return .failure(!routed ? .noRouteToStop : withinRide ? .riderDelay : .partyDetour)
    }

    /// The delay of each rider of `ride` but the last (the new one, inserted before
    /// `stops[insertion.position]` of this plan) against their arrival in this plan.
    func riderDelays(_ ride: PartyRide, _ insertion: Insertion) -> [RiderDelay] {
        let arrivals = self.arrivals, j = insertion.position
        return ride.riders.dropLast().map { r in
            // Riders of stops at or after the new one's moved one stop on.
            let delayed = !insertion.joinsStop && r.stop > j, stop = delayed ? r.stop - 1 : r.stop
            let added = delayed ? insertion.added.duration : 0
            return RiderDelay(riderID: r.id, addedSeconds: added, percent: percent(added, of: arrivals[stop]))
        }
    }

    /// `party` (planned as `self`) with `rider` in it as `insertion` places them: the party a
    /// join writes (`Party.joining`, its drop-offs in this plan's order with the rider's new
    /// stop, if any, at `insertion.position`) and its ride, priced as its quote prices it (the
    /// rider last among its riders; the host implied only if nobody then rides to the destination).
    func joining(_ party: Party, _ rider: PartyRider, at insertion: Insertion) -> (party: Party, ride: PartyRide) {
        var order = self.order
        if !insertion.joinsStop { order.insert(party.intermediateDropOffs.count + 1, at: insertion.position) }
        let joined = party.joining(rider, stopOrder: order)
        return (joined, PartyRide(party: joined, order: order))
    }
}

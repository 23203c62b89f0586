import Parties
import PartyClusters
import PartyModel
import Quoting
import FareEstimation
import Fares
import Foundation
import Geo
import Routing

/// A party's quote: its ride through the riders' drop-offs in the shortest order, the metered
/// fare, and each rider's share.
public struct PartyQuote: Sendable {
    public var party: Party
    public var priced: PricedRide
    /// Each rider's share in won, by rider id (organiser first).
    public var shares: [(riderID: String, krw: Int)] { priced.shares }
}

/// Pooling over the live parties: party quotes and offers of open parties to riders.
///
/// Travel times come through one `TravelTimes` seam (`TableTravelTimes`: the contraction
/// hierarchy); each party's own ride plan is kept until the party changes, with its points
/// snapped and their upward searches in the hierarchy of its departure hour, and its own route
/// once priced. So an offer request asks the road network only about the rider's points: two
/// searches from the rider's stop per departure hour (scanned against the kept ones: every
/// candidate's legs to and from the stop), then two routed legs per candidate that passes the
/// detour limit (the party's other legs are reused for the fare).
public final class PoolingService: Sendable {
    public let parties: PartyService
    public let pricer: RidePricer
    public let planner: RidePlanner
    /// Candidates left out of offer answers, by reason, since the engine started.
    public let dropped = DroppedCandidateCounts()
    private let now: @Sendable () -> Double

    public init(quotes: RideQuoter, parties: PartyService, times: (any TravelTimes)? = nil,
                now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 })
    {
        self.parties = parties
        pricer = RidePricer(quotes: quotes)
        planner = RidePlanner(times: times ?? TableTravelTimes(routes: quotes.routes))
        self.now = now
    }

    /// The quote of the live party `id`: origin → drop-offs (in the order the joins fixed, else
    /// the order that makes the ride shortest in time) → destination, metered at its departure, split by `split`
    /// (`by_leg`: each leg's increment among those aboard). Throws `partyNotFound`, or the
    /// route's or the fare's failure (`fare`).
    public func quote(partyID: String, split: SplitPolicy = .byLeg, roundingKrw: Int = 10) throws(PoolingError) -> PartyQuote {
        guard let party = parties.party(id: partyID) else {
            throw .partyNotFound(id: partyID)
        }
        let order = planner.plan(party)?.order ?? party.stopOrder ?? Array(party.intermediateDropOffs.indices.map { $0 + 1 })
        do throws(FareRequestError) {
            return PartyQuote(party: party, priced: try pricer.price(PartyRide(party: party, order: order), split: split, roundingKrw: roundingKrw))
        } catch {
            throw .fare(error)
        }
    }

    /// The open parties `request`'s rider could join, best first: most saved, then least
    /// detour, then party id. Parties that cannot be reached by road are left out; errors are
    /// only the request's own (an option out of range, the rider's own trip off the roads or
    /// unpriceable: `fare`).
    public func offers(_ request: OfferRequest) throws(PoolingError) -> [PartyOffer] {
        try request.validate()
        let t = now()
        let window = request.windowMinutes * 60
        let filter = PartyFilter(departAfter: max(request.departAt - window, t.nextUp), departBefore: request.departAt + window,
                                 minSeats: request.seats)
        let solo: Int, soloEstimate: QuoteEstimate?
        do throws(FareRequestError) { (solo, soloEstimate) = try soloFare(request) } catch { throw .fare(error) }
        let nearby = parties.nearby(request.origin, radiusMeters: request.walkMeters, filter: filter,
                                    limit: OfferRequest.maxCandidates).parties
        guard !nearby.isEmpty else { return [] }

        var drops = [Int](repeating: 0, count: DroppedCandidate.allCases.count)
        func drop(_ reason: DroppedCandidate) { drops[DroppedCandidate.allCases.firstIndex(of: reason)!] += 1 }
        defer { dropped.add(drops) }

        var candidates: [(NearbyParty, PlannedRide)] = []
        for c in nearby {
            if c.party.isSettled {
                drop(.settled)
            } else if c.party.seatedRiders.contains(where: { $0.id == request.riderID }) {
                drop(.alreadyInParty)
            } else if let planned = planner.planned(c.party) {
                candidates.append((c, planned))
            } else {
                drop(.noRide)
            }
        }

        // Per departure hour, the legs between every candidate's points and the rider's stop
        // (both searches from the rider's stop once, scanned against each party's kept ones).
        var byHour: [Int: [Int]] = [:]
        for (i, c) in candidates.enumerated() { byHour[SeoulTime.hour(c.0.party.departAt), default: []].append(i) }
        var insertions = [Result<Insertion, DroppedCandidate>](repeating: .failure(.noRouteToStop), count: candidates.count)
        for (_, members) in byHour.sorted(by: { $0.key < $1.key }) {
            let at = candidates[members[0]].0.party.departAt
            let legs = planner.times.insertionLegs(members.map { candidates[$0].1.prepared }, point: request.destination, departAt: at)
            for (i, l) in zip(members, legs) {
                let plan = candidates[i].1.plan
                insertions[i] = plan.joiningStop(request.destination).map { .success($0) }
                    ?? plan.cheapestInsertion(maxDetourPercent: request.maxDetourPercent, toNew: { l.toNew[$0] }, fromNew: { l.fromNew[$0] })
            }
        }

        // The candidates within the detour limits, each with a bound of what the rider would save
        // (from a lower bound of the pooled share: no routing).
        let rider = pricer.quotes.routes.snap(request.destination)
        // The rider's stop with its searches in each hour, made when the hour's first candidate is priced.
        var stops: [Int: RiderStop] = [:]
        func riderStop(_ party: Party) -> RiderStop? {
            guard let rider else { return nil }
            let hour = SeoulTime.hour(party.departAt)
            if let kept = stops[hour] { return kept }
            let made = RiderStop(rider, hour: hour, routes: pricer.quotes.routes)
            stops[hour] = made
            return made
        }
        let joiner = PartyRider(id: request.riderID, seats: request.seats, dropOff: request.destination)
        var pending: [PendingOffer] = []
        for (i, (c, planned)) in candidates.enumerated() {
            let ins: Insertion
            switch insertions[i] {
            case .success(let found): ins = found
            case .failure(let reason): drop(reason); continue
            }
            let pct = percent(ins.added.duration, of: planned.plan.duration)
            let ride = planned.plan.joining(c.party, joiner, at: ins).ride
            let least = ins.joinsStop ? nil : rider.flatMap { pricer.leastPooledShare(ride, planned: planned, rider: $0, position: ins.position, toStop: ins.toStop) }
            pending.append(PendingOffer(index: i, partyID: c.party.id, insertion: ins, pct: pct, ride: ride, most: least.map { Double(solo) - $0 } ?? .infinity))
        }

        // Best first: the candidate that may save the most is made more exact (the leg to the
        // rider's stop routed, then priced in full) until the best is an exact one, which is
        // then the next of the list. So no candidate is routed whose bound is below the last
        // of the list, whatever order the bounds came in.
        var out: [PartyOffer] = []
        while out.count < request.limit, let k = PendingOffer.best(pending) {
            let p = pending[k]
            if let offer = p.offer {
                out.append(offer)
                pending.swapAt(k, pending.count - 1)
                pending.removeLast()
                continue
            }
            let (c, planned) = candidates[p.index]
            if p.toStop == nil, !p.triedLeg, !p.insertion.joinsStop {
                // Route the leg to the rider's stop first: the bound it gives leaves out most
                // candidates before their second leg is routed.
                pending[k].triedLeg = true
                if let stop = riderStop(c.party), let upTo = pricer.pooledShareUpToStop(p.ride, planned: planned, rider: stop, position: p.insertion.position) {
                    pending[k].most = min(p.most, Double(solo) - upTo.least)
                    pending[k].toStop = upTo.leg
                    continue
                }
            }
            let stop = p.insertion.joinsStop ? nil : riderStop(c.party)
            guard let pooled = pooledShare(p.ride, planned: planned, insertion: p.insertion, stop: stop, toStop: p.toStop) else {
                drop(.noPrice)
                pending.swapAt(k, pending.count - 1)
                pending.removeLast()
                continue
            }
            let m = PartyOffer(party: c.party, walkMeters: c.distance, dropOffOrder: p.ride.dropOffOrder,
                               addedSeconds: p.insertion.added.duration, addedMeters: p.insertion.added.distance, detourPercent: p.pct,
                               riderDelays: planned.plan.riderDelays(p.ride, p.insertion),
                               soloKrw: solo, soloEstimate: soloEstimate, pooledKrw: pooled, ride: p.ride,
                               maxDetourPercent: request.maxDetourPercent)
            pending[k].offer = m
            pending[k].most = Double(m.savingKrw)
        }
        return out
    }
}

extension PoolingService {
    /// The joining rider's (the last of `ride`'s riders) by-leg share of `ride`, `planned`'s ride
    /// with them placed by `insertion`, as `pricer.price(ride, split: .byLeg)` gives it: their
    /// stop's searches (`stop`) and the leg to it (`toStop`) reused when given. Nil when the
    /// ride has no route or price.
    func pooledShare(_ ride: PartyRide, planned: PlannedRide, insertion: Insertion, stop: RiderStop?, toStop: RouteResult? = nil) -> Int? {
        if insertion.joinsStop { return pricer.sharedStopShare(ride, planned: planned) }
        if let stop { return pricer.pooledShare(ride, planned: planned, rider: stop, position: insertion.position, toStop: toStop) }
        return (try? pricer.price(ride, split: .byLeg))?.shares.last?.krw
    }

    /// The live `party` with `rider` in it, placed as `GET /v1/match` places a rider: at the stop
    /// of the ride their drop-off is (the destination without one), else where the stop lengthens
    /// the party's current plan least within the limit of `offer` (without one,
    /// `JoinOffer.defaultMaxDetourPercent`) for the ride and every rider aboard; the party's
    /// drop-off order is then fixed (`Party.stopOrder`). With `offer`, the offer `offers` gives
    /// now for the live party (the same computation) must be it: else `offerChanged`, with the
    /// new offer when there is one. Without an offer and no place within the limit:
    /// `detourTooLong`. A party whose ride has no road route takes the rider by
    /// `Party.joining(_:)` (an offer for it is refused: `offers` offers none).
    @Sendable public func placeJoin(_ party: Party, _ rider: PartyRider, accepting offer: JoinOffer?) throws(PartyWriteError) -> Party {
        let limit = offer?.maxDetourPercent ?? JoinOffer.defaultMaxDetourPercent
        func refuse(_ reason: String, _ now: JoinOffer?) -> PartyWriteError {
            offer == nil ? .detourTooLong(id: party.id, riderID: rider.id, reason: reason)
                : .offerChanged(id: party.id, riderID: rider.id, reason: reason, offer: now)
        }
        guard let planned = planner.planned(party) else {
            if offer != nil { throw refuse("the party's ride has no road route", nil) }
            return party.joining(rider)
        }
        let point = rider.dropOff ?? party.destination
        let insertion: Insertion
        if let atStop = planned.plan.joiningStop(point) {
            insertion = atStop
        } else {
            let legs = planner.times.insertionLegs([planned.prepared], point: point, departAt: party.departAt)[0]
            switch planned.plan.cheapestInsertion(maxDetourPercent: limit, toNew: { legs.toNew[$0] }, fromNew: { legs.fromNew[$0] }) {
            case .success(let found): insertion = found
            case .failure(let reason):
                let why = switch reason {
                case .riderDelay: "every place for the drop-off delays a rider aboard by more than \(limit)% of their arrival time"
                case .partyDetour: "every place for the drop-off lengthens the ride by more than \(limit)%"
                default: "no road route to and from the drop-off"
                }
                throw refuse(why, nil)
            }
        }
        let joined = planned.plan.joining(party, rider, at: insertion)
        guard let offer else { return joined.party }
        let routes = pricer.quotes.routes
        let stop = insertion.joinsStop ? nil : routes.snap(point).map { RiderStop($0, hour: SeoulTime.hour(party.departAt), routes: routes) }
        guard let pooled = pooledShare(joined.ride, planned: planned, insertion: insertion, stop: stop) else {
            throw refuse("the ride with the rider in it has no route or price", nil)
        }
        let now = JoinOffer(dropOffOrder: joined.ride.dropOffOrder, pooledKrw: pooled, maxDetourPercent: limit)
        guard now == offer else { throw refuse("the offer is now drop_off_order \(now.dropOffOrder) at \(now.pooledKrw) won", now) }
        return joined.party
    }

    /// Why `party`'s ride cannot take a rider to `dropOff` (no road within the snapping limit, or
    /// none from the party's origin), or nil when it can: a join is refused then.
    @Sendable public func dropOffProblem(_ party: Party, _ dropOff: Coordinate) -> String? {
        // A problem of the party's own origin is the party's, not the rider's.
        guard dropOff != party.destination, let problem = pricer.quotes.routes.coverageProblem(from: party.origin, to: dropOff),
              case .outsideCoverage(.destination, _, _, _, _) = problem else { return nil }
        return problem.message(naming: { $0 == .origin ? "the party's origin" : "rider.drop_off" })
    }

    /// Why `party`'s ride cannot be served, naming the field of the party's JSON (`origin`,
    /// `destination`, `riders[i].drop_off`), or nil when it can: the check a join makes of a
    /// drop-off (`dropOffProblem`), made of every point a party is written with.
    @Sendable public func partyProblem(_ party: Party) -> String? {
        let routes = pricer.quotes.routes
        if let p = routes.coverageProblem(from: party.origin, to: party.destination) {
            return p.message(naming: { $0 == .origin ? "origin" : "destination" })
        }
        for (i, r) in party.riders.enumerated() {
            guard let d = r.dropOff, d != party.destination, let p = routes.coverageProblem(from: party.origin, to: d) else { continue }
            return p.message(naming: { $0 == .origin ? "origin" : "riders[\(i)].drop_off" })
        }
        return nil
    }

    /// The rider's solo fare: metered along its route, or (when the trip is outside the served
    /// roads and `allowEstimate`) estimated in a straight line, with the estimate's label.
    func soloFare(_ request: OfferRequest) throws(FareRequestError) -> (Int, QuoteEstimate?) {
        let quotes = pricer.quotes
        if request.allowEstimate, let problem = quotes.routes.coverageProblem(from: request.origin, to: request.destination),
           case .outsideCoverage = problem
        {
            let q = try quotes.estimate(QuoteRequest(origin: request.origin, destination: request.destination, riders: 1,
                                                     departure: request.departAt, split: .byLeg), because: problem)
            return (q.fare.totalKrw, q.estimate)
        }
        return (try pricer.soloFare(from: request.origin, to: request.destination, departure: request.departAt), nil)
    }
}

/// A candidate of an offer request within the detour limit, on its way to a price: `most` bounds
/// what the rider can save with it (exact once `offer` is set).
struct PendingOffer {
    var index: Int
    var partyID: String
    var insertion: Insertion
    var pct: Double
    var ride: PartyRide
    var most: Double
    /// The leg to the rider's stop, once routed; `triedLeg` once asked for.
    var toStop: RouteResult? = nil
    var triedLeg = false
    /// The priced offer; `exact` once it is set (read instead of `offer` when comparing: a
    /// look at the optional copies the whole offer, which cost 6% of a request).
    var offer: PartyOffer? = nil {
        didSet { exact = offer != nil }
    }
    private(set) var exact = false

    /// The whole won the rider can save at most (savings are whole won).
    var ceiling: Int { most >= Double(Int.max) ? Int.max : Int(most.rounded(.down)) }

    /// The index of the candidate to take next: the highest ceiling; among equal ones a bound
    /// before an exact offer (it may still come first), and exact offers in the list's order
    /// (less detour, then party id). Nil when none is left.
    static func best(_ all: [PendingOffer]) -> Int? {
        guard !all.isEmpty else { return nil }
        return all.withUnsafeBufferPointer { a in
            var best = 0
            for i in 1..<a.count where a[i].precedes(a[best]) { best = i }
            return best
        }
    }

    /// Reads only plain fields (no copy of the ride or the offer: this runs for every pair the
    /// selection compares).
    func precedes(_ o: PendingOffer) -> Bool {
        if ceiling != o.ceiling { return ceiling > o.ceiling }
        let otherExact = o.exact
        if exact != otherExact { return !exact }
        if !exact { return most != o.most ? most > o.most : index < o.index }
        // Both exact: the list's order (`PartyOffer.addedSeconds` is the insertion's duration).
        if insertion.added.duration != o.insertion.added.duration { return insertion.added.duration < o.insertion.added.duration }
        return partyID < o.partyID
    }
}

/// Distinct points in first-seen order, for table rows and columns.
struct PointSet {
    private(set) var points: [Coordinate] = []
    private var at: [Coordinate: Int] = [:]

    mutating func insert(_ p: Coordinate) {
        if at[p] == nil {
            at[p] = points.count
            points.append(p)
        }
    }

    func index(_ p: Coordinate) -> Int { at[p]! }
}

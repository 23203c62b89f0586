import Engine
import FareEstimation
import Fares
import Foundation
import Geo
import Parties
import Routing

/// A party's quote: its ride through the riders' drop-offs in the shortest order, the metered
/// fare, and each rider's share.
public struct PartyQuote: Sendable, Codable {
    public var party: Party
    public var priced: PricedRide
    /// Each rider's share in won, by rider id (organiser first).
    public var shares: [(riderID: String, krw: Int)] { priced.shares }
}

/// Pooling over the live parties: party quotes and matching riders to open parties.
///
/// Travel times come through one `TravelTimes` seam (`TableTravelTimes`: the contraction
/// hierarchy); each party's own ride plan is kept until the party changes, with its points
/// snapped and their upward searches in the hierarchy of its departure hour, and its own route
/// once priced. So a match request asks the road network only about the rider's points: two
/// searches from the rider's stop per departure hour (scanned against the kept ones: every
/// candidate's legs to and from the stop), then two routed legs per candidate that passes the
/// detour limit (the party's other legs are reused for the fare).
public final class PoolingEngine: Sendable {
    public let parties: PartyService
    public let pricer: RidePricer
    public let planner: RidePlanner
    private let now: @Sendable () -> Double

    public init(quotes: QuoteEngine, parties: PartyService, times: (any TravelTimes)? = nil,
                now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 })
    {
        self.parties = parties
        pricer = RidePricer(quotes: quotes)
        planner = RidePlanner(times: times ?? TableTravelTimes(routes: quotes.routes))
        self.now = now
    }

    /// The quote of the live party `id`: origin → drop-offs (in the order that makes the ride
    /// shortest in time) → destination, metered at its departure, split by `split`
    /// (`by_leg`: each leg's increment among those aboard). Throws a `FareRequestError`:
    /// `partyNotFound`, or the route's or the fare's failure.
    public func quote(partyID: String, split: SplitPolicy = .byLeg, roundingKrw: Int = 10) throws(FareRequestError) -> PartyQuote {
        guard let party = parties.party(id: partyID) else {
            throw .partyNotFound(id: partyID)
        }
        let order = planner.plan(party)?.order ?? Array(party.intermediateDropOffs.indices.map { $0 + 1 })
        return PartyQuote(party: party, priced: try pricer.price(PartyRide(party: party, order: order), split: split, roundingKrw: roundingKrw))
    }

    /// The open parties `request`'s rider could join, best first: most saved, then least
    /// detour, then party id. Parties that cannot be reached by road are left out; errors are
    /// only the request's own (a 400 naming a field, a rider's point off the roads).
    public func match(_ request: MatchRequest) throws(FareRequestError) -> [PartyMatch] {
        try request.validate()
        let t = now()
        let window = request.windowMinutes * 60
        let filter = PartyFilter(departAfter: max(request.departAt - window, t.nextUp), departBefore: request.departAt + window,
                                 minSeats: request.seats)
        let (solo, soloEstimate) = try soloFare(request)
        let nearby = parties.nearby(request.origin, radiusMeters: request.walkMeters, filter: filter,
                                    limit: MatchRequest.maxCandidates).parties
        guard !nearby.isEmpty else { return [] }

        var candidates: [(NearbyParty, PlannedRide)] = []
        for c in nearby { if let planned = planner.planned(c.party) { candidates.append((c, planned)) } }

        // Per departure hour, the legs between every candidate's points and the rider's stop
        // (both searches from the rider's stop once, scanned against each party's kept ones).
        var byHour: [Int: [Int]] = [:]
        for (i, c) in candidates.enumerated() { byHour[SeoulTime.hour(c.0.party.departAt), default: []].append(i) }
        var insertions = [Insertion?](repeating: nil, count: candidates.count)
        for (_, members) in byHour.sorted(by: { $0.key < $1.key }) {
            let at = candidates[members[0]].0.party.departAt
            let legs = planner.times.insertionLegs(members.map { candidates[$0].1.prepared }, point: request.destination, departAt: at)
            for (i, l) in zip(members, legs) {
                insertions[i] = candidates[i].1.plan.cheapestInsertion(toNew: { l.toNew[$0] }, fromNew: { l.fromNew[$0] })
            }
        }

        // The candidates within the detour limit, with a bound of what the rider would save
        // (from a lower bound of the pooled share: no routing), most first.
        let rider = pricer.quotes.routes.snap(request.destination)
        var passing: [(index: Int, insertion: Insertion, pct: Double, ride: PartyRide, most: Double)] = []
        for (i, (c, planned)) in candidates.enumerated() {
            guard let ins = insertions[i] else { continue }
            let base = planned.plan.duration
            let pct = base > 0 ? ins.added.duration / base * 100 : (ins.added.duration > 0 ? .infinity : 0)
            guard pct <= request.maxDetourPercent else { continue }
            let ride = planned.plan.ride(c.party, inserting: request.riderID, seats: request.seats, at: request.destination, position: ins.position)
            let least = rider.flatMap { pricer.leastPooledShare(ride, planned: planned, rider: $0, position: ins.position, toStop: ins.toStop) }
            passing.append((i, ins, pct, ride, least.map { Double(solo) - $0 } ?? .infinity))
        }
        passing.sort { $0.most > $1.most }

        // Priced in that order until no candidate left can save as much as the last of the best.
        var out: [PartyMatch] = []
        func before(_ a: PartyMatch, _ b: PartyMatch) -> Bool {
            if a.savingKrw != b.savingKrw { return a.savingKrw > b.savingKrw }
            if a.addedSeconds != b.addedSeconds { return a.addedSeconds < b.addedSeconds }
            return a.party.id < b.party.id
        }
        for p in passing {
            if out.count >= request.limit, p.most < Double(out[request.limit - 1].savingKrw) { break }
            let (c, planned) = candidates[p.index]
            // When the list is full, route the leg to the rider's stop first: the bound it gives
            // leaves out most candidates before their second leg is routed.
            var toStop: RouteResult?
            if out.count >= request.limit, let rider,
               let upTo = pricer.pooledShareUpToStop(p.ride, planned: planned, rider: rider, position: p.insertion.position)
            {
                if Double(solo) - upTo.least < Double(out[request.limit - 1].savingKrw) { continue }
                toStop = upTo.leg
            }
            let share = rider.map { pricer.pooledShare(p.ride, planned: planned, rider: $0, position: p.insertion.position, toStop: toStop) }
                ?? (try? pricer.price(p.ride, split: .byLeg))?.shares.last?.krw
            guard let pooled = share else { continue }
            let m = PartyMatch(party: c.party, walkMeters: c.distance, dropOffOrder: p.ride.dropOffOrder,
                               addedSeconds: p.insertion.added.duration, addedMeters: p.insertion.added.distance, detourPercent: p.pct,
                               soloKrw: solo, soloEstimate: soloEstimate, pooledKrw: pooled, ride: p.ride)
            out.insert(m, at: out.firstIndex { before(m, $0) } ?? out.count)
            if out.count > request.limit { out.removeLast() }
        }
        return out
    }
}

extension PoolingEngine {
    /// The rider's solo fare: metered along its route, or (when the trip is outside the served
    /// roads and `allowEstimate`) estimated in a straight line, with the estimate's label.
    func soloFare(_ request: MatchRequest) throws(FareRequestError) -> (Int, QuoteEstimate?) {
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

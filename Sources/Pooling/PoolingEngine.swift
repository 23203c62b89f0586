import Engine
import FareEstimation
import Fares
import Foundation
import Geo
import Parties
import Routing

/// A party's quote: its ride through the riders' drop-offs in the shortest order, the metered
/// fare, and each rider's share.
public struct PartyQuote: Sendable {
    public var party: Party
    public var priced: PricedRide
    /// Each rider's share in won, by rider id (organiser first).
    public var shares: [(riderID: String, krw: Int)] { priced.shares }
}

/// Pooling over the live parties: party quotes and matching riders to open parties.
///
/// Travel times come through one `TravelTimes` seam (`TableTravelTimes`: `RouteEngine.table`); each
/// party's own ride plan is kept until the party changes, so a match request asks the road
/// network only about the rider's points: one table from every candidate's stops to the
/// rider's destination and one from it back, then one priced route per candidate that passes
/// the detour limit.
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
        let solo = try pricer.soloFare(from: request.origin, to: request.destination, departure: request.departAt)
        let nearby = parties.nearby(request.origin, radiusMeters: request.walkMeters, filter: filter,
                                    limit: MatchRequest.maxCandidates).parties
        guard !nearby.isEmpty else { return [] }

        var candidates: [(NearbyParty, RidePlan)] = []
        for c in nearby { if let plan = planner.plan(c.party) { candidates.append((c, plan)) } }

        // Two tables per departure hour: every stop-before to the rider's destination, and back.
        var byHour: [Int: [Int]] = [:]
        for (i, c) in candidates.enumerated() { byHour[SeoulTime.hour(c.0.party.departAt), default: []].append(i) }
        var insertions = [Insertion?](repeating: nil, count: candidates.count)
        for (_, members) in byHour.sorted(by: { $0.key < $1.key }) {
            var befores = PointSet(), afters = PointSet()
            for i in members {
                let (c, plan) = candidates[i]
                befores.insert(c.party.origin)
                for s in plan.stops.dropLast() { befores.insert(s) }
                for s in plan.stops { afters.insert(s) }
            }
            let at = candidates[members[0]].0.party.departAt
            let toR = planner.times.table(sources: befores.points, destinations: [request.destination], departAt: at)
            let fromR = planner.times.table(sources: [request.destination], destinations: afters.points, departAt: at)
            for i in members {
                let (c, plan) = candidates[i]
                insertions[i] = plan.cheapestInsertion(
                    toNew: { j in toR[befores.index(j == 0 ? c.party.origin : plan.stops[j - 1])][0] },
                    fromNew: { j in fromR[0][afters.index(plan.stops[j])] })
            }
        }

        var out: [PartyMatch] = []
        for (i, (c, plan)) in candidates.enumerated() {
            guard let ins = insertions[i] else { continue }
            let base = plan.duration
            let pct = base > 0 ? ins.added.duration / base * 100 : (ins.added.duration > 0 ? .infinity : 0)
            guard pct <= request.maxDetourPercent else { continue }
            let ride = plan.ride(c.party, inserting: request.riderID, seats: request.seats, at: request.destination, position: ins.position)
            guard let priced = try? pricer.price(ride, split: .byLeg), let pooled = priced.shares.last?.krw else { continue }
            out.append(PartyMatch(party: c.party, walkMeters: c.distance, dropOffOrder: ride.dropOffOrder,
                                  addedSeconds: ins.added.duration, addedMeters: ins.added.distance, detourPercent: pct,
                                  soloKrw: solo, pooledKrw: pooled, ride: ride))
        }
        out.sort { a, b in
            if a.savingKrw != b.savingKrw { return a.savingKrw > b.savingKrw }
            if a.addedSeconds != b.addedSeconds { return a.addedSeconds < b.addedSeconds }
            return a.party.id < b.party.id
        }
        return Array(out.prefix(request.limit))
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

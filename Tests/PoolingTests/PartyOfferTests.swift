import Foundation
import TaxiPot
import TestSupport
import XCTest

/// Matching riders to parties against a brute-force reference (one route request per open
/// party and per insertion position), a hand-worked case, and party quotes.
final class PartyOfferTests: XCTestCase {
    /// 2026-12-02 10:00 Seoul.
    static let now = 1_796_166_000.0

    struct World {
        let data: Dataset
        let parties: PartyService
        let pooling: PoolingService
    }

    /// The shared dataset (loaded once per run), a party service (holding `initial`, written in one transaction) and pooling.
    func world(_ label: String, initial: [Party] = []) throws -> World {
        let data = try TestDataset.loaded.get()
        let now = Self.now
        let dir = TestPaths.temporaryDirectory(label).path
        if !initial.isEmpty { try SQLitePartyDatabase(stateDirectory: dir).put(initial.map { var p = $0; p.version = 1; return p }) }
        let parties = try PartyService(stateDirectory: dir, now: { now })
        return World(data: data, parties: parties, pooling: PoolingService(quotes: data.quotes, parties: parties, now: { now }))
    }

    // MARK: - Reference

    /// The match of `party` for `r` found the slow way, or nil when it is left out.
    struct Reference {
        let id: String
        let added: Double
        let addedM: Double
        let pct: Double
        let pooled: Int
        let order: [String]
        /// Each rider already in the party: their own delay.
        let delays: [RiderDelay]
    }

    /// The references in the order matching must answer: the larger saving (`solo` minus the
    /// pooled share) first, then the smaller added time, then the party id.
    func ranked(_ refs: [Reference], solo: Int) -> [Reference] {
        refs.sorted { a, b in
            let sa = solo - a.pooled, sb = solo - b.pooled
            if sa != sb { return sa > sb }
            if a.added != b.added { return a.added < b.added }
            return a.id < b.id
        }
    }

    func routeOrNil(_ w: World, _ from: Coordinate, _ stops: [Coordinate], _ at: Double) -> RouteResult? {
        try? w.data.routes.route(RouteRequest(from: from, to: stops.last!, via: Array(stops.dropLast()), departAt: at))
    }

    func referenceFare(_ w: World, _ route: RouteResult, origin: Coordinate, at: Double) throws -> FareBreakdown {
        let region = try XCTUnwrap(w.data.quotes.region(at: origin))
        let schedule = try w.data.schedules.schedule(region: region, taxiClass: "mid", at: at)
        let q = w.data.quotes, testEach = !(q.graphInsideHomeRegion && region == q.homeRegion)
        let trip = RouteTrip.segments(route, departure: at, profile: q.fares.profile,
                                      isOutside: testEach ? { !q.regions.isInside(regionID: region, $0) } : nil)
        return try FareMeter(schedule: schedule).run(trip, departure: at)
    }

    func ms(_ seconds: Double) -> Int { Int((seconds * 1000).rounded()) }

    /// The connected area with the most nodes (central Seoul in the embedded graph).
    static func largestArea(_ graph: RoadGraph) -> Int {
        var counts: [Int: Int] = [:]
        for i in 0..<graph.nodeCount { counts[graph.area(ofNode: i), default: 0] += 1 }
        return counts.max { $0.value < $1.value }!.key
    }

    func permutations(_ a: [Int]) -> [[Int]] {
        guard a.count > 1 else { return [a] }
        return a.indices.flatMap { i -> [[Int]] in
            var rest = a
            let x = rest.remove(at: i)
            return permutations(rest).map { [x] + $0 }
        }
    }

    /// Who rides in `p` as planned with the drop-offs `stopsBefore` (then the destination): id,
    /// seats and stop index, the host riding to the destination (an implied `organiser`, one
    /// person, first, when no seated rider does).
    func riders(_ p: Party, stopsBefore: [Coordinate], newRider: String) -> [(String, Int, Int)] {
        var riders: [(String, Int, Int)] = p.seatedRiders.map { rider in
            var stop = stopsBefore.count
            if let d = rider.dropOff, d != p.destination, let i = stopsBefore.firstIndex(of: d) { stop = i }
            return (rider.id, rider.seats, stop)
        }
        if !riders.contains(where: { $0.2 == stopsBefore.count }) {
            let taken = Set(riders.map(\.0) + [newRider])
            var id = "organiser", n = 1
            while taken.contains(id) { n += 1; id = "organiser-\(n)" }
            riders.insert((id, 1, stopsBefore.count), at: 0)
        }
        return riders
    }

    /// Seconds from the departure to the end of each leg of `route`, in whole milliseconds.
    func arrivals(_ route: RouteResult) -> [Int] {
        var t = 0
        return route.legs.map { t += ms($0.durationSeconds); return t }
    }

    func reference(_ w: World, _ r: OfferRequest, _ p: Party) throws -> Reference? {
        // A rider already in the party is not offered it.
        if p.seatedRiders.contains(where: { $0.id == r.riderID }) { return nil }
        let drops = p.intermediateDropOffs
        var base: (order: [Int], route: RouteResult)?
        // Permutations in lexicographic order; equal times (in whole milliseconds) keep the first.
        for perm in permutations(Array(drops.indices)) {
            guard let route = routeOrNil(w, p.origin, perm.map { drops[$0] } + [p.destination], p.departAt) else { return nil }
            if base == nil || ms(route.durationSeconds) < ms(base!.route.durationSeconds) { base = (perm, route) }
        }
        guard let base else { return nil }
        let stopsBefore = base.order.map { drops[$0] }
        let before = riders(p, stopsBefore: stopsBefore, newRider: r.riderID)
        if (stopsBefore + [p.destination]).contains(r.destination) {
            // A drop-off at a stop of the ride: the rider gets off there, the ride unchanged (and
            // the host implied only when nobody, the rider included, rides to the destination).
            var joined = p
            joined.riders = p.seatedRiders + [PartyRider(id: r.riderID, seats: r.seats, dropOff: r.destination)]
            let all = riders(joined, stopsBefore: stopsBefore, newRider: r.riderID)
            var fare = try referenceFare(w, base.route, origin: p.origin, at: p.departAt)
            if fare.legKrw.count < stopsBefore.count + 1 { fare.legKrw += Array(repeating: 0, count: stopsBefore.count + 1 - fare.legKrw.count) }
            let shares = try FareSplit.split(totalKrw: fare.totalKrw, riders: all.map { SplitRider(count: $0.1, lastLeg: $0.2) },
                                             policy: .byLeg, roundingKrw: 10, legKrw: fare.legKrw)
            let order = all.enumerated().sorted { ($0.element.2, $0.offset) < ($1.element.2, $1.offset) }.map(\.element.0)
            return Reference(id: p.id, added: 0, addedM: 0, pct: 0, pooled: shares.last!, order: order,
                             delays: all.dropLast().map { RiderDelay(riderID: $0.0, addedSeconds: 0, percent: 0) })
        }
        let baseArrivals = arrivals(base.route)
        var best: (j: Int, route: RouteResult, delays: [RiderDelay])?
        for j in 0...drops.count {
            var stops = stopsBefore + [p.destination]
            stops.insert(r.destination, at: j)
            guard let route = routeOrNil(w, p.origin, stops, p.departAt) else { continue }
            // Within the limit: the whole ride, and each rider aboard against their own arrival.
            let added = Double(ms(route.durationSeconds) - ms(base.route.durationSeconds)) / 1000
            guard added / base.route.durationSeconds * 100 <= r.maxDetourPercent else { continue }
            let newArrivals = arrivals(route)
            let delays = before.map { id, _, stop in
                let old = baseArrivals[stop], new = newArrivals[stop >= j ? stop + 1 : stop]
                let delay = Double(new - old) / 1000
                return RiderDelay(riderID: id, addedSeconds: delay, percent: old > 0 ? delay / (Double(old) / 1000) * 100 : (delay > 0 ? .infinity : 0))
            }
            guard delays.allSatisfy({ $0.percent <= r.maxDetourPercent }) else { continue }
            // Durations carry whole milliseconds: equal ones are ties, the earliest position wins.
            if best == nil || ms(route.durationSeconds) < ms(best!.route.durationSeconds) { best = (j, route, delays) }
        }
        guard let best else { return nil }
        let added = Double(ms(best.route.durationSeconds) - ms(base.route.durationSeconds)) / 1000
        let pct = added / base.route.durationSeconds * 100
        // Who gets off where in the new ride, and the by-leg split of its metered fare.
        var riders = before.map { ($0.0, $0.1, $0.2 >= best.j ? $0.2 + 1 : $0.2) }
        riders.append((r.riderID, r.seats, best.j))
        var fare = try referenceFare(w, best.route, origin: p.origin, at: p.departAt)
        if fare.legKrw.count < stopsBefore.count + 2 { fare.legKrw += Array(repeating: 0, count: stopsBefore.count + 2 - fare.legKrw.count) }
        let shares = try FareSplit.split(totalKrw: fare.totalKrw, riders: riders.map { SplitRider(count: $0.1, lastLeg: $0.2) },
                                         policy: .byLeg, roundingKrw: 10, legKrw: fare.legKrw)
        let order = riders.enumerated().sorted { ($0.element.2, $0.offset) < ($1.element.2, $1.offset) }.map(\.element.0)
        return Reference(id: p.id, added: added, addedM: best.route.distanceMeters - base.route.distanceMeters, pct: pct,
                         pooled: shares.last!, order: order, delays: best.delays)
    }

    // MARK: - Tests

    func testOffersEqualBruteForceReference() throws {
        let graph = try TestDataset.loaded.get().graph
        var rng = SplitMix64(seed: 23)
        func node() -> Coordinate { graph.coordinate(ofNode: Int.random(in: 0..<graph.nodeCount, using: &rng)) }
        var all: [Party] = []
        for i in 0..<3000 {
            let origin = node()
            var destination = node()
            if i % 40 == 0 { destination = Coordinate(lon: 129.075, lat: 35.18) }  // Busan: off the graph, never matched
            var riders = [PartyRider(id: "org\(i)", seats: Int.random(in: 1...2, using: &rng))]
            let extra = Int.random(in: 0..<10, using: &rng)
            if extra >= 5 { riders.append(PartyRider(id: "a\(i)", seats: 1, dropOff: node())) }
            if extra >= 8 { riders.append(PartyRider(id: "b\(i)", seats: 1, dropOff: extra == 9 ? destination : node())) }
            // No rider listed (the host implied, riding to the destination); an organiser who gets
            // off before the destination; the asking rider already aboard.
            if i % 11 == 0 { riders = [] }
            if i % 11 == 1 { riders[0].dropOff = node() }
            if i % 23 == 2 && riders.reduce(0, { $0 + $1.seats }) < 4 { riders.append(PartyRider(id: "me", seats: 1)) }
            let p = Party(id: "m\(i)", origin: origin, destination: destination,
                          departAt: (Self.now + Double.random(in: -600...7200, using: &rng)).rounded(), seatsTotal: 4, riders: riders)
            if p.departAt > Self.now - 1200 { all.append(p) }
        }
        let w = try world("match-ref", initial: all)
        XCTAssertEqual(w.parties.count, all.count)
        var compared = 0, matchesSeen = 0, leftOutByDetour = 0
        let started = Date()
        for k in 0..<300 {
            let near = all[Int.random(in: 0..<all.count, using: &rng)].origin
            var r = OfferRequest(origin: near.offset(eastMeters: Double.random(in: -150...150, using: &rng), northMeters: Double.random(in: -150...150, using: &rng)),
                                 destination: node(), departAt: Self.now + Double.random(in: 0...3600, using: &rng))
            r.walkMeters = 300
            r.seats = k % 5 == 0 ? 2 : 1
            r.maxDetourPercent = k % 3 == 0 ? 10 : 40
            r.limit = k % 2 == 0 ? 50 : 3  // a short list: most candidates are never priced (pruned by the bound of their saving)
            r.riderID = "me"
            let soloRoute: RouteResult
            do {
                soloRoute = try w.data.routes.route(RouteRequest(from: r.origin, to: r.destination, departAt: r.departAt))
            } catch {
                // The rider's own trip has no route: the request fails the same way.
                XCTAssertThrowsError(try w.pooling.offers(r)) { XCTAssertEqual($0 as? PoolingError, .fare(.route(error))) }
                continue
            }
            let got = try w.pooling.offers(r)
            // The reference: every live party, filtered by brute force.
            let window = r.windowMinutes * 60
            let candidates = all.filter { p in
                p.departAt > Self.now && abs(p.departAt - r.departAt) <= window && p.seatsLeft >= r.seats && r.origin.distance(to: p.origin) <= r.walkMeters
            }
            let solo = try referenceFare(w, soloRoute, origin: r.origin, at: r.departAt).totalKrw
            var found: [Reference] = []
            for p in candidates {
                if let m = try reference(w, r, p) { found.append(m) } else { leftOutByDetour += 1 }
            }
            let want = ranked(found, solo: solo)
            XCTAssertEqual(got.map(\.party.id), want.prefix(r.limit).map(\.id), "rider \(k)")
            if got.map(\.party.id) != want.prefix(r.limit).map(\.id) {
                for (g, e) in zip(got, want) where g.party.id != e.id {
                    print("  got \(g.party.id) saving \(g.savingKrw) added \(g.addedSeconds); want \(e.id) saving \(solo - e.pooled) added \(e.added)")
                }
            }
            for (g, e) in zip(got, want) where g.party.id == e.id {
                XCTAssertEqual(g.addedSeconds, e.added, accuracy: 1e-3, "rider \(k) party \(e.id)")
                XCTAssertEqual(g.addedMeters, e.addedM, accuracy: 1e-2, "rider \(k) party \(e.id)")
                XCTAssertEqual(g.detourPercent, e.pct, accuracy: 1e-3)
                XCTAssertEqual(g.soloKrw, solo)
                XCTAssertEqual(g.pooledKrw, e.pooled, "rider \(k) party \(e.id)")
                XCTAssertEqual(g.dropOffOrder, e.order)
                XCTAssertEqual(g.riderDelays.map(\.riderID), e.delays.map(\.riderID), "rider \(k) party \(e.id)")
                for (gd, ed) in zip(g.riderDelays, e.delays) {
                    XCTAssertEqual(gd.addedSeconds, ed.addedSeconds, accuracy: 1e-3, "rider \(k) party \(e.id) \(ed.riderID)")
                    XCTAssertEqual(gd.percent, ed.percent, accuracy: 1e-3, "rider \(k) party \(e.id) \(ed.riderID)")
                    XCTAssertLessThanOrEqual(gd.percent, r.maxDetourPercent)
                }
                XCTAssertEqual(g.walkMeters, r.origin.distance(to: g.party.origin), accuracy: 1e-9)
            }
            compared += 1
            matchesSeen += got.count
        }
        XCTAssertGreaterThan(matchesSeen, 300, "too few matches to compare")
        XCTAssertGreaterThan(leftOutByDetour, 100, "too few candidates left out")
        print("matching: \(compared) riders over \(all.count) parties, \(matchesSeen) matches equal to the reference, \(leftOutByDetour) candidates left out; \(Int(Date().timeIntervalSince(started))) s")
    }

    func testTableSeamEqualsSingleRoutesAndLeavesOffRoadPointsEmpty() throws {
        let data = try TestDataset.loaded.get()
        var rng = SplitMix64(seed: 5)
        // Nodes of the central area: cells between areas no road joins are nil, as the single route's.
        let central = Self.largestArea(data.graph)
        func node() -> Coordinate {
            while true {
                let i = Int.random(in: 0..<data.graph.nodeCount, using: &rng)
                if data.graph.area(ofNode: i) == central { return data.graph.coordinate(ofNode: i) }
            }
        }
        var sources = (0..<12).map { _ in node() }, destinations = (0..<9).map { _ in node() }
        sources.insert(Coordinate(lon: 129.075, lat: 35.18), at: 4)  // Busan: off the graph
        destinations.append(Coordinate(lon: 126.5, lat: 33.4))  // Jeju
        for at in [Self.now, Self.now + 13 * 3600] {
            let fast = TableTravelTimes(routes: data.routes).table(sources: sources, destinations: destinations, departAt: at)
            let slow = SingleRouteTravelTimes(routes: data.routes).table(sources: sources, destinations: destinations, departAt: at)
            XCTAssertEqual(fast, slow)
            XCTAssertTrue(fast[4].allSatisfy { $0 == nil })
            XCTAssertTrue(fast.allSatisfy { $0.last! == nil })
            XCTAssertEqual(fast.joined().compactMap { $0 }.count, 12 * 9)
        }
    }

    /// Many candidates a rider and short lists: most candidates are left unpriced by the bounds
    /// of their saving (before routing, then with the leg to the rider's stop routed); the
    /// lists still equal the brute-force reference's first entries.
    func testShortListsOfManyCandidatesEqualBruteForceReference() throws {
        let graph = try TestDataset.loaded.get().graph
        var rng = SplitMix64(seed: 2324)
        // Road nodes of a 2.4 km × 2.2 km box of central Seoul (Jongno/Jung).
        let box = (0..<graph.nodeCount).filter { i in
            let c = graph.coordinate(ofNode: i)
            return (126.970...126.997).contains(c.lon) && (37.555...37.575).contains(c.lat)
        }
        XCTAssertGreaterThan(box.count, 500)
        func node() -> Coordinate { graph.coordinate(ofNode: box[Int.random(in: 0..<box.count, using: &rng)]) }
        var all: [Party] = []
        for i in 0..<400 {
            var riders = [PartyRider(id: "org\(i)", seats: Int.random(in: 1...2, using: &rng))]
            if i % 3 == 0 { riders.append(PartyRider(id: "a\(i)", seats: 1, dropOff: node())) }
            all.append(Party(id: "s\(i)", origin: node(), destination: node(),
                             departAt: (Self.now + Double.random(in: 300...3000, using: &rng)).rounded(), seatsTotal: 4, riders: riders))
        }
        let w = try world("match-short", initial: all)
        var compared = 0, listed = 0, candidatesSeen = 0
        for k in 0..<15 {
            var r = OfferRequest(origin: node(), destination: node(), departAt: Self.now + 1800)
            r.walkMeters = 700
            r.maxDetourPercent = k % 2 == 0 ? 60 : 200
            r.limit = [1, 2, 4][k % 3]
            r.riderID = "me"
            guard let soloRoute = try? w.data.routes.route(RouteRequest(from: r.origin, to: r.destination, departAt: r.departAt)) else { continue }
            let got = try w.pooling.offers(r)
            let candidates = all.filter { p in abs(p.departAt - r.departAt) <= r.windowMinutes * 60 && r.origin.distance(to: p.origin) <= r.walkMeters }
            let solo = try referenceFare(w, soloRoute, origin: r.origin, at: r.departAt).totalKrw
            let want = ranked(try candidates.compactMap { try reference(w, r, $0) }, solo: solo)
            XCTAssertEqual(got.map(\.party.id), want.prefix(r.limit).map(\.id), "rider \(k)")
            for (g, e) in zip(got, want) where g.party.id == e.id {
                XCTAssertEqual(g.pooledKrw, e.pooled, "rider \(k) party \(e.id)")
                XCTAssertEqual(g.addedSeconds, e.added, accuracy: 1e-3)
                XCTAssertEqual(g.riderDelays.map(\.riderID), e.delays.map(\.riderID))
                for (gd, ed) in zip(g.riderDelays, e.delays) {
                    XCTAssertEqual(gd.addedSeconds, ed.addedSeconds, accuracy: 1e-3, "rider \(k) party \(e.id) \(ed.riderID)")
                    XCTAssertEqual(gd.percent, ed.percent, accuracy: 1e-3)
                }
            }
            compared += 1
            listed += got.count
            candidatesSeen += want.count
        }
        XCTAssertGreaterThan(compared, 10)
        XCTAssertGreaterThan(candidatesSeen, 8 * compared, "too few candidates a rider to prune")
        print("short lists: \(compared) riders, \(candidatesSeen) candidates within the detour limit, \(listed) listed, all equal to the reference")
    }

    /// The kept searches (`TableTravelTimes.insertionLegs`) give the same legs as two tables of
    /// single routes, with nil where a point is off the roads or no road joins the areas.
    func testKeptSearchesEqualSingleRoutes() throws {
        let data = try TestDataset.loaded.get()
        var rng = SplitMix64(seed: 11)
        let graph = data.graph
        func node() -> Coordinate { graph.coordinate(ofNode: Int.random(in: 0..<graph.nodeCount, using: &rng)) }
        let fast = TableTravelTimes(routes: data.routes), slow = SingleRouteTravelTimes(routes: data.routes)
        var cells = 0, empty = 0
        for at in [Self.now, Self.now + 13 * 3600, Self.now + 20 * 3600] {
            var rides: [[Coordinate]] = (0..<12).map { k in (0..<(2 + k % 3)).map { _ in node() } }
            rides[3][1] = Coordinate(lon: 129.075, lat: 35.18)  // Busan: off the graph
            let fastRides = rides.map { fast.prepareRide($0, departAt: at) }, slowRides = rides.map { slow.prepareRide($0, departAt: at) }
            for point in [node(), node(), node(), Coordinate(lon: 126.5, lat: 33.4)] {
                let got = fast.insertionLegs(fastRides, point: point, departAt: at)
                let want = slow.insertionLegs(slowRides, point: point, departAt: at)
                XCTAssertEqual(got, want, "at \(at), point \(point)")
                for l in got { cells += l.toNew.count + l.fromNew.count; empty += (l.toNew + l.fromNew).filter { $0 == nil }.count }
            }
        }
        XCTAssertGreaterThan(cells - empty, 200, "too few routed cells")
        XCTAssertGreaterThan(empty, 20, "too few empty cells")
    }

    func testHandWorkedDetourAndSaving() throws {
        let w = try world("match-hand")
        let depart = Self.now + 1800
        let o = Coordinate(lon: 126.9829, lat: 37.5700), d = Coordinate(lon: 126.9720, lat: 37.5547)
        let riderFrom = o.offset(eastMeters: 120, northMeters: -90), riderTo = Coordinate(lon: 126.9780, lat: 37.5665)
        try w.parties.put(Party(id: "hand", origin: o, destination: d, departAt: depart, seatsTotal: 4,
                                riders: [PartyRider(id: "host")]))
        var r = OfferRequest(origin: riderFrom, destination: riderTo, departAt: depart)
        r.maxDetourPercent = 1000
        let m = try XCTUnwrap(try w.pooling.offers(r).first)
        // Worked by hand from three single routes: O→D alone; O→R then R→D with the rider.
        func route(_ a: Coordinate, _ b: Coordinate) throws -> RouteResult { try w.data.routes.route(RouteRequest(from: a, to: b, departAt: depart)) }
        let od = try route(o, d), or = try route(o, riderTo), rd = try route(riderTo, d)
        XCTAssertEqual(m.addedSeconds, or.durationSeconds + rd.durationSeconds - od.durationSeconds, accuracy: 1e-6)
        XCTAssertEqual(m.addedMeters, or.distanceMeters + rd.distanceMeters - od.distanceMeters, accuracy: 1e-6)
        XCTAssertEqual(m.dropOffOrder, ["you", "host"])
        // The pooled ride's meter: leg 0 (O→R) has 2 aboard, leg 1 (R→D) the host alone. By leg,
        // the rider owes half of leg 0's increment, in whole 10-won units rounded down (the one
        // unit left over goes to the host first): units × w_rider / (w_rider + w_host) with
        // w_rider = leg0, w_host = leg0 + 2·leg1 (both scaled by the 2 aboard on leg 0).
        let pooledRoute = try w.data.routes.route(RouteRequest(from: o, to: d, via: [riderTo], departAt: depart))
        let fare = try referenceFare(w, pooledRoute, origin: o, at: depart)
        XCTAssertEqual(fare.legKrw.count, 2)
        let leg0 = fare.legKrw[0], leg1 = fare.legKrw[1]
        let units = fare.totalKrw / 10
        XCTAssertEqual(m.pooledKrw, units * leg0 / (2 * leg0 + 2 * leg1) * 10)
        let solo = try referenceFare(w, try route(riderFrom, riderTo), origin: riderFrom, at: depart).totalKrw
        XCTAssertEqual(m.soloKrw, solo)
        XCTAssertEqual(m.savingKrw, solo - m.pooledKrw)
        // The figures, worked out: the meter charges the Seoul mid-size base fare of 4,800 won on
        // leg 0 (the base fare belongs to the first leg) and 1,900 won of units on leg 1: 6,700.
        // Leg 0 is shared by two, 2,400 each; leg 1 is the host's: the rider owes 2,400, the
        // host 4,300. Alone, the rider's trip stays within the base distance: 4,800. Saved: 2,400.
        XCTAssertEqual(fare.legKrw, [4800, 1900])
        XCTAssertEqual(fare.totalKrw, 6700)
        XCTAssertEqual(m.pooledKrw, 2400)
        XCTAssertEqual(m.soloKrw, 4800)
        XCTAssertEqual(m.savingKrw, 2400)
        XCTAssertEqual(m.addedSeconds, 210.045, accuracy: 0.001)
        print("hand-worked: added \(m.addedSeconds) s / \(m.addedMeters) m; fare \(fare.totalKrw) (legs \(leg0), \(leg1)); pooled \(m.pooledKrw), solo \(solo), saving \(m.savingKrw)")
    }

    func testPartyQuoteOrdersDropOffsShortestAndSplitsByRider() throws {
        let w = try world("party-quote")
        let graph = w.data.graph
        var rng = SplitMix64(seed: 7)
        // One area, so that every party here has a road route through all its stops.
        let central = Self.largestArea(graph)
        func node() -> Coordinate {
            while true {
                let i = Int.random(in: 0..<graph.nodeCount, using: &rng)
                if graph.area(ofNode: i) == central { return graph.coordinate(ofNode: i) }
            }
        }
        for q in 0..<6 {
            let k = q % 4 + 1  // 1–4 drop-offs
            var riders = [PartyRider(id: "host", seats: 2)]
            for i in 0..<k { riders.append(PartyRider(id: "r\(i)", seats: 1, dropOff: node())) }
            let party = Party(id: "q\(q)", origin: node(), destination: node(), departAt: Self.now + 3600, seatsTotal: 8, riders: riders)
            try w.parties.put(party)
            let quote = try w.pooling.quote(partyID: party.id, split: .byLeg)
            // Shortest order by brute force over every permutation, one route each.
            let drops = party.intermediateDropOffs
            var best = Double.infinity
            for perm in permutations(Array(drops.indices)) {
                let r = try w.data.routes.route(RouteRequest(from: party.origin, to: party.destination, via: perm.map { drops[$0] }, departAt: party.departAt))
                best = min(best, r.durationSeconds)
            }
            XCTAssertEqual(quote.priced.route.durationSeconds, best, accuracy: 1e-3, "party \(q)")
            XCTAssertEqual(quote.shares.map(\.riderID), riders.map(\.id))
            XCTAssertEqual(quote.shares.reduce(0) { $0 + $1.krw }, quote.priced.fare.totalKrw)
            XCTAssertEqual(quote.priced.ride.dropOffOrder.last, "host")
            for split in [SplitPolicy.equal, .proportional] {
                let other = try w.pooling.quote(partyID: party.id, split: split)
                XCTAssertEqual(other.shares.reduce(0) { $0 + $1.krw }, other.priced.fare.totalKrw)
                if split == .equal { XCTAssertEqual(other.shares[0].krw / 2, other.shares[1].krw, accuracy: 10) }
            }
        }
        XCTAssertThrowsError(try w.pooling.quote(partyID: "nope")) { XCTAssertEqual($0 as? PoolingError, .partyNotFound(id: "nope")) }
    }
}

import Foundation
import TaxiPot
import TestSupport
import XCTest

/// The planner's kept plans (keyed by ride shape) through joins, leaves, replacements,
/// deletions and expiry: every answer still equals the brute-force reference over the parties
/// live at that moment, and a plan is kept exactly when the party's points and departure are.
extension PartyOfferTests {
    /// A clock tests move forward.
    final class TestClock: @unchecked Sendable {
        private let lock = NSLock()
        private var t: Double
        init(_ t: Double) { self.t = t }
        var now: Double {
            lock.lock()
            defer { lock.unlock() }
            return t
        }
        func advance(_ seconds: Double) {
            lock.lock()
            t += seconds
            lock.unlock()
        }
    }

    func testKeptPlansFollowWritesAndOffersStayEqualToReference() throws {
        let data = try TestDataset.loaded.get()
        let graph = data.graph
        var rng = SplitMix64(seed: 2325)
        // Road nodes of a 2.4 km × 2.2 km box of central Seoul (Jongno/Jung).
        let box = (0..<graph.nodeCount).filter { i in
            let c = graph.coordinate(ofNode: i)
            return (126.970...126.997).contains(c.lon) && (37.555...37.575).contains(c.lat)
        }
        func node() -> Coordinate { graph.coordinate(ofNode: box[Int.random(in: 0..<box.count, using: &rng)]) }
        var initial: [Party] = []
        for i in 0..<60 {
            var riders = [PartyRider(id: "org\(i)", seats: 1)]
            if i % 4 == 0 { riders.append(PartyRider(id: "a\(i)", seats: 1, dropOff: node())) }
            var p = Party(id: "k\(i)", origin: node(), destination: node(),
                          departAt: (Self.now + Double.random(in: 300...3000, using: &rng)).rounded(), seatsTotal: 8, riders: riders)
            p.version = 1
            initial.append(p)
        }
        let dir = TestPaths.temporaryDirectory("plan-cache").path
        try SQLitePartyDatabase(stateDirectory: dir).put(initial)
        let clock = TestClock(Self.now)
        let parties = try PartyService(stateDirectory: dir, now: { clock.now })
        let w = World(data: data, parties: parties, pooling: PoolingService(quotes: data.quotes, parties: parties, now: { clock.now }))
        let ids = initial.map(\.id)
        let requests: [OfferRequest] = (0..<4).map { k in
            var r = OfferRequest(origin: node(), destination: node(), departAt: Self.now + 1200 + Double(k) * 300)
            r.walkMeters = 900
            r.windowMinutes = 40
            r.maxDetourPercent = 300
            r.limit = 50
            r.riderID = "me"
            return r
        }

        /// Every request's answer against the reference over the parties live now.
        var matchesSeen = 0
        func check(_ phase: String) throws {
            let now = clock.now
            let live = ids.compactMap { w.parties.party(id: $0) }
            for (k, r) in requests.enumerated() {
                guard let soloRoute = try? w.data.routes.route(RouteRequest(from: r.origin, to: r.destination, departAt: r.departAt)) else { continue }
                let got = try w.pooling.offers(r)
                let window = r.windowMinutes * 60
                let candidates = live.filter { p in
                    p.departAt > now && abs(p.departAt - r.departAt) <= window && p.seatsLeft >= r.seats
                        && r.origin.distance(to: p.origin) <= r.walkMeters
                }
                let solo = try referenceFare(w, soloRoute, origin: r.origin, at: r.departAt).totalKrw
                var want = try candidates.compactMap { try reference(w, r, $0) }
                want.sort { a, b in
                    let sa = solo - a.pooled, sb = solo - b.pooled
                    if sa != sb { return sa > sb }
                    if a.added != b.added { return a.added < b.added }
                    return a.id < b.id
                }
                XCTAssertEqual(got.map(\.party.id), want.prefix(r.limit).map(\.id), "\(phase): rider \(k)")
                for (g, e) in zip(got, want) where g.party.id == e.id {
                    XCTAssertEqual(g.pooledKrw, e.pooled, "\(phase): rider \(k) party \(e.id)")
                    XCTAssertEqual(g.addedSeconds, e.added, accuracy: 1e-3, "\(phase): rider \(k) party \(e.id)")
                    XCTAssertEqual(g.dropOffOrder, e.order, "\(phase): rider \(k) party \(e.id)")
                    XCTAssertEqual(g.party, live.first { $0.id == g.party.id }, "\(phase): the party as it is now")
                }
                matchesSeen += got.count
            }
        }
        /// The kept plan of the live party `id`, and a fresh planner's plan of it, equal (both
        /// nil when a stop has no road route).
        func keptPlan(_ id: String) throws -> PlannedRide? {
            let p = try XCTUnwrap(w.parties.party(id: id))
            let kept = w.pooling.planner.planned(p)
            guard let fresh = RidePlanner(times: w.pooling.planner.times).plan(p) else {
                XCTAssertNil(kept, id)
                return nil
            }
            guard let kept else {
                XCTFail("\(id): no kept plan, but a fresh one")
                return nil
            }
            XCTAssertEqual(kept.plan.order, fresh.order, id)
            XCTAssertEqual(kept.plan.stops, fresh.stops, id)
            XCTAssertEqual(kept.plan.legs, fresh.legs, id)
            XCTAssertEqual(kept.prepared.points, [p.origin] + fresh.stops, id)
            return kept
        }

        try check("first")
        let before = Dictionary(uniqueKeysWithValues: try ids.compactMap { id in try keptPlan(id).map { (id, $0) } })
        XCTAssertGreaterThan(before.count, 50, "too few parties planned")

        // Joins without a drop-off: the ride keeps its shape, so its plan (and priced route) is
        // kept, and the answers follow the new riders (more aboard: smaller shares).
        for id in ids { _ = try w.parties.join(partyID: id, rider: PartyRider(id: "j-\(id)", seats: 2)) }
        for (id, old) in before { XCTAssertTrue(try keptPlan(id) === old, "\(id): a join without a drop-off keeps the plan") }
        try check("joined")

        // Joins with a drop-off of their own: another shape, planned anew.
        let dropping = ids.enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
        for id in dropping { _ = try w.parties.join(partyID: id, rider: PartyRider(id: "d-\(id)", seats: 1, dropOff: node())) }
        for id in dropping where before[id] != nil { XCTAssertFalse(try keptPlan(id) === before[id]!, "\(id): a new drop-off makes a new plan") }
        try check("joined with drop-offs")

        // That rider leaves: the shape is the first one again, whose plan is still right.
        for id in dropping.prefix(5) { _ = try w.parties.leave(partyID: id, riderID: "d-\(id)") }
        for id in dropping.prefix(5) { _ = try keptPlan(id) }
        try check("left")

        // Replacements (new destination, new departure) and deletions.
        for (n, id) in ids.enumerated() where n % 5 == 1 {
            var p = try XCTUnwrap(w.parties.party(id: id))
            if n % 2 == 1 { p.destination = node() } else { p.departAt += 420 }
            _ = try w.parties.put(p)
            if let old = before[id] { XCTAssertFalse(try keptPlan(id) === old, "\(id): a replaced ride makes a new plan") }
        }
        for (n, id) in ids.enumerated() where n % 7 == 2 { XCTAssertTrue(try w.parties.delete(id: id)) }
        try check("replaced and deleted")

        // Time passes: parties departed (and, after the grace period, expired) are matched no more.
        clock.advance(1500)
        try check("later")
        clock.advance(2400)
        try check("expired")
        XCTAssertGreaterThan(matchesSeen, 150, "too few matches to compare")
        print("kept plans: \(matchesSeen) matches over 7 phases of writes, all equal to the reference")
    }
}

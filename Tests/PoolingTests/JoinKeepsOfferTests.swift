import Foundation
import TaxiPot
import TaxiPotServer
import TestSupport
import XCTest

/// Issue 43, items 1–3: the match's offer and the join are one computation. The join places the
/// rider where the accepted offer did and the party keeps that drop-off order, so the quote after
/// the join gives the joiner the offer's `pooled_krw` and `drop_off_order`, and nobody aboard is
/// delayed past the offer's limit.
extension PartyOfferTests {
    /// Joins `rider` to party `id` as the server does (`PoolingService.placeJoin`), accepting `offer`.
    @discardableResult
    func join(_ w: World, _ id: String, _ rider: PartyRider, offer: JoinOffer?) throws -> Party {
        try w.parties.join(partyID: id, rider: rider, dropOffProblem: w.pooling.dropOffProblem,
                           placement: { try w.pooling.placeJoin($0, $1, accepting: offer) })
    }

    /// Seconds from the departure to each rider's stop in `q`'s route, by rider id.
    func arrivals(_ q: PartyQuote) -> [String: Double] {
        var at: [Double] = [], t = 0.0
        for leg in q.priced.route.legs { t += leg.durationSeconds; at.append(t) }
        return Dictionary(q.priced.ride.riders.map { ($0.id, at[$0.stop]) }, uniquingKeysWith: { a, _ in a })
    }

    func seoul(_ text: String) throws -> Double { try XCTUnwrap(SeoulTime.parse(text)) }

    /// The example (limit 40%): the match offers `[a, you, host]` with `a` not delayed;
    /// the join used to re-plan the fastest order `[you, a, host]`, `a` arriving 76% later and
    /// the joiner paying another price. Now the quote after the join is the offer.
    func testTheJoinKeepsTheOffersOrderAndPrice() throws {
        let w = try world("join-keeps-offer")
        let depart = try seoul("2027-09-07T14:00:00+09:00")
        let o = Coordinate(lon: 126.979312, lat: 37.571347), d = Coordinate(lon: 126.991831, lat: 37.539697)
        let aStop = Coordinate(lon: 126.982771, lat: 37.561937), to = Coordinate(lon: 126.987833, lat: 37.566083)
        try w.parties.put(Party(id: "p", origin: o, destination: d, departAt: depart, seatsTotal: 4,
                                riders: [PartyRider(id: "host"), PartyRider(id: "a", dropOff: aStop)]))
        let before = arrivals(try w.pooling.quote(partyID: "p"))
        var r = OfferRequest(origin: o, destination: to, departAt: depart)
        r.maxDetourPercent = 40
        let m = try XCTUnwrap(try w.pooling.offers(r).first)
        XCTAssertEqual(m.dropOffOrder, ["a", "you", "host"], "the example no longer reproduces")
        XCTAssertEqual(m.riderDelays.first { $0.riderID == "a" }?.addedSeconds, 0)
        let joined = try join(w, "p", PartyRider(id: "you", dropOff: to), offer: m.offer)
        XCTAssertEqual(joined.stopOrder, [1, 2], "the order the offer placed the stops in is the party's")
        let q = try w.pooling.quote(partyID: "p")
        XCTAssertEqual(q.priced.ride.dropOffOrder, m.dropOffOrder)
        XCTAssertEqual(q.shares.last?.riderID, "you")
        XCTAssertEqual(q.shares.last?.krw, m.pooledKrw)
        let after = arrivals(q)
        for rider in ["host", "a"] {
            let old = try XCTUnwrap(before[rider]), new = try XCTUnwrap(after[rider])
            XCTAssertLessThanOrEqual((new - old) / old * 100, r.maxDetourPercent + 1e-6, rider)
        }
    }

    /// The example: a party listing no rider (3 seats, none taken) is matched with the
    /// implied organiser aboard (half the fare), and after the join the joiner riding to the
    /// destination is priced alone (3,750 → 7,500 won). The match prices the party the join
    /// writes: the host is implied only when nobody rides to the destination.
    func testTheOrganiserDoesNotVanishBetweenOfferAndJoin() throws {
        let w = try world("organiser-rule")
        let depart = try seoul("2027-08-03T10:00:00+09:00")
        let o = Coordinate(lon: 126.982615, lat: 37.572035), d = Coordinate(lon: 126.986807, lat: 37.545616)
        try w.parties.put(Party(id: "empty", origin: o, destination: d, departAt: depart, seatsTotal: 3, seatsTaken: 0))
        let r = OfferRequest(origin: o, destination: d, departAt: depart)
        let m = try XCTUnwrap(try w.pooling.offers(r).first)
        try join(w, "empty", PartyRider(id: "you", dropOff: d), offer: m.offer)
        let q = try w.pooling.quote(partyID: "empty")
        XCTAssertEqual(q.shares.map(\.riderID), ["you"])
        XCTAssertEqual(m.pooledKrw, q.shares[0].krw)
        XCTAssertEqual(m.dropOffOrder, q.priced.ride.dropOffOrder)
        // Alone in the party, from the party's origin to its destination: the solo fare.
        XCTAssertEqual(m.pooledKrw, m.soloKrw)
    }

    /// A rider going to one of the party's stops (or its destination) gets off there with its
    /// riders, in rider order, in the match as after the join: one `drop_off_order`, one split.
    func testADropOffAtAStopJoinsThatStop() throws {
        let w = try world("same-stop")
        let depart = try seoul("2027-09-07T14:00:00+09:00")
        let o = Coordinate(lon: 126.979312, lat: 37.571347), d = Coordinate(lon: 126.991831, lat: 37.539697)
        let aStop = Coordinate(lon: 126.982771, lat: 37.561937), bStop = Coordinate(lon: 126.987833, lat: 37.566083)
        try w.parties.put(Party(id: "s", origin: o, destination: d, departAt: depart, seatsTotal: 6,
                                riders: [PartyRider(id: "host"), PartyRider(id: "a", dropOff: aStop), PartyRider(id: "b", dropOff: bStop)]))
        let plain = try w.pooling.quote(partyID: "s")
        for (id, stop) in [("x", aStop), ("y", d), ("z", bStop)] {
            var r = OfferRequest(origin: o, destination: stop, departAt: depart)
            r.riderID = id
            let m = try XCTUnwrap(try w.pooling.offers(r).first, id)
            XCTAssertEqual(m.addedSeconds, 0, id)
            XCTAssertTrue(m.riderDelays.allSatisfy { $0.addedSeconds == 0 }, id)
            // Riders of one stop get off in rider order: the joiner last of theirs.
            let stopRiders = m.ride.riders.filter { m.ride.stops[$0.stop] == stop }.map(\.id)
            XCTAssertEqual(stopRiders.last, id)
            XCTAssertEqual(m.ride.stops, plain.priced.ride.stops, "the ride is unchanged")
            try join(w, "s", PartyRider(id: id, dropOff: stop), offer: m.offer)
            let q = try w.pooling.quote(partyID: "s")
            XCTAssertEqual(q.priced.ride.dropOffOrder, m.dropOffOrder, id)
            XCTAssertEqual(q.shares.last?.krw, m.pooledKrw, id)
        }
    }

    /// A join whose offer no longer holds (another rider joined since) is refused with the live
    /// party's offer, which a join then accepts; a join without an offer that fits nowhere
    /// within the default limit is refused, and one that fits is placed as the match would.
    func testAStaleOfferIsRefusedWithTheNewOne() throws {
        let w = try world("stale-offer")
        let depart = try seoul("2027-09-07T14:00:00+09:00")
        let o = Coordinate(lon: 126.979312, lat: 37.571347), d = Coordinate(lon: 126.991831, lat: 37.539697)
        let aStop = Coordinate(lon: 126.982771, lat: 37.561937), to = Coordinate(lon: 126.987833, lat: 37.566083)
        try w.parties.put(Party(id: "p", origin: o, destination: d, departAt: depart, seatsTotal: 4, riders: [PartyRider(id: "host")]))
        var r = OfferRequest(origin: o, destination: to, departAt: depart)
        r.maxDetourPercent = 40
        r.riderID = "late"
        let stale = try XCTUnwrap(try w.pooling.offers(r).first).offer
        // Another rider joins first, without an offer: placed within the default limit.
        var first = OfferRequest(origin: o, destination: aStop, departAt: depart)
        first.riderID = "a"
        let firstOffer = try XCTUnwrap(try w.pooling.offers(first).first)
        try join(w, "p", PartyRider(id: "a", dropOff: aStop), offer: nil)
        XCTAssertEqual(try w.pooling.quote(partyID: "p").priced.ride.dropOffOrder, firstOffer.dropOffOrder)
        var renewed: JoinOffer?
        XCTAssertThrowsError(try join(w, "p", PartyRider(id: "late", dropOff: to), offer: stale)) {
            guard case .offerChanged(id: "p", riderID: "late", _, let now)? = $0 as? PartyWriteError else { return XCTFail("\($0)") }
            renewed = now
        }
        let now = try XCTUnwrap(renewed, "the live party has an offer")
        XCTAssertNotEqual(now, stale)
        XCTAssertEqual(try w.pooling.offers(r).first?.offer, now, "the refusal's offer is the match's")
        try join(w, "p", PartyRider(id: "late", dropOff: to), offer: now)
        let q = try w.pooling.quote(partyID: "p")
        XCTAssertEqual(q.priced.ride.dropOffOrder, now.dropOffOrder)
        XCTAssertEqual(q.shares.last?.krw, now.pooledKrw)
        // Far out of the way (past the destination and back): no place within 25%.
        let far = Coordinate(lon: 126.9720, lat: 37.5800)
        XCTAssertThrowsError(try join(w, "p", PartyRider(id: "far", dropOff: far), offer: nil)) {
            guard case .detourTooLong(id: "p", riderID: "far", _)? = $0 as? PartyWriteError else { return XCTFail("\($0)") }
        }
        XCTAssertEqual(w.parties.party(id: "p")?.riders.map(\.id), ["host", "a", "late"])
    }

    /// For many random parties and riders: accept the best offer, join, quote. The joiner's
    /// share is the offer's `pooled_krw`, the order its `drop_off_order`, and no rider aboard
    /// arrives later than the offer's limit allows against their arrival before the join;
    /// several joins in a row keep each earlier promise too.
    func testRandomJoinsKeepTheirOffers() throws {
        let graph = try RoadGraph.load(path: try TestDataset.built.get().graphPath)
        var rng = SplitMix64(seed: 4301)
        let box = (0..<graph.nodeCount).filter { i in
            let c = graph.coordinate(ofNode: i)
            return (126.970...126.997).contains(c.lon) && (37.545...37.575).contains(c.lat)
        }
        func node() -> Coordinate { graph.coordinate(ofNode: box[Int.random(in: 0..<box.count, using: &rng)]) }
        var all: [Party] = []
        for i in 0..<45 {
            let destination = node()
            var riders = [PartyRider(id: "h\(i)", seats: Int.random(in: 1...2, using: &rng), dropOff: i % 7 == 1 ? node() : nil)]
            for k in 0..<Int.random(in: 0...2, using: &rng) { riders.append(PartyRider(id: "r\(i)-\(k)", dropOff: k == 1 && i % 3 == 0 ? destination : node())) }
            if i % 5 == 0 { riders = [] }
            // Two hours apart: each match request has this one party as its candidate.
            all.append(Party(id: "j\(i)", origin: node(), destination: destination, departAt: Self.now + 3600 + Double(i) * 7200,
                             seatsTotal: 9, riders: riders))
        }
        let w = try world("join-property", initial: all)
        var joins = 0, reordered = 0, atStops = 0, hosts = 0
        for p in all {
            for n in 0..<3 {
                guard let live = w.parties.party(id: p.id), let before = try? w.pooling.quote(partyID: p.id) else { break }
                let stops = live.intermediateDropOffs + [live.destination]
                let to = Int.random(in: 0..<6, using: &rng) == 0 ? stops[Int.random(in: 0..<stops.count, using: &rng)] : node()
                var r = OfferRequest(origin: live.origin, destination: to, departAt: live.departAt)
                r.maxDetourPercent = [10, 25, 40, 150][Int.random(in: 0..<4, using: &rng)]
                r.riderID = "x\(n)"
                r.seats = Int.random(in: 1...2, using: &rng)
                guard let m = try w.pooling.offers(r).first else { continue }
                XCTAssertEqual(m.party.id, p.id)
                let joined = try join(w, p.id, PartyRider(id: r.riderID, seats: r.seats, dropOff: to), offer: m.offer)
                let q = try w.pooling.quote(partyID: p.id)
                XCTAssertEqual(q.priced.ride.dropOffOrder, m.dropOffOrder, "\(p.id) \(r.riderID)")
                XCTAssertEqual(q.shares.last?.riderID, r.riderID)
                XCTAssertEqual(q.shares.last?.krw, m.pooledKrw, "\(p.id) \(r.riderID)")
                XCTAssertEqual(q.shares.reduce(0) { $0 + $1.krw }, q.priced.fare.totalKrw)
                let was = arrivals(before), now = arrivals(q)
                for rider in live.seatedRiders {
                    let old = try XCTUnwrap(was[rider.id]), new = try XCTUnwrap(now[rider.id])
                    XCTAssertLessThanOrEqual(new - old, old * r.maxDetourPercent / 100 + 1e-3, "\(p.id): \(rider.id) delayed past \(r.maxDetourPercent)% by \(r.riderID)")
                }
                joins += 1
                if m.ride.stops.count == before.priced.ride.stops.count { atStops += 1 }
                if before.priced.ride.dropOffOrder.first == "organiser" && joined.riders.count == 1 { hosts += 1 }
                // Where the fastest order of all the drop-offs is another: the old join moved riders.
                var fresh = joined
                fresh.stopOrder = nil
                if let fastest = w.pooling.planner.plan(fresh)?.order, fastest != (joined.stopOrder ?? fastest) { reordered += 1 }
            }
        }
        XCTAssertGreaterThan(joins, 60, "too few joins")
        XCTAssertGreaterThan(reordered, 2, "too few joins where the fastest order differs from the kept one")
        XCTAssertGreaterThan(atStops, 5, "too few joins at an existing stop")
        XCTAssertGreaterThan(hosts, 1, "too few joins of parties without riders")
        print("join property: \(joins) joins kept their offers (\(reordered) where the fastest order differs, \(atStops) at a stop, \(hosts) into parties without riders)")
    }

    /// Over HTTP: each match carries its `offer`; a join with it places the rider as offered; a
    /// stale one answers 409 `offer_changed` whose error carries the live offer, accepted next.
    func testOffersOverHTTP() throws {
        let w = try world("offer-http")
        let depart = try seoul("2027-09-07T14:00:00+09:00")
        let o = Coordinate(lon: 126.979312, lat: 37.571347), d = Coordinate(lon: 126.991831, lat: 37.539697)
        try w.parties.put(Party(id: "h", origin: o, destination: d, departAt: depart, seatsTotal: 4, riders: [PartyRider(id: "host")]))
        let router = Router()
        registerPartiesEndpoints(router, parties: w.parties, writeToken: "t", dropOffProblem: w.pooling.dropOffProblem, placement: w.pooling.placeJoin)
        registerPoolingEndpoints(router, pooling: w.pooling)
        func offer(_ rider: String, to: String) throws -> JSONValue {
            let r = router.handle(HTTPRequest(method: "GET", path: "/v1/match", query: [("origin", "\(o.lon),\(o.lat)"), ("destination", to),
                                                                                       ("depart_at", SeoulTime.format(depart)), ("max_detour_pct", "40"), ("rider_id", rider)])).response
            return try XCTUnwrap(try JSONParser.parse(r.body)["matches"]?[0]?["offer"], String(decoding: r.body, as: UTF8.self))
        }
        func post(_ rider: String, to: String, _ offer: JSONValue) throws -> (Int, JSONValue) {
            let body = JSONWriter.string(["rider_id": .string(rider), "drop_off": .string(to), "offer": offer])
            let r = router.handle(HTTPRequest(method: "POST", path: "/v1/parties/h/riders", headers: ["authorization": "Bearer t"], body: Array(body.utf8))).response
            return (r.status, try JSONParser.parse(r.body))
        }
        let stale = try offer("late", to: "126.987833,37.566083")
        XCTAssertEqual(stale["max_detour_pct"]?.doubleValue, 40)
        let first = try offer("a", to: "126.982771,37.561937")
        XCTAssertEqual(try post("a", to: "126.982771,37.561937", first).0, 200)
        let (status, refused) = try post("late", to: "126.987833,37.566083", stale)
        XCTAssertEqual(status, 409)
        XCTAssertEqual(refused["error"]?["code"]?.stringValue, "offer_changed")
        let now = try XCTUnwrap(refused["error"]?["offer"])
        XCTAssertEqual(now, try offer("late", to: "126.987833,37.566083"))
        XCTAssertEqual(try post("late", to: "126.987833,37.566083", now).0, 200)
        let quote = router.handle(HTTPRequest(method: "GET", path: "/v1/parties/h/quote")).response
        let q = try JSONParser.parse(quote.body)
        XCTAssertEqual(q["drop_off_order"], now["drop_off_order"])
        XCTAssertEqual(q["shares"]?.arrayValue?.last?["krw"], now["pooled_krw"])
        XCTAssertEqual(try post("bad", to: "126.98,37.56", ["pooled_krw": 1]).0, 400, "an offer without its drop_off_order")
    }
}

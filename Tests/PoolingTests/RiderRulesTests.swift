import Foundation
import TaxiPot
import TaxiPotServer
import TestSupport
import XCTest

/// The rules riders are promised (issue 35): each rider aboard delayed within the limit, a party
/// without riders carries its host, a rider is never offered their own party, a drop-off the
/// party cannot serve is refused, and the money rules of docs/FARES.md.
extension PartyOfferTests {
    func route(_ w: World, _ points: [Coordinate], _ at: Double) throws -> RouteResult {
        try w.data.routes.route(RouteRequest(from: points[0], to: points.last!, via: Array(points.dropFirst().dropLast()), departAt: at))
    }

    // MARK: - Item 1: each rider aboard

    /// The issue's reproducer: a rider `b` getting off soon after the meeting point, and a new
    /// rider whose stop, put before `b`'s, would add little to the whole ride but half again to
    /// `b`'s own arrival. Every rider's arrival in the matched ride, worked out from single
    /// routes, is within the limit against their arrival in the party's current plan.
    func testEveryRiderAboardIsDelayedWithinTheLimit() throws {
        let w = try world("rider-delay")
        let depart = Self.now + 1800
        let o = Coordinate(lon: 126.970084, lat: 37.579675), b = Coordinate(lon: 126.977917, lat: 37.5716)
        let d = Coordinate(lon: 126.9910, lat: 37.5512)  // a longer ride, so the whole ride grows little (9.7%)
        let to = Coordinate(lon: 126.971657, lat: 37.569863)
        try w.parties.put(Party(id: "p", origin: o, destination: d, departAt: depart, seatsTotal: 4,
                                riders: [PartyRider(id: "host"), PartyRider(id: "b", dropOff: b)]))
        // Put before b's stop, the new stop would delay b by far more than 25%.
        let plain = try route(w, [o, b], depart).durationSeconds
        let first = try route(w, [o, to, b], depart).durationSeconds
        XCTAssertGreaterThan((first - plain) / plain * 100, 25, "the reproducer no longer puts b's arrival past the limit")
        var r = OfferRequest(origin: o, destination: to, departAt: depart)
        r.maxDetourPercent = 25
        let m = try XCTUnwrap(try w.pooling.offers(r).first, "the party is still a match with the stop after b's")
        // Each rider's arrival from single routes through the matched ride's stops.
        let base = try route(w, [o, b, d], depart)
        for rider in ["host", "b"] {
            let old = rider == "b" ? base.legs[0].durationSeconds : base.durationSeconds
            let stop = try XCTUnwrap(m.ride.riders.first { $0.id == rider }?.stop)
            let new = try route(w, [o] + Array(m.ride.stops[...stop]), depart).durationSeconds
            XCTAssertLessThanOrEqual((new - old) / old * 100, r.maxDetourPercent + 1e-9, "rider \(rider)")
            let reported = try XCTUnwrap(m.riderDelays.first { $0.riderID == rider })
            XCTAssertEqual(reported.addedSeconds, new - old, accuracy: 1e-3, rider)
            XCTAssertEqual(reported.percent, (new - old) / old * 100, accuracy: 1e-3, rider)
        }
        XCTAssertEqual(m.dropOffOrder, ["b", "you", "host"])
        // With a limit b's delay fits, the stop goes first (it lengthens the ride least).
        r.maxDetourPercent = 1000
        XCTAssertEqual(try w.pooling.offers(r).first?.dropOffOrder, ["you", "b", "host"])
        // A limit the stop before b's meets for the whole ride (not for b) and the stop after
        // b's does not: left out, counted as a rider's delay.
        let firstPct = (try route(w, [o, to, b, d], depart).durationSeconds - base.durationSeconds) / base.durationSeconds * 100
        XCTAssertLessThan(firstPct, m.detourPercent)
        let before = w.pooling.dropped.byReason[.riderDelay] ?? 0
        r.maxDetourPercent = (firstPct + m.detourPercent) / 2
        XCTAssertEqual(try w.pooling.offers(r).count, 0)
        XCTAssertEqual(w.pooling.dropped.byReason[.riderDelay] ?? 0, before + 1)
    }

    // MARK: - Item 2: a party without riders

    /// A party created without riders, then one join with a drop-off: the quote's by-leg split
    /// carries the host to the destination (leg 1 is the host's), where it answered "leg 1 has
    /// nobody aboard".
    func testPartyWithoutRidersCarriesItsHostToTheDestination() throws {
        let w = try world("no-riders")
        let depart = Self.now + 1800
        let o = Coordinate(lon: 126.9829, lat: 37.5700), d = Coordinate(lon: 126.9720, lat: 37.5547)
        let kimStop = Coordinate(lon: 126.9780, lat: 37.5665)
        try w.parties.put(Party(id: "open", origin: o, destination: d, departAt: depart, seatsTotal: 4, seatsTaken: 0))
        let alone = try w.pooling.quote(partyID: "open")
        XCTAssertEqual(alone.shares.map(\.riderID), ["organiser"])
        XCTAssertEqual(alone.shares.map(\.krw), [alone.priced.fare.totalKrw])
        _ = try w.parties.join(partyID: "open", rider: PartyRider(id: "kim", dropOff: kimStop))
        let q = try w.pooling.quote(partyID: "open", split: .byLeg)
        XCTAssertEqual(q.shares.map(\.riderID), ["organiser", "kim"])
        XCTAssertEqual(q.priced.ride.dropOffOrder, ["kim", "organiser"])
        // By hand: leg 0 (to kim's stop) shared by two, leg 1 the host's alone.
        let fare = try referenceFare(w, try route(w, [o, kimStop, d], depart), origin: o, at: depart)
        XCTAssertEqual(q.priced.fare.legKrw, fare.legKrw)
        let units = fare.totalKrw / 10, legs = fare.legKrw
        XCTAssertEqual(q.shares[1].krw, units * legs[0] / (2 * legs[0] + 2 * legs[1]) * 10)
        XCTAssertEqual(q.shares.reduce(0) { $0 + $1.krw }, fare.totalKrw)
        for split in [SplitPolicy.equal, .proportional] {
            XCTAssertEqual(try w.pooling.quote(partyID: "open", split: split).shares.count, 2)
        }
    }

    /// A party posted with `riders: []` (no seat taken) is matched: the rider's stop is put in
    /// the host's ride to the destination, and priced as the reference prices it.
    func testPartyWithoutRidersIsOffered() throws {
        let depart = Self.now + 1800
        let o = Coordinate(lon: 126.9829, lat: 37.5700), d = Coordinate(lon: 126.9720, lat: 37.5547)
        let party = Party(id: "plan", origin: o, destination: d, departAt: depart, seatsTotal: 4, riders: [])
        let w = try world("no-riders-match", initial: [party])
        var r = OfferRequest(origin: o.offset(eastMeters: 80, northMeters: 30), destination: Coordinate(lon: 126.9780, lat: 37.5665), departAt: depart)
        r.maxDetourPercent = 1000
        let m = try XCTUnwrap(try w.pooling.offers(r).first)
        XCTAssertEqual(m.party.id, "plan")
        XCTAssertEqual(m.dropOffOrder, ["you", "organiser"])
        let want = try XCTUnwrap(try reference(w, r, party))
        XCTAssertEqual(m.pooledKrw, want.pooled)
        XCTAssertEqual(m.riderDelays.map(\.riderID), ["organiser"])
        XCTAssertEqual(m.riderDelays[0].addedSeconds, m.addedSeconds, accuracy: 1e-9)
    }

    /// Every candidate left out for a reason is counted by that reason.
    func testDroppedCandidatesAreCountedByReason() throws {
        let depart = Self.now + 1800
        let o = Coordinate(lon: 126.9829, lat: 37.5700), d = Coordinate(lon: 126.9720, lat: 37.5547)
        let parties = [
            Party(id: "mine", origin: o, destination: d, departAt: depart, seatsTotal: 4, riders: [PartyRider(id: "host"), PartyRider(id: "me")]),
            Party(id: "busan", origin: o, destination: Coordinate(lon: 129.075, lat: 35.18), departAt: depart, seatsTotal: 4, riders: [PartyRider(id: "host")]),
            Party(id: "plain", origin: o, destination: d, departAt: depart, seatsTotal: 4, riders: [PartyRider(id: "host")]),
        ]
        let w = try world("dropped", initial: parties)
        var r = OfferRequest(origin: o, destination: Coordinate(lon: 126.9900, lat: 37.5800), departAt: depart)
        r.riderID = "me"
        r.maxDetourPercent = 1
        XCTAssertEqual(try w.pooling.offers(r).map(\.party.id), [])
        let counts = w.pooling.dropped.byReason
        XCTAssertEqual(counts[.alreadyInParty], 1)
        XCTAssertEqual(counts[.noRide], 1)
        XCTAssertEqual(counts[.partyDetour], 1)
        XCTAssertTrue(w.pooling.dropped.prometheusText().contains("taxipot_match_candidates_dropped_total{reason=\"already_in_party\"} 1\n"))
        XCTAssertTrue(w.pooling.dropped.prometheusText().contains("taxipot_match_candidates_dropped_total{reason=\"no_price\"} 0\n"))
    }

    // MARK: - Item 3: no blind spots

    /// A rider already in a party is not offered it (the drop-off order would list them twice
    /// and the join would answer `already_joined`); another rider is.
    func testRiderInThePartyIsNotOfferedIt() throws {
        let depart = Self.now + 1800
        let o = Coordinate(lon: 126.9829, lat: 37.5700), d = Coordinate(lon: 126.9720, lat: 37.5547)
        let party = Party(id: "with-kim", origin: o, destination: d, departAt: depart, seatsTotal: 4,
                          riders: [PartyRider(id: "host"), PartyRider(id: "kim", dropOff: Coordinate(lon: 126.9780, lat: 37.5665))])
        let w = try world("own-party", initial: [party])
        var r = OfferRequest(origin: o, destination: Coordinate(lon: 126.9760, lat: 37.5600), departAt: depart)
        r.maxDetourPercent = 1000
        r.riderID = "kim"
        XCTAssertEqual(try w.pooling.offers(r).count, 0)
        r.riderID = "host"
        XCTAssertEqual(try w.pooling.offers(r).count, 0)
        r.riderID = "lee"
        XCTAssertEqual(try w.pooling.offers(r).map(\.party.id), ["with-kim"])
    }

    /// A join whose drop-off the party's ride cannot serve (outside the served roads, too far
    /// from a road) is refused, and the party stays quotable and matchable.
    func testJoinWithADropOffThePartyCannotServeIsRefused() throws {
        let w = try world("join-coverage")
        let depart = Self.now + 1800
        let o = Coordinate(lon: 126.9829, lat: 37.5700), d = Coordinate(lon: 126.9720, lat: 37.5547)
        try w.parties.put(Party(id: "p", origin: o, destination: d, departAt: depart, seatsTotal: 4, riders: [PartyRider(id: "host")]))
        // A point of central Seoul more than 200 m from every road.
        var offRoad: Coordinate?
        search: for dy in stride(from: -3000.0, through: 3000, by: 100) {
            for dx in stride(from: -3000.0, through: 3000, by: 100) {
                let p = o.offset(eastMeters: dx, northMeters: dy)
                if w.data.routes.snap(p) == nil { offRoad = p; break search }
            }
        }
        let far = try XCTUnwrap(offRoad, "no point off the roads near the party")
        for (i, stop) in [Coordinate(lon: -73.9857, lat: 40.7484), Coordinate(lon: 129.075, lat: 35.18), far].enumerated() {
            XCTAssertThrowsError(try w.parties.join(partyID: "p", rider: PartyRider(id: "r\(i)", dropOff: stop), dropOffProblem: w.pooling.dropOffProblem)) {
                guard case .dropOffNotServed(id: "p", riderID: "r\(i)", _)? = $0 as? PartyWriteError else { return XCTFail("\($0)") }
                XCTAssertTrue(String(describing: $0).contains("rider.drop_off"), "\($0)")
            }
        }
        _ = try w.parties.join(partyID: "p", rider: PartyRider(id: "ok", dropOff: Coordinate(lon: 126.9780, lat: 37.5665)), dropOffProblem: w.pooling.dropOffProblem)
        XCTAssertEqual(try w.pooling.quote(partyID: "p").shares.map(\.riderID), ["host", "ok"])
        // Over HTTP: 422 outside_coverage, naming the drop-off.
        let router = Router()
        registerPartiesEndpoints(router, parties: w.parties, writeToken: "t", dropOffProblem: w.pooling.dropOffProblem)
        let body = #"{"rider_id":"ny","drop_off":{"lon":-73.9857,"lat":40.7484}}"#
        let answer = router.handle(HTTPRequest(method: "POST", path: "/v1/parties/p/riders", headers: ["authorization": "Bearer t"], body: Array(body.utf8))).response
        XCTAssertEqual(answer.status, 422)
        let json = try JSONParser.parse(answer.body)
        XCTAssertEqual(json["error"]?["code"]?.stringValue, "outside_coverage")
        XCTAssertEqual(w.parties.party(id: "p")?.riders.map(\.id), ["host", "ok"])
    }

    // MARK: - Item 4: money by rule

    /// `solo_krw` is the rider's fare alone at the rider's own `depart_at`, not the party's: a
    /// party leaving at 21:50 and a rider at 22:10 (Seoul's night surcharge from 22:00) gives
    /// the night fare.
    func testSoloFareIsPricedAtTheRidersDeparture() throws {
        let partyAt = Self.now + 13 * 3600 + 50 * 60  // 21:50 Seoul (`now` is 08:00)
        let riderAt = partyAt + 20 * 60  // 22:10
        let o = Coordinate(lon: 126.9829, lat: 37.5700), d = Coordinate(lon: 126.9720, lat: 37.5547)
        let w = try world("solo-clock", initial: [Party(id: "p", origin: o, destination: d, departAt: partyAt, seatsTotal: 4, riders: [PartyRider(id: "host")])])
        var r = OfferRequest(origin: o, destination: Coordinate(lon: 126.9900, lat: 37.5800), departAt: riderAt)
        r.maxDetourPercent = 1000
        let m = try XCTUnwrap(try w.pooling.offers(r).first)
        let night = try referenceFare(w, try route(w, [r.origin, r.destination], riderAt), origin: r.origin, at: riderAt).totalKrw
        let day = try referenceFare(w, try route(w, [r.origin, r.destination], partyAt), origin: r.origin, at: partyAt).totalKrw
        XCTAssertNotEqual(night, day)
        XCTAssertEqual(m.soloKrw, night)
    }

    /// A party's leftover units go to the host, then in the order riders get off (not the order
    /// they joined), and a rider of 2 seats pays two persons' shares.
    func testPartyQuoteLeftoverUnitsFollowTheDropOffOrder() throws {
        let w = try world("leftover-order")
        let depart = Self.now + 1800
        let o = Coordinate(lon: 126.9829, lat: 37.5700), d = Coordinate(lon: 126.9720, lat: 37.5547)
        let near = Coordinate(lon: 126.9800, lat: 37.5680), farther = Coordinate(lon: 126.9760, lat: 37.5620)
        // Listed: the host, then `late` (gets off second), then `early` (first).
        try w.parties.put(Party(id: "p", origin: o, destination: d, departAt: depart, seatsTotal: 6,
                                riders: [PartyRider(id: "host"), PartyRider(id: "late", seats: 2, dropOff: farther), PartyRider(id: "early", dropOff: near)]))
        let q = try w.pooling.quote(partyID: "p", split: .equal)
        XCTAssertEqual(q.priced.ride.dropOffOrder, ["early", "late", "host"])
        // Equal: 4 persons; units = total / 10; each person ⌊units / 4⌋, leftover in the order
        // host, early, late's first person, late's second.
        let units = q.priced.fare.totalKrw / 10, each = units / 4, left = units % 4
        XCTAssertEqual(left, 2, "the fare no longer tells the orders apart (by rider order, late would take the second unit)")
        let host = (each + (left > 0 ? 1 : 0)) * 10 + q.priced.fare.totalKrw % 10
        let early = (each + (left > 1 ? 1 : 0)) * 10
        let late = (2 * each + (left > 2 ? 1 : 0)) * 10
        XCTAssertEqual(q.shares.map(\.krw), [host, late, early])
    }
}

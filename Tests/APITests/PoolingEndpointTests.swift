import Foundation
import TaxiPotServer
import TestSupport
import XCTest

/// `GET /v1/match` and `GET /v1/parties/{id}/quote` through the service's router, and their
/// place in the OpenAPI document.
final class PoolingEndpointTests: XCTestCase {
    func get(_ router: Router, _ path: String, _ query: [(String, String)] = []) -> (status: Int, json: JSONValue?) {
        let r = router.handle(HTTPRequest(method: "GET", path: path, query: query.map { (name: $0.0, value: $0.1) })).response
        return (r.status, try? JSONParser.parse(r.body))
    }

    func testOffersAndQuoteOverTheRouter() throws {
        let context = try TestDataset.context()
        let router = makeRouter(context: context)
        let depart = Date().timeIntervalSince1970 + 1800
        let o = Coordinate(lon: 126.9829, lat: 37.5700), d = Coordinate(lon: 126.9720, lat: 37.5547)
        try context.parties.put(Party(id: "http-1", origin: o, destination: d, departAt: depart, seatsTotal: 4,
                                      riders: [PartyRider(id: "host"), PartyRider(id: "kim", dropOff: Coordinate(lon: 126.9780, lat: 37.5665))]))
        let quote = get(router, "/v1/parties/http-1/quote", [("split", "by_leg")])
        XCTAssertEqual(quote.status, 200)
        let shares = quote.json?["shares"]?.arrayValue ?? []
        XCTAssertEqual(shares.compactMap { $0["rider_id"]?.stringValue }, ["host", "kim"])
        XCTAssertEqual(shares.reduce(0) { $0 + ($1["krw"]?.intValue ?? 0) }, quote.json?["fare"]?["total_krw"]?.intValue)
        XCTAssertEqual(quote.json?["drop_off_order"]?.arrayValue?.compactMap(\.stringValue), ["kim", "host"])
        XCTAssertEqual(get(router, "/v1/parties/http-1/quote", [("split", "halves")]).status, 400)
        XCTAssertEqual(get(router, "/v1/parties/nobody/quote").status, 404)

        let near = o.offset(eastMeters: 100, northMeters: 50)
        let match = get(router, "/v1/match", [("origin", "\(near.lon),\(near.lat)"), ("destination", "126.9760,37.5600"),
                                              ("depart_at", SeoulTime.format(depart)), ("max_detour_pct", "1000"), ("rider_id", "lee")])
        XCTAssertEqual(match.status, 200)
        let first = match.json?["matches"]?[0]
        XCTAssertEqual(first?["party"]?["id"]?.stringValue, "http-1")
        XCTAssertNotNil(first?["detour"]?["added_s"]?.doubleValue)
        XCTAssertEqual(first?["drop_off_order"]?.arrayValue?.contains(.string("lee")), true)
        let price = first?["price"]
        XCTAssertEqual(price?["saving_krw"]?.intValue, (price?["solo_krw"]?.intValue ?? 0) - (price?["pooled_krw"]?.intValue ?? 0))
        for (name, value) in [("walk_m", "-1"), ("seats", "0"), ("limit", "51"), ("window_min", "x"), ("max_detour_pct", "nan")] {
            let bad = get(router, "/v1/match", [("origin", "126.98,37.57"), ("destination", "126.97,37.55"), (name, value)])
            XCTAssertEqual(bad.status, 400, name)
            XCTAssertTrue(bad.json?["error"]?["message"]?.stringValue?.contains(name) ?? false, name)
        }
        XCTAssertEqual(get(router, "/v1/match", [("origin", "126.98,37.57")]).status, 400)
        // Far from every party: no match, not an error.
        // From the party's destination, 1.9 km from its meeting point: no match, not an error.
        let none = get(router, "/v1/match", [("origin", "\(d.lon),\(d.lat)"), ("destination", "126.9760,37.5600")])
        XCTAssertEqual(none.status, 200, "\(String(describing: none.json))")
        XCTAssertEqual(none.json?["matches"]?.arrayValue?.count, 0)

        XCTAssertEqual(get(router, "/v1/match", [("origin", "126.98,37.57"), ("destination", "126.97,37.55"), ("estimate", "maybe")]).status, 400)

        // The organiser's flow (issue 35): a party created without riders, one join with a
        // drop-off, then its by-leg quote (was a 500 "leg 1 has nobody aboard"); the party is matched.
        try context.parties.put(Party(id: "http-open", origin: o, destination: d, departAt: depart, seatsTotal: 4, seatsTaken: 0))
        _ = try context.parties.join(partyID: "http-open", rider: PartyRider(id: "kim", dropOff: Coordinate(lon: 126.9780, lat: 37.5665)))
        let open = get(router, "/v1/parties/http-open/quote")
        XCTAssertEqual(open.status, 200, "\(String(describing: open.json))")
        XCTAssertEqual(open.json?["shares"]?.arrayValue?.compactMap { $0["rider_id"]?.stringValue }, ["organiser", "kim"])
        func matches(_ rider: String) -> [JSONValue] {
            get(router, "/v1/match", [("origin", "\(near.lon),\(near.lat)"), ("destination", "126.9760,37.5600"),
                                      ("depart_at", SeoulTime.format(depart)), ("max_detour_pct", "1000"), ("rider_id", rider)]).json?["matches"]?.arrayValue ?? []
        }
        // kim is in both parties: neither is offered to kim; lee is offered both, each match
        // listing its riders' delays (the implied host first).
        XCTAssertEqual(matches("kim").count, 0)
        let lee = matches("lee")
        XCTAssertEqual(Set(lee.compactMap { $0["party"]?["id"]?.stringValue }), ["http-1", "http-open"])
        let openMatch = lee.first { $0["party"]?["id"]?.stringValue == "http-open" }
        XCTAssertEqual(openMatch?["detour"]?["riders"]?.arrayValue?.compactMap { $0["rider_id"]?.stringValue }, ["organiser", "kim"])
        let metrics = router.handle(HTTPRequest(method: "GET", path: "/metrics")).response
        XCTAssertTrue(String(decoding: metrics.body, as: UTF8.self).contains("taxipot_match_candidates_dropped_total{reason=\"already_in_party\"} 2\n"))

        let doc = OpenAPIDocument.build(router: router, dataset: context.info)
        for (path, method) in [("/v1/match", "get"), ("/v1/parties/{id}/quote", "get"), ("/v1/parties/{id}/riders", "post"),
                               ("/v1/parties/{id}/riders/{rider_id}", "delete")] {
            XCTAssertNotNil(doc["paths"]?[path]?[method], "\(method) \(path) missing from the OpenAPI document")
        }
        let params = doc["paths"]?["/v1/match"]?["get"]?["parameters"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        XCTAssertEqual(Set(params), ["origin", "destination", "depart_at", "window_min", "walk_m", "seats", "max_detour_pct", "limit", "rider_id", "estimate"])
    }

    /// `estimate=allow` (#24): a rider whose own trip lies outside the served roads gets its
    /// solo fare estimated and labelled in each match; without it, a 422.
    func testOffersWithEstimateOutsideTheServedRoads() throws {
        let context = try TestDataset.context()
        let router = makeRouter(context: context)
        let routes = context.data.routes
        let depart = Date().timeIntervalSince1970 + 1800
        func q(_ c: Coordinate) -> String { "\(c.lon),\(c.lat)" }
        // Gangnam station → Hongik University station: neither end is served.
        let gangnam = Coordinate(lon: 127.0276, lat: 37.4979), hongdae = Coordinate(lon: 126.9237, lat: 37.5572)
        try context.parties.put(Party(id: "gn-1", origin: gangnam.offset(eastMeters: 100, northMeters: 0), destination: hongdae,
                                      departAt: depart, seatsTotal: 4, riders: [PartyRider(id: "host")]))
        let plain = [("origin", q(gangnam)), ("destination", q(hongdae)), ("depart_at", SeoulTime.format(depart))]
        let refused = get(router, "/v1/match", plain)
        XCTAssertEqual(refused.status, 422)
        XCTAssertEqual(refused.json?["error"]?["code"]?.stringValue, "outside_coverage")
        let allowed = get(router, "/v1/match", plain + [("estimate", "allow")])
        XCTAssertEqual(allowed.status, 200, "\(String(describing: allowed.json))")
        XCTAssertEqual(allowed.json?["matches"]?.arrayValue?.count, 0, "no party's ride can take an unserved destination by road")

        // A rider standing off the roads (south of Yongsan, in the Han river), 50 m from a
        // party's meeting point on the last served road, going into central Seoul.
        var onRoad = Coordinate(lon: 126.9648, lat: 37.5298)
        XCTAssertNotNil(routes.snap(onRoad))
        var off = onRoad
        for _ in 0..<100 {
            let next = off.offset(eastMeters: 0, northMeters: -50)
            if routes.snap(next) == nil { off = next; break }
            onRoad = next
            off = next
        }
        XCTAssertNil(routes.snap(off), "no unserved point found south of Yongsan")
        let partyTo = Coordinate(lon: 126.9720, lat: 37.5547), riderTo = Coordinate(lon: 126.9760, lat: 37.5600)
        try context.parties.put(Party(id: "river-1", origin: onRoad, destination: partyTo, departAt: depart, seatsTotal: 4,
                                      riders: [PartyRider(id: "host")]))
        let query = [("origin", q(off)), ("destination", q(riderTo)), ("depart_at", SeoulTime.format(depart)),
                     ("walk_m", "300"), ("max_detour_pct", "1000")]
        XCTAssertEqual(get(router, "/v1/match", query).status, 422)
        let answer = get(router, "/v1/match", query + [("estimate", "allow")])
        XCTAssertEqual(answer.status, 200, "\(String(describing: answer.json))")
        let m = try XCTUnwrap(answer.json?["matches"]?[0])
        XCTAssertEqual(m["party"]?["id"]?.stringValue, "river-1")
        let label = try XCTUnwrap(m["estimated"], "an estimated solo fare is labelled")
        XCTAssertEqual(label["method"]?.stringValue, "straight_line")
        XCTAssertEqual(label["reason"]?["code"]?.stringValue, "outside_coverage")
        let solo = try XCTUnwrap(m["price"]?["solo_krw"]?.intValue)
        let range = label["fare_range_krw"]?.arrayValue?.compactMap(\.intValue) ?? []
        XCTAssertEqual(range.count, 2)
        XCTAssertTrue(range.count == 2 && range[0] <= solo && solo <= range[1], "solo \(solo) outside its range \(range)")
        // The same as quote's estimate for the rider's trip alone.
        let quote = try context.data.quotes.estimate(QuoteRequest(origin: off, destination: riderTo, riders: 1, departure: depart, split: .byLeg),
                                                     because: routes.coverageProblem(from: off, to: riderTo))
        XCTAssertEqual(solo, quote.fare.totalKrw)
        XCTAssertEqual(m["price"]?["saving_krw"]?.intValue, solo - (m["price"]?["pooled_krw"]?.intValue ?? 0))
        // A rider whose trip is served gets no label.
        let served = get(router, "/v1/match", [("origin", q(onRoad)), ("destination", q(riderTo)), ("depart_at", SeoulTime.format(depart)),
                                              ("max_detour_pct", "1000"), ("estimate", "allow")])
        XCTAssertEqual(served.status, 200)
        XCTAssertEqual(served.json?["matches"]?[0]?["party"]?["id"]?.stringValue, "river-1")
        XCTAssertNil(served.json?["matches"]?[0]?["estimated"])
    }
}

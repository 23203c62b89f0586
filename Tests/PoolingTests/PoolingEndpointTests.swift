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

    func testMatchAndQuoteOverTheRouter() throws {
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

        let doc = OpenAPIDocument.build(router: router, dataset: context.info)
        for (path, method) in [("/v1/match", "get"), ("/v1/parties/{id}/quote", "get"), ("/v1/parties/{id}/riders", "post"),
                               ("/v1/parties/{id}/riders/{rider_id}", "delete")] {
            XCTAssertNotNil(doc["paths"]?[path]?[method], "\(method) \(path) missing from the OpenAPI document")
        }
        let params = doc["paths"]?["/v1/match"]?["get"]?["parameters"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        XCTAssertEqual(Set(params), ["origin", "destination", "depart_at", "window_min", "walk_m", "seats", "max_detour_pct", "limit", "rider_id"])
    }
}

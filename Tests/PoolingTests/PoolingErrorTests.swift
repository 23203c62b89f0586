import TaxiPotServer
import XCTest

/// A match's errors are Pooling's own (`PoolingError`), not the fare's; the API maps them at
/// the edge, to the answers the match and party-quote endpoints gave before the split.
final class PoolingErrorTests: XCTestCase {
    func testOfferOptionsThrowPoolingErrorsNamingTheOfferField() {
        XCTAssertThrowsError(try OfferRequest.checkWindow(-1)) {
            XCTAssertEqual($0 as? PoolingError, .invalid(.window, reason: "must be 0–1440 minutes, got -1.0"))
        }
        var r = OfferRequest(origin: .init(lon: 126.97, lat: 37.56), destination: .init(lon: 126.99, lat: 37.57), departAt: 1_800_000_000)
        r.riderID = "no spaces"
        XCTAssertThrowsError(try r.validate()) {
            guard case .invalid(.riderID, _)? = $0 as? PoolingError else { return XCTFail("\($0)") }
        }
        r = OfferRequest(origin: .init(lon: 126.97, lat: 37.56), destination: .init(lon: 126.99, lat: 37.57), departAt: 1)
        XCTAssertThrowsError(try r.validate()) { XCTAssertEqual(($0 as? PoolingError).map(ErrorMapping.http)?.message.hasPrefix("depart_at "), true) }
    }

    func testTheAPIMapsPoolingErrorsAtTheEdge() {
        let missing = ErrorMapping.http(PoolingError.partyNotFound(id: "p1"))
        XCTAssertEqual([missing.status, missing.code, missing.message] as [AnyHashable],
                       [404, "party_not_found", "no live party 'p1' (never created, deleted, or expired)"])
        let invalid = ErrorMapping.http(PoolingError.invalid(.maxDetour, reason: "must be 0–1000, got -1.0"))
        XCTAssertEqual([invalid.status, invalid.code, invalid.message] as [AnyHashable], [400, "invalid_parameter", "max_detour_pct must be 0–1000, got -1.0"])
        // The fare of the rider's trip is answered as the fare's error, its points named as a route's.
        let fare = PoolingError.fare(.route(.noRoute(from: .origin, to: .destination)))
        XCTAssertEqual(ErrorMapping.http(fare).status, 404)
        XCTAssertEqual(ErrorMapping.http(fare).code, "no_route")
        XCTAssertEqual(ErrorMapping.http(fare).message, ErrorMapping.http(RoutingError.noRoute(from: .origin, to: .destination)).message)
        XCTAssertEqual(ErrorMapping.http(PoolingError.invalid(.walk, reason: "x"), query: "9999").message,
                       "query parameter 'walk_m' must be a number from 0.0 to 5000.0, got '9999'")
    }
}

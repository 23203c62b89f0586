import Foundation
import TaxiPotServer
import TestSupport
import XCTest

/// Issue 43: the OSRM face accepted `alternatives=-1` and answered `approaches=bogus` as a
/// feature it lacks. OSRM's grammar reads alternatives as true, false or an unsigned count and
/// approaches as unrestricted, curb or opposite: anything else is a malformed query.
final class OSRMOptionValuesTests: XCTestCase {
    static let router: Result<Router, Error> = Result { makeRouter(context: try TestDataset.context()) }
    let pair = "126.9780,37.5665;126.9882,37.5701"

    func route(_ query: [(String, String)]) throws -> (status: Int, code: String?, message: String?) {
        let request = HTTPRequest(method: "GET", path: "/route/v1/driving/\(pair)", query: query)
        let response = try Self.router.get().handle(request).response
        let json = try JSONParser.parse(response.body)
        return (response.status, json["code"]?.stringValue, json["message"]?.stringValue)
    }

    func testANegativeAlternativesCountIsMalformed() throws {
        let r = try route([("alternatives", "-1")])
        XCTAssertEqual(r.status, 400)
        XCTAssertEqual(r.code, "InvalidQuery")
        XCTAssertTrue(r.message?.contains("alternatives=-1") == true, r.message ?? "")
        for ok in ["true", "false", "0", "3"] { XCTAssertEqual(try route([("alternatives", ok)]).code, "Ok", ok) }
    }

    func testAnUnknownApproachIsMalformedAndAKnownOneNotImplemented() throws {
        let bogus = try route([("approaches", "bogus;unrestricted")])
        XCTAssertEqual(bogus.status, 400)
        XCTAssertEqual(bogus.code, "InvalidQuery")
        XCTAssertTrue(bogus.message?.contains("approaches=bogus") == true, bogus.message ?? "")
        XCTAssertEqual(try route([("approaches", "curb;unrestricted")]).code, "NotImplemented")
        XCTAssertEqual(try route([("approaches", "unrestricted;")]).code, "Ok")
    }
}

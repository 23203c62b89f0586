import Foundation
import TaxiPotServer
import TestSupport
import XCTest

/// Issue 43: Kakao's face reported invented totals past the last page (1,320 where 21 exist),
/// and its errors named `/v1/places`'s `q` for Kakao's `query`.
final class KakaoPagingTests: XCTestCase {
    static let router: Result<Router, Error> = Result { makeRouter(context: try TestDataset.context()) }

    func get(_ path: String, _ query: [(String, String)]) throws -> (status: Int, json: JSONValue) {
        let response = try Self.router.get().handle(HTTPRequest(method: "GET", path: path, query: query)).response
        return (response.status, try JSONParser.parse(response.body))
    }

    func testEveryPageReportsTheTrueTotal() throws {
        for (path, size) in [("/v2/local/search/keyword.json", 5), ("/v2/local/search/address.json", 3)] {
            let text = path.hasSuffix("keyword.json") ? "역" : "동"
            let first = try get(path, [("query", text), ("size", String(size))]).json
            let total = try XCTUnwrap(first["meta"]?["total_count"]?.doubleValue.map { Int($0) })
            XCTAssertGreaterThan(total, 2 * size, "\(path): a query with several pages")
            var seen = 0
            var page = 1
            while true {
                let json = try get(path, [("query", text), ("size", String(size)), ("page", String(page))]).json
                let documents = json["documents"]?.arrayValue?.count ?? 0
                XCTAssertEqual(json["meta"]?["total_count"]?.doubleValue, Double(total), "\(path) page \(page)")
                XCTAssertEqual(json["meta"]?["pageable_count"]?.doubleValue, Double(min(total, 45 * size)), "\(path) page \(page)")
                XCTAssertEqual(json["meta"]?["is_end"]?.boolValue, page * size >= min(total, 45 * size), "\(path) page \(page)")
                seen += documents
                if documents == 0 || page == 45 { break }
                page += 1
            }
            XCTAssertEqual(seen, min(total, 45 * size), "\(path): the pages hold the total")
            let past = try get(path, [("query", text), ("size", String(size)), ("page", "45")]).json
            XCTAssertEqual(past["meta"]?["total_count"]?.doubleValue, Double(total), "\(path): past the last page")
        }
    }

    func testErrorsNameKakaosParameters() throws {
        for path in ["/v2/local/search/keyword.json", "/v2/local/search/address.json"] {
            for text in ["!!!", String(repeating: "가", count: 1000)] {
                let (status, json) = try get(path, [("query", text)])
                XCTAssertEqual(status, 400)
                let message = json["message"]?.stringValue ?? ""
                XCTAssertTrue(message.hasPrefix("query "), "\(path): \(message)")
                XCTAssertFalse(message.contains("'q'"), "\(path): \(message)")
            }
        }
    }
}

import Foundation
import TaxiPotServer
import TestSupport
import XCTest

/// Issue 43 item 10: `POST /v1/quotes` never drops rows under a plain 200 (an input that stops
/// part-way ends with an error line naming its line, and the chunked body breaks off), and it
/// reads a CP949 body as `taxipot batch` reads the file (`charset=`, else detected).
final class BulkQuotesTests: XCTestCase {
    static let header = "origin_lon,origin_lat,dest_lon,dest_lat\n"

    /// `count` trips between points on central Seoul's roads (fixed seed).
    static func rows(_ count: Int) -> [String] {
        var rng = TableAdmissionTests.SplitMix(seed: 43)
        func point() -> String { String(format: "%.5f,%.5f", 126.955 + 0.045 * rng.unit(), 37.535 + 0.05 * rng.unit()) }
        return (0..<count).map { _ in "\(point()),\(point())" }
    }

    /// 2,000 trips whose row 1,500 (line 1,501) opens a quote that never closes.
    static func csvStoppingAtRow1500() -> [UInt8] {
        var rows = rows(2000)
        rows[1499] = "\"" + rows[1499]
        return Array((header + rows.joined(separator: "\n") + "\n").utf8)
    }

    func lines(_ body: [UInt8]) throws -> [JSONValue] {
        try body.split(separator: 0x0A).map { try JSONParser.parse(Array($0)) }
    }

    func testAnInputThatStopsEndsWithAnErrorLineNamingItsLine() throws {
        let router = makeRouter(context: try TestDataset.context())
        let r = router.handle(HTTPRequest(method: "POST", path: "/v1/quotes", headers: ["content-type": "text/csv"],
                                          body: Self.csvStoppingAtRow1500())).response
        XCTAssertEqual(r.status, 200)
        let answer = try lines(r.collectedBody)
        XCTAssertEqual(answer.count, 1500, "the 1,499 rows before the quote, then the error line")
        for row in answer.dropLast() { XCTAssertNotNil(row["fare_krw"], "a trip row") }
        let last = try XCTUnwrap(answer.last)
        XCTAssertEqual(last["error"]?["code"]?.stringValue, "input_stopped", "\(last)")
        XCTAssertEqual(last["error"]?["line"]?.intValue, 1501)
        XCTAssertEqual(last["rows_answered"]?.intValue, 1499)
        XCTAssertTrue(last["error"]?["message"]?.stringValue?.contains("unterminated quote") ?? false, "\(last)")
        XCTAssertNil(last["fare_krw"], "not a trip row")
    }

    /// Over a socket the 200 head is out before the input stops: the body ends without the
    /// chunked coding's last chunk (an incomplete answer to any HTTP client), after the error line.
    func testAnInputThatStopsBreaksOffTheChunkedBody() throws {
        var options = HTTPServerOptions()
        options.accessLog = false
        let server = HTTPServer(router: makeRouter(context: try TestDataset.context()), options: options)
        try server.start(host: "127.0.0.1", port: 0)
        defer { server.stop() }
        let body = Self.csvStoppingAtRow1500()
        let client = try RawHTTPClient(port: server.port, timeoutSeconds: 120)
        try client.send(Array("POST /v1/quotes HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/csv\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body)
        let (bytes, closed) = client.readUntilClose(seconds: 120)
        let text = String(decoding: bytes, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 200"), String(text.prefix(200)))
        XCTAssertTrue(closed, "the server closes the connection (it was keep-alive)")
        XCTAssertTrue(text.contains(#""code":"input_stopped""#), String(text.suffix(400)))
        XCTAssertFalse(text.hasSuffix("0\r\n\r\n"), "no last chunk: the answer is incomplete, not a normal end: \(text.suffix(200))")
    }

    func testACP949BodyIsReadAsBatchReadsIt() throws {
        let router = makeRouter(context: try TestDataset.context())
        let trips = Self.rows(3)
        let text = "출발지 경도,출발지 위도,도착지 경도,도착지 위도,메모\n" + trips.map { $0 + ",회사" }.joined(separator: "\n") + "\n"
        let cp949 = try SystemIconv.encode(text, to: "CP949")
        XCTAssertNotEqual(cp949, Array(text.utf8), "the body is not UTF-8")
        let utf8 = try lines(router.handle(HTTPRequest(method: "POST", path: "/v1/quotes", headers: ["content-type": "text/csv"], body: Array(text.utf8)))
            .response.collectedBody)
        XCTAssertEqual(utf8.count, 3)
        for contentType in ["text/csv", "text/csv; charset=cp949", "text/csv;charset=\"EUC-KR\""] {
            let r = router.handle(HTTPRequest(method: "POST", path: "/v1/quotes", headers: ["content-type": contentType], body: cp949)).response
            XCTAssertEqual(r.status, 200, "\(contentType): \(String(decoding: r.collectedBody, as: UTF8.self).prefix(300))")
            let answer = try lines(r.collectedBody)
            XCTAssertEqual(answer.map { $0["fare_krw"] }, utf8.map { $0["fare_krw"] }, contentType)
            XCTAssertEqual(answer.first?["메모"]?.stringValue, "회사", "\(contentType): the text columns are decoded")
        }
        // A charset that is not read here, or one that contradicts the bytes.
        let latin = router.handle(HTTPRequest(method: "POST", path: "/v1/quotes", headers: ["content-type": "text/csv; charset=latin1"], body: cp949)).response
        XCTAssertEqual(latin.status, 415)
        let wrong = router.handle(HTTPRequest(method: "POST", path: "/v1/quotes", headers: ["content-type": "text/csv; charset=utf-8"], body: cp949)).response
        XCTAssertEqual(wrong.status, 422, "a CP949 header read as UTF-8 has none of the columns")
    }
}

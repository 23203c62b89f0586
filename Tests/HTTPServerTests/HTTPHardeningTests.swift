import Foundation
import HTTPServer
import JSON
import Geo
@testable import API
import Parties
import TestSupport
import XCTest

/// What an adversary's run found (issue 21), over raw sockets so the bytes reach the server as
/// written: request smuggling through framing headers, control bytes in the head, connections
/// left unanswered past the limit, trickling heads, and the overload count in /metrics.
final class HTTPHardeningTests: XCTestCase {
    static let token = "hardening-token"

    /// A server with the party endpoints (writes enabled by `token`) and /health.
    static let server: (HTTPServer, PartyService) = {
        let service = try! PartyService(stateDirectory: TestPaths.temporaryDirectory("hardening").path)
        let router = Router()
        registerPartiesEndpoints(router, parties: service, writeToken: token)
        router.add("GET", "/health", OperationDoc("ok")) { _ in .json(["status": "ok"]) }
        var options = HTTPServerOptions()
        options.accessLog = false
        let s = HTTPServer(router: router, options: options)
        try! s.start(host: "127.0.0.1", port: 0)
        return (s, service)
    }()

    static var port: Int { server.0.port }

    /// A started server of its own answering `GET /ping`, with the options `configure` sets
    /// (access log off); the caller stops it.
    func pingServer(metrics: ServerMetrics = ServerMetrics(), _ configure: (inout HTTPServerOptions) -> Void) throws -> HTTPServer {
        var options = HTTPServerOptions()
        options.accessLog = false
        configure(&options)
        let router = Router()
        router.add("GET", "/ping", OperationDoc("ping")) { _ in .json(["ok": true]) }
        let server = HTTPServer(router: router, options: options, metrics: metrics)
        try server.start(host: "127.0.0.1", port: 0)
        return server
    }

    static let partyBody = #"{"origin":[127.0276,37.4979],"destination":"127.1,37.6","depart_at":"\#(SeoulTime.format(Date().timeIntervalSince1970 + 3600))","seats_total":4,"seats_taken":1}"#

    /// Sends `bytes` on a new connection and reads until the server closes it (or 3 s pass).
    func exchange(_ bytes: [UInt8], port: Int = HTTPHardeningTests.port) throws -> (text: String, closed: Bool) {
        let c = try RawHTTPClient(port: port)
        try c.send(bytes)
        let (out, closed) = c.readUntilClose(seconds: 3)
        return (String(decoding: out, as: UTF8.self), closed)
    }

    /// Asserts exactly one response with `status` and a JSON error body, then a close.
    /// `json`: false where libmicrohttpd refuses the head itself (its own HTML body).
    func assertOneRefusal(_ raw: String, status: Int, closes: Bool = true, json: Bool = true, file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try exchange(Array(raw.utf8))
        XCTAssertEqual(r.text.components(separatedBy: "HTTP/1.1 ").count - 1, 1, "one status line: \(r.text)", file: file, line: line)
        XCTAssertTrue(r.text.hasPrefix("HTTP/1.1 \(status) "), r.text, file: file, line: line)
        if json { XCTAssertTrue(r.text.contains("\"error\":{\"code\":"), r.text, file: file, line: line) }
        if closes { XCTAssertTrue(r.closed, "the connection must be closed: \(r.text)", file: file, line: line) }
    }

    // MARK: - Framing

    func testTwoContentLengthsAre400AndClose() throws {
        // Today the first length is used and the rest of the body runs as a second request.
        try assertOneRefusal("POST /health HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 40\r\n\r\n{}GET /health HTTP/1.1\r\nHost: a\r\n\r\n", status: 400)
    }

    func testContentLengthWithChunkedIs400AndClose() throws {
        try assertOneRefusal("POST /health HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /health HTTP/1.1\r\nHost: a\r\n\r\n", status: 400)
    }

    func testSpaceBeforeTheColonIs400() throws {
        try assertOneRefusal("POST /health HTTP/1.1\r\nHost: a\r\nTransfer-Encoding : chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", status: 400)
    }

    func testUnknownTransferCodingIs501AndCloseNotAHang() throws {
        for coding in ["xchunked", "chunked, identity", "gzip"] {
            try assertOneRefusal("POST /health HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: \(coding)\r\n\r\n2\r\n{}\r\n0\r\n\r\n", status: 501)
        }
    }

    func testChunkedBodyIsStillAccepted() throws {
        let c = try RawHTTPClient(port: Self.port)
        let body = Self.partyBody
        try c.send(Array("PUT /v1/parties/chunked-ok HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer \(Self.token)\r\nTransfer-Encoding: chunked\r\n\r\n\(String(body.utf8.count, radix: 16))\r\n\(body)\r\n0\r\n\r\n".utf8))
        XCTAssertEqual(try c.readResponse(method: "PUT").status, 201)
    }

    func testUnreadableContentLengthGetsOneCleanAnswer() throws {
        // Today libmicrohttpd's own refusal goes out with its status line and headers twice.
        try assertOneRefusal("POST /health HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n{}", status: 400)
        try assertOneRefusal("POST /health HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999\r\n\r\n{}", status: 413)
        // The server goes on serving.
        XCTAssertEqual(try RawHTTPClient(port: Self.port).request("GET", "/health").status, 200)
    }

    func testContentLengthsPast2To63AreRefusedAtOnce() throws {
        // Today a length from 2^63 to 2^64-1 fits libmicrohttpd's reader but not ours: the body
        // is read and thrown away for as long as it comes, and nothing is answered.
        for length in ["9223372036854775807", "9223372036854775808", "12345678901234567890", "18446744073709551615"] {
            let start = Date()
            try assertOneRefusal("POST /health HTTP/1.1\r\nHost: a\r\nContent-Length: \(length)\r\n\r\n{}", status: 413)
            XCTAssertLessThan(Date().timeIntervalSince(start), 2, length)
        }
    }

    func testChunkSizesPastTheBodyLimitAreRefusedAtOnce() throws {
        // Today a chunk announcing more than the limit is read until the idle timeout (15 s)
        // when its bytes do not come, then closed unanswered. 0x100000 is the limit itself.
        for size in ["100001", "7fffffffffffffff", "8000000000000000", "ffffffffffffffff", "00000000000100001", "100001;ext=1"] {
            let start = Date()
            try assertOneRefusal("POST /health HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n\(size)\r\nabc", status: 413)
            XCTAssertLessThan(Date().timeIntervalSince(start), 2, size)
        }
        // Chunks that together pass the limit, the second announced while the first is read.
        let first = String(repeating: "x", count: 0x80000)
        try assertOneRefusal("POST /health HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n80000\r\n\(first)\r\n80001\r\nabc", status: 413)
        // At the limit a chunked body is read whole and goes to its handler (405: /health takes GET).
        let c = try RawHTTPClient(port: Self.port)
        try c.send(Array("POST /health HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n100000\r\n\(String(repeating: "y", count: 0x100000))\r\n0\r\n\r\n".utf8))
        XCTAssertEqual(try c.readResponse(method: "POST").status, 405)
    }

    // MARK: - Control bytes

    func testNULInTheTargetIs400AndWritesNothing() throws {
        // Today `PUT /v1/parties/victim\0ignored` writes party `victim`.
        let body = Self.partyBody
        try assertOneRefusal("PUT /v1/parties/victim\0ignored HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer \(Self.token)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)", status: 400)
        XCTAssertNil(Self.server.1.party(id: "victim"))
        XCTAssertEqual(try RawHTTPClient(port: Self.port).request("GET", "/v1/parties/victim").status, 404)
    }

    func testNULInAHeaderValueIs400() throws {
        // Today `Authorization: Bearer <token>\0anything` is accepted.
        let body = Self.partyBody
        try assertOneRefusal("PUT /v1/parties/nul-auth HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer \(Self.token)\0anything\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)", status: 400)
        XCTAssertNil(Self.server.1.party(id: "nul-auth"))
        // Last header, bare LF line ends, and in the version.
        try assertOneRefusal("GET /health HTTP/1.1\nHost: a\nX-A: b\0c\n\n", status: 400)
        try assertOneRefusal("GET /health HTTP/1.1\0x\r\nHost: a\r\n\r\n", status: 400, json: false)
        try assertOneRefusal("GET /health HTTP/1.1\r\nHost: a\0\r\n\r\n", status: 400)
    }

    func testControlBytesInTheHeadAre400() throws {
        try assertOneRefusal("GET /health\u{01} HTTP/1.1\r\nHost: a\r\n\r\n", status: 400)
        try assertOneRefusal("GET /hea lth HTTP/1.1\r\nHost: a\r\n\r\n", status: 400)
        try assertOneRefusal("GET /health HTTP/1.1\r\nHost: a\r\nX-A: b\u{7f}c\r\n\r\n", status: 400)
        try assertOneRefusal("GET /health HTTP/1.1\r\nHost: a\r\nX-A: b\rc\r\n\r\n", status: 400)
        try assertOneRefusal("GE\u{01}T /health HTTP/1.1\r\nHost: a\r\n\r\n", status: 400)
    }

    func testTwoAuthorizationHeadersAre400() throws {
        let body = Self.partyBody
        try assertOneRefusal("PUT /v1/parties/two-auth HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer wrong\r\nAuthorization: Bearer \(Self.token)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)", status: 400)
        XCTAssertNil(Self.server.1.party(id: "two-auth"))
    }

    /// Issue 43: a settle's Idempotency-Key given twice was read as the last one.
    func testTwoIdempotencyKeyHeadersAre400NamingTheHeader() throws {
        let raw = "GET /health HTTP/1.1\r\nHost: a\r\nIdempotency-Key: ride-1\r\nIdempotency-Key: ride-2\r\n\r\n"
        try assertOneRefusal(raw, status: 400)
        let text = try exchange(Array(raw.utf8)).text
        XCTAssertTrue(text.contains("\"repeated_header\"") && text.contains("more than one Idempotency-Key header"), text)
    }

    /// Issue 43: `--max-url-kb 1024` raised the room for header lines with the target's. Header
    /// lines keep their own limit (431 naming it), while the long target is still accepted.
    func testHeaderLinesKeepTheirOwnLimitWhenTheTargetLimitIsRaised() throws {
        let server = try pingServer { $0.maxURLBytes = 1 << 20 }
        defer { server.stop() }
        let limit = HTTPServerOptions().maxHeaderBytes
        let pad = (0..<(limit / 4096 + 2)).map { "X-Pad-\($0): \(String(repeating: "p", count: 4096))\r\n" }.joined()
        let r = try exchange(Array("GET /ping HTTP/1.1\r\nHost: a\r\n\(pad)\r\n".utf8), port: server.port)
        XCTAssertTrue(r.text.hasPrefix("HTTP/1.1 431 "), String(r.text.prefix(300)))
        XCTAssertTrue(r.text.contains("\"headers_too_large\"") && r.text.contains("at most \(limit) are accepted"), String(r.text.prefix(300)))
        XCTAssertTrue(r.closed)
        let long = "/ping?trace=" + String(repeating: "1", count: 900 << 10)
        XCTAssertEqual(try RawHTTPClient(port: server.port).request("GET", long).status, 200)
        XCTAssertEqual(try RawHTTPClient(port: server.port).request("GET", "/ping", headers: ["X-Pad": String(repeating: "p", count: limit - 100)]).status, 200)
    }

    func testOrdinaryHeadsStillPass() throws {
        // Tabs and trailing spaces in values, bare LF line ends, raw UTF-8 in the target,
        // pipelined requests on one connection.
        let c = try RawHTTPClient(port: Self.port)
        try c.send(Array("GET /health HTTP/1.1\r\nHost: a\r\nX-A:\tb c \t\r\nX-Empty:\r\n\r\nGET /health HTTP/1.1\nHost: a\n\n".utf8))
        XCTAssertEqual(try c.readResponse().status, 200)
        XCTAssertEqual(try c.readResponse().status, 200)
        XCTAssertEqual(try c.request("GET", "/nothing/서울").status, 404)
        XCTAssertEqual(try c.request("GET", "/health?x=%20y&z").status, 200)
    }

    // MARK: - Availability

    func testStartRaisesTheOpenFileLimitAndFitsTheConnectionLimitToIt() throws {
        _ = Self.server
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        XCTAssertEqual(limit.rlim_cur, limit.rlim_max)
        XCTAssertLessThanOrEqual(Self.server.0.effectiveConnectionLimit, Int(limit.rlim_cur) - OpenFileLimit.reservedForFiles)
        XCTAssertGreaterThan(Self.server.0.effectiveConnectionLimit, 1024)
    }

    func testPastTheConnectionLimitANewConnectionGets503AtOnce() throws {
        let metrics = ServerMetrics()
        let server = try pingServer(metrics: metrics) { $0.connectionLimit = 4 }
        defer { server.stop() }
        let held = try (0..<4).map { _ in try RawHTTPClient(port: server.port) }
        for c in held { XCTAssertEqual(try c.request("GET", "/ping").status, 200) }
        // Today a connection past the limit gets no answer at all.
        let start = Date()
        let extra = try RawHTTPClient(port: server.port)
        try extra.send(Array("GET /ping HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
        let (bytes, closed) = extra.readUntilClose(seconds: 3)
        let text = String(decoding: bytes, as: UTF8.self)
        XCTAssertLessThan(Date().timeIntervalSince(start), 1.0)
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 503 "), text)
        XCTAssertTrue(text.contains("Retry-After: 1\r\n"), text)
        XCTAssertTrue(text.contains("Connection: close\r\n"), text)
        XCTAssertTrue(closed)
        XCTAssertTrue(metrics.prometheusText().contains("taxipot_http_requests_total{route=\"overload\",status=\"503\"} 1\n"), metrics.prometheusText())
        // A held connection goes on working; once one closes, a new one is served.
        XCTAssertEqual(try held[0].request("GET", "/ping").status, 200)
        held[1].close()
        usleep(200_000)
        XCTAssertEqual(try RawHTTPClient(port: server.port).request("GET", "/ping").status, 200)
    }

    func testOneClientCannotTakeEveryConnection() throws {
        let server = try pingServer { $0.connectionsPerClient = 3 }
        defer { server.stop() }
        let held = try (0..<3).map { _ in try RawHTTPClient(port: server.port, source: "127.0.0.2") }
        for c in held { try c.send(Array("GET /pi".utf8)) }  // half a request line each
        usleep(100_000)
        let fourth = try RawHTTPClient(port: server.port, source: "127.0.0.2")
        let (bytes, closed) = fourth.readUntilClose(seconds: 2)
        XCTAssertTrue(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 503 "))
        XCTAssertTrue(closed)
        XCTAssertEqual(try RawHTTPClient(port: server.port).request("GET", "/ping").status, 200)
    }

    func testATricklingHeadIsClosedAtItsDeadline() throws {
        let server = try pingServer {
            $0.headerTimeoutSeconds = 1
            $0.connectionTimeoutSeconds = 30
        }
        defer { server.stop() }
        // One header byte every 200 ms: libmicrohttpd's idle timeout restarts on each, so today
        // the socket is never closed.
        let slow = try RawHTTPClient(port: server.port)
        try slow.send(Array("GET /ping HTTP/1.1\r\nHost: a\r\n".utf8))
        let start = Date()
        var closedAfter: Double?
        for byte in Array("X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".utf8) {
            guard (try? slow.send([byte])) != nil else { break }
            let (bytes, closed) = slow.readUntilClose(seconds: 0.2)
            if closed || !bytes.isEmpty {
                XCTAssertTrue(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 408 "), String(decoding: bytes, as: UTF8.self))
                closedAfter = Date().timeIntervalSince(start)
                break
            }
            // A normal client is served meanwhile.
            if Date().timeIntervalSince(start) < 0.3 {
                XCTAssertEqual(try RawHTTPClient(port: server.port).request("GET", "/ping").status, 200)
            }
        }
        let after = try XCTUnwrap(closedAfter, "the trickling connection was never closed")
        XCTAssertGreaterThanOrEqual(after, 0.9)
        XCTAssertLessThan(after, 3.0)
    }

    // MARK: - Metrics

    func testAnOverload503CountsOnce() throws {
        let metrics = ServerMetrics()
        let saturated = try SaturatedServer(metrics: metrics)
        defer { saturated.server.stop() }
        XCTAssertEqual(try RawHTTPClient(port: saturated.server.port).request("GET", "/slow").status, 503)
        saturated.release()
        XCTAssertEqual(try saturated.first.readResponse().status, 200)
        XCTAssertEqual(try saturated.second.readResponse().status, 200)
        let text = metrics.prometheusText()
        XCTAssertTrue(text.contains("taxipot_http_requests_total{route=\"overload\",status=\"503\"} 1\n"), text)
        XCTAssertFalse(text.contains("status=\"0\""), text)
        XCTAssertTrue(text.contains("taxipot_http_rejected_overload_total 1\n"), text)
        XCTAssertTrue(text.contains("taxipot_http_request_duration_seconds_count{route=\"overload\"} 1\n"), text)
    }
}

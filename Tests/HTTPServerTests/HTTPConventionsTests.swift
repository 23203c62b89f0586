import Foundation
import Geo
@testable import HTTPServer
import JSON
import TaxiPotServer
import TestSupport
import XCTest

/// Browser and HTTP conventions over a real socket: CORS (preflight from a foreign origin),
/// gzip round trip, ETag and 304, X-Request-Id, HEAD, OPTIONS; and the JSON access log of a
/// `taxipot serve` child process, parsed line by line.
final class HTTPConventionsTests: XCTestCase {
    static let token = "conventions-token"
    static let allowedOrigin = "https://map.example.com"

    static let server: Result<HTTPServer, Error> = Result {
        let metrics = ServerMetrics()
        let context = try TestDataset.context(ServiceConfiguration(
            dataDir: try TestDataset.directory(), stateDir: TestPaths.temporaryDirectory("conventions").path, writeToken: token), metrics: metrics)
        var options = HTTPServerOptions()
        options.accessLog = false
        options.cors = CORSPolicy(origin: allowedOrigin)
        let s = HTTPServer(router: makeRouter(context: context), options: options, metrics: metrics)
        try s.start(host: "127.0.0.1", port: 0)
        return s
    }

    func client() throws -> RawHTTPClient { try RawHTTPClient(port: Self.server.get().port) }

    /// A route answer of several KB: central Seoul, GeoJSON geometry.
    let routeTarget = "/v1/route?from=126.9764,37.5646&to=127.0,37.57&geometry=geojson&depart_at=2026-12-01T09:00:00"

    func testPreflightFromAForeignOriginAllowsTheBearerToken() throws {
        let r = try client().request("OPTIONS", "/v1/parties/p-1", headers: [
            "Origin": Self.allowedOrigin, "Access-Control-Request-Method": "PUT",
            "Access-Control-Request-Headers": "authorization, content-type"])
        XCTAssertEqual(r.status, 204)
        XCTAssertEqual(r.headers["access-control-allow-origin"], Self.allowedOrigin)
        let methods = Set((r.headers["access-control-allow-methods"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        XCTAssertEqual(methods, ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"])
        let allowedHeaders = (r.headers["access-control-allow-headers"] ?? "").lowercased()
        XCTAssertTrue(allowedHeaders.contains("authorization") && allowedHeaders.contains("content-type"), allowedHeaders)
        XCTAssertEqual(r.headers["vary"], "Origin")
        XCTAssertNotNil(r.headers["access-control-max-age"])
        XCTAssertTrue(r.body.isEmpty)

        // The real request from that origin can be read by the page: origin echoed, headers exposed.
        let get = try client().request("GET", "/v1/clusters?bbox=126.9,37.5,127.1,37.6&zoom=12", headers: ["Origin": Self.allowedOrigin])
        XCTAssertEqual(get.status, 200)
        XCTAssertEqual(get.headers["access-control-allow-origin"], Self.allowedOrigin)
        XCTAssertTrue(get.headers["access-control-expose-headers"]?.contains("ETag") ?? false)

        // Another origin gets no grant (the browser keeps the answer from its page).
        let other = try client().request("OPTIONS", "/v1/clusters", headers: ["Origin": "https://evil.example", "Access-Control-Request-Method": "GET"])
        XCTAssertEqual(other.status, 204)
        XCTAssertNil(other.headers["access-control-allow-origin"])
        let otherGet = try client().request("GET", "/health", headers: ["Origin": "https://evil.example"])
        XCTAssertNil(otherGet.headers["access-control-allow-origin"])

        // OPTIONS on an unknown path is still a 404.
        XCTAssertEqual(try client().request("OPTIONS", "/v1/nothing-here", headers: ["Origin": Self.allowedOrigin]).status, 404)
    }

    func testGzipRoundTripOnlyWhenAsked() throws {
        let c = try client()
        let plain = try c.request("GET", routeTarget)
        XCTAssertEqual(plain.status, 200, plain.text)
        XCTAssertGreaterThan(plain.body.count, 1024, "the test needs an answer over the gzip threshold")
        XCTAssertNil(plain.headers["content-encoding"], "no gzip unless the client asks")
        XCTAssertEqual(plain.headers["vary"], "Accept-Encoding")

        let packed = try c.request("GET", routeTarget, headers: ["Accept-Encoding": "br;q=1.0, gzip;q=0.8"])
        XCTAssertEqual(packed.status, 200)
        XCTAssertEqual(packed.headers["content-encoding"], "gzip")
        XCTAssertLessThan(packed.body.count, plain.body.count / 2)
        XCTAssertEqual(packed.body.prefix(2), [0x1f, 0x8b], "a gzip member")
        XCTAssertEqual(Gzip.decompress(packed.body), plain.body)
        XCTAssertEqual(packed.headers["etag"], plain.headers["etag"], "one weak tag for both representations")

        // Refused gzip (q=0), and small answers, stay as they are.
        XCTAssertNil(try c.request("GET", routeTarget, headers: ["Accept-Encoding": "gzip;q=0"]).headers["content-encoding"])
        let small = try c.request("GET", "/v1/parties/no-such-party", headers: ["Accept-Encoding": "gzip"])
        XCTAssertLessThan(small.body.count, 1024)
        XCTAssertNil(small.headers["content-encoding"])
        XCTAssertEqual(try JSONParser.parse(small.body)["error"]?["code"]?.stringValue, "party_not_found")
    }

    /// The gzip answer of real endpoints (clusters over some 300 parties at several zooms, a route's
    /// geometry, a place search, the OpenAPI document of several hundred KB) reads back through
    /// zlib, a decoder other than the one that wrote it, to exactly the identity answer; asked
    /// again, the cached gzip form reads back the same.
    func testGzipAnswersReadBackToTheIdentityAnswer() throws {
        let c = try client()
        let center = Coordinate(lon: 126.978, lat: 37.5665)
        let depart = SeoulTime.format(Date().timeIntervalSince1970 + 3600)
        var stored = 0
        for i in 0..<300 {
            let at = center.offset(eastMeters: Double((i * 7919) % 3000) - 1500, northMeters: Double((i * 104_729) % 3000) - 1500)
            let body = #"{"origin":[\#(at.lon),\#(at.lat)],"destination":"127.0,37.57","depart_at":"\#(depart)","seats_total":4,"seats_taken":\#(i % 4)}"#
            let put = try c.request("PUT", "/v1/parties/gzip-\(i)", headers: ["Authorization": "Bearer \(Self.token)"], body: Array(body.utf8))
            // A few spots lie off the test network's roads (422 outside_coverage); the rest are kept.
            stored += [200, 201].contains(put.status) ? 1 : 0
        }
        XCTAssertGreaterThan(stored, 200)
        let targets = ["/v1/clusters?bbox=126.95,37.54,127.01,37.59&zoom=14", "/v1/clusters?bbox=126.95,37.54,127.01,37.59&zoom=16",
                       "/v1/clusters?bbox=126.95,37.54,127.0,37.59&zoom=18", routeTarget,
                       "/v1/places?q=%EC%97%AD&limit=50", "/openapi.json"]
        for target in targets {
            let plain = try c.request("GET", target)
            XCTAssertEqual(plain.status, 200, target)
            XCTAssertGreaterThan(plain.body.count, 1024, "\(target): the test needs an answer over the gzip threshold")
            for round in 0..<2 {
                let packed = try c.request("GET", target, headers: ["Accept-Encoding": "gzip"])
                XCTAssertEqual(packed.headers["content-encoding"], "gzip", target)
                XCTAssertEqual(packed.headers["vary"], "Accept-Encoding", target)
                XCTAssertLessThan(packed.body.count, plain.body.count, target)
                XCTAssertEqual(packed.body.prefix(3), [0x1f, 0x8b, 8], "\(target): a gzip member, deflate method")
                XCTAssertEqual(Gzip.decompress(packed.body), plain.body, "\(target), round \(round)")
            }
        }
    }

    func testETagAndNotModified() throws {
        let c = try client()
        // A party: PUT, then revalidate its GET.
        let depart = SeoulTime.format(Date().timeIntervalSince1970 + 3600)
        let body = #"{"origin":[126.978,37.5665],"destination":"127.0,37.57","depart_at":"\#(depart)","seats_total":4,"seats_taken":1}"#
        let put = try c.request("PUT", "/v1/parties/etag-party", headers: ["Authorization": "Bearer \(Self.token)", "Content-Type": "application/json"],
                                body: Array(body.utf8))
        XCTAssertTrue([200, 201].contains(put.status), put.text)
        for target in ["/v1/parties/etag-party", "/v1/clusters?bbox=126.9,37.5,127.1,37.6&zoom=12", "/v1/places?q=%EC%8B%9C%EC%B2%AD%EC%97%AD"] {
            let first = try c.request("GET", target)
            XCTAssertEqual(first.status, 200, target)
            let tag = try XCTUnwrap(first.headers["etag"], target)
            if target.hasPrefix("/v1/parties/") {
                // A party's own tag is its version (If-Match uses the same), not the body hash.
                let version = try XCTUnwrap(JSONParser.parse(first.body)["version"]?.intValue)
                XCTAssertEqual(tag, "\"\(version)\"")
            } else {
                XCTAssertTrue(tag.hasPrefix("W/\""), tag)
            }
            let again = try c.request("GET", target, headers: ["If-None-Match": tag])
            XCTAssertEqual(again.status, 304, target)
            XCTAssertTrue(again.body.isEmpty)
            XCTAssertEqual(again.headers["etag"], tag)
            let listed = try c.request("GET", target, headers: ["If-None-Match": "\"other\", \(tag)"])
            XCTAssertEqual(listed.status, 304, "a tag in a list matches")
            let stale = try c.request("GET", target, headers: ["If-None-Match": "W/\"0000000000000000\""])
            XCTAssertEqual(stale.status, 200, target)
            XCTAssertEqual(stale.body, first.body)
        }
        // A change makes the old tag stale.
        let before = try XCTUnwrap(try c.request("GET", "/v1/parties/etag-party").headers["etag"])
        let changed = body.replacingOccurrences(of: "\"seats_taken\":1", with: "\"seats_taken\":2")
        XCTAssertEqual(try c.request("PUT", "/v1/parties/etag-party", headers: ["Authorization": "Bearer \(Self.token)"], body: Array(changed.utf8)).status, 200)
        let after = try c.request("GET", "/v1/parties/etag-party", headers: ["If-None-Match": before])
        XCTAssertEqual(after.status, 200)
        XCTAssertNotEqual(after.headers["etag"], before)
        // Writes and errors carry no tag.
        XCTAssertNil(try c.request("GET", "/v1/parties/no-such-party").headers["etag"])
    }

    func testRequestIDEchoedOrGenerated() throws {
        let c = try client()
        let echoed = try c.request("GET", "/health", headers: ["X-Request-Id": "trace-42.abc:7"])
        XCTAssertEqual(echoed.headers["x-request-id"], "trace-42.abc:7")
        let made1 = try c.request("GET", "/health").headers["x-request-id"] ?? ""
        let made2 = try c.request("GET", "/health").headers["x-request-id"] ?? ""
        XCTAssertEqual(made1.count, 16)
        XCTAssertNotEqual(made1, made2)
        // An id that could break a header or a log line is replaced, never echoed.
        let bad = try c.request("GET", "/health", headers: ["X-Request-Id": "a\"b{c}"]).headers["x-request-id"] ?? ""
        XCTAssertEqual(bad.count, 16)
        XCTAssertFalse(bad.contains("\""))
        // Errors carry it too, including ones answered before routing.
        XCTAssertEqual(try c.request("GET", "/nowhere", headers: ["X-Request-Id": "err-1"]).headers["x-request-id"], "err-1")
        let long = try client().request("GET", "/health?q=" + String(repeating: "x", count: 10 << 10), headers: ["X-Request-Id": "long-1"])
        XCTAssertEqual(long.status, 414)
        XCTAssertEqual(long.headers["x-request-id"], "long-1")
    }

    func testHeadWhereGetExists() throws {
        let c = try client()
        let get = try c.request("GET", routeTarget)
        let head = try c.request("HEAD", routeTarget)
        XCTAssertEqual(head.status, 200)
        XCTAssertTrue(head.body.isEmpty)
        XCTAssertEqual(head.headers["content-length"], String(get.body.count))
        XCTAssertEqual(head.headers["etag"], get.headers["etag"])
        XCTAssertEqual(try c.request("GET", "/health").status, 200, "the connection stays usable after HEAD")
        let options = try c.request("OPTIONS", "/health")
        XCTAssertEqual(options.status, 204)
        XCTAssertEqual(options.headers["allow"], "GET, HEAD, OPTIONS")
    }

    func testGzipCacheServesOnlyTheSameBody() throws {
        let cache = GzipCache(capacityBytes: 1 << 20)
        let a = Array(String(repeating: "{\"lon\":126.97,\"lat\":37.56},", count: 200).utf8)
        let b = Array(String(repeating: "{\"lon\":127.01,\"lat\":37.51},", count: 200).utf8)
        let packedA = try XCTUnwrap(cache.packed(a, hash: ETag.hash(a)))
        XCTAssertEqual(Gzip.decompress(packedA), a)
        XCTAssertEqual(cache.packed(a, hash: ETag.hash(a)), packedA, "a hit")
        // A forced hash collision: the other body is compressed, never served the cached form.
        let packedB = try XCTUnwrap(cache.packed(b, hash: ETag.hash(a)))
        XCTAssertEqual(Gzip.decompress(packedB), b)
        // Collisions with a body that differs only in its last byte, or that is a's first half.
        for other in [Array(a.dropLast()) + [UInt8(ascii: "!")], Array(a.prefix(a.count / 2))] {
            XCTAssertEqual(Gzip.decompress(try XCTUnwrap(cache.packed(other, hash: ETag.hash(a)))), other)
        }
        // Bounded: many bodies keep the cache within its capacity and answers stay right.
        for i in 0..<300 {
            let body = Array("{\"i\":\(i),\"pad\":\"\(String(repeating: "x", count: 4000))\"}".utf8)
            XCTAssertEqual(Gzip.decompress(try XCTUnwrap(cache.packed(body, hash: ETag.hash(body)))), body)
        }
        XCTAssertNil(Gzip.decompress(Array(packedA.dropLast(4))), "a truncated stream is refused")
    }

    func testCORSPolicyParsing() {
        XCTAssertNotNil(CORSPolicy(origin: "*"))
        XCTAssertNotNil(CORSPolicy(origin: "http://localhost:5173"))
        XCTAssertNil(CORSPolicy(origin: "map.example.com"))
        XCTAssertNil(CORSPolicy(origin: "https://map.example.com/path"))
        XCTAssertNil(CORSPolicy(origin: "ftp://x"))
    }

    /// `taxipot serve` with its settings from the environment (TAXIPOT_LOG_FORMAT, TAXIPOT_PORT,
    /// TAXIPOT_CORS_ORIGIN): every request is one JSON line with the documented fields.
    func testJSONAccessLogFromTheEnvironment() throws {
        let port = try ServerProcess.freePort()
        let logURL = TestPaths.temporaryDirectory("accesslog").appendingPathComponent("stderr.log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: TaxipotCLI.binary)
        p.arguments = ["serve", "--state-dir", TestPaths.temporaryDirectory("accesslog-state").path]
        var env = ProcessInfo.processInfo.environment
        env["TAXIPOT_PORT"] = String(port)
        env["TAXIPOT_DATA"] = try TestDataset.directory()
        env["TAXIPOT_LOG_FORMAT"] = "json"
        env["TAXIPOT_CORS_ORIGIN"] = "*"
        p.environment = env
        p.standardError = log
        try p.run()
        defer { p.terminate(); p.waitUntilExit() }
        var up = false
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && p.isRunning && !up {
            if let c = try? RawHTTPClient(port: port, timeoutSeconds: 2), (try? c.request("GET", "/health"))?.status == 200 { up = true } else { usleep(50_000) }
        }
        XCTAssertTrue(up, "taxipot serve did not answer on TAXIPOT_PORT \(port)")
        let c = try RawHTTPClient(port: port)
        let r = try c.request("GET", "/v1/parties/some-id", headers: ["X-Request-Id": "log-check-1", "Origin": "https://a.example"])
        XCTAssertEqual(r.status, 404)
        XCTAssertEqual(r.headers["access-control-allow-origin"], "*", "TAXIPOT_CORS_ORIGIN applies")
        // A streamed answer (chunked): its line counts every chunk's bytes, not the head's 0.
        let csv = "origin_lon,origin_lat,dest_lon,dest_lat\n126.9780,37.5665,126.9920,37.5700\n127.0276,37.4979,126.9240,37.5560\n"
        let q = try c.request("POST", "/v1/quotes", headers: ["X-Request-Id": "log-check-2", "Content-Type": "text/csv"], body: Array(csv.utf8))
        XCTAssertEqual(q.status, 200)
        XCTAssertEqual(q.headers["transfer-encoding"]?.lowercased(), "chunked")
        XCTAssertGreaterThan(q.body.count, 100)
        usleep(200_000)  // the line is written when libmicrohttpd lets the finished body go
        p.terminate()
        p.waitUntilExit()
        let lines = try String(contentsOf: logURL, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("{") }
        XCTAssertGreaterThanOrEqual(lines.count, 2)
        let entries = try lines.map { try JSONParser.parse(Array($0.utf8)) }
        let entry = try XCTUnwrap(entries.first { $0["request_id"]?.stringValue == "log-check-1" })
        XCTAssertEqual(entry["method"]?.stringValue, "GET")
        XCTAssertEqual(entry["path"]?.stringValue, "/v1/parties/{id}", "the route pattern, not the id")
        XCTAssertEqual(entry["status"]?.intValue, 404)
        XCTAssertEqual(entry["bytes"]?.intValue, r.body.count)
        XCTAssertNotNil(entry["duration_ms"]?.doubleValue)
        let streamed = try XCTUnwrap(entries.first { $0["request_id"]?.stringValue == "log-check-2" }, "the streamed answer has its line")
        XCTAssertEqual(streamed["path"]?.stringValue, "/v1/quotes")
        XCTAssertEqual(streamed["bytes"]?.intValue, q.body.count, "the body bytes of every chunk")
        let time = try XCTUnwrap(entry["time"]?.stringValue)
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let stamp = try XCTUnwrap(f.date(from: time), "RFC 3339: \(time)")
        XCTAssertLessThan(abs(stamp.timeIntervalSinceNow), 120)
        for e in entries { XCTAssertNotNil(e["request_id"]?.stringValue) }
    }

}

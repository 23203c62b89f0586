import Foundation
import HTTPServer
import TestSupport
import XCTest

/// `HTTPResponse.streaming` over a real socket: the client reads the first part while the
/// producer is still running (chunked), the bytes waiting unsent stay within the capacity, and a
/// client that leaves stops the producer.
final class StreamingResponseTests: XCTestCase {
    func server(_ router: Router) throws -> HTTPServer {
        var options = HTTPServerOptions()
        options.accessLog = false
        let server = HTTPServer(router: router, options: options)
        try server.start(host: "127.0.0.1", port: 0)
        return server
    }

    func testTheFirstPartReachesTheClientBeforeTheProducerEnds() throws {
        let readFirst = DispatchSemaphore(value: 0)
        let router = Router()
        router.add("POST", "/rows", OperationDoc("rows")) { _ in
            .streaming(headers: [("Content-Type", "application/x-ndjson")]) { stream in
                try stream.write(Array("first\n".utf8))
                // The rest is computed only once the client has read the first row.
                guard readFirst.wait(timeout: .now() + 20) == .success else { return }
                try stream.write(Array("second\n".utf8))
            }
        }
        let server = try server(router)
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.port)
        try client.send(Array("POST /rows HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
        let early = String(decoding: client.readUntilClose(seconds: 2).bytes, as: UTF8.self)
        XCTAssertTrue(early.hasPrefix("HTTP/1.1 200"), early)
        XCTAssertTrue(early.lowercased().contains("transfer-encoding: chunked"), early)
        XCTAssertTrue(early.contains("first\n"), "the first row is sent while the producer waits: \(early)")
        XCTAssertFalse(early.contains("second"), early)
        readFirst.signal()
        let (rest, closed) = client.readUntilClose(seconds: 20)
        let text = String(decoding: rest, as: UTF8.self)
        XCTAssertTrue(closed)
        XCTAssertTrue(text.contains("second\n") && text.hasSuffix("0\r\n\r\n"), "the rest, then the last chunk: \(text)")
    }

    func testAStreamKeepsWithinItsCapacityAndStopsWhenTheClientLeaves() throws {
        let ended = DispatchSemaphore(value: 0)
        let outcome = ProducerTally()
        let block = [UInt8](repeating: 0x61, count: 16 << 10)
        let router = Router()
        router.add("GET", "/endless", OperationDoc("endless")) { _ in
            .streaming(capacity: 64 << 10) { stream in
                defer {
                    outcome.set(peak: stream.peakBufferedBytes)
                    ended.signal()
                }
                for _ in 0..<(1 << 16) {  // 1 GiB, unless the client leaves
                    do { try stream.write(block) } catch {
                        outcome.set(gone: true)
                        return
                    }
                    outcome.add(block.count)
                }
            }
        }
        let server = try server(router)
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.port)
        try client.send(Array("GET /endless HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        let first = client.readUntilClose(seconds: 1).bytes
        XCTAssertGreaterThan(first.count, 16 << 10, "the body flows")
        client.close()
        XCTAssertEqual(ended.wait(timeout: .now() + 30), .success, "the producer ends once the client has left")
        let (written, gone, peak) = outcome.get()
        XCTAssertTrue(gone, "its write says the client is gone")
        XCTAssertLessThan(written, 1 << 30)
        XCTAssertLessThanOrEqual(peak, (64 << 10) + block.count, "bytes waiting unsent stay within the capacity (plus one write)")
    }

    /// Without a socket (a router called directly), the body is the producer's whole output.
    func testCollectedBodyIsTheWholeOutput() {
        let r = HTTPResponse.streaming(capacity: 4) { stream in
            for i in 0..<100 { try stream.write(Array("\(i)\n".utf8)) }
        }
        XCTAssertEqual(String(decoding: r.collectedBody, as: UTF8.self), (0..<100).map { "\($0)\n" }.joined())
    }
}

/// The producer's tally, read by the test thread.
private final class ProducerTally: @unchecked Sendable {
    private let lock = NSLock()
    private var written = 0, gone = false, peak = 0
    func add(_ n: Int) { lock.lock(); written += n; lock.unlock() }
    func set(gone: Bool) { lock.lock(); self.gone = gone; lock.unlock() }
    func set(peak: Int) { lock.lock(); self.peak = peak; lock.unlock() }
    func get() -> (Int, Bool, Int) { lock.lock(); defer { lock.unlock() }; return (written, gone, peak) }
}

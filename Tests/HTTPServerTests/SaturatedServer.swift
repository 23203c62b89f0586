import Foundation
import HTTPServer
import TestSupport

/// An HTTP server with one worker and a queue of one, both held by a `GET /slow` request that
/// blocks until `release()`: the next request finds it overloaded (503).
final class SaturatedServer {
    let server: HTTPServer
    /// The connections whose `/slow` requests hold the worker and the queue's place.
    let first: RawHTTPClient, second: RawHTTPClient
    private let gate: DispatchSemaphore

    init(metrics: ServerMetrics = ServerMetrics()) throws {
        let router = Router()
        let gate = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        router.add("GET", "/slow", OperationDoc("blocks until released")) { _ in
            entered.signal()
            gate.wait()
            return .json(["ok": true])
        }
        var options = HTTPServerOptions()
        options.workerThreads = 1
        options.queueCapacity = 1
        options.accessLog = false
        server = HTTPServer(router: router, options: options, metrics: metrics)
        try server.start(host: "127.0.0.1", port: 0)
        self.gate = gate
        first = try RawHTTPClient(port: server.port)
        second = try RawHTTPClient(port: server.port)
        try first.send(Array("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        // The first holds the one worker before the second is sent (a fixed pause raced on a
        // loaded machine); the second then waits in the queue of one.
        _ = entered.wait(timeout: .now() + 30)
        try second.send(Array("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        usleep(300_000)
    }

    /// Lets `count` blocked `/slow` requests (held or still to come) finish.
    func release(_ count: Int = 2) {
        for _ in 0..<count { gate.signal() }
    }
}

import Foundation
import TaxiPotServer
import TestSupport
import XCTest

/// Heavy tables over real HTTP (issue 32): admitted by their cost in cells against the
/// server's budget (503 with Retry-After and a JSON error past it), run apart from the other
/// requests, so /health is answered while full tables are being computed.
final class TableAdmissionTests: XCTestCase {
    /// A 1,000 × 1,000 table body of points on central Seoul's roads (fixed seed).
    static func fullTableBody() -> [UInt8] {
        var rng = SplitMix(seed: 32)
        let points = (0..<1000).map { _ in
            "[\(126.955 + 0.045 * rng.unit()),\(37.535 + 0.05 * rng.unit())]"
        }
        return Array(#"{"sources":[\#(points.joined(separator: ","))],"depart_at":"2025-06-14T10:00:00+09:00","max_snap_m":1000}"#.utf8)
    }

    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func unit() -> Double {
            state &+= 0x9e37_79b9_7f4a_7c15
            var z = state
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
        }
    }

    func testTablesPastTheCellBudgetGet503AndHealthIsAnsweredWhileTheyRun() throws {
        let metrics = ServerMetrics()
        let context = try TestDataset.context(metrics: metrics)
        var options = HTTPServerOptions()
        options.accessLog = false
        options.bulkBudget = 2_000_000  // two full tables: one running, one waiting
        let server = HTTPServer(router: makeRouter(context: context), options: options, metrics: metrics)
        try server.start(host: "127.0.0.1", port: 0)
        defer { server.stop(graceSeconds: 60) }
        let body = Self.fullTableBody()

        // Three full tables at once: two fit the budget, the third is answered 503 at once.
        final class Outcomes: @unchecked Sendable {
            let lock = NSLock()
            var tables: [(status: Int, retryAfter: String?, code: String?, at: Date)] = []
            func add(_ r: (Int, String?, String?, Date)) { lock.lock(); tables.append(r); lock.unlock() }
            var snapshot: [(status: Int, retryAfter: String?, code: String?, at: Date)] { lock.lock(); defer { lock.unlock() }; return tables }
        }
        let outcomes = Outcomes()
        let group = DispatchGroup()
        // One thread per client (not Dispatch's pool, which on 2 cores may run the third request
        // only after one of the first two has been answered, so that it never meets the budget).
        for _ in 0..<3 {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let r = try RawHTTPClient(port: server.port, timeoutSeconds: 120).request("POST", "/v1/table", body: body)
                    let code = (try? JSONParser.parse(r.body))?["error"]?["code"]?.stringValue
                    outcomes.add((r.status, r.headers["retry-after"], code, Date()))
                } catch {
                    outcomes.add((0, nil, "\(error)", Date()))
                }
            }.start()
        }
        // Once the refusal is out, the other two are in flight (one computing, one waiting).
        let deadline = Date().addingTimeInterval(60)
        while !outcomes.snapshot.contains(where: { $0.status == 503 }) && outcomes.snapshot.count < 3 && Date() < deadline { usleep(10_000) }
        let health = try RawHTTPClient(port: server.port, timeoutSeconds: 120).request("GET", "/health")
        let healthAt = Date()
        let inFlightAfterHealth = metrics.currentInFlight
        XCTAssertEqual(health.status, 200)
        XCTAssertEqual(group.wait(timeout: .now() + 300), .success)

        let tables = outcomes.snapshot
        XCTAssertEqual(tables.map(\.status).sorted(), [200, 200, 503], "\(tables)")
        for refused in tables where refused.status == 503 {
            XCTAssertEqual(refused.code, "overloaded")
            XCTAssertNotNil(refused.retryAfter.flatMap(Int.init), "Retry-After in whole seconds")
        }
        // /health was answered while both admitted tables were still being worked on.
        XCTAssertGreaterThanOrEqual(inFlightAfterHealth, 2)
        for done in tables where done.status == 200 {
            XCTAssertLessThan(healthAt, done.at, "/health waited for a table")
        }
        // After the burst: nothing in flight, and a table fits again.
        XCTAssertEqual(try RawHTTPClient(port: server.port, timeoutSeconds: 120).request("POST", "/v1/table", body: body).status, 200)
    }
}

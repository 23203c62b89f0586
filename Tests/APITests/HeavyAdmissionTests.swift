import Foundation
import MapMatching
import TaxiPotServer
import TestSupport
import XCTest

/// Issue 43 item 9: map matching (`/match/v1`, GET and POST), settlement and bulk quotes are
/// admitted like tables: counted against the server's budget of bulk work in flight (503 with
/// Retry-After past it) and run on the bulk pool, so `/health` never waits behind them.
///
/// Timing-free: a test route holds the bulk pool's only thread (and as much of the budget as it
/// asks for) until released, so what is admitted, queued or refused does not depend on speed.
final class HeavyAdmissionTests: XCTestCase {
    /// Outcomes of requests sent from their own threads.
    final class Outcomes: @unchecked Sendable {
        let lock = NSLock()
        var answers: [String: (status: Int, retryAfter: String?, code: String?, body: [UInt8])] = [:]
        func set(_ name: String, _ r: (Int, String?, String?, [UInt8])?) { lock.lock(); answers[name] = r; lock.unlock() }
        var snapshot: [String: (status: Int, retryAfter: String?, code: String?, body: [UInt8])] { lock.lock(); defer { lock.unlock() }; return answers }
    }

    struct Heavy {
        let name: String, method: String, target: String, headers: [String: String], body: [UInt8]
    }

    /// One request of each heavy kind, on real roads: a GPS trace driven along a route, matched
    /// (GET and POST) and settled for a party, and a CSV of trips quoted.
    func heavyRequests(_ context: ServiceContext, _ router: Router) throws -> [Heavy] {
        let depart = (Date().timeIntervalSince1970 + 3600).rounded()
        let from = Coordinate(lon: 126.978, lat: 37.5665), to = Coordinate(lon: 126.9882, lat: 37.5701)
        let party = #"{"origin":[126.978,37.5665],"destination":[126.9882,37.5701],"depart_at":"\#(SeoulTime.format(depart))","seats_total":4,"seats_taken":1}"#
        let auth = ["authorization": "Bearer heavy-token"]
        let put = router.handle(HTTPRequest(method: "PUT", path: "/v1/parties/heavy1", headers: auth, body: Array(party.utf8))).response
        XCTAssertEqual(put.status, 201, String(decoding: put.body, as: UTF8.self))
        let route = try context.routeEngine.route(RouteRequest(from: from, to: to, departAt: depart))
        let fixes = SyntheticTrace.make(route, intervalSeconds: 5, noiseMeters: 5, start: depart, seed: 43)
        let coordinates = fixes.map { "\($0.coordinate.lon),\($0.coordinate.lat)" }.joined(separator: ";")
        let times = fixes.map { String(Int($0.time!)) }.joined(separator: ";")
        let trace = fixes.map { "[\($0.coordinate.lon),\($0.coordinate.lat),\($0.time!)]" }.joined(separator: ",")
        let csv = "origin_lon,origin_lat,dest_lon,dest_lat\n126.9780,37.5665,126.9920,37.5700\n127.0276,37.4979,126.9240,37.5560\n"
        return [
            Heavy(name: "match GET", method: "GET", target: "/match/v1/driving/\(coordinates)?timestamps=\(times)", headers: [:], body: []),
            Heavy(name: "match POST", method: "POST", target: "/match/v1/driving/\(coordinates)",
                  headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array("timestamps=\(times)".utf8)),
            Heavy(name: "settle", method: "POST", target: "/v1/parties/heavy1/settle", headers: auth.merging(["Content-Type": "application/json"]) { a, _ in a },
                  body: Array(#"{"trace":[\#(trace)],"idempotency_key":"heavy-k"}"#.utf8)),
            Heavy(name: "quotes", method: "POST", target: "/v1/quotes", headers: ["Content-Type": "text/csv"], body: Array(csv.utf8)),
        ]
    }

    func testHeavyRequestsQueueOnTheBulkPoolAndPastTheBudgetGet503WhileHealthIsServed() throws {
        let metrics = ServerMetrics()
        let context = try TestDataset.context(ServiceConfiguration(dataDir: TestDataset.directory(),
                                                                  stateDir: TestPaths.temporaryDirectory("heavy-state").path,
                                                                  writeToken: "heavy-token"), metrics: metrics)
        let router = makeRouter(context: context)
        let gate = DispatchSemaphore(value: 0)
        // Signalled when a hold runs on the bulk thread: its cost is admitted by then. (Waiting
        // for a count of requests in flight instead could see the last step's answered requests,
        // still counted while their connections finish, and go on before the hold was admitted.)
        let holding = DispatchSemaphore(value: 0)
        router.addBulk("GET", "/test/hold", OperationDoc("holds the bulk pool's thread until released")) { req in
            let cost = Int(req.query.first { $0.name == "cost" }?.value ?? "") ?? 1
            return BulkWork(cost: cost, unit: "table cells") {
                holding.signal()
                gate.wait()
                return .json(["held": true])
            }
        }
        let budget = 1_000_000
        var options = HTTPServerOptions()
        options.accessLog = false
        options.bulkThreads = 1
        options.bulkBudget = budget
        let server = HTTPServer(router: router, options: options, metrics: metrics)
        try server.start(host: "127.0.0.1", port: 0)
        defer { server.stop(graceSeconds: 60) }
        let heavy = try heavyRequests(context, router)

        func send(_ name: String, _ method: String, _ target: String, _ headers: [String: String], _ body: [UInt8],
                  into outcomes: Outcomes, _ group: DispatchGroup) {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let r = try RawHTTPClient(port: server.port, timeoutSeconds: 120).request(method, target, headers: headers, body: body)
                    let code = (try? JSONParser.parse(r.body))?["error"]?["code"]?.stringValue
                    outcomes.set(name, (r.status, r.headers["retry-after"], code, r.body))
                } catch {
                    outcomes.set(name, (0, nil, "\(error)", []))
                }
            }.start()
        }
        func waitInFlight(_ n: Int) {
            let deadline = Date().addingTimeInterval(60)
            while metrics.currentInFlight < n && Date() < deadline { usleep(10_000) }
        }

        // 1. The bulk thread is held: each heavy request is admitted and waits for it, not for a worker.
        let held = Outcomes(), heldGroup = DispatchGroup()
        send("hold", "GET", "/test/hold?cost=1", [:], [], into: held, heldGroup)
        XCTAssertEqual(holding.wait(timeout: .now() + 60), .success, "the hold runs on the bulk thread")
        let queued = Outcomes(), queuedGroup = DispatchGroup()
        for h in heavy { send(h.name, h.method, h.target, h.headers, h.body, into: queued, queuedGroup) }
        waitInFlight(1 + heavy.count)
        let health = try RawHTTPClient(port: server.port, timeoutSeconds: 60).request("GET", "/health")
        XCTAssertEqual(health.status, 200, "/health is served by the workers while the heavy requests wait for the bulk pool")
        XCTAssertGreaterThanOrEqual(metrics.currentInFlight, 1 + heavy.count, "every heavy request is still in flight")
        XCTAssertTrue(queued.snapshot.isEmpty, "no heavy request ran beside the held bulk thread: \(queued.snapshot.mapValues(\.status))")
        gate.signal()
        XCTAssertEqual(heldGroup.wait(timeout: .now() + 120), .success)
        XCTAssertEqual(queuedGroup.wait(timeout: .now() + 300), .success)
        for h in heavy {
            let r = queued.snapshot[h.name]
            XCTAssertEqual(r?.status, 200, "\(h.name): \(String(decoding: r?.body ?? [], as: UTF8.self).prefix(300))")
        }

        // 2. The whole budget is held: each heavy request is answered 503 overloaded with
        // Retry-After at once, and /health still 200.
        let full = Outcomes(), fullGroup = DispatchGroup()
        // The whole budget is admitted only when nothing else is in flight: step 1's requests
        // release their cost just after their answers are sent, so a hold sent at once may
        // itself be refused (503); it is sent again until it runs.
        var holds = 0, running = false
        let deadline = Date().addingTimeInterval(120)
        while !running && Date() < deadline {
            let answered = full.snapshot["hold"]
            if holds == 0 || answered != nil {
                if let answered { XCTAssertEqual(answered.status, 503, "a hold answered before it was released was refused") }
                fullGroup.wait()
                full.set("hold", nil)
                send("hold", "GET", "/test/hold?cost=\(budget)", [:], [], into: full, fullGroup)
                holds += 1
            }
            running = holding.wait(timeout: .now() + .milliseconds(10)) == .success
        }
        XCTAssertTrue(running, "the hold of the whole budget runs on the bulk thread (\(holds) sent)")
        for h in heavy {
            let r = try RawHTTPClient(port: server.port, timeoutSeconds: 60).request(h.method, h.target, headers: h.headers, body: h.body)
            XCTAssertEqual(r.status, 503, "\(h.name) past the budget: \(String(decoding: r.body, as: UTF8.self).prefix(300))")
            XCTAssertEqual((try? JSONParser.parse(r.body))?["error"]?["code"]?.stringValue, "overloaded", h.name)
            XCTAssertNotNil(r.headers["retry-after"].flatMap(Int.init), "\(h.name): Retry-After in whole seconds")
        }
        XCTAssertEqual(try RawHTTPClient(port: server.port, timeoutSeconds: 60).request("GET", "/health").status, 200)
        gate.signal()
        XCTAssertEqual(fullGroup.wait(timeout: .now() + 120), .success)
        // The budget is free again: admitted (the settlement replayed by its key).
        for h in heavy {
            XCTAssertEqual(try RawHTTPClient(port: server.port, timeoutSeconds: 120).request(h.method, h.target, headers: h.headers, body: h.body).status,
                           200, h.name)
        }
    }

    /// Every heavy route is a bulk route (counted and run apart), whatever the test above sends.
    func testHeavyRoutesAreBulkRoutes() throws {
        let router = makeRouter(context: try TestDataset.context())
        let heavy: Set<String> = ["GET /match/v1/{profile}/{coordinates}", "POST /match/v1/{profile}/{coordinates}",
                                  "POST /v1/parties/{id}/settle", "POST /v1/quotes", "GET /v1/table", "POST /v1/table"]
        let bulk = Set(router.routes.filter { $0.cost == .bulk }.map { "\($0.method) \($0.pattern)" })
        XCTAssertTrue(heavy.isSubset(of: bulk), "not bulk: \(heavy.subtracting(bulk).sorted())")
    }
}

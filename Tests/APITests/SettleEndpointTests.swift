import Foundation
import MapMatching
import TaxiPotServer
import TestSupport
import XCTest

/// `POST /v1/parties/{id}/settle` through the router on the Seoul dataset: the answer, the
/// idempotency key, the party closed to joins (also after a restart), and a trace off the roads.
final class SettleEndpointTests: XCTestCase {
    let state = TestPaths.temporaryDirectory("settle-state").path

    func context() throws -> ServiceContext {
        try TestDataset.context(ServiceConfiguration(dataDir: TestDataset.directory(), stateDir: state, writeToken: "settle-token"),
                           metrics: ServerMetrics())
    }

    func call(_ router: Router, _ method: String, _ path: String, _ body: String) -> (status: Int, json: JSONValue?, body: [UInt8]) {
        let r = router.handle(HTTPRequest(method: method, path: path, headers: ["authorization": "Bearer settle-token"], body: Array(body.utf8))).response
        return (r.status, try? JSONParser.parse(r.body), r.body)
    }

    func testSettleIsIdempotentAndClosesTheParty() throws {
        let ctx = try context()
        let router = makeRouter(context: ctx)
        let depart = (Date().timeIntervalSince1970 + 3600).rounded()
        let party = #"{"origin":[126.978,37.5665],"destination":[126.9882,37.5701],"depart_at":"\#(SeoulTime.format(depart))","seats_total":4,"riders":[{"rider_id":"b","seats":1},{"rider_id":"a","seats":2,"drop_off":[126.9769,37.5759]}]}"#
        XCTAssertEqual(call(router, "PUT", "/v1/parties/s1", party).status, 201)
        let route = try ctx.routeEngine.route(RouteRequest(from: Coordinate(lon: 126.978, lat: 37.5665), to: Coordinate(lon: 126.9882, lat: 37.5701),
                                                           via: [Coordinate(lon: 126.9769, lat: 37.5759)], departAt: depart))
        let fixes = SyntheticTrace.make(route, intervalSeconds: 5, noiseMeters: 5, start: depart, seed: 9)
        let trace = fixes.map { "[\($0.coordinate.lon),\($0.coordinate.lat),\($0.time!)]" }.joined(separator: ",")
        let body = #"{"trace":[\#(trace)],"meter_total_krw":9900,"idempotency_key":"k1"}"#
        XCTAssertEqual(call(router, "GET", "/v1/parties/s1", "").json?["settled"], .bool(false))
        let request = OfferRequest(origin: Coordinate(lon: 126.978, lat: 37.5665), destination: Coordinate(lon: 126.9882, lat: 37.5701), departAt: depart)
        XCTAssertTrue(try ctx.pooling.offers(request).contains { $0.party.id == "s1" }, "an open party is matched")
        let first = call(router, "POST", "/v1/parties/s1/settle", body)
        XCTAssertEqual(first.status, 200, String(decoding: first.body, as: UTF8.self))
        // The answer says what it read.
        let read = first.json?["read"]
        XCTAssertEqual(read?["fix_count"]?.intValue, fixes.count)
        XCTAssertEqual(read?["first_time"]?.doubleValue, fixes.first?.time)
        XCTAssertEqual(read?["last_time"]?.doubleValue, fixes.last?.time)
        XCTAssertEqual(read?["members"]?.arrayValue?.compactMap(\.stringValue), ["trace", "meter_total_krw", "idempotency_key"])
        XCTAssertEqual(read?["idempotency_key_from"]?.stringValue, "body")
        let riders = try XCTUnwrap(first.json?["riders"]?.arrayValue)
        XCTAssertEqual(riders.compactMap { $0["krw"]?.intValue }.reduce(0, +), 9900)
        XCTAssertEqual(riders.compactMap { $0["metered_krw"]?.intValue }.reduce(0, +), first.json?["fare"]?["total_krw"]?.intValue)
        XCTAssertEqual(first.json?["difference_krw"]?.intValue, 9900 - (first.json?["fare"]?["total_krw"]?.intValue ?? 0))
        // Lengths and times under the keys every other answer uses (distance_m, duration_s), the route's too.
        XCTAssertEqual(first.json?["distance_m"]?.doubleValue ?? 0, route.distanceMeters, accuracy: route.distanceMeters * 0.1)
        XCTAssertEqual(first.json?["duration_s"]?.doubleValue ?? 0, (fixes.last?.time ?? 0) - depart, accuracy: 30)
        let matching = first.json?["route"]?["matchings"]?[0]
        XCTAssertEqual(matching?["distance_m"]?.doubleValue ?? 0, route.distanceMeters, accuracy: route.distanceMeters * 0.1)
        XCTAssertGreaterThan(matching?["legs"]?[0]?["duration_s"]?.doubleValue ?? 0, 0)
        XCTAssertNotNil(first.json?["route"]?["tracepoints"]?[0]?["distance_m"]?.doubleValue)
        // Same key: the same answer, byte for byte; another key: 409.
        XCTAssertEqual(call(router, "POST", "/v1/parties/s1/settle", body).body, first.body)
        let other = call(router, "POST", "/v1/parties/s1/settle", body.replacingOccurrences(of: "\"k1\"", with: "\"k2\""))
        XCTAssertEqual(other.status, 409)
        XCTAssertEqual(other.json?["error"]?["code"]?.stringValue, "already_settled")
        // Shown settled, left out of matching, refusing leaves and replacement too.
        let shown = call(router, "GET", "/v1/parties/s1", "")
        XCTAssertEqual(shown.json?["settled"], .bool(true))
        XCTAssertFalse(try ctx.pooling.offers(request).contains { $0.party.id == "s1" }, "a settled party is not matched")
        XCTAssertEqual(ctx.pooling.dropped.byReason[.settled], 1)
        XCTAssertEqual(call(router, "DELETE", "/v1/parties/s1/riders/b", "").json?["error"]?["code"]?.stringValue, "party_settled")
        XCTAssertEqual(call(router, "PUT", "/v1/parties/s1", party).json?["error"]?["code"]?.stringValue, "party_settled")
        // Closed to joins, also for a server started again on the same state.
        let join = #"{"rider_id":"c","seats":1}"#
        XCTAssertEqual(call(router, "POST", "/v1/parties/s1/riders", join).json?["error"]?["code"]?.stringValue, "party_settled")
        let again = makeRouter(context: try context())
        XCTAssertEqual(call(again, "POST", "/v1/parties/s1/riders", join).status, 409)
        XCTAssertEqual(call(again, "GET", "/v1/parties/s1", "").json?["settled"], .bool(true))
        XCTAssertEqual(call(again, "POST", "/v1/parties/s1/settle", body).body, first.body)
    }

    /// Replicas on one PostgreSQL store, each with its own state folder: a party settled through
    /// one is settled on the other (joins refused, shown settled, the same key answered with the
    /// same bytes, another key refused), since the settlement is in the party's row.
    func testSettlementOnOneReplicaClosesThePartyOnTheOther() throws {
        let url = try TemporaryPostgres.shared().createDatabase("settle_api")
        func replica(_ name: String) throws -> (ServiceContext, Router) {
            let ctx = try TestDataset.context(ServiceConfiguration(
                dataDir: TestDataset.directory(), stateDir: TestPaths.temporaryDirectory("settle-\(name)").path,
                writeToken: "settle-token", partyStore: url), metrics: ServerMetrics())
            return (ctx, makeRouter(context: ctx))
        }
        let (a, routerA) = try replica("a")
        defer { _ = try? a.parties.close() }
        let (b, routerB) = try replica("b")
        defer { _ = try? b.parties.close() }
        let depart = (Date().timeIntervalSince1970 + 3600).rounded()
        let party = #"{"origin":[126.978,37.5665],"destination":[126.9882,37.5701],"depart_at":"\#(SeoulTime.format(depart))","seats_total":4,"seats_taken":1}"#
        XCTAssertEqual(call(routerA, "PUT", "/v1/parties/r1", party).status, 201)
        let route = try a.routeEngine.route(RouteRequest(from: Coordinate(lon: 126.978, lat: 37.5665), to: Coordinate(lon: 126.9882, lat: 37.5701), departAt: depart))
        let fixes = SyntheticTrace.make(route, intervalSeconds: 5, noiseMeters: 5, start: depart, seed: 4)
        let trace = fixes.map { "[\($0.coordinate.lon),\($0.coordinate.lat),\($0.time!)]" }.joined(separator: ",")
        let body = #"{"trace":[\#(trace)],"idempotency_key":"ride-r1"}"#
        let first = call(routerA, "POST", "/v1/parties/r1/settle", body)
        XCTAssertEqual(first.status, 200, String(decoding: first.body, as: UTF8.self))
        // The join may reach b before its follower applied the settlement: its store refuses it anyway.
        let join = call(routerB, "POST", "/v1/parties/r1/riders", #"{"rider_id":"c","seats":1}"#)
        XCTAssertEqual(join.status, 409, String(decoding: join.body, as: UTF8.self))
        XCTAssertEqual(join.json?["error"]?["code"]?.stringValue, "party_settled")
        XCTAssertEqual(call(routerB, "GET", "/v1/parties/r1", "").json?["settled"], .bool(true))
        XCTAssertEqual(String(decoding: call(routerB, "POST", "/v1/parties/r1/settle", body).body, as: UTF8.self), String(decoding: first.body, as: UTF8.self))
        XCTAssertEqual(call(routerB, "POST", "/v1/parties/r1/settle", body.replacingOccurrences(of: "ride-r1", with: "other")).status, 409)
    }

    /// A settlement record file of an earlier build (`<state>/settlements/<id>.settled`) moves
    /// into the party's row at start: the party is settled, the same key gets the recorded bytes,
    /// and the file is set aside, so a later party of that id is not taken for it.
    func testSettlementRecordOfAnEarlierBuildIsImported() throws {
        let ctx = try context()
        let router = makeRouter(context: ctx)
        let depart = (Date().timeIntervalSince1970 + 3600).rounded()
        let party = #"{"origin":[126.978,37.5665],"destination":[126.9882,37.5701],"depart_at":"\#(SeoulTime.format(depart))","seats_total":4,"seats_taken":1}"#
        XCTAssertEqual(call(router, "PUT", "/v1/parties/old1", party).status, 201)
        let folder = SettlementRecords.directory(stateDirectory: state)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let recorded = #"{"party_id":"old1","fare":{"total_krw":4800}}"#
        try Data(("old-key\n" + recorded).utf8).write(to: URL(fileURLWithPath: folder + "/old1.settled"))
        try Data("k\n{}".utf8).write(to: URL(fileURLWithPath: folder + "/gone.settled"))
        let notes = SettlementRecords.importRecords(in: folder, into: ctx.parties)
        XCTAssertEqual(notes.count, 1, "\(notes)")
        XCTAssertEqual(try ctx.parties.kept(id: "old1")?.settlement, PartySettlement(key: "old-key", record: .earlierAnswer(recorded)))
        let again = call(router, "POST", "/v1/parties/old1/settle", #"{"trace":[[126.978,37.5665],[126.979,37.5665]],"idempotency_key":"old-key"}"#)
        XCTAssertEqual(String(decoding: again.body, as: UTF8.self), recorded)
        XCTAssertEqual(call(router, "POST", "/v1/parties/old1/riders", #"{"rider_id":"c","seats":1}"#).status, 409)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).sorted(), ["gone.settled.imported", "old1.settled.imported"])
        XCTAssertEqual(SettlementRecords.importRecords(in: folder, into: ctx.parties), [])
    }

    /// A party store left by the build before settlements were stored as values (its rows hold
    /// the answer's JSON text; Tests/Fixtures/settled-store-before-values) loses no settled
    /// party: each stays settled and closed, its key answers the bytes that build gave, another
    /// key is refused; a party settled now is stored as values beside them, and both survive a
    /// restart.
    func testStoreOfTheBuildBeforeValuesKeepsItsSettledParties() throws {
        let fixture = TestPaths.packageRoot.appendingPathComponent("Tests/Fixtures/settled-store-before-values")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture.appendingPathComponent("parties.db").path, toPath: state + "/parties.db")
        func answer(_ name: String) throws -> String { try String(contentsOf: fixture.appendingPathComponent(name), encoding: .utf8) }
        let ctx = try context()
        XCTAssertEqual(ctx.parties.rejectedOnLoad, [])
        let router = makeRouter(context: ctx)
        let anyTrace = #"{"trace":[[126.978,37.5665,4083958800],[126.979,37.5665,4083958860]],"idempotency_key":"old-store-1"}"#
        XCTAssertEqual(String(decoding: call(router, "POST", "/v1/parties/old1/settle", anyTrace).body, as: UTF8.self), try answer("old1.json"))
        let byHeader = router.handle(HTTPRequest(method: "POST", path: "/v1/parties/old3/settle",
                                                 headers: ["authorization": "Bearer settle-token", "idempotency-key": "hdr-3"],
                                                 body: Array(#"{"trace":[[126.978,37.5665],[126.979,37.5665]]}"#.utf8))).response
        XCTAssertEqual(String(decoding: byHeader.body, as: UTF8.self), try answer("old3.json"))
        let other = call(router, "POST", "/v1/parties/old1/settle", anyTrace.replacingOccurrences(of: "old-store-1", with: "another"))
        XCTAssertEqual(other.json?["error"]?["code"]?.stringValue, "already_settled")
        for id in ["old1", "old2", "old3", "old4"] {
            XCTAssertEqual(call(router, "GET", "/v1/parties/\(id)", "").json?["settled"], .bool(true), id)
            XCTAssertEqual(call(router, "POST", "/v1/parties/\(id)/riders", #"{"rider_id":"c","seats":1}"#).json?["error"]?["code"]?.stringValue, "party_settled", id)
        }
        // A new party settled by this build beside them: the same answer before and after a restart.
        let depart = (Date().timeIntervalSince1970 + 3600).rounded()
        let party = #"{"origin":[126.978,37.5665],"destination":[126.9882,37.5701],"depart_at":"\#(SeoulTime.format(depart))","seats_total":4,"seats_taken":1}"#
        XCTAssertEqual(call(router, "PUT", "/v1/parties/new1", party).status, 201)
        let route = try ctx.routeEngine.route(RouteRequest(from: Coordinate(lon: 126.978, lat: 37.5665), to: Coordinate(lon: 126.9882, lat: 37.5701), departAt: depart))
        let trace = SyntheticTrace.make(route, intervalSeconds: 5, noiseMeters: 5, start: depart, seed: 3)
            .map { "[\($0.coordinate.lon),\($0.coordinate.lat),\($0.time!)]" }.joined(separator: ",")
        let body = #"{"trace":[\#(trace)],"idempotency_key":"new-1"}"#
        let settled = call(router, "POST", "/v1/parties/new1/settle", body)
        XCTAssertEqual(settled.status, 200)
        _ = try ctx.parties.close()
        let again = makeRouter(context: try context())
        XCTAssertEqual(call(again, "POST", "/v1/parties/new1/settle", body).body, settled.body)
        XCTAssertEqual(String(decoding: call(again, "POST", "/v1/parties/old1/settle", anyTrace).body, as: UTF8.self), try answer("old1.json"))
    }

    func testTraceOffTheRoadsIs422AndBadInput400() throws {
        let router = makeRouter(context: try context())
        let depart = (Date().timeIntervalSince1970 + 3600).rounded()
        let party = #"{"origin":[126.978,37.5665],"destination":[126.9882,37.5701],"depart_at":"\#(SeoulTime.format(depart))","seats_total":4,"seats_taken":1}"#
        XCTAssertEqual(call(router, "PUT", "/v1/parties/s2", party).status, 201)
        let far = (0..<5).map { "[126.\(100 + $0),36.0,\(depart + Double($0) * 5)]" }.joined(separator: ",")
        let r = call(router, "POST", "/v1/parties/s2/settle", #"{"trace":[\#(far)],"idempotency_key":"x"}"#)
        XCTAssertEqual(r.status, 422)
        XCTAssertEqual(r.json?["error"]?["code"]?.stringValue, "no_match")
        let single = call(router, "POST", "/v1/parties/s2/settle", #"{"trace":[[126.978,37.5665,1]],"idempotency_key":"x"}"#)
        XCTAssertEqual(single.status, 400)
        XCTAssertEqual(single.json?["error"]?["code"]?.stringValue, "invalid_trace")
        let longKey = String(repeating: "k", count: 201)
        XCTAssertEqual(call(router, "POST", "/v1/parties/s2/settle", #"{"trace":[[126.978,37.5665],[126.979,37.5665]],"idempotency_key":"\#(longKey)"}"#).status, 400)
        XCTAssertEqual(call(router, "POST", "/v1/parties/nope/settle", #"{"trace":[[126.978,37.5665],[126.979,37.5665]],"idempotency_key":"x"}"#).status, 404)
    }

    /// A settle request with a member it does not know (a misspelling) is refused naming it, and
    /// the party stays unsettled; so is a fix with an unknown member.
    func testUnknownMemberIsRefusedNotIgnored() throws {
        let router = makeRouter(context: try context())
        let depart = (Date().timeIntervalSince1970 + 3600).rounded()
        let party = #"{"origin":[126.978,37.5665],"destination":[126.9882,37.5701],"depart_at":"\#(SeoulTime.format(depart))","seats_total":4,"seats_taken":1}"#
        XCTAssertEqual(call(router, "PUT", "/v1/parties/u1", party).status, 201)
        let trace = #"[[126.978,37.5665,\#(depart)],[126.9785,37.5668,\#(depart + 10)],[126.979,37.5672,\#(depart + 20)]]"#
        let typo = call(router, "POST", "/v1/parties/u1/settle", #"{"trace":\#(trace),"meter_totl_krw":9900,"idempotency_key":"t"}"#)
        XCTAssertEqual(typo.status, 400, String(decoding: typo.body, as: UTF8.self))
        XCTAssertEqual(typo.json?["error"]?["code"]?.stringValue, "unknown_field")
        XCTAssertTrue(typo.json?["error"]?["message"]?.stringValue?.contains("meter_totl_krw") ?? false, String(decoding: typo.body, as: UTF8.self))
        let fix = call(router, "POST", "/v1/parties/u1/settle",
                       #"{"trace":[{"lon":126.978,"lat":37.5665,"tme":\#(depart)},{"lon":126.979,"lat":37.5672}],"idempotency_key":"t"}"#)
        XCTAssertEqual(fix.status, 400)
        XCTAssertTrue(fix.json?["error"]?["message"]?.stringValue?.contains("trace[0].tme") ?? false, String(decoding: fix.body, as: UTF8.self))
        XCTAssertEqual(call(router, "GET", "/v1/parties/u1", "").json?["settled"], .bool(false))
    }

    /// Traces that cannot be a taxi ride are refused (422 implausible_trace, naming the fix and
    /// the reason) and leave the party open: two identical fixes, absurd times, times long before
    /// the departure, 10,000 random fixes a second apart (about 1,900 km/h).
    func testImplausibleTracesAreRefusedNamingTheFix() throws {
        let router = makeRouter(context: try context())
        let depart = (Date().timeIntervalSince1970 + 3600).rounded()
        let party = #"{"origin":[126.978,37.5665],"destination":[126.9882,37.5701],"depart_at":"\#(SeoulTime.format(depart))","seats_total":4,"seats_taken":1}"#
        XCTAssertEqual(call(router, "PUT", "/v1/parties/i1", party).status, 201)
        var rng = SystemRandomNumberGenerator()
        let random = (0..<10_000).map { i in
            "[\(Double.random(in: 126.95...127.05, using: &rng)),\(Double.random(in: 37.50...37.58, using: &rng)),\(depart + Double(i))]"
        }.joined(separator: ",")
        let cases: [(trace: String, fix: String, reason: String)] = [
            ("[[126.978,37.5665,\(depart)],[126.978,37.5665,\(depart + 10)]]", "fix 1", "does not move"),
            ("[[126.978,37.5665,1e300],[126.9785,37.5668,1e300],[126.979,37.5672,1e300]]", "fix 0", "outside the ride's window"),
            ("[[126.978,37.5665,\(depart)],[126.9785,37.5668,\(depart + 10)],[126.979,37.5672,1e300]]", "fix 2", "outside the ride's window"),
            ("[[126.978,37.5665,\(depart - 7200)],[126.9785,37.5668,\(depart - 7190)],[126.979,37.5672,\(depart - 7180)]]", "fix 0", "outside the ride's window"),
            ("[\(random)]", "fix 1", "km/h"),
        ]
        for c in cases {
            let r = call(router, "POST", "/v1/parties/i1/settle", #"{"trace":\#(c.trace),"idempotency_key":"i"}"#)
            let text = String(decoding: r.body, as: UTF8.self).prefix(300)
            XCTAssertEqual(r.status, 422, "\(c.reason): \(text)")
            XCTAssertEqual(r.json?["error"]?["code"]?.stringValue, "implausible_trace", "\(text)")
            let message = r.json?["error"]?["message"]?.stringValue ?? ""
            XCTAssertTrue(message.hasPrefix(c.fix + ":") && message.contains(c.reason), "\(c.fix) \(c.reason): \(message)")
        }
        XCTAssertEqual(call(router, "GET", "/v1/parties/i1", "").json?["settled"], .bool(false))
    }

    /// A ride longer than the 30-minute listing is settled when it ends, and its settlement is
    /// replayed (same bytes) and shown afterwards: a party that departed 2 hours ago, no longer
    /// listed, is still the store's (issue 43 item 7).
    func testPartyPastItsListingIsSettledAndReplayed() throws {
        let depart = (Date().timeIntervalSince1970 - 2 * 3600).rounded()
        let ended = Party(id: "long1", origin: Coordinate(lon: 126.978, lat: 37.5665), destination: Coordinate(lon: 126.9882, lat: 37.5701),
                          departAt: depart, seatsTotal: 4, seatsTaken: 1)
        do {
            let store = try SQLitePartyDatabase(stateDirectory: state)
            try store.put(ended)
            _ = try store.close(backup: false)
        }
        let ctx = try context()
        let router = makeRouter(context: ctx)
        XCTAssertNil(ctx.parties.party(id: "long1"), "not listed")
        let route = try ctx.routeEngine.route(RouteRequest(from: ended.origin, to: ended.destination, departAt: depart))
        let fixes = SyntheticTrace.make(route, intervalSeconds: 5, noiseMeters: 5, start: depart + 3600, seed: 3)
        let trace = fixes.map { "[\($0.coordinate.lon),\($0.coordinate.lat),\($0.time!)]" }.joined(separator: ",")
        let body = #"{"trace":[\#(trace)],"idempotency_key":"long"}"#
        let first = call(router, "POST", "/v1/parties/long1/settle", body)
        XCTAssertEqual(first.status, 200, String(decoding: first.body, as: UTF8.self))
        XCTAssertEqual(call(router, "POST", "/v1/parties/long1/settle", body).body, first.body)
        XCTAssertEqual(call(makeRouter(context: try context()), "POST", "/v1/parties/long1/settle", body).body, first.body, "after a restart")
        XCTAssertEqual(call(router, "GET", "/v1/parties/long1", "").json?["settled"], .bool(true))
    }
}

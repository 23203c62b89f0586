import Foundation
import TaxiPot
import TestSupport
import XCTest

/// The library's result types are Codable: each, computed on the embedded Seoul data, goes to
/// JSON and back unchanged (the decoded value encodes to the same bytes, and its main fields
/// equal the original's), and encodes (sorted keys) to exactly the JSON checked in under
/// `Fixtures/ResultJSON/` — the library's JSON form is a contract, whatever implements it.
final class ResultCodableTests: XCTestCase {
    /// 2026-12-02 10:00 Seoul.
    static let now = 1_796_166_000.0
    let o = Coordinate(lon: 126.9829, lat: 37.5700), d = Coordinate(lon: 126.9720, lat: 37.5547)

    /// One dataset for every test here (loading it takes seconds).
    static let shared = Result { try Dataset(directory: try TestDataset.directory()) }
    func dataset() throws -> Dataset { try Self.shared.get() }

    /// The checked-in JSON of the values below (`<name>.json`).
    static let goldenDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/ResultJSON")

    /// Encodes `value`, checks the bytes against `Fixtures/ResultJSON/<golden>.json`, decodes
    /// them, and checks the decoded value encodes to the same bytes. With
    /// `TAXIPOT_RECORD_RESULT_JSON=1` in the environment the fixture is rewritten instead (and
    /// the test fails, so a recording never passes for a check).
    func roundTrip<T: Codable>(_ value: T, golden: String, file: StaticString = #filePath, line: UInt = #line) throws -> (T, [String: Any]) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let bytes = try encoder.encode(value)
        let fixture = Self.goldenDirectory.appendingPathComponent("\(golden).json")
        if ProcessInfo.processInfo.environment["TAXIPOT_RECORD_RESULT_JSON"] == "1" {
            try FileManager.default.createDirectory(at: Self.goldenDirectory, withIntermediateDirectories: true)
            try (bytes + Data("\n".utf8)).write(to: fixture)
            XCTFail("recorded \(fixture.path); run again without TAXIPOT_RECORD_RESULT_JSON", file: file, line: line)
        } else {
            let expected = try Data(contentsOf: fixture).dropLast()  // the file ends with a newline
            assertSameJSON(bytes, Data(expected), golden, file: file, line: line)
        }
        let back = try JSONDecoder().decode(T.self, from: bytes)
        XCTAssertEqual(String(decoding: try encoder.encode(back), as: UTF8.self), String(decoding: bytes, as: UTF8.self), file: file, line: line)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: bytes) as? [String: Any], file: file, line: line)
        return (back, object)
    }

    /// Fails, showing where the two texts first differ, unless `actual` is `expected` byte for byte.
    func assertSameJSON(_ actual: Data, _ expected: Data, _ name: String, file: StaticString, line: UInt) {
        guard actual != expected else { return }
        let at = zip(actual, expected).prefix { $0 == $1 }.count
        func around(_ d: Data) -> String { String(decoding: d[max(0, at - 60)..<min(d.count, at + 60)], as: UTF8.self) }
        XCTFail("\(name): \(actual.count) bytes, fixture \(expected.count); first difference at byte \(at):\n got      …\(around(actual))…\n expected …\(around(expected))…",
                file: file, line: line)
    }

    func testRouteResult() throws {
        let data = try dataset()
        let r = try data.routes.route(RouteRequest(from: o, to: d, via: [Coordinate(lon: 126.978, lat: 37.5665)], departAt: Self.now))
        let (back, json) = try roundTrip(r, golden: "route")
        XCTAssertEqual(back.distanceMeters, r.distanceMeters)
        XCTAssertEqual(back.durationSeconds, r.durationSeconds)
        XCTAssertEqual(back.geometry, r.geometry)
        XCTAssertEqual(back.legs, r.legs)
        XCTAssertEqual(back.segments, r.segments)
        XCTAssertEqual(back.metric, r.metric)
        XCTAssertEqual(back.streetNames, r.streetNames)
        XCTAssertEqual(json["metric"] as? String, "time")
        XCTAssertEqual((json["legs"] as? [Any])?.count, 2)
        XCTAssertNotNil(json["street_names"])
    }

    func testQuoteAndFareEstimate() throws {
        let data = try dataset()
        let q = try data.quotes.quote(QuoteRequest(origin: o, destination: d, dropOffs: [DropOff(coordinate: Coordinate(lon: 126.978, lat: 37.5665))],
                                                   departure: Self.now))
        let (back, json) = try roundTrip(q, golden: "quote")
        XCTAssertEqual(back.fare, q.fare)
        XCTAssertEqual(back.split, q.split)
        XCTAssertEqual(back.riderDropOffs, q.riderDropOffs)
        XCTAssertEqual(back.schedule, q.schedule)
        XCTAssertEqual(back.trip, q.trip)
        XCTAssertEqual(back.route.geometry, q.route.geometry)
        XCTAssertEqual(back.perPersonKrw, q.perPersonKrw)
        XCTAssertEqual((json["fare"] as? [String: Any])?["total_krw"] as? Int, q.fare.totalKrw)
        let dropOffs = try XCTUnwrap(json["rider_drop_offs"] as? [Any])
        XCTAssertEqual(dropOffs.count, 2)
        XCTAssertTrue(dropOffs[0] is NSNull)  // the host rides to the destination
        XCTAssertEqual(dropOffs[1] as? Int, 0)

        // A proportional split carries each person's solo fare.
        let p = try data.quotes.quote(QuoteRequest(origin: o, destination: d, dropOffs: [DropOff(coordinate: Coordinate(lon: 126.978, lat: 37.5665))],
                                                   departure: Self.now, split: .proportional))
        let (pBack, _) = try roundTrip(p, golden: "quote-proportional")
        XCTAssertEqual(pBack.soloFaresKrw, try XCTUnwrap(p.soloFaresKrw))

        let e = try data.fares.estimate(FareRequest(distanceM: 5000, departure: Self.now))
        let (eBack, eJSON) = try roundTrip(e, golden: "fare-estimate")
        XCTAssertEqual(eBack.fare, e.fare)
        XCTAssertEqual(eBack.schedule, e.schedule)
        XCTAssertEqual(eBack.split, e.split)
        XCTAssertEqual(eJSON["timing"] as? String, e.timing)
    }

    func testEstimatedQuote() throws {
        let data = try dataset()
        // Gimpo airport: outside every served road area, so the quote is a straight-line estimate.
        var r = QuoteRequest(origin: Coordinate(lon: 126.8013, lat: 37.5587), destination: d, departure: Self.now)
        r.allowEstimate = true
        let q = try data.quotes.quote(r)
        let estimate = try XCTUnwrap(q.estimate)
        let (back, json) = try roundTrip(q, golden: "estimated-quote")
        XCTAssertEqual(back.estimate?.fareLowKrw, estimate.fareLowKrw)
        XCTAssertEqual(back.estimate?.reason, estimate.reason)
        XCTAssertNotNil(estimate.reason, "outside the served roads: the reason is the routing error")
        XCTAssertEqual((json["estimate"] as? [String: Any])?["method"] as? String, "straight_line")
    }

    func testPlacesResults() throws {
        let data = try dataset()
        var query = PlaceQuery(text: "강남역")
        query.near = o
        let found = try data.places.search(query)
        XCTAssertFalse(found.places.isEmpty)
        let (back, json) = try roundTrip(found, golden: "place-search")
        XCTAssertEqual(back.places.map(\.place), found.places.map(\.place))
        XCTAssertEqual(back.places.map(\.distanceMeters), found.places.map(\.distanceMeters))
        XCTAssertEqual(back.nextCursor, found.nextCursor)
        XCTAssertEqual(((json["places"] as? [[String: Any]])?.first?["place"] as? [String: Any])?["name"] as? String, found.places[0].place.name)

        let at = data.places.reverse(at: Coordinate(lon: 126.978, lat: 37.5665))
        let area = try XCTUnwrap(at.area)
        let (rBack, rJSON) = try roundTrip(at, golden: "reverse")
        XCTAssertEqual(rBack.area?.emd, area.emd)
        XCTAssertEqual(rBack.area?.sigungu, area.sigungu)
        XCTAssertEqual(rBack.area?.approximate, area.approximate)
        XCTAssertEqual(rBack.nearby.map(\.place), at.nearby.map(\.place))
        XCTAssertNotNil(rJSON["area"])
    }

    func testRouteTable() throws {
        let data = try dataset()
        let t = try data.routes.table(TableRequest(sources: [o, d], destinations: [d, Coordinate(lon: 126.978, lat: 37.5665)], departAt: Self.now))
        let (back, json) = try roundTrip(t, golden: "route-table")
        XCTAssertEqual(back.durationsMs, t.durationsMs)
        XCTAssertEqual(back.distancesCm, t.distancesCm)
        XCTAssertEqual(back.sources, t.sources)
        XCTAssertEqual(back.destinations, t.destinations)
        XCTAssertEqual(json["source_count"] as? Int, 2)
    }

    func testPartiesMatchesAndPartyQuotes() throws {
        let data = try dataset()
        let now = Self.now
        let parties = try PartyService(stateDirectory: TestPaths.temporaryDirectory("codable").path, now: { now })
        let party = Party(id: "hand", origin: o, destination: d, departAt: now + 1800, seatsTotal: 4,
                          riders: [PartyRider(id: "host"), PartyRider(id: "minji", seats: 2, dropOff: Coordinate(lon: 126.978, lat: 37.5665))],
                          title: "시청 → 서울역")
        XCTAssertEqual(try parties.put(party), .created)
        let saved = try XCTUnwrap(parties.party(id: "hand"))
        let (pBack, pJSON) = try roundTrip(saved, golden: "party")
        XCTAssertEqual(pBack, saved)
        XCTAssertEqual(pBack.version, saved.version)
        XCTAssertEqual(pJSON["seats_total"] as? Int, 4)

        let nearby = parties.nearby(o, radiusMeters: 500, limit: 5)
        XCTAssertEqual(nearby.parties.count, 1)
        XCTAssertEqual(try roundTrip(nearby.parties[0], golden: "nearby-party").0, nearby.parties[0])

        let pooling = PoolingEngine(quotes: data.quotes, parties: parties, now: { now })
        var r = MatchRequest(origin: o.offset(eastMeters: 120, northMeters: -90), destination: Coordinate(lon: 126.975, lat: 37.56), departAt: now + 1800)
        r.maxDetourPercent = 1000
        let match = try XCTUnwrap(try pooling.match(r).first)
        let (mBack, mJSON) = try roundTrip(match, golden: "party-match")
        XCTAssertEqual(mBack.party, match.party)
        XCTAssertEqual(mBack.dropOffOrder, match.dropOffOrder)
        XCTAssertEqual(mBack.pooledKrw, match.pooledKrw)
        XCTAssertEqual(mBack.ride.riders.map(\.id), match.ride.riders.map(\.id))
        XCTAssertEqual(mBack.ride.stops, match.ride.stops)
        XCTAssertEqual(mJSON["solo_krw"] as? Int, match.soloKrw)

        let quote = try pooling.quote(partyID: "hand")
        let (qBack, _) = try roundTrip(quote, golden: "party-quote")
        XCTAssertEqual(qBack.shares.map(\.riderID), quote.shares.map(\.riderID))
        XCTAssertEqual(qBack.shares.map(\.krw), quote.shares.map(\.krw))
        XCTAssertEqual(qBack.priced.fare, quote.priced.fare)

        let proportional = try pooling.quote(partyID: "hand", split: .proportional)
        let (propBack, _) = try roundTrip(proportional, golden: "party-quote-proportional")
        XCTAssertEqual(propBack.priced.soloFaresKrw, try XCTUnwrap(proportional.priced.soloFaresKrw))
        XCTAssertEqual(propBack.priced.split, .proportional)
    }
}

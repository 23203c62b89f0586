import Foundation
import Geo
import Places
import TestSupport
import XCTest

final class PlaceSearchTests: XCTestCase {
    /// The query set in data/places/queries.tsv: top-1 accuracy per kind, at least 95% overall.
    func testQuerySetAccuracy() throws {
        let index = try PlacesFixture.index()
        let cases = try PlaceQuerySet.load(path: TestPaths.dataDir.appendingPathComponent("places/queries.tsv").path)
        XCTAssertGreaterThanOrEqual(cases.count, 60)
        let kinds = Set(cases.map(\.kind))
        for kind in ["exact", "short", "choseong", "typo", "typing", "spacing", "romanised", "address", "biased", "POI", "keyboard"] {
            XCTAssertTrue(kinds.contains(kind), "the query set has no '\(kind)' case")
        }
        let evaluation = PlaceQuerySet.evaluate(cases, on: index)
        print("Place search top-1 accuracy (\(cases.count) cases):\n" + evaluation.report)
        XCTAssertGreaterThanOrEqual(evaluation.accuracy, 0.95, evaluation.report)
    }

    func testStationsRankAboveBusStopsAndDistricts() throws {
        let r = try PlacesFixture.index().search(PlaceQuery(text: "강남역", limit: 5))
        XCTAssertEqual(r.places.first?.place.category, PlaceCategory.station)
        XCTAssertTrue(r.places.dropFirst().contains { $0.place.category == PlaceCategory.busStop },
                      "the bus stops named 강남역 follow the station")
        XCTAssertEqual(try PlacesFixture.top("강남")?.name, "강남역")
        XCTAssertEqual(try PlacesFixture.top("강남구")?.category, PlaceCategory.sigungu)
    }

    func testFTSSyntaxIsPlainText() throws {
        let index = try PlacesFixture.index()
        for q in ["\"강남역\"", "강남역*", "강남 NEAR 역삼", "-강남역", "강남:역", "(강남역)", "강남 OR 역삼", "AND", "NOT 강남", "^강남$"] {
            XCTAssertNoThrow(try index.search(PlaceQuery(text: q)), q)
        }
        XCTAssertEqual(try PlacesFixture.top("\"강남역\"")?.name, "강남역")
        XCTAssertEqual(try PlacesFixture.top("(강남역)")?.name, "강남역")
        XCTAssertEqual(try PlacesFixture.top("강남역*")?.name, "강남역")
    }

    func testBadInput() throws {
        let index = try PlacesFixture.index()
        func error(_ q: PlaceQuery) -> PlaceSearchError? {
            do { _ = try index.search(q); return nil } catch { return error }
        }
        func caseName(_ e: PlaceSearchError?) -> String? {
            guard let e else { return nil }
            return switch e {
            case .emptyQuery: "emptyQuery"
            case .queryTooLong: "queryTooLong"
            case .unknownCategory: "unknownCategory"
            case .invalidNear: "invalidNear"
            case .invalidRect: "invalidRect"
            case .invalidRadius: "invalidRadius"
            case .invalidSort: "invalidSort"
            case .invalidLimit: "invalidLimit"
            case .invalidCursor: "invalidCursor"
            }
        }
        XCTAssertEqual(caseName(error(PlaceQuery(text: ""))), "emptyQuery")
        XCTAssertEqual(caseName(error(PlaceQuery(text: "   "))), "emptyQuery")
        XCTAssertEqual(caseName(error(PlaceQuery(text: "!!! ..."))), "emptyQuery")
        XCTAssertEqual(caseName(error(PlaceQuery(text: String(repeating: "가", count: 101)))), "queryTooLong")
        XCTAssertNil(error(PlaceQuery(text: String(repeating: "가", count: 100))))
        let unknown = error(PlaceQuery(text: "강남", category: "spaceport"))
        XCTAssertEqual(caseName(unknown), "unknownCategory")
        XCTAssertTrue(unknown?.message.contains("station") ?? false, unknown?.message ?? "")
        XCTAssertTrue(unknown?.message.contains("bus_stop") ?? false)
        XCTAssertEqual(caseName(error(PlaceQuery(text: "강남", near: Coordinate(lon: 200, lat: 37)))), "invalidNear")
        XCTAssertEqual(caseName(error(PlaceQuery(text: "강남", near: Coordinate(lon: .nan, lat: 37)))), "invalidNear")
        XCTAssertEqual(caseName(error(PlaceQuery(text: "강남", radiusMeters: 500))), "invalidRadius")
        XCTAssertEqual(caseName(error(PlaceQuery(text: "강남", near: Coordinate(lon: 127, lat: 37.5), radiusMeters: 0))), "invalidRadius")
        XCTAssertEqual(caseName(error(PlaceQuery(text: "강남", sort: .distance))), "invalidSort")
        XCTAssertEqual(caseName(error(PlaceQuery(text: "강남", limit: 0))), "invalidLimit")
        XCTAssertEqual(caseName(error(PlaceQuery(text: "강남", limit: 51))), "invalidLimit")
        XCTAssertEqual(caseName(error(PlaceQuery(text: "강남", cursor: "garbage"))), "invalidCursor")
        XCTAssertEqual(caseName(error(PlaceQuery(text: "강남", rect: BoundingBox(west: 127, south: 38, east: 126, north: 37)))), "invalidRect")

        XCTAssertThrowsError(try PlaceQuery.parseNear("abc"))
        XCTAssertThrowsError(try PlaceQuery.parseNear("127.0"))
        XCTAssertThrowsError(try PlaceQuery.parseNear("127.0,91"))
        XCTAssertEqual(try PlaceQuery.parseNear("127.0276,37.4979"), Coordinate(lon: 127.0276, lat: 37.4979))
        // Only the OpenAPI document's point form (decimal degrees, no spaces or exponents).
        XCTAssertThrowsError(try PlaceQuery.parseNear(" 127.0276 , 37.4979 "))
        XCTAssertThrowsError(try PlaceQuery.parseNear("1.270276e2,37.4979"))
        XCTAssertThrowsError(try PlaceQuery.parseRect("126,37,127"))
        XCTAssertThrowsError(try PlaceQuery.parseRect("127,37,126,38"))
        XCTAssertThrowsError(try PlaceQuery.parseRect("126,38,127,37"))
        XCTAssertThrowsError(try PlaceQuery.parseRect("126,37,127,nan"))
        XCTAssertNoThrow(try PlaceQuery.parseRect("126.9,37.4,127.1,37.6"))
        XCTAssertThrowsError(try PlaceQuery.parseRadius("0"))
        XCTAssertThrowsError(try PlaceQuery.parseRadius("20001"))
        XCTAssertThrowsError(try PlaceQuery.parseSort("nearest"))
        XCTAssertThrowsError(try PlaceQuery.parseLimit("1.5"))
    }

    func testFilters() throws {
        let index = try PlacesFixture.index()
        let stations = try index.search(PlaceQuery(text: "강남", category: PlaceCategory.station, limit: 20))
        XCTAssertFalse(stations.places.isEmpty)
        XCTAssertTrue(stations.places.allSatisfy { $0.place.category == PlaceCategory.station })

        // Within 1 km of 강남역 only.
        let gangnam = Coordinate(lon: 127.0276, lat: 37.4979)
        let near = try index.search(PlaceQuery(text: "역", near: gangnam, radiusMeters: 1_000, limit: 50))
        XCTAssertFalse(near.places.isEmpty)
        for h in near.places {
            XCTAssertLessThanOrEqual(h.place.coordinate.distance(to: gangnam), 1_010, h.place.name)
            XCTAssertNotNil(h.distanceMeters)
        }

        // Inside a rectangle around Busan only: the 시청 found there is Busan's.
        let busan = BoundingBox(west: 128.9, south: 35.05, east: 129.3, north: 35.3)
        let r = try index.search(PlaceQuery(text: "시청", rect: busan, limit: 10))
        XCTAssertFalse(r.places.isEmpty)
        XCTAssertTrue(r.places.allSatisfy { busan.contains($0.place.coordinate) })
        XCTAssertTrue(r.places.first?.place.address.hasPrefix("부산") ?? false)
    }

    func testSortByDistance() throws {
        let index = try PlacesFixture.index()
        let here = Coordinate(lon: 126.9780, lat: 37.5663)  // Seoul City Hall
        let r = try index.search(PlaceQuery(text: "시청", near: here, sort: .distance, limit: 20))
        XCTAssertGreaterThan(r.places.count, 3)
        let d = r.places.compactMap(\.distanceMeters)
        XCTAssertEqual(d.count, r.places.count)
        XCTAssertEqual(d, d.sorted())
    }

    func testPaging() throws {
        let index = try PlacesFixture.index()
        let all = try index.search(PlaceQuery(text: "역삼", limit: 30)).places.map(\.place.id)
        XCTAssertEqual(all.count, 30)
        let first = try index.search(PlaceQuery(text: "역삼", limit: 10))
        let cursor = try XCTUnwrap(first.nextCursor)
        let second = try index.search(PlaceQuery(text: "역삼", limit: 10, cursor: cursor))
        let third = try index.search(PlaceQuery(text: "역삼", limit: 10, cursor: try XCTUnwrap(second.nextCursor)))
        XCTAssertEqual(first.places.map(\.place.id) + second.places.map(\.place.id) + third.places.map(\.place.id), all)
        // A cursor belongs to its search.
        XCTAssertThrowsError(try index.search(PlaceQuery(text: "강남", limit: 10, cursor: cursor)))
        // The last page has no cursor.
        let one = try index.search(PlaceQuery(text: "Seoul Station", limit: 50))
        XCTAssertNil(one.nextCursor)
    }

    func testConcurrentSearches() throws {
        let index = try PlacesFixture.index()
        let queries = ["강남역", "ㅎㄷㅇㄱ", "왕심리", "Gangnam", "서울 강남구 역삼동", "광화ㅁ"]
        let expected = try queries.map { try index.search(PlaceQuery(text: $0, limit: 5)).places.map(\.place.id) }
        let failures = LockedCounter()
        DispatchQueue.concurrentPerform(iterations: 64) { i in
            let q = queries[i % queries.count]
            let got = (try? index.search(PlaceQuery(text: q, limit: 5)))?.places.map(\.place.id)
            if got != expected[i % queries.count] { failures.increment() }
        }
        XCTAssertEqual(failures.value, 0)
    }
}

final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func increment() { lock.lock(); n += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return n }
}

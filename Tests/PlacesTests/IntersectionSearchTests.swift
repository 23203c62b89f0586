import Foundation
import Geo
import Places
import TestSupport
import XCTest

/// The named nodes of the node-link network as places of category `intersection`.
final class IntersectionSearchTests: XCTestCase {
    /// 세종로사거리 is a node of the road network and no other source's place.
    let sejongno = "세종로사거리"

    func testANamedJunctionIsFoundByItsName() throws {
        let top = try XCTUnwrap(PlacesFixture.top(sejongno))
        XCTAssertEqual(top.name, sejongno)
        XCTAssertEqual(top.category, PlaceCategory.intersection)
        XCTAssertTrue(top.id.hasPrefix("node:"), top.id)
        XCTAssertTrue(top.address.hasPrefix("서울특별시 종로구"), top.address)
        XCTAssertLessThan(top.coordinate.distance(to: Coordinate(lon: 126.9769, lat: 37.5709)), 300)
    }

    func testANamedJunctionIsFoundByChoseongTypoAndEnglishKeyboard() throws {
        for text in ["ㅅㅈㄹㅅㄱㄹ", "세종로사커리", "세종로사거라", "tpwhdfhtkrjfl"] {
            let top = try PlacesFixture.top(text)
            XCTAssertEqual(top?.name, sejongno, text)
            XCTAssertEqual(top?.category, PlaceCategory.intersection, text)
        }
    }

    func testTheCategoryFilterListsOnlyIntersections() throws {
        let r = try PlacesFixture.index().search(PlaceQuery(text: "사거리", category: PlaceCategory.intersection, limit: 50))
        XCTAssertEqual(r.places.count, 50)
        XCTAssertTrue(r.places.allSatisfy { $0.place.category == PlaceCategory.intersection })
        XCTAssertTrue(try PlacesFixture.index().knownCategories.contains(PlaceCategory.intersection))
    }

    /// A node named 강남역 lies about 90 m from the station: both are places, the station first.
    func testAStationOutranksTheSameNamedIntersection() throws {
        let hits = try PlacesFixture.index().search(PlaceQuery(text: "강남역", limit: 20)).places
        let station = try XCTUnwrap(hits.firstIndex { $0.place.category == PlaceCategory.station && $0.place.name == "강남역" })
        let node = try XCTUnwrap(hits.firstIndex { $0.place.category == PlaceCategory.intersection && $0.place.name == "강남역" },
                                 hits.map { "\($0.place.name) \($0.place.category)" }.joined(separator: ", "))
        XCTAssertEqual(station, 0)
        XCTAssertLessThan(station, node)
    }

    /// The several nodes of one junction with one name are one place; a node beside a place of
    /// the same name (the stop or station it is named after) is that place, which keeps its
    /// category and details: no bus stop or station is lost to an intersection.
    func testIntersectionsDoNotTakeOverSameNamePlaces() throws {
        let built = try PlacesFixture.get(), report = try built.report
        let index = built.index
        XCTAssertGreaterThan(report.placesByCategory[PlaceCategory.intersection] ?? 0, 5_000)
        XCTAssertGreaterThan(report.foldedIntersections, 100)
        // Node 1010000300 후암삼거리 lies 49 m from the bus stop 후암삼거리 (ARS 3199).
        XCTAssertNil(index.place(id: "node:1010000300"))
        let stop = try XCTUnwrap(index.place(id: "bus:SEB102000105"))
        XCTAssertEqual(stop.category, PlaceCategory.busStop)
        XCTAssertTrue(stop.detail.contains("3199"), stop.detail)
        // Node 1040001900 군자역 lies 7 m from the station: one place, the station.
        XCTAssertNil(index.place(id: "node:1040001900"))
        XCTAssertEqual(index.place(id: "station:2545")?.category, PlaceCategory.station)
        // Farther away, a node of the same name is an intersection of its own.
        XCTAssertEqual(index.place(id: "node:1210034100")?.name, "강남역")
    }

    /// A node named "in front of X" by the place X is that place's doorstep: the hospital is
    /// found by its name, not the junction 여의도성모병원앞.
    func testADoorstepNodeDoesNotOutrankThePlaceItIsNamedAfter() throws {
        let top = try XCTUnwrap(PlacesFixture.top("여의도성모병원"))
        XCTAssertEqual(top.name, "가톨릭대학교 여의도성모병원")
        XCTAssertFalse(try PlacesFixture.index().search(PlaceQuery(text: "여의도성모병원앞", category: PlaceCategory.intersection, limit: 5))
            .places.contains { $0.place.name == "여의도성모병원앞" })
    }

    /// People type a junction with its word after the name ("강남역사거리", "광화문 사거리"); the
    /// node-link data names those junctions "강남역", "광화문": the name before the word is read.
    func testAJunctionWordAfterTheNameFindsTheNamedJunction() throws {
        let index = try PlacesFixture.index()
        for (text, stem) in [("강남역사거리", "강남역"), ("광화문사거리", "광화문"), ("교대역사거리", "교대역"), ("강남역 사거리", "강남역"),
                             ("강남역삼거리", "강남역"), ("광화문교차로", "광화문"), ("광화문오거리", "광화문"), ("광화문로터리", "광화문")] {
            let hits = try index.search(PlaceQuery(text: text, limit: 10)).places
            // What the name alone finds first: the junction, or the place it is named after.
            let alone = try XCTUnwrap(index.search(PlaceQuery(text: stem, limit: 1)).places.first?.place)
            XCTAssertTrue(alone.name.hasPrefix(stem), alone.name)
            XCTAssertEqual(hits.first?.place.id, alone.id, "\(text): \(hits.prefix(3).map { "\($0.place.name) \($0.place.category)" })")
            // The junction itself is among the answers, and first among intersections.
            let junction = try index.search(PlaceQuery(text: text, category: PlaceCategory.intersection, limit: 3)).places.first?.place
            let named = try index.search(PlaceQuery(text: stem, category: PlaceCategory.intersection, limit: 1)).places.first?.place
            XCTAssertNotNil(junction, text)
            XCTAssertEqual(junction?.id, named?.id, text)
        }
    }

    /// A place named with the junction word matches as typed, first, before any place named
    /// like the part before the word (세종로사거리 before roads or places named 세종로; the bus stop
    /// 후암삼거리 before 후암…).
    func testAPlaceNamedWithTheJunctionWordStillComesFirst() throws {
        for text in [sejongno, "후암삼거리"] {
            XCTAssertEqual(try PlacesFixture.top(text)?.name, text)
        }
    }
}

import Foundation
import Geo
import Places
import TestSupport
import XCTest

/// Road-name (도로명주소) and lot (지번) addresses in place search and reverse geocoding (issue 36),
/// on the node-link roads the place DB is built with.
final class AddressSearchTests: XCTestCase {
    func address(_ text: String) throws -> PlaceHit? {
        try PlacesFixture.index().search(PlaceQuery(text: text, limit: 5)).places.first { $0.precision != nil }
    }

    /// Known buildings and stations, written as people write them, land near where they are.
    func testRoadAddressesInterpolateNearTheBuilding() throws {
        let cases: [(String, Coordinate, Double)] = [
            ("세종대로 110", Coordinate(lon: 126.9779, lat: 37.5663), 200),                  // 서울시청
            ("서울특별시 중구 세종대로 110", Coordinate(lon: 126.9779, lat: 37.5663), 200),
            ("서울시 중구 세종대로110", Coordinate(lon: 126.9779, lat: 37.5663), 200),
            ("서울 강남구 테헤란로 지하 156", Coordinate(lon: 127.0366, lat: 37.5007), 800),  // 역삼역 (테헤란로's numbers run long)
            ("tpwhdeofh 110", Coordinate(lon: 126.9779, lat: 37.5663), 200),                 // 세종대로 typed in English mode
        ]
        for (text, truth, tolerance) in cases {
            let hit = try XCTUnwrap(address(text), text)
            XCTAssertEqual(hit.precision, .interpolated, text)
            XCTAssertEqual(hit.place.category, PlaceIndex.addressCategory)
            XCTAssertLessThan(hit.place.coordinate.distance(to: truth), tolerance, "\(text) → \(hit.place.coordinate)")
            XCTAssertTrue(hit.place.address.hasPrefix("서울특별시 "), hit.place.address)
        }
        // The address answer names the 시군구 where the number lies, sub-numbers and 지하 kept.
        XCTAssertEqual(try address("세종대로 110")?.place.address, "서울특별시 중구 세종대로 110")
        XCTAssertEqual(try address("테헤란로 지하 340-2")?.place.name, "테헤란로 지하 340-2")
        // 노원구 is filed as 서울시노원구 by the divisions source: the written address names it once.
        XCTAssertEqual(try address("서울특별시 노원구 상계로 182")?.place.address, "서울특별시 노원구 상계로 182")
    }

    /// Odd numbers lie on the left of the road from its start, even ones on the right.
    func testParityPicksTheSide() throws {
        let odd = try XCTUnwrap(address("테헤란로 201")).place.coordinate
        let even = try XCTUnwrap(address("테헤란로 202")).place.coordinate
        XCTAssertEqual(odd.distance(to: even), 2 * 15, accuracy: 3)
        // 테헤란로 runs west → east: its left is north.
        XCTAssertGreaterThan(odd.lat, even.lat)
    }

    func testLotAddressesAreAnsweredAtTheDong() throws {
        for (text, dong) in [("역삼동 737", "서울특별시 강남구 역삼동"), ("서초동 1303-22", "서울특별시 서초구 서초동"),
                             ("서울 강남구 역삼동 123-4번지", "서울특별시 강남구 역삼동")] {
            let hit = try XCTUnwrap(address(text), text)
            XCTAssertEqual(hit.precision, .dong, text)
            XCTAssertTrue(hit.place.address.hasPrefix(dong), hit.place.address)
            let area = try PlacesFixture.index().reverse(at: hit.place.coordinate).area
            XCTAssertEqual(area?.fullName, dong, text)
        }
    }

    /// Bad input: never a crash, never more precision than is known.
    func testBadInputFallsBackWithItsPrecision() throws {
        for text in ["테헤란로 -1", "테헤란로 99999999999", "테헤란로 0", "테헤란로 1-", "테헤란로 --3"] {
            XCTAssertEqual(try address(text)?.precision, .road, text)
        }
        // Past the network's end of the road: the road, at its end, not beyond it.
        let past = try XCTUnwrap(address("테헤란로 4999"))
        XCTAssertEqual(past.precision, .road)
        // A branch road the network lacks: the road only.
        XCTAssertEqual(try address("테헤란로99길 3")?.precision, .road)
        // An unknown road in a named 동: the 동.
        XCTAssertEqual(try address("서울 강남구 역삼동 없는길 12")?.precision, .dong)
        // An unknown road whose 동 is given in brackets, as official addresses write it: the 동.
        let bracketed = try XCTUnwrap(address("서울특별시 성북구 없는대로 지하89 (안암동5가)"))
        XCTAssertEqual(bracketed.precision, .dong)
        XCTAssertTrue(bracketed.place.address.hasSuffix("안암동5가 없는대로 지하 89"), bracketed.place.address)
        XCTAssertEqual(try PlacesFixture.index().reverse(at: bracketed.place.coordinate).area?.emd?.name, "안암동5가")
        // An unknown road and no 동: ordinary search, no address answer.
        XCTAssertNil(try address("없는길 12"))
        // Elsewhere in Korea, a road address is not placed on Seoul's roads.
        XCTAssertNil(try address("부산 해운대구 해운대로 264"))
    }

    /// Place names keep their place: an address answer never displaces an exact name.
    func testPlaceNamesKeepWinning() throws {
        for name in ["강남역", "서울역", "63빌딩", "광화문", "여의도공원"] {
            let top = try PlacesFixture.top(name)
            XCTAssertNotEqual(top?.category, PlaceIndex.addressCategory, name)
        }
        // Paging stays consistent with the address answer counted in.
        let index = try PlacesFixture.index()
        let first = try index.search(PlaceQuery(text: "종로 1", limit: 2))
        XCTAssertEqual(first.places.count, 2)
        let second = try index.search(PlaceQuery(text: "종로 1", limit: 2, cursor: first.nextCursor))
        let all = try index.search(PlaceQuery(text: "종로 1", limit: 4))
        XCTAssertEqual((first.places + second.places).map(\.place.id), all.places.map(\.place.id))
    }

    func testReverseGivesTheNearestAddress() throws {
        let index = try PlacesFixture.index()
        // At 서울시청: on 세종대로, a number near 110.
        let r = index.reverse(at: Coordinate(lon: 126.9779, lat: 37.5663))
        let a = try XCTUnwrap(r.address)
        XCTAssertEqual(a.road, "세종대로")
        XCTAssertEqual(a.precision, .interpolated)
        XCTAssertLessThan(abs(a.number - 110), 30, "\(a.number)")
        // Read back, the estimate lands where it was taken.
        let back = try XCTUnwrap(address(a.text))
        XCTAssertLessThan(back.place.coordinate.distance(to: a.coordinate), 40)
        // Far from any named road: none.
        XCTAssertNil(index.reverse(at: Coordinate(lon: 124.0, lat: 33.0)).address)
    }
}

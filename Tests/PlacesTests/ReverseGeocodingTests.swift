import Foundation
import Geo
import Places
import TestSupport
import XCTest

final class ReverseGeocodingTests: XCTestCase {
    /// Known points in several 동 of Seoul (polygon test) and elsewhere (nearest division).
    func testKnownPoints() throws {
        let index = try PlacesFixture.index()
        let cases: [(Coordinate, String, Bool)] = [
            (Coordinate(lon: 126.9769, lat: 37.5725), "서울특별시 종로구 세종로", false),      // 광화문광장
            (Coordinate(lon: 126.9780, lat: 37.5663), "서울특별시 중구 태평로1가", false),     // 서울시청
            (Coordinate(lon: 127.0982, lat: 37.5111), "서울특별시 송파구 잠실동", false),      // 롯데월드
            (Coordinate(lon: 126.9225, lat: 37.5256), "서울특별시 영등포구 여의도동", false),  // 여의도공원
            (Coordinate(lon: 126.9246, lat: 37.5572), "서울특별시 마포구 동교동", false),      // 홍대입구역
            (Coordinate(lon: 126.9458, lat: 37.5567), "서울특별시 마포구 대흥동", false),      // by 이대역, a sliver the 구 polygon misses
            (Coordinate(lon: 129.0756, lat: 35.1798), "부산광역시 연제구 연산동", true),       // 부산시청
        ]
        for (point, name, approximate) in cases {
            let r = index.reverse(at: point)
            XCTAssertEqual(r.area?.fullName, name, "\(point)")
            XCTAssertEqual(r.area?.approximate, approximate, "\(point)")
        }
        // The places around City Hall include its station, nearest first, none beyond 300 m.
        let r = index.reverse(at: Coordinate(lon: 126.9770, lat: 37.5650))
        XCTAssertTrue(r.nearby.contains { $0.place.name == "시청역" }, r.nearby.map(\.place.name).description)
        let d = r.nearby.compactMap(\.distanceMeters)
        XCTAssertEqual(d, d.sorted())
        XCTAssertTrue(d.allSatisfy { $0 <= 300 })
        XCTAssertFalse(r.nearby.contains { PlaceCategory.divisions.contains($0.place.category) })
        // Far at sea: nothing.
        let sea = index.reverse(at: Coordinate(lon: 124.0, lat: 33.0))
        XCTAssertNil(sea.area)
        XCTAssertTrue(sea.nearby.isEmpty)
    }

    func testRegionLocator() throws {
        let fromDB = try PlacesFixture.index().regionLocator
        let fromData = try RegionLocator(dataDirectory: TestPaths.dataDir.path)
        let fromFile = try RegionLocator(databasePath: PlacesFixture.get().databasePath)
        let cityHall = Coordinate(lon: 126.9780, lat: 37.5663)
        for locator in [fromDB, fromData, fromFile] {
            XCTAssertEqual(locator.region(at: cityHall)?.id, "seoul")
            XCTAssertEqual(locator.region(at: cityHall)?.approximate, false)
            XCTAssertEqual(locator.region(at: cityHall)?.sidoName, "서울특별시")
            XCTAssertEqual(locator.region(at: Coordinate(lon: 129.0756, lat: 35.1798))?.id, "busan")
            XCTAssertEqual(locator.region(at: Coordinate(lon: 129.0756, lat: 35.1798))?.approximate, true)
            XCTAssertEqual(locator.region(at: Coordinate(lon: 126.7052, lat: 37.4563))?.id, "incheon")   // 인천시청
            XCTAssertEqual(locator.region(at: Coordinate(lon: 127.0286, lat: 37.2636))?.id, "gyeonggi")  // 수원
            XCTAssertEqual(locator.region(at: Coordinate(lon: 128.6014, lat: 35.8714))?.id, "daegu")     // 대구시청
            XCTAssertNil(locator.region(at: Coordinate(lon: 124.0, lat: 33.0)))
            XCTAssertTrue(locator.isInside(regionID: "seoul", cityHall))
            XCTAssertFalse(locator.isInside(regionID: "seoul", Coordinate(lon: 126.7830, lat: 37.5035)))  // 부천
            XCTAssertTrue(locator.isInside(regionID: "gyeonggi", Coordinate(lon: 126.7830, lat: 37.5035)))
            XCTAssertFalse(locator.isInside(regionID: "atlantis", cityHall))
            // A sliver between the simplified 구 polygons by 서대문사거리 (0.1 m outside 종로구,
            // in no polygon) is still Seoul, not the "nearest" Gyeonggi 읍면동.
            let sliver = Coordinate(lon: 126.9656, lat: 37.5669)
            XCTAssertEqual(locator.region(at: sliver)?.id, "seoul")
            XCTAssertTrue(locator.isInside(regionID: "seoul", sliver))
            // The tolerance is 50 m: 1 km outside Seoul's western border (부천) stays Gyeonggi.
            XCTAssertEqual(locator.region(at: Coordinate(lon: 126.7830, lat: 37.5035))?.id, "gyeonggi")
        }
        // Every Seoul bus stop the source puts inside Seoul is in the Seoul polygons or
        // within a few hundred metres of them (stops of Seoul routes in Gyeonggi are not).
        XCTAssertEqual(RegionLocator.knownRegionIDs.count, 17)
    }
}

import XCTest
@testable import Geo

final class GeoTests: XCTestCase {
    func testHaversineKnownDistance() {
        // Seoul City Hall to Seoul Station, about 1.0 km apart.
        let cityHall = Coordinate(lon: 126.978546, lat: 37.566554)
        let station = Coordinate(lon: 126.972559, lat: 37.554648)
        XCTAssertEqual(cityHall.distance(to: station), 1420, accuracy: 30)
        XCTAssertEqual(cityHall.distance(to: cityHall), 0)
    }

    func testPolylineRoundTripAndKnownEncoding() {
        // Google's documented example at precision 5.
        let pts = [Coordinate(lon: -120.2, lat: 38.5), Coordinate(lon: -120.95, lat: 40.7), Coordinate(lon: -126.453, lat: 43.252)]
        XCTAssertEqual(Polyline.encode(pts, precision: 5), "_p~iF~ps|U_ulLnnqC_mqNvxq`@")
        let six = [Coordinate(lon: 126.978546, lat: 37.566554), Coordinate(lon: 126.972559, lat: 37.554648)]
        let decoded = Polyline.decode(Polyline.encode(six))!
        XCTAssertEqual(decoded.count, 2)
        XCTAssertEqual(decoded[1].lon, 126.972559, accuracy: 1e-9)
        XCTAssertNil(Polyline.decode("\u{1}"))
    }

    func testSeoulTimeParsing() {
        // 2023-02-01T04:00 in Seoul is 2023-01-31T19:00Z.
        let a = SeoulTime.parse("2023-02-01T04:00:00+09:00")!
        XCTAssertEqual(a, SeoulTime.parse("2023-01-31T19:00:00Z"))
        XCTAssertEqual(a, SeoulTime.parse("2023-02-01T04:00"))
        XCTAssertEqual(a, 1_675_191_600)
        XCTAssertEqual(SeoulTime.hour(a), 4)
        XCTAssertEqual(SeoulTime.format(a), "2023-02-01T04:00:00+09:00")
        // Formatting rounds down to the second, and crosses days, years and signs alike.
        XCTAssertEqual(SeoulTime.format(a + 3599.9), "2023-02-01T04:59:59+09:00")
        XCTAssertEqual(SeoulTime.format(0), "1970-01-01T09:00:00+09:00")
        XCTAssertEqual(SeoulTime.format(-32_401), "1969-12-31T23:59:59+09:00")
        XCTAssertEqual(SeoulTime.format(1_704_034_799), "2023-12-31T23:59:59+09:00")
        XCTAssertEqual(SeoulTime.format(253_402_268_400), "10000-01-01T00:00:00+09:00")
        XCTAssertEqual(SeoulTime.format(-62_135_629_200), "1-01-01T00:00:00+09:00")
        var bytes = Array("at ".utf8)
        SeoulTime.write(a, into: &bytes)
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), "at 2023-02-01T04:00:00+09:00")
        XCTAssertEqual(SeoulTime.parse("2024-02-29T00:00:00+09:00").map(SeoulTime.hour), 0)
        for bad in ["", "2023-02-30T00:00", "2023-13-01", "tomorrow", "2023-02-01T25:00", "2023-02-01T04:00+9", "2023-02-01T04:00:00.+09:00"] {
            XCTAssertNil(SeoulTime.parse(bad), bad)
        }
    }

    func testCoordinateParsing() {
        XCTAssertEqual(Coordinate.parse("126.97,37.56"), Coordinate(lon: 126.97, lat: 37.56))
        for bad in ["", "1", "a,b", "nan,1", "181,0", "0,91", "1,2,3", "inf,0", "0x1p3,1"] {
            XCTAssertNil(Coordinate.parse(bad), bad)
        }
        XCTAssertEqual(Coordinate.parseList("1,2;3,4")?.count, 2)
        XCTAssertNil(Coordinate.parseList("1,2;;3,4"))
    }

    func testPolygonContains() {
        let square = Polygon(rings: [[.init(lon: 0, lat: 0), .init(lon: 2, lat: 0), .init(lon: 2, lat: 2), .init(lon: 0, lat: 2)],
                                     [.init(lon: 0.5, lat: 0.5), .init(lon: 1, lat: 0.5), .init(lon: 1, lat: 1), .init(lon: 0.5, lat: 1)]])
        XCTAssertTrue(square.contains(.init(lon: 1.5, lat: 1.5)))
        XCTAssertFalse(square.contains(.init(lon: 0.75, lat: 0.75)))  // in the hole
        XCTAssertFalse(square.contains(.init(lon: 3, lat: 1)))
    }

    func testWebMercatorPixels() {
        let origin = WebMercator.pixel(Coordinate(lon: 0, lat: 0), zoom: 1)
        XCTAssertEqual(origin.x, 256, accuracy: 1e-9)
        XCTAssertEqual(origin.y, 256, accuracy: 1e-9)
        let c = Coordinate(lon: 126.978, lat: 37.5665)
        let n = WebMercator.normalized(c)
        let back = WebMercator.coordinate(normalizedX: n.x, y: n.y)
        XCTAssertEqual(back.lon, c.lon, accuracy: 1e-9)
        XCTAssertEqual(back.lat, c.lat, accuracy: 1e-9)
    }
}

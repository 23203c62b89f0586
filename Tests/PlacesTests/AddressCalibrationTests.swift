import Foundation
import Geo
import Places
import TestSupport
import XCTest

/// Per-road numbering fitted on known address → position pairs (issue 36): each test fits on some
/// stations of a road and checks an address that was not among them.
final class AddressCalibrationTests: XCTestCase {
    /// The pairs of `known` (address, position) on the roads the rule places them on.
    func pairs(_ index: PlaceIndex, _ known: [(String, Coordinate)]) throws -> [AddressCalibration.Pair] {
        try known.map { text, truth in
            let m = try XCTUnwrap(index.address(text, calibration: [:]), text)
            let road = try XCTUnwrap(m.road, text), number = try XCTUnwrap(m.number, text)
            return AddressCalibration.Pair(road: index.addressRoad(road), number: number, truth: truth)
        }
    }

    /// 테헤란로's numbers run about 5 m apart, not 10: fitted on 역삼, 선릉 and 삼성 stations,
    /// 포스코센터 (테헤란로 440) lands by the building; the rule puts it past the road's end.
    func testTenMetreRoadIsFittedFromItsStations() throws {
        let index = try PlacesFixture.index()
        let table = AddressCalibration.fit(try pairs(index, [
            ("테헤란로 지하 156", Coordinate(lon: 127.0364, lat: 37.5005)),   // 역삼역
            ("테헤란로 지하 340", Coordinate(lon: 127.0487, lat: 37.5044)),   // 선릉역
            ("테헤란로 지하 538", Coordinate(lon: 127.0632, lat: 37.5087)),   // 삼성역
        ]))
        let numbering = try XCTUnwrap(table.values.first)
        XCTAssertEqual(table.count, 1)
        XCTAssertFalse(numbering.reversed)
        XCTAssertLessThan(numbering.interval, 15)
        let posco = Coordinate(lon: 127.0557, lat: 37.5058)
        let rule = try XCTUnwrap(index.address("테헤란로 440", calibration: [:]))
        XCTAssertEqual(rule.precision, .road)
        XCTAssertGreaterThan(rule.coordinate.distance(to: posco), 1_000)
        let fitted = try XCTUnwrap(index.address("서울 강남구 테헤란로 440", calibration: table))
        XCTAssertEqual(fitted.precision, .interpolated)
        XCTAssertLessThan(fitted.coordinate.distance(to: posco), 300, "\(fitted.coordinate)")
    }

    /// 수색로 is numbered from its south-east end (가좌), not its west end: fitted on 가좌 and
    /// 디지털미디어시티 stations, 수색역 (수색로 261-1) lands by it; the rule puts it 900 m off.
    func testRoadNumberedFromItsOtherEndIsReversed() throws {
        let index = try PlacesFixture.index()
        let table = AddressCalibration.fit(try pairs(index, [
            ("수색로 27", Coordinate(lon: 126.9148, lat: 37.5686)),         // 가좌역
            ("수색로 지하175", Coordinate(lon: 126.8997, lat: 37.5766)),     // 디지털미디어시티역 (underground)
            ("수색로 193", Coordinate(lon: 126.9004, lat: 37.5780)),         // 디지털미디어시티역 (street)
        ]))
        XCTAssertEqual(try XCTUnwrap(table.values.first).reversed, true)
        let truth = Coordinate(lon: 126.8957, lat: 37.5809)
        let rule = try XCTUnwrap(index.address("수색로 261-1", calibration: [:]))
        XCTAssertGreaterThan(rule.coordinate.distance(to: truth), 600)
        let fitted = try XCTUnwrap(index.address("수색로 261-1", calibration: table))
        XCTAssertEqual(fitted.precision, .interpolated)
        XCTAssertLessThan(fitted.coordinate.distance(to: truth), 300, "\(fitted.coordinate)")
        // Odd numbers stay on the left looking from the numbering start: 261 and 262 lie on
        // opposite sides, 261 on the south-west side of a road running north-west from 가좌.
        let even = try XCTUnwrap(index.address("수색로 262", calibration: table)).coordinate
        XCTAssertEqual(fitted.coordinate.distance(to: even), 30, accuracy: 5)
        XCTAssertLessThan(fitted.coordinate.lat, even.lat)
    }

    /// The place DB's calibration table (data/nodelink/address_calibration.csv) numbers 수색로 from
    /// 가좌: reverse geocoding reads a number back with that numbering, and the number found
    /// searches back to the same spot.
    func testReverseGeocodingUsesTheRoadsNumbering() throws {
        let index = try PlacesFixture.index()
        XCTAssertGreaterThan(index.calibratedRoadCount, 20)
        let gajwa = try XCTUnwrap(index.address("수색로 27")?.coordinate)    // by the table
        let a = try XCTUnwrap(index.nearestAddress(to: gajwa))
        XCTAssertEqual(a.road, "수색로")
        XCTAssertLessThan(abs(a.number - 27), 6, "\(a.number)")
        XCTAssertEqual(a.number % 2, 1)
        let back = try XCTUnwrap(index.address(a.text))
        XCTAssertLessThan(back.coordinate.distance(to: a.coordinate), 40)
    }

    /// Two pairs are too few to calibrate a road; the table reads back what it wrote and refuses
    /// malformed lines by line number.
    func testTooFewPairsAndTheTableFile() throws {
        let index = try PlacesFixture.index()
        let two = try pairs(index, [("테헤란로 지하 156", Coordinate(lon: 127.0364, lat: 37.5005)),
                                    ("테헤란로 지하 340", Coordinate(lon: 127.0487, lat: 37.5044))])
        XCTAssertTrue(AddressCalibration.fit(two).isEmpty)
        let table = ["테헤란로@127.0276,37.4980": RoadNumbering(reversed: true, offset: -12.5, interval: 10.25)]
        let text = AddressCalibration.csv(table, pairs: ["테헤란로@127.0276,37.4980": 3])
        XCTAssertEqual(try AddressCalibration.read(csv: text, source: "t.csv"), table)
        XCTAssertThrowsError(try AddressCalibration.read(csv: AddressCalibration.header + "\n테헤란로@1,2,1,0,40,3\n", source: "t.csv")) {
            XCTAssertTrue("\($0)".contains("t.csv:2"), "\($0)")
        }
    }
}

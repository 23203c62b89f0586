import Quoting
import FareEstimation
import Fares
import Foundation
import Geo
import TestSupport
import XCTest

final class FareScheduleTests: XCTestCase {
    func testEveryScheduleOfFaresMdLoadsWithItsNumbers() throws {
        let book = FareData.book
        XCTAssertEqual(book.regions, ["busan", "gyeonggi", "incheon", "seoul"])
        XCTAssertEqual(book.taxiClasses(region: "seoul"), ["deluxe", "mid"])
        // (id, base, base distance, distance unit m, unit krw, time unit s, time krw, out of city %, charging)
        let table: [(String, Int, Double, Double, Int, Double, Int, Int, ChargingRule)] = [
            ("seoul-mid-2023-02-01", 4800, 1600, 131, 100, 30, 100, 20, .simultaneous),
            ("seoul-mid-2019-02-16", 3800, 2000, 132, 100, 31, 100, 20, .simultaneous),
            ("seoul-deluxe-2023-02-01", 7000, 3000, 151, 200, 36, 200, 20, .mutual),
            ("busan-mid-2023-06-01", 4800, 2000, 132, 100, 33, 100, 30, .simultaneous),
            ("incheon-mid-2023-07-01", 4800, 1600, 135, 100, 33, 100, 30, .simultaneous),
            ("gyeonggi-mid-2023-07-01", 4800, 1600, 131, 100, 30, 100, 20, .simultaneous),
        ]
        for (id, base, baseM, unitM, unitKrw, unitS, timeKrw, ooc, charging) in table {
            let s = FareData.schedule(id)
            XCTAssertEqual(s.baseFareKrw, base, id)
            XCTAssertEqual(s.baseDistanceM, baseM, id)
            XCTAssertEqual(s.distanceUnitM, unitM, id)
            XCTAssertEqual(s.distanceUnitKrw, unitKrw, id)
            XCTAssertEqual(s.timeUnitS, unitS, id)
            XCTAssertEqual(s.timeUnitKrw, timeKrw, id)
            XCTAssertEqual(s.outOfCityPercent, ooc, id)
            XCTAssertEqual(s.charging, charging, id)
            // The threshold is distance unit ÷ time unit (docs/REFERENCE.md, "Fares").
            XCTAssertEqual(s.speedThresholdKmh, unitM / unitS * 3.6, accuracy: 0.01, id)
            XCTAssertFalse(s.source.isEmpty, id)
        }
        XCTAssertEqual(FareData.seoulMid.effectiveFrom, seoul("2023-02-01T04:00:00+09:00"))
        XCTAssertEqual(FareData.schedule("busan-mid-2023-06-01").effectiveFrom, seoul("2023-06-01T00:00"))
    }

    func testNightBandsAtTheirEdges() {
        let s = FareData.seoulMid
        let expected: [(String, Int)] = [("21:59", 0), ("22:00", 20), ("22:59", 20), ("23:00", 40), ("01:59", 40),
                                         ("02:00", 20), ("03:59", 20), ("04:00", 0), ("12:00", 0), ("00:00", 40)]
        for (clock, pct) in expected {
            XCTAssertEqual(s.nightPercent(atSecondOfDay: ClockTime(clock)!.secondOfDay), pct, clock)
        }
        let busan = FareData.schedule("busan-mid-2023-06-01")
        for (clock, pct) in [("22:59", 0), ("23:00", 20), ("23:59", 20), ("00:00", 30), ("01:59", 30), ("02:00", 20), ("04:00", 0)] {
            XCTAssertEqual(busan.nightPercent(atSecondOfDay: ClockTime(clock)!.secondOfDay), pct, "busan \(clock)")
        }
        // Night base fares as published: 5,800 (20 %) and 6,700 (40 %).
        XCTAssertEqual(s.surchargedBaseFare(nightPercent: 20), 5800)
        XCTAssertEqual(s.surchargedBaseFare(nightPercent: 40), 6700)
        XCTAssertEqual(s.surchargedBaseFare(nightPercent: 0), 4800)
    }

    func testScheduleInForceAtTheChangeOf20230201() throws {
        let book = FareData.book
        XCTAssertEqual(try book.schedule(region: "seoul", taxiClass: "mid", at: seoul("2023-02-01T03:59:59")).id, "seoul-mid-2022-12-01")
        XCTAssertEqual(try book.schedule(region: "seoul", taxiClass: "mid", at: seoul("2023-02-01T04:00:00")).id, "seoul-mid-2023-02-01")
        XCTAssertEqual(try book.schedule(region: "seoul", taxiClass: "mid", at: seoul("2022-12-01T21:59")).id, "seoul-mid-2019-02-16")
        XCTAssertEqual(try book.schedule(region: "seoul", taxiClass: "mid", at: seoul("2020-07-01T12:00")).id, "seoul-mid-2019-02-16")
        XCTAssertEqual(try book.schedule(region: "seoul", taxiClass: "mid", at: seoul("2030-01-01T12:00")).id, "seoul-mid-2023-02-01")
        XCTAssertEqual(try book.schedule(region: "seoul", taxiClass: "deluxe", at: seoul("2024-01-01T12:00")).id, "seoul-deluxe-2023-02-01")

        // The same 1 km ride one second apart: 3,800 × 1.2 → 4,600 at 03:59 (old night), 4,800 at 04:00.
        let est = FareData.estimator
        let before = try est.estimate(FareRequest(distanceM: 1000, durationS: 120, slowS: 0, departure: seoul("2023-02-01T03:59:00")))
        let after = try est.estimate(FareRequest(distanceM: 1000, durationS: 120, slowS: 0, departure: seoul("2023-02-01T04:00:00")))
        XCTAssertEqual(before.fare.totalKrw, 4600)
        XCTAssertEqual(before.fare.scheduleID, "seoul-mid-2022-12-01")
        XCTAssertEqual(after.fare.totalKrw, 4800)
        XCTAssertEqual(after.fare.scheduleID, "seoul-mid-2023-02-01")
    }

    func testLookupErrorsNameTheAllowedValuesAndCoveredDates() {
        let book = FareData.book
        XCTAssertThrowsError(try book.schedule(region: "daegu", taxiClass: "mid", at: seoul("2024-01-01"))) { e in
            XCTAssertEqual(e as? FareLookupError, .unknownRegion("daegu", allowed: ["busan", "gyeonggi", "incheon", "seoul"]))
        }
        XCTAssertThrowsError(try book.schedule(region: "busan", taxiClass: "deluxe", at: seoul("2024-01-01"))) { e in
            XCTAssertEqual(e as? FareLookupError, .unknownTaxiClass("deluxe", region: "busan", allowed: ["mid"]))
        }
        XCTAssertThrowsError(try book.schedule(region: "seoul", taxiClass: "mid", at: seoul("2019-02-16T03:59"))) { e in
            let text = "\(e)"
            XCTAssertTrue(text.contains("2019-02-16T04:00:00+09:00"), text)
            XCTAssertTrue(text.contains("seoul-mid-2023-02-01 from 2023-02-01T04:00:00+09:00"), text)
        }
        XCTAssertThrowsError(try book.schedule(region: "seoul", taxiClass: "deluxe", at: seoul("2023-01-15T12:00"))) { e in
            XCTAssertTrue("\(e)".contains("seoul-deluxe-2023-02-01 from 2023-02-01T04:00:00+09:00"), "\(e)")
        }
    }

    /// A valid schedule file's text, to break one field at a time.
    static let validText = """
        {"region": "daegu", "taxi_class": "mid", "effective_from": "2023-07-01T04:00:00+09:00",
         "base_fare_krw": 4500, "base_distance_m": 2000, "distance_unit_m": 130, "distance_unit_krw": 100,
         "time_unit_s": 31, "time_unit_krw": 100, "speed_threshold_kmh": 15.1,
         "night_bands": [{"from": "00:00", "to": "04:00", "percent": 20}], "out_of_city_percent": 20,
         "surcharged_base_rounding_krw": 100, "rounding_krw": 100, "charging": "simultaneous", "source": "test"}
        """

    func testBadScheduleFilesAreRefusedNamingFileAndField() throws {
        XCTAssertNoThrow(try FareSchedule.parse(Self.validText, id: "daegu", file: "daegu.json"))
        let cases: [(String, String, String)] = [
            ("\"base_fare_krw\": 4500", "\"base_fare_krw\": 4500.5", "base_fare_krw"),
            ("\"base_fare_krw\": 4500,", "", "base_fare_krw"),
            ("\"charging\": \"simultaneous\"", "\"charging\": \"both\"", "charging"),
            ("\"effective_from\": \"2023-07-01T04:00:00+09:00\"", "\"effective_from\": \"July 2023\"", "effective_from"),
            ("\"percent\": 20}]", "\"percent\": 20}, {\"from\": \"03:00\", \"to\": \"05:00\", \"percent\": 30}]", "night_bands[1]"),
            ("\"from\": \"00:00\"", "\"from\": \"25:00\"", "night_bands[0].from"),
            ("\"distance_unit_m\": 130", "\"distance_unit_m\": -130", "distance_unit_m"),
            ("\"source\": \"test\"", "\"source\": \"test\", \"base_fare\": 1", "base_fare"),
            // 110 won raised by 20 % is 132 won, but by 25 % it would be 137.5 won.
            ("\"distance_unit_krw\": 100", "\"distance_unit_krw\": 110, \"combined_percent_cap\": 25", "distance_unit_krw"),
        ]
        for (old, new, field) in cases {
            let text = Self.validText.replacingOccurrences(of: old, with: new)
            XCTAssertNotEqual(text, Self.validText, "case \(field) did not change the text")
            do {
                let s = try FareSchedule.parse(text, id: "daegu", file: "data/fares/daegu.json")
                XCTFail("accepted a broken \(field): \(s)")
            } catch {
                XCTAssertEqual(error.field, field, error.description)
                XCTAssertTrue(error.description.hasPrefix("data/fares/daegu.json: field '\(field)'"), error.description)
            }
        }
        XCTAssertThrowsError(try FareSchedule.parse("{", id: "x", file: "x.json")) { e in
            XCTAssertTrue("\(e)".hasPrefix("x.json: not valid JSON"), "\(e)")
        }
    }

    func testAddingACityNeedsNoCode() throws {
        let dir = TestPaths.temporaryDirectory("fares")
        let source = TestPaths.dataDir.appendingPathComponent("fares")
        for name in try FileManager.default.contentsOfDirectory(atPath: source.path) {
            try FileManager.default.copyItem(at: source.appendingPathComponent(name), to: dir.appendingPathComponent(name))
        }
        try Self.validText.write(to: dir.appendingPathComponent("daegu-mid-2023-07-01.json"), atomically: true, encoding: .utf8)
        try "not a schedule".write(to: dir.appendingPathComponent("README.txt"), atomically: true, encoding: .utf8)
        let book = try FareScheduleBook.load(directory: dir.path)
        XCTAssertEqual(book.regions, ["busan", "daegu", "gyeonggi", "incheon", "seoul"])
        let s = try book.schedule(region: "daegu", taxiClass: "mid", at: seoul("2024-03-01T12:00"))
        let fare = try FareMeter(schedule: s).run([TripSegment(distanceM: 2000 + 130 * 10, durationS: 300, slowS: 0)],
                                                  departure: seoul("2024-03-01T12:00"))
        XCTAssertEqual(fare.totalKrw, 4500 + 10 * 100)

        // A broken file stops the load with its name and field.
        try Self.validText.replacingOccurrences(of: "\"rounding_krw\": 100", with: "\"rounding_krw\": \"100\"")
            .write(to: dir.appendingPathComponent("daegu-mid-2024-01-01.json"), atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try FareScheduleBook.load(directory: dir.path)) { e in
            let text = "\(e)"
            XCTAssertTrue(text.contains("daegu-mid-2024-01-01.json: field 'rounding_krw'"), text)
        }
        // Two schedules starting at the same instant are ambiguous.
        try Self.validText.write(to: dir.appendingPathComponent("daegu-mid-2024-01-01.json"), atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try FareScheduleBook.load(directory: dir.path)) { e in
            XCTAssertTrue("\(e)".contains("starts at the same instant"), "\(e)")
        }
        XCTAssertThrowsError(try FareScheduleBook.load(directory: dir.appendingPathComponent("missing").path))
    }

    func testRoundingHalfUpAtTheTenWonDigit() {
        XCTAssertEqual(KRWRounding.halfUp(4040, unit: 100), 4000)
        XCTAssertEqual(KRWRounding.halfUp(4049, unit: 100), 4000)
        XCTAssertEqual(KRWRounding.halfUp(4050, unit: 100), 4100)
        XCTAssertEqual(KRWRounding.halfUp(4000, unit: 100), 4000)
        XCTAssertEqual(KRWRounding.halfUp(5760, unit: 100), 5800)
        XCTAssertEqual(KRWRounding.halfUp(6720, unit: 100), 6700)
        XCTAssertEqual(KRWRounding.halfUp(1234, unit: 1), 1234)
    }
}

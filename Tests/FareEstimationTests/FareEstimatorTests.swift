import FareEstimation
import Fares
import Foundation
import Geo
import TestSupport
import XCTest

/// The calibration of data/traffic/profile.csv against the two official Seoul reference trips
/// (docs/FARES.md, docs/REFERENCE.md, "Fares"), with the slow time taken from the profile.
final class FareEstimatorTests: XCTestCase {
    func testReferenceTripsWithinFivePercent() throws {
        let estimator = FareData.estimator
        // Jonggak → Sinsa, about 7 km in daytime: 11,000 won. Off-peak departures, a Wednesday.
        for hour in 10...15 {
            let e = try estimator.estimate(FareRequest(distanceM: 7000, departure: seoul("2024-05-08T\(hour):00")))
            XCTAssertEqual(e.fare.scheduleID, "seoul-mid-2023-02-01")
            XCTAssertEqual(e.timing, "profile")
            XCTAssertGreaterThan(e.fare.timeUnits, 0, "time must be charged by day")
            XCTAssertEqual(Double(e.fare.totalKrw), 11_000, accuracy: 550, "daytime \(hour):00 → \(e.fare.totalKrw)")
        }
        // Jonggak → Gangnam, about 10 km at night (the 40 % band): 17,700 won.
        for clock in ["23:00", "23:30", "00:00", "00:30", "01:00"] {
            let day = clock.hasPrefix("0") ? "2024-05-09" : "2024-05-08"
            let e = try estimator.estimate(FareRequest(distanceM: 10_000, departure: seoul("\(day)T\(clock)")))
            XCTAssertEqual(e.fare.nightKrw > 0, true)
            XCTAssertEqual(Double(e.fare.totalKrw), 17_700, accuracy: 885, "night \(clock) → \(e.fare.totalKrw)")
        }
    }

    func testProfileTripsFollowTheClock() {
        let profile = FareData.profile
        let start = seoul("2024-05-08T13:50")
        let trip = ProfileTrip.segments(distanceM: 20_000, departure: start, profile: profile)
        XCTAssertEqual(trip.reduce(0) { $0 + $1.distanceM }, 20_000, accuracy: 1e-6)
        // The first segment ends at 14:00 and runs at the 13 h speed and slow share.
        let v13 = profile.speed(.primary, hour: 13) / 3.6
        XCTAssertEqual(trip[0].durationS, 600, accuracy: 1e-6)
        XCTAssertEqual(trip[0].distanceM, 600 * v13, accuracy: 1e-6)
        XCTAssertEqual(trip[0].slowS, 600 * profile.slow(.primary, hour: 13), accuracy: 1e-6)
        XCTAssertEqual(trip[1].distanceM / trip[1].durationS, profile.speed(.primary, hour: 14) / 3.6, accuracy: 1e-9)

        // A given duration spreads the distance evenly; the slow share still follows the hour.
        let timed = ProfileTrip.segments(distanceM: 12_000, durationS: 1200, departure: start, profile: profile)
        XCTAssertEqual(timed.count, 2)
        XCTAssertEqual(timed[0].distanceM, 6000, accuracy: 1e-6)
        XCTAssertEqual(timed[1].slowS, 600 * profile.slow(.primary, hour: 14), accuracy: 1e-6)

        // Slow time alone is spread over the profile's duration, and refused when longer.
        let slow = ProfileTrip.segments(distanceM: 5000, slowS: 100, departure: start, profile: profile)
        XCTAssertEqual(slow?.reduce(0) { $0 + $1.slowS } ?? -1, 100, accuracy: 1e-6)
        XCTAssertNil(ProfileTrip.segments(distanceM: 5000, slowS: 100_000, departure: start, profile: profile))
        XCTAssertEqual(ProfileTrip.segments(distanceM: 0, departure: start, profile: profile).count, 1)
    }

    func testEstimatorRefusesBadInputWithTheRightKind() {
        let est = FareData.estimator
        let t = seoul("2024-05-08T12:00")
        let cases: [(FareRequest, String, RequestField)] = [
            (FareRequest(distanceM: -1, departure: t), "invalid", .distance),
            (FareRequest(distanceM: .nan, departure: t), "invalid", .distance),
            (FareRequest(distanceM: 1_000_001, departure: t), "invalid", .distance),
            (FareRequest(distanceM: 1000, departure: t, riders: 0), "invalid", .riders),
            (FareRequest(distanceM: 1000, departure: t, riders: 11), "invalid", .riders),
            (FareRequest(distanceM: 1000, departure: t, region: "daegu"), "unknownRegion", .region),
            (FareRequest(distanceM: 1000, departure: t, taxiClass: "van"), "unknownTaxiClass", .taxiClass),
            (FareRequest(distanceM: 1000, departure: t, roundingKrw: 50), "invalid", .rounding),
            (FareRequest(distanceM: 1000, durationS: 100, slowS: 200, departure: t), "conflicting", .slowTime),
            (FareRequest(distanceM: 1000, durationS: -5, departure: t), "invalid", .duration),
            (FareRequest(distanceM: 1000, departure: seoul("2010-01-01T12:00")), "beforeOldestSchedule", .departure),
        ]
        for (request, expected, field) in cases {
            XCTAssertThrowsError(try est.estimate(request), field.description) { e in
                guard let e = e as? FareRequestError else { return XCTFail("\(e)") }
                XCTAssertEqual(e.caseName, expected, e.description)
                XCTAssertEqual(e.field, field, e.description)
            }
        }
        // Unknown values list the allowed ones; 422 lists the covered dates.
        XCTAssertThrowsError(try est.estimate(FareRequest(distanceM: 1000, departure: t, region: "daegu"))) { e in
            XCTAssertTrue("\(e)".contains("busan, gyeonggi, incheon, seoul"), "\(e)")
        }
        XCTAssertThrowsError(try est.estimate(FareRequest(distanceM: 1000, departure: seoul("2010-01-01T12:00")))) { e in
            XCTAssertTrue("\(e)".contains("2019-02-16T04:00:00+09:00"), "\(e)")
        }
    }
}

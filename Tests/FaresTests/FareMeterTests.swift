import Quoting
import FareEstimation
import Fares
import Routing
import Foundation
import Geo
import TestSupport
import XCTest

final class FareMeterTests: XCTestCase {
    let meter = FareMeter(schedule: FareData.seoulMid)
    let noon = seoul("2024-05-08T12:00")

    /// A trip at a steady pace with no slow time.
    func plain(_ distance: Double, seconds: Double = 600) -> [TripSegment] {
        [TripSegment(distanceM: distance, durationS: seconds, slowS: 0)]
    }

    func testBaseDistanceEdges() throws {
        XCTAssertEqual(try meter.run(plain(0), departure: noon).totalKrw, 4800)
        XCTAssertEqual(try meter.run(plain(1600), departure: noon).totalKrw, 4800)
        XCTAssertEqual(try meter.run(plain(1730), departure: noon).totalKrw, 4800)
        let one = try meter.run(plain(1731), departure: noon)
        XCTAssertEqual(one.totalKrw, 4900)
        XCTAssertEqual(one.distanceUnits, 1)
        XCTAssertEqual(try meter.run(plain(1861), departure: noon).totalKrw, 4900)
        XCTAssertEqual(try meter.run(plain(1862), departure: noon).totalKrw, 5000)
        // docs/FARES.md: 4,800 + 100 × floor((7,000 − 1,600) / 131) = 8,900 for 7 km, distance only.
        XCTAssertEqual(try meter.run(plain(7000), departure: noon).totalKrw, 8900)
        // Split into many segments, the same distance gives the same units.
        let pieces = (0..<70).map { _ in TripSegment(distanceM: 100, durationS: 10, slowS: 0) }
        XCTAssertEqual(try meter.run(pieces, departure: noon).totalKrw, 8900)
    }

    func testSlowTimeBeforeTheBaseDistanceIsNotCharged() throws {
        // 1,600 m in 10 minutes entirely slow: still the base fare.
        XCTAssertEqual(try meter.run([TripSegment(distanceM: 1600, durationS: 600, slowS: 600)], departure: noon).totalKrw, 4800)
        // After the base distance, 90 s slow = 3 time units on top of the distance units.
        let f = try meter.run([TripSegment(distanceM: 1600, durationS: 300, slowS: 0),
                               TripSegment(distanceM: 262, durationS: 120, slowS: 90)], departure: noon)
        XCTAssertEqual(f.distanceUnits, 2)
        XCTAssertEqual(f.timeUnits, 3)
        XCTAssertEqual(f.totalKrw, 4800 + 500)
    }

    func testBandEdgesOfTheBaseFareAndUnits() throws {
        let base: [(String, Int)] = [("21:59", 4800), ("22:00", 5800), ("22:59", 5800), ("23:00", 6700), ("01:59", 6700),
                                     ("02:00", 5800), ("03:59", 5800), ("04:00", 4800)]
        for (clock, fare) in base {
            let f = try meter.run(plain(500, seconds: 30), departure: seoul("2024-05-08T\(clock)"))
            XCTAssertEqual(f.totalKrw, fare, clock)
            XCTAssertEqual(f.nightKrw, fare - 4800, clock)
        }
        // One unit completing just after each edge is priced in the band the clock has entered:
        // the base distance is used up at once, then 131 m in the next 180 s (edge + 1 minute).
        let units: [(String, Int)] = [("21:58", 20), ("22:58", 40), ("01:58", 20), ("03:58", 0)]
        for (clock, night) in units {
            let start = seoul("2024-05-08T\(clock)")
            let trip = [TripSegment(distanceM: 1600, durationS: 0, slowS: 0), TripSegment(distanceM: 131, durationS: 180, slowS: 0)]
            let f = try meter.run(trip, departure: start)
            let baseNight = FareData.seoulMid.surchargedBaseFare(nightPercent: FareData.seoulMid.nightPercent(
                atSecondOfDay: Int(SeoulTime.secondOfDay(start)))) - 4800
            XCTAssertEqual(f.distanceUnits, 1, clock)
            XCTAssertEqual(f.nightKrw - baseNight, night, clock)
        }
    }

    func testARideCrossing2300SwitchesBandMidRide() throws {
        // 22:50, 20 minutes, 6,840 m at a steady 5.7 m/s with no slow time. The base distance
        // is used up at 22:54:40.7; at 23:00 the taxi is at 3,420 m, so units 1…13 (at
        // 1,600 + 131 k ≤ 3,420 m) are counted in the 20 % band and units 14…40 in the 40 % band.
        let f = try meter.run([TripSegment(distanceM: 6840, durationS: 1200, slowS: 0)], departure: seoul("2024-05-08T22:50"))
        XCTAssertEqual(f.distanceUnits, 40)
        XCTAssertEqual(f.nightKrw, 1000 + 13 * 20 + 27 * 40)
        XCTAssertEqual(f.distanceKrw, 4000)
        XCTAssertEqual(f.totalKrw, KRWRounding.halfUp(5800 + 13 * 120 + 27 * 140, unit: 100))
        // The same ride entirely before 22:00 or entirely in the 40 % band brackets it.
        let day = try meter.run([TripSegment(distanceM: 6840, durationS: 1200, slowS: 0)], departure: seoul("2024-05-08T20:00"))
        let deep = try meter.run([TripSegment(distanceM: 6840, durationS: 1200, slowS: 0)], departure: seoul("2024-05-08T23:10"))
        XCTAssertEqual(day.totalKrw, 8800)
        XCTAssertEqual(deep.totalKrw, KRWRounding.halfUp(6700 + 40 * 140, unit: 100))
        XCTAssertLessThan(day.totalKrw, f.totalKrw)
        XCTAssertLessThan(f.totalKrw, deep.totalKrw)

        // Through the estimator with given duration and slow time, as POST /v1/fare does.
        let e = try FareData.estimator.estimate(FareRequest(distanceM: 6840, durationS: 1200, slowS: 0, departure: seoul("2024-05-08T22:50")))
        XCTAssertEqual(e.fare, f)
        XCTAssertEqual(e.timing, "given")
    }

    func testRoundingAt40And50WonOnAMeter() throws {
        // Busan 00:00–02:00 is 30 %: base 4,800 × 1.3 = 6,240 → 6,200; units cost 130 won.
        let busan = FareMeter(schedule: FareData.schedule("busan-mid-2023-06-01"))
        let start = seoul("2024-05-09T00:30")
        let eight = try busan.run(plain(2000 + 132 * 8, seconds: 300), departure: start)
        XCTAssertEqual(eight.totalKrw, 7200)  // 6,200 + 8 × 130 = 7,240 → 7,200
        XCTAssertEqual(eight.roundingKrw, -40)
        let five = try busan.run(plain(2000 + 132 * 5, seconds: 300), departure: start)
        XCTAssertEqual(five.totalKrw, 6900)  // 6,200 + 5 × 130 = 6,850 → 6,900
        XCTAssertEqual(five.roundingKrw, 50)
        for f in [eight, five] { XCTAssertEqual(f.sumOfParts, f.totalKrw) }
    }

    func testSimultaneousAndMutualCharging() throws {
        let deluxe = FareData.schedule("seoul-deluxe-2023-02-01")
        let simultaneous = variant(of: deluxe, charging: .simultaneous)
        // The base distance at a steady pace, then 300 m crawled in 6 minutes (3 km/h, below 15.10 km/h).
        let trip = [TripSegment(distanceM: 3000, durationS: 300, slowS: 0), TripSegment(distanceM: 300, durationS: 360, slowS: 360)]
        let m = try FareMeter(schedule: deluxe).run(trip, departure: noon)
        let s = try FareMeter(schedule: simultaneous).run(trip, departure: noon)
        // Mutual: the crawl is charged by time only (10 × 36 s); simultaneous adds its 1 full distance unit.
        XCTAssertEqual(m.timeUnits, 10)
        XCTAssertEqual(m.distanceUnits, 0)
        XCTAssertEqual(m.totalKrw, 7000 + 10 * 200)
        XCTAssertEqual(s.timeUnits, 10)
        XCTAssertEqual(s.distanceUnits, 1)
        XCTAssertEqual(s.totalKrw, 7000 + 11 * 200)
        // A fast stretch (no slow time) costs the same under both rules.
        let fast = [TripSegment(distanceM: 3000 + 151 * 12, durationS: 400, slowS: 0)]
        XCTAssertEqual(try FareMeter(schedule: deluxe).run(fast, departure: noon).totalKrw,
                       try FareMeter(schedule: simultaneous).run(fast, departure: noon).totalKrw)
        // Mixed: slow seconds spread over a stretch take away half-threshold distance under mutual.
        let mixed = [TripSegment(distanceM: 3000, durationS: 300, slowS: 0), TripSegment(distanceM: 1510, durationS: 300, slowS: 120)]
        let mm = try FareMeter(schedule: deluxe).run(mixed, departure: noon)
        let slowDistance = 120 * 15.10 / 3.6 / 2
        XCTAssertEqual(mm.distanceUnits, Int(((1510 - slowDistance) / 151).rounded(.down)))
        XCTAssertEqual(mm.timeUnits, 3)
        XCTAssertEqual(try FareMeter(schedule: simultaneous).run(mixed, departure: noon).distanceUnits, 10)
    }

    func testOutOfCityStacksWithNightByAddition() throws {
        // 23:30: the base inside the city, then 10 units outside: 100 × (1 + 0.4 + 0.2) = 160 won each.
        let trip = [TripSegment(distanceM: 1600, durationS: 120, slowS: 0),
                    TripSegment(distanceM: 1310, durationS: 120, slowS: 0, outOfCity: true)]
        let f = try meter.run(trip, departure: seoul("2024-05-08T23:30"))
        XCTAssertEqual(f.distanceKrw, 1000)
        XCTAssertEqual(f.nightKrw, 1900 + 10 * 40)
        XCTAssertEqual(f.outOfCityKrw, 10 * 20)
        XCTAssertEqual(f.totalKrw, 6700 + 10 * 160)  // 8,300, not 6,700 + 10 × 168
        // In daytime the out-of-city units cost 120, and the base fare never carries it.
        let day = try meter.run(trip, departure: noon)
        XCTAssertEqual(day.totalKrw, 4800 + 10 * 120)
        XCTAssertEqual(day.outOfCityKrw, 200)
        // A schedule cap holds the sum down (Busan's 2017 rule of 40 % at most, as a variant).
        let busan = FareData.schedule("busan-mid-2023-06-01")
        let capped = variant(of: busan, combinedPercentCap: .some(40))
        let busanTrip = [TripSegment(distanceM: 2000, durationS: 60, slowS: 0),
                         TripSegment(distanceM: 1320, durationS: 60, slowS: 0, outOfCity: true)]
        let start = seoul("2024-05-09T00:30")  // 30 % band
        let open = try FareMeter(schedule: busan).run(busanTrip, departure: start)
        let held = try FareMeter(schedule: capped).run(busanTrip, departure: start)
        XCTAssertEqual(open.nightKrw - 1400, 10 * 30)
        XCTAssertEqual(open.outOfCityKrw, 10 * 30)
        XCTAssertEqual(held.nightKrw - 1400, 10 * 30)
        XCTAssertEqual(held.outOfCityKrw, 10 * 10)
    }

    func testTollsPassThroughUnroundedAndUnsurcharged() throws {
        let f = try meter.run(plain(7000), departure: seoul("2024-05-08T23:30"), tollKrw: 1234)
        let g = try meter.run(plain(7000), departure: seoul("2024-05-08T23:30"))
        XCTAssertEqual(f.totalKrw, g.totalKrw + 1234)
        XCTAssertEqual(f.tollKrw, 1234)
        XCTAssertEqual(f.nightKrw, g.nightKrw)
        XCTAssertThrowsError(try meter.run(plain(7000), departure: noon, tollKrw: -1))
    }

    func testPartsAlwaysAddUpAndLegsSumToTheMeter() throws {
        var rng = SplitMix64(seed: 7)
        let schedules = FareData.book.schedules
        for _ in 0..<500 {
            let schedule = schedules.randomElement(using: &rng)!
            var trip = [TripSegment]()
            var leg = 0
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                let d = Double.random(in: 0...4000, using: &rng)
                let t = Double.random(in: 0...900, using: &rng)
                trip.append(TripSegment(distanceM: d, durationS: t, slowS: Double.random(in: 0...1, using: &rng) * t,
                                        outOfCity: Bool.random(using: &rng), leg: leg))
                if Bool.random(using: &rng) { leg += 1 }
            }
            let start = Double.random(in: schedule.effectiveFrom...(schedule.effectiveFrom + 400 * 86_400), using: &rng)
            let toll = Bool.random(using: &rng) ? Int.random(in: 0...5000, using: &rng) : 0
            let f = try FareMeter(schedule: schedule).run(trip, departure: start, tollKrw: toll)
            XCTAssertEqual(f.sumOfParts, f.totalKrw)
            XCTAssertEqual(f.legKrw.reduce(0, +), f.totalKrw - f.roundingKrw - toll)
            XCTAssertEqual(f.meterKrw % schedule.roundingKrw, 0)
            XCTAssertGreaterThanOrEqual(f.meterKrw, schedule.baseFareKrw - schedule.roundingKrw / 2)
        }
    }

    func testBadSegmentsAreRefused() {
        let bad: [TripSegment] = [
            TripSegment(distanceM: -1, durationS: 10, slowS: 0),
            TripSegment(distanceM: .nan, durationS: 10, slowS: 0),
            TripSegment(distanceM: 10, durationS: .infinity, slowS: 0),
            TripSegment(distanceM: 10, durationS: 10, slowS: 20),
            TripSegment(distanceM: 10, durationS: 10, slowS: -1),
        ]
        for s in bad {
            XCTAssertThrowsError(try meter.run([s], departure: noon), "\(s)")
        }
        XCTAssertThrowsError(try meter.run([TripSegment(distanceM: 1, durationS: 1, slowS: 0, leg: 1),
                                            TripSegment(distanceM: 1, durationS: 1, slowS: 0, leg: 0)], departure: noon))
        XCTAssertThrowsError(try meter.run(plain(10), departure: .nan))
    }
}

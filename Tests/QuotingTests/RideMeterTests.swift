import FareEstimation
import Fares
import Geo
import Quoting
import Routing
import TestSupport
import XCTest

/// `RideMeter`: the one place a ride is metered (the origin's region → the schedule in force at
/// the departure → the meter along the route → the per-leg amounts), on the test dataset's
/// Seoul graph with the real region locator.
final class RideMeterTests: XCTestCase {
    let day = seoul("2024-05-08T14:00")

    /// Seoul Station → Itaewon → Jongno 5-ga → Jonggak: three legs.
    func route(_ engine: RideQuoter, departure: Double) throws -> RouteResult {
        try engine.routes.route(RouteRequest(from: QuoteFixture.seoulStation, to: QuoteFixture.jonggak,
                                             via: [QuoteFixture.itaewon, QuoteFixture.jongno5ga], departAt: departure))
    }

    func legs(_ route: RouteResult) -> [ArraySlice<RouteSegment>] {
        (0..<route.legs.count).map { i in ArraySlice(route.segments.filter { $0.legIndex == i }) }
    }

    func testPerLegAmountsSumToTheTotalAndArePaddedToTheLegsAsked() throws {
        let engine = try QuoteFixture.engine()
        let route = try route(engine, departure: day)
        XCTAssertEqual(route.legs.count, 3)
        let meter = try engine.rideMeter(at: QuoteFixture.seoulStation, field: .origin, taxiClass: "mid", departure: day)
        XCTAssertEqual(meter.region, "seoul")
        XCTAssertEqual(meter.schedule.id, try engine.fares.book.schedule(region: "seoul", taxiClass: "mid", at: day).id)
        let metered = try meter.run(.route(route), departure: day, tollKrw: 1800, legs: 5)
        let fare = metered.fare
        XCTAssertEqual(fare.legKrw.count, 5)
        XCTAssertEqual(Array(fare.legKrw[3...]), [0, 0], "legs past the route's last add nothing")
        XCTAssertTrue(fare.legKrw[0..<3].allSatisfy { $0 > 0 }, "\(fare.legKrw)")
        XCTAssertEqual(fare.legKrw.reduce(0, +), fare.totalKrw - fare.roundingKrw - fare.tollKrw)
        XCTAssertEqual(fare.tollKrw, 1800)
        // The meter ran along the route's own trip (the graph lies inside Seoul: nothing tested).
        let trip = RouteTrip.segments(route, departure: day, profile: engine.fares.profile, isOutside: nil)
        XCTAssertEqual(metered.trip, trip)
        XCTAssertEqual(fare, try FareMeter(schedule: meter.schedule).run(trip, departure: day, tollKrw: 1800).padded(5))
        // The route's legs handed over one by one meter the same.
        XCTAssertEqual(try meter.run(.legs(legs(route)), departure: day, tollKrw: 1800, legs: 5).fare, fare)
        // Fewer legs asked than the route has: none dropped.
        XCTAssertEqual(try meter.run(.route(route), departure: day, legs: 1).fare.legKrw.count, 3)
    }

    func testDrivenStretchesTakeTheirOwnTimeAndLeg() throws {
        let engine = try QuoteFixture.engine()
        let route = try route(engine, departure: day)
        let meter = try engine.rideMeter(at: QuoteFixture.seoulStation, field: .origin, taxiClass: "mid", departure: day)
        let parts = legs(route)
        let engineSeconds = parts.map { $0.reduce(0) { $0 + $1.durationSeconds } }
        // The first two legs driven in twice the engine's time, both counted towards meter leg 0.
        let driven = [DrivenStretch(segments: parts[0], seconds: 2 * engineSeconds[0], leg: 0),
                      DrivenStretch(segments: parts[1], seconds: 2 * engineSeconds[1], leg: 0),
                      DrivenStretch(segments: parts[2], seconds: engineSeconds[2], leg: 1)]
        let metered = try meter.run(.driven(driven), departure: day, legs: 3)
        XCTAssertEqual(metered.trip.count, route.segments.count)
        XCTAssertEqual(metered.trip.map(\.leg), parts[0].map { _ in 0 } + parts[1].map { _ in 0 } + parts[2].map { _ in 1 })
        let seconds = metered.trip.reduce(0) { $0 + $1.durationS }
        XCTAssertEqual(seconds, 2 * engineSeconds[0] + 2 * engineSeconds[1] + engineSeconds[2], accuracy: 1e-6)
        XCTAssertEqual(metered.fare.legKrw.count, 3)
        XCTAssertEqual(metered.fare.legKrw[2], 0)
        XCTAssertEqual(metered.fare.legKrw.reduce(0, +), metered.fare.totalKrw - metered.fare.roundingKrw)
        let asRouted = try meter.run(.route(route), departure: day).fare
        XCTAssertGreaterThan(metered.fare.timeUnits, asRouted.timeUnits, "twice the time: more slow time charged")
    }

    func testRegionOfTheOriginAndItsBoundary() throws {
        let engine = try QuoteFixture.engine()
        XCTAssertTrue(engine.graphInsideHomeRegion)
        // The origin's region picks the schedule.
        let busan = try engine.rideMeter(at: Coordinate(lon: 129.0414, lat: 35.1151), field: .origin, taxiClass: "mid", departure: day)
        XCTAssertEqual(busan.region, "busan")
        XCTAssertTrue(busan.schedule.id.hasPrefix("busan-"), busan.schedule.id)
        // A region without schedules (Daegu), and a point in none (at sea), named by the field.
        XCTAssertThrowsError(try engine.rideMeter(at: Coordinate(lon: 128.6014, lat: 35.8714), field: .source(2), taxiClass: "mid", departure: day)) {
            guard case .noScheduleForRegion(let field, let region, let allowed)? = $0 as? FareRequestError else { return XCTFail("\($0)") }
            XCTAssertEqual(field, .source(2))
            XCTAssertEqual(region, "daegu")
            XCTAssertTrue(allowed.contains("seoul"))
        }
        XCTAssertThrowsError(try engine.rideMeter(at: Coordinate(lon: 150, lat: 10), field: .source(1), taxiClass: "mid", departure: day)) {
            guard case .outsideFareRegions(let field, _)? = $0 as? FareRequestError else { return XCTFail("\($0)") }
            XCTAssertEqual(field, .source(1))
        }
        // A straight-line route from Seoul Station to Gwangmyeong (Gyeonggi) leaves Seoul: tested
        // segment by segment, those whose midpoint is outside Seoul's boundary are out of the city.
        let gwangmyeong = Coordinate(lon: 126.8848, lat: 37.4163)
        let meter = try engine.rideMeter(at: QuoteFixture.seoulStation, field: .origin, taxiClass: "mid", departure: day)
        let line = engine.routes.straightLineRoute(through: [QuoteFixture.seoulStation, gwangmyeong], departAt: day, level: .median)
        let tested = try meter.run(.route(line), departure: day, testEverySegment: true)
        let locator = try QuoteFixture.regions.get()
        let outside = line.segments.map { !locator.isInside(regionID: "seoul", Coordinate(lon: ($0.start.lon + $0.end.lon) / 2, lat: ($0.start.lat + $0.end.lat) / 2)) }
        XCTAssertTrue(outside.contains(true) && outside.contains(false), "the line crosses the boundary")
        XCTAssertEqual(tested.trip.map(\.outOfCity), outside)
        XCTAssertGreaterThan(tested.fare.outOfCityKrw, 0)
        // Untested (the graph lies inside Seoul), the same line carries no surcharge.
        let untested = try meter.run(.route(line), departure: day)
        XCTAssertFalse(untested.trip.contains { $0.outOfCity })
        XCTAssertEqual(untested.fare.outOfCityKrw, 0)
        // With a boundary the graph crosses, a route on the graph is tested without being asked.
        let west = try QuoteFixture.engine(regions: WestOfMeridian(lon: 126.99))
        let r = try route(west, departure: day)
        let crossing = try west.rideMeter(at: QuoteFixture.seoulStation, field: .origin, taxiClass: "mid", departure: day).run(.route(r), departure: day)
        XCTAssertEqual(crossing.trip.map(\.outOfCity), r.segments.map { ($0.start.lon + $0.end.lon) / 2 >= 126.99 })
        XCTAssertGreaterThan(crossing.fare.outOfCityKrw, 0)
    }

    func testNightSurchargeAndScheduleAreThoseOfTheDeparture() throws {
        let engine = try QuoteFixture.engine()
        let night = seoul("2024-05-08T23:30")
        let route = try route(engine, departure: day)
        let dayFare = try engine.rideMeter(at: QuoteFixture.seoulStation, field: .origin, taxiClass: "mid", departure: day)
            .run(.route(route), departure: day, legs: 3).fare
        let nightMeter = try engine.rideMeter(at: QuoteFixture.seoulStation, field: .origin, taxiClass: "mid", departure: night)
        let nightFare = try nightMeter.run(.route(route), departure: night, legs: 3).fare
        XCTAssertEqual(dayFare.nightKrw, 0)
        let percent = nightMeter.schedule.nightPercent(atSecondOfDay: 23 * 3600 + 30 * 60)
        XCTAssertGreaterThan(percent, 0)
        // The base fare raised by the night percent at the departure, on leg 0.
        let raisedBase = nightMeter.schedule.surchargedBaseFare(nightPercent: percent)
        XCTAssertGreaterThan(raisedBase, nightMeter.schedule.baseFareKrw)
        XCTAssertGreaterThanOrEqual(nightFare.nightKrw, raisedBase - nightMeter.schedule.baseFareKrw)
        XCTAssertGreaterThanOrEqual(nightFare.legKrw[0], raisedBase)
        XCTAssertGreaterThan(nightFare.totalKrw, dayFare.totalKrw)
        XCTAssertEqual(nightFare.legKrw.reduce(0, +), nightFare.totalKrw - nightFare.roundingKrw)
        // The schedule in force at the departure: an older one before the 2023 tariff.
        let old = try engine.rideMeter(at: QuoteFixture.seoulStation, field: .origin, taxiClass: "mid", departure: seoul("2022-05-08T14:00"))
        XCTAssertEqual(old.schedule.id, "seoul-mid-2019-02-16")
        XCTAssertNotEqual(nightMeter.schedule.id, old.schedule.id)
    }
}

private extension FareBreakdown {
    func padded(_ legs: Int) -> FareBreakdown {
        var f = self
        if f.legKrw.count < legs { f.legKrw += Array(repeating: 0, count: legs - f.legKrw.count) }
        return f
    }
}

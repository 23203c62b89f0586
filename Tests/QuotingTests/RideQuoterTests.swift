import Quoting
import FareEstimation
import Fares
import Foundation
import Geo
import Import
import Places
import Routing
import TestSupport
import XCTest

/// The shared test dataset's route engine (the prepared Seoul graph), with the real region locator.
enum QuoteFixture {
    static let routes: Result<RouteEngine, Error> = Result { try TestDataset.loaded.get().routes }
    static let regions: Result<RegionLocator, Error> = Result { try RegionLocator(dataDirectory: TestPaths.dataDir.path) }

    static func engine(regions custom: (any RegionLookup)? = nil) throws -> RideQuoter {
        RideQuoter(routes: try routes.get(), fares: FareData.estimator, regions: try custom ?? regions.get())
    }

    static let jonggak = Coordinate(lon: 126.9829, lat: 37.5700)
    static let seoulStation = Coordinate(lon: 126.9720, lat: 37.5547)
    static let itaewon = Coordinate(lon: 126.9945, lat: 37.5345)
    static let jongno5ga = Coordinate(lon: 127.0016, lat: 37.5709)
}

/// A test double for a city boundary: "seoul" is everything west of a meridian, so that a
/// real route across it has segments out of the city. Only for testing the out-of-city wiring.
struct WestOfMeridian: RegionLookup {
    let lon: Double
    func regionID(at point: Coordinate) -> String? { point.lon < lon ? "seoul" : "gyeonggi" }
    func isInside(regionID: String, _ point: Coordinate) -> Bool { (point.lon < lon) == (regionID == "seoul") }
}

final class RideQuoterTests: XCTestCase {
    func testQuoteMatchesTheMeterOnTheRoutesOwnDistanceAndSlowTime() throws {
        let engine = try QuoteFixture.engine()
        let profile = FareData.profile
        let locator = try QuoteFixture.regions.get()
        XCTAssertEqual(engine.homeRegion, "seoul")
        XCTAssertTrue(engine.graphInsideHomeRegion, "every node of the central-Seoul graph is in Seoul")
        // The prepared graph merges four separate areas, so about a quarter of the pairs have no
        // route (skipped): 60 pairs keep well over 100 comparisons.
        let pairs = RandomRoutes.pairs(engine.routes.graph, count: 60, seed: 11)
        var compared = 0
        for departure in [seoul("2024-05-08T14:00"), seoul("2024-05-08T23:40"), seoul("2024-05-09T03:55")] {
            for (a, b) in pairs {
                guard let route = try? engine.routes.route(RouteRequest(from: a, to: b, departAt: departure)) else { continue }
                let q = try engine.quote(QuoteRequest(origin: a, destination: b, departure: departure))
                XCTAssertEqual(q.region, "seoul")
                XCTAssertEqual(q.route.distanceMeters, route.distanceMeters)
                XCTAssertEqual(q.outOfCityM, 0, "central Seoul lies inside Seoul")
                // The engine skips the per-segment test for this graph; the midpoints are indeed inside.
                for s in route.segments {
                    XCTAssertTrue(locator.isInside(regionID: "seoul", Coordinate(lon: (s.start.lon + s.end.lon) / 2, lat: (s.start.lat + s.end.lat) / 2)))
                }

                // The meter run on the route's own segments, slow time from the profile by class
                // and the hour each segment is reached.
                var clock = SeoulTime.secondOfDay(departure)
                var own = [TripSegment]()
                for s in route.segments {
                    let hour = Int(clock / 3600) % 24
                    own.append(TripSegment(distanceM: s.distanceMeters, durationS: s.durationSeconds,
                                           slowS: s.durationSeconds * profile.slow(s.roadClass, hour: hour), leg: s.legIndex))
                    clock += s.durationSeconds
                }
                let expected = try FareMeter(schedule: FareData.seoulMid).run(own, departure: departure)
                XCTAssertEqual(q.fare, expected)

                // The fare-only estimate on the route's totals (slow time spread evenly) agrees
                // within a unit or two: only where the slow seconds fall around the base distance differs.
                let slow = own.reduce(0) { $0 + $1.slowS }
                XCTAssertEqual(q.slowS, slow, accuracy: 1e-6)
                let e = try FareData.estimator.estimate(FareRequest(distanceM: route.distanceMeters, durationS: route.durationSeconds,
                                                                    slowS: slow, departure: departure))
                XCTAssertEqual(Double(e.fare.totalKrw), Double(q.fare.totalKrw), accuracy: 400, "\(a) → \(b)")
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 100)
    }

    func testOutOfCityStretchesAlongTheRoute() throws {
        // Seoul Station → Jongno 5-ga runs north-east across lon 126.99: with the boundary there,
        // the stretch east of it is out of the city and carries the surcharge.
        let engine = try QuoteFixture.engine(regions: WestOfMeridian(lon: 126.99))
        XCTAssertFalse(engine.graphInsideHomeRegion)
        let q = try engine.quote(QuoteRequest(origin: QuoteFixture.seoulStation, destination: QuoteFixture.jongno5ga,
                                              departure: seoul("2024-05-08T14:00")))
        XCTAssertEqual(q.region, "seoul")
        let east = q.route.segments.filter { ($0.start.lon + $0.end.lon) / 2 >= 126.99 }.reduce(0) { $0 + $1.distanceMeters }
        XCTAssertGreaterThan(east, 1000)
        XCTAssertEqual(q.outOfCityM, east, accuracy: 1e-6)
        XCTAssertGreaterThan(q.fare.outOfCityKrw, 0)
        XCTAssertEqual(q.fare.outOfCityKrw % 20, 0)  // 20 % of 100-won units
        let inside = try QuoteFixture.engine().quote(QuoteRequest(origin: QuoteFixture.seoulStation, destination: QuoteFixture.jongno5ga,
                                                                  departure: seoul("2024-05-08T14:00")))
        XCTAssertEqual(inside.fare.outOfCityKrw, 0)
        XCTAssertEqual(q.fare.totalKrw - q.fare.roundingKrw, inside.fare.totalKrw - inside.fare.roundingKrw + q.fare.outOfCityKrw)
    }

    func testPooledRideWithDropOffsAndEverySplit() throws {
        let engine = try QuoteFixture.engine()
        let departure = seoul("2024-05-08T22:30")
        let drops = [DropOff(coordinate: QuoteFixture.seoulStation, riders: 2), DropOff(coordinate: QuoteFixture.itaewon, riders: 1)]
        for policy in SplitPolicy.allCases {
            for unit in [10, 100] {
                let q = try engine.quote(QuoteRequest(origin: QuoteFixture.jonggak, destination: QuoteFixture.jongno5ga, dropOffs: drops,
                                                      riders: 5, departure: departure, split: policy, roundingKrw: unit))
                XCTAssertEqual(q.route.legs.count, 3)
                XCTAssertEqual(q.riderDropOffs, [nil, nil, 0, 0, 1])
                XCTAssertEqual(q.split.reduce(0, +), q.fare.totalKrw, "\(policy)")
                XCTAssertTrue(q.split.allSatisfy { $0 >= 0 })
                XCTAssertTrue(q.split.dropFirst().allSatisfy { $0 % unit == 0 })
                XCTAssertEqual(q.fare.legKrw.count, 3)
                XCTAssertGreaterThan(q.fare.nightKrw, 0)
                if policy == .proportional {
                    // Solo fares are the fares of the direct routes from the origin to each stop.
                    let solos = try XCTUnwrap(q.soloFaresKrw)
                    for (i, target) in [(0, QuoteFixture.jongno5ga), (2, QuoteFixture.seoulStation), (4, QuoteFixture.itaewon)] {
                        let alone = try engine.quote(QuoteRequest(origin: QuoteFixture.jonggak, destination: target, departure: departure))
                        XCTAssertEqual(solos[i], alone.fare.totalKrw)
                    }
                } else {
                    XCTAssertNil(q.soloFaresKrw)
                }
                if policy == .byLeg {
                    // The two riders at Seoul Station owe the same exact share, so they pay the
                    // same or (a leftover unit in drop-off order, docs/FARES.md) the first one unit
                    // more; less than those riding on.
                    XCTAssertTrue([0, unit].contains(q.split[2] - q.split[3]), "\(q.split)")
                    XCTAssertLessThan(q.split[2], q.split[1])
                }
            }
        }
    }

    func testQuoteBadInput() throws {
        let engine = try QuoteFixture.engine()
        let t = seoul("2024-05-08T12:00")
        let a = QuoteFixture.jonggak, b = QuoteFixture.seoulStation
        let cases: [(QuoteRequest, String, RequestField?)] = [
            (QuoteRequest(origin: a, destination: b, riders: 11, departure: t), "invalid", .riders),
            (QuoteRequest(origin: a, destination: b, riders: 0, departure: t), "invalid", .riders),
            (QuoteRequest(origin: a, destination: b, dropOffs: [DropOff(coordinate: b, riders: 2)], riders: 2, departure: t),
             "conflicting", .riders),
            (QuoteRequest(origin: a, destination: b, dropOffs: [DropOff(coordinate: b, riders: 0)], departure: t),
             "invalid", .dropOffRiders(0)),
            (QuoteRequest(origin: a, destination: b, departure: t, taxiClass: "van"), "unknownTaxiClass", .taxiClass),
            (QuoteRequest(origin: a, destination: b, departure: seoul("2010-01-01T12:00")), "beforeOldestSchedule", .departure),
            (QuoteRequest(origin: a, destination: Coordinate(lon: 126.90, lat: 37.60), departure: t), "outsideCoverage", .destination),
            (QuoteRequest(origin: a, destination: b, dropOffs: [DropOff(coordinate: Coordinate(lon: 127.2, lat: 37.3))], departure: t),
             "outsideCoverage", .dropOff(0)),
            (QuoteRequest(origin: Coordinate(lon: 150, lat: 10), destination: b, departure: t), "outsideFareRegions", .origin),
            (QuoteRequest(origin: a, destination: b, departure: t, roundingKrw: 1), "invalid", .rounding),
        ]
        for (request, expected, field) in cases {
            XCTAssertThrowsError(try engine.quote(request), expected) { e in
                guard let e = e as? FareRequestError else { return XCTFail("\(e)") }
                XCTAssertEqual(e.caseName, expected, e.description)
                XCTAssertEqual(e.field, field, e.description)
            }
        }
    }

    func testDatasetLoadsAPreparedFolderAndNamesMissingFiles() throws {
        let fm = FileManager.default
        let dir = TestPaths.temporaryDirectory("dataset")
        for item in try fm.contentsOfDirectory(atPath: TestPaths.dataDir.path) where item != "build" {
            try fm.createSymbolicLink(at: dir.appendingPathComponent(item), withDestinationURL: TestPaths.dataDir.appendingPathComponent(item))
        }
        let build = dir.appendingPathComponent("build")
        try fm.createDirectory(at: build, withIntermediateDirectories: true)
        XCTAssertThrowsError(try Dataset(directory: dir.path)) { e in
            let text = "\(e)"
            XCTAssertTrue(text.contains("build/seoul.graph") && text.contains("make data"), text)
        }
        let prepared = try TestDataset.built.get()
        try fm.copyItem(atPath: prepared.graphPath, toPath: build.appendingPathComponent("seoul.graph").path)
        XCTAssertThrowsError(try Dataset(directory: dir.path)) { e in
            let text = "\(e)"
            XCTAssertTrue(text.contains("build/places.db") && text.contains("make data"), text)
        }
        try fm.copyItem(atPath: prepared.placesPath, toPath: build.appendingPathComponent("places.db").path)
        // Its own load: loading a prepared folder is what this test checks.
        let dataset = try Dataset(directory: dir.path)
        let q = try dataset.quotes.quote(QuoteRequest(origin: QuoteFixture.jonggak, destination: QuoteFixture.itaewon,
                                                      riders: 2, departure: seoul("2024-05-08T09:00")))
        XCTAssertEqual(q.region, "seoul")
        XCTAssertEqual(q.split.reduce(0, +), q.fare.totalKrw)
        XCTAssertGreaterThan(q.fare.totalKrw, 4800)
    }
}

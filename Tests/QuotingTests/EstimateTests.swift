import Quoting
import FareEstimation
import Fares
import Foundation
import Geo
import Places
import Routing
import TestSupport
import XCTest

/// Straight-line estimates for trips the served graph cannot route: asked for, labelled, and
/// close to the routed fare where both exist.
final class EstimateTests: XCTestCase {
    /// Quotes over the embedded default graph (the four staged Seoul extracts).
    static let engine: Result<RideQuoter, Error> = Result {
        let dataset = try TestDataset.built.get()
        let routes = RouteEngine(graph: try RoadGraph.load(path: dataset.graphPath), profile: FareData.profile)
        return RideQuoter(routes: routes, fares: FareData.estimator, regions: try QuoteFixture.regions.get())
    }

    static let gangnamStation = Coordinate(lon: 127.0276, lat: 37.4979)
    static let hongikStation = Coordinate(lon: 126.9237, lat: 37.5572)

    /// Gangnam station → Hongik Univ. station: outside every staged extract (Gangnam is about
    /// 4 km from the nearest served road; Hongdae lies north of the Yeouido extract).
    func testGangnamToHongdaeIsRefusedWithoutEstimateAndLabelledWithIt() throws {
        let engine = try Self.engine.get()
        let t = seoul("2024-05-08T10:00")
        XCTAssertThrowsError(try engine.quote(QuoteRequest(origin: Self.gangnamStation, destination: Self.hongikStation, departure: t))) { e in
            guard let e = e as? FareRequestError else { return XCTFail("\(e)") }
            guard case .route(.outsideCoverage(.origin, _, _, _, nil)) = e else { return XCTFail("\(e)") }
            XCTAssertEqual(e.field, .origin)
            XCTAssertTrue(e.description.contains("km away"), e.description)
        }
        let q = try engine.quote(QuoteRequest(origin: Self.gangnamStation, destination: Self.hongikStation, departure: t, allowEstimate: true))
        let label = try XCTUnwrap(q.estimate, "an estimate always carries its label")
        XCTAssertEqual(label.method, "straight_line")
        guard case .outsideCoverage(.origin, _, _, _, _)? = label.reason else { return XCTFail("\(String(describing: label.reason))") }
        XCTAssertEqual(label.straightMeters, Self.gangnamStation.distance(to: Self.hongikStation), accuracy: 1)
        XCTAssertGreaterThan(label.circuity, 1.1)
        XCTAssertEqual(q.route.distanceMeters, label.straightMeters * label.circuity, accuracy: 1)
        XCTAssertLessThanOrEqual(label.fareLowKrw, q.fare.totalKrw)
        XCTAssertGreaterThanOrEqual(label.fareHighKrw, q.fare.totalKrw)
        XCTAssertLessThan(label.fareLowKrw, label.fareHighKrw)
        XCTAssertEqual(q.region, "seoul")
        XCTAssertEqual(q.schedule.id, "seoul-mid-2023-02-01")
        XCTAssertGreaterThan(q.fare.totalKrw, 12_000)
        XCTAssertLessThan(q.fare.totalKrw, 30_000)
        XCTAssertEqual(q.route.settledNodes, 0, "no graph search behind an estimate")
    }

    /// A routable trip never gets an estimate, even when one is allowed.
    func testRoutableTripIsRouted() throws {
        let engine = try Self.engine.get()
        let q = try engine.quote(QuoteRequest(origin: QuoteFixture.jonggak, destination: QuoteFixture.seoulStation,
                                              departure: seoul("2024-05-08T10:00"), allowEstimate: true))
        XCTAssertNil(q.estimate)
        XCTAssertGreaterThan(q.route.settledNodes, 0)
    }

    /// A Busan trip is priced with Busan's meter (the region follows the points).
    func testBusanTripUsesBusanMeter() throws {
        let engine = try Self.engine.get()
        let busanStation = Coordinate(lon: 129.0414, lat: 35.1151), haeundae = Coordinate(lon: 129.1586, lat: 35.1631)
        let q = try engine.quote(QuoteRequest(origin: busanStation, destination: haeundae, departure: seoul("2024-05-08T10:00"),
                                              allowEstimate: true))
        XCTAssertEqual(q.region, "busan")
        XCTAssertTrue(q.schedule.id.hasPrefix("busan"), q.schedule.id)
        XCTAssertNotNil(q.estimate)
    }

    /// On routable pairs of the served graph: the estimate's range holds the routed fare for at
    /// least 80% of pairs, and the estimate's median error is at most 12%.
    func testEstimateAgreesWithRoutedFares() throws {
        let engine = try Self.engine.get()
        let graph = engine.routes.graph
        var rng = SplitMix64(seed: 24)
        var inRange = 0, pairs = 0
        var errors: [Double] = []
        let hours = ["03:00", "08:30", "13:00", "18:30", "23:00"]
        while pairs < 300 {
            let u = Int(rng.next() % UInt64(graph.nodeCount)), v = Int(rng.next() % UInt64(graph.nodeCount))
            guard graph.area(ofNode: u) == graph.area(ofNode: v) else { continue }
            let a = graph.coordinate(ofNode: u), b = graph.coordinate(ofNode: v)
            guard a.distance(to: b) >= 500 else { continue }
            let request = QuoteRequest(origin: a, destination: b, departure: seoul("2024-05-08T" + hours[pairs % hours.count]))
            guard let routed = try? engine.quote(request) else { continue }
            let estimated = try engine.estimate(request)
            let label = try XCTUnwrap(estimated.estimate)
            XCTAssertNil(label.reason, "asked for, not forced by coverage")
            pairs += 1
            if (label.fareLowKrw...label.fareHighKrw).contains(routed.fare.totalKrw) { inRange += 1 }
            errors.append(abs(Double(estimated.fare.totalKrw - routed.fare.totalKrw)) / Double(routed.fare.totalKrw))
        }
        errors.sort()
        let coverage = Double(inRange) / Double(pairs), median = errors[errors.count / 2], p90 = errors[errors.count * 9 / 10]
        print(String(format: "estimate vs routed fare over %d pairs: range holds %.1f%%, median error %.1f%%, p90 error %.1f%%",
                     pairs, coverage * 100, median * 100, p90 * 100))
        XCTAssertGreaterThanOrEqual(coverage, 0.8)
        XCTAssertLessThanOrEqual(median, 0.12)
    }
}

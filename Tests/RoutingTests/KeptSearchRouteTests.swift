import Foundation
import Geo
@testable import Routing
import TestSupport
import XCTest

/// Routes read from kept searches (`RouteEngine.route(from:to:)`, what matching prices its legs
/// with) against the single route between the same snapped points: the same route, segment
/// for segment, at every hour, with points snapped mid-edge (several ways of standing on a road).
final class KeptSearchRouteTests: XCTestCase {
    func testRoutesFromKeptSearchesEqualTheSingleRoute() throws {
        let engine = try SeoulFixture.engine()
        var rng = SplitMix64(seed: 35)
        let day = SeoulTime.parse("2025-05-02T00:00:00+09:00")!
        func point() -> SnappedPoint? {
            let c = engine.graph.coordinate(ofNode: Int(rng.next() % UInt64(engine.graph.nodeCount)))
            return engine.snap(c.offset(eastMeters: Double(rng.next() % 81) - 40, northMeters: Double(rng.next() % 81) - 40))
        }
        var compared = 0, fromSpaces = 0
        for i in 0..<600 {
            let hour = i % 24
            let at = day + Double(hour) * 3600 + 900
            guard let a = point(), let b = point() else { continue }
            // Some legs share the point's edge (the route along one edge).
            let c = i % 10 == 0 ? engine.snap(a.coordinate.offset(eastMeters: 15, northMeters: 0)) ?? b : b
            let source = try XCTUnwrap(engine.searchSpace(a, hour: hour, direction: .forward))
            let destination = try XCTUnwrap(engine.searchSpace(c, hour: hour, direction: .backward))
            let reference = try? engine.route(through: [a, c], departAt: at)
            let kept = engine.route(from: source, to: destination)
            guard a.areas.count == 1, a.areas == c.areas else {
                XCTAssertNil(kept, "pair \(i): points of several areas are routed, not read")
                continue
            }
            XCTAssertEqual(kept?.segments, reference?.segments, "pair \(i) at \(hour) h")
            XCTAssertEqual(kept?.weight, reference?.weight, "pair \(i) at \(hour) h")
            XCTAssertEqual(kept?.distanceMeters, reference?.distanceMeters, "pair \(i) at \(hour) h")
            XCTAssertEqual(kept?.durationSeconds, reference?.durationSeconds, "pair \(i) at \(hour) h")
            XCTAssertEqual(kept?.geometry, reference?.geometry, "pair \(i) at \(hour) h")
            compared += 1
            if kept != nil { fromSpaces += 1 }
        }
        XCTAssertGreaterThan(compared, 500)
        XCTAssertGreaterThan(fromSpaces, 500)
    }
}

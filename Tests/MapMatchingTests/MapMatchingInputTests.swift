import Foundation
import Geo
@testable import MapMatching
import Routing
import TestSupport
import XCTest

/// Bad traces: a clear error naming the fix, or a partial matching with the reason.
final class MapMatchingInputTests: XCTestCase {
    var matcher: MapMatcher { get throws { MapMatcher(engine: try MatchFixture.engine.get()) } }

    func clean(_ seed: UInt64 = 3, interval: Double = 5) throws -> [TraceFix] {
        let engine = try MatchFixture.engine.get()
        let r = try XCTUnwrap(MatchFixture.routes(engine, count: 1, seed: seed).first)
        return SyntheticTrace.make(r, intervalSeconds: interval, noiseMeters: 5, start: MatchFixture.start, seed: seed)
    }

    func error(_ trace: [TraceFix], options: MatchOptions = MatchOptions()) throws -> MatchError? {
        do { _ = try matcher.match(trace, options: options); return nil } catch let e as MatchError { return e }
    }

    func testTooFewAndTooManyFixes() throws {
        let trace = try clean()
        XCTAssertEqual(try error([]), .tooFewFixes(count: 0))
        XCTAssertEqual(try error([trace[0]]), .tooFewFixes(count: 1))
        let many = Array(repeating: trace[0], count: 100_000)
        XCTAssertEqual(try error(many), .tooManyFixes(count: 100_000, limit: MatchOptions.maxFixes))
    }

    func testTimesMustBeAllOrNoneAndNotDecrease() throws {
        var trace = try clean()
        trace[4].time = nil
        XCTAssertEqual(try error(trace), .missingTime(index: 4))
        trace = try clean()
        trace[6].time = trace[5].time! - 1
        XCTAssertEqual(try error(trace), .timeGoesBack(index: 6, previous: trace[5].time!, time: trace[6].time!))
        trace = try clean()
        trace[2].time = .nan
        XCTAssertEqual(try error(trace), .invalidTime(index: 2))
        // No times at all is fine.
        XCTAssertFalse(try matcher.match(try clean().map { TraceFix($0.coordinate) }).matchings.isEmpty)
    }

    func testNaNCoordinateAndAccuracy() throws {
        var trace = try clean()
        trace[3].coordinate = Coordinate(lon: .nan, lat: 37.5)
        XCTAssertEqual(try error(trace), .invalidCoordinate(index: 3))
        trace = try clean()
        trace[1].accuracyMeters = -2
        XCTAssertEqual(try error(trace), .invalidAccuracy(index: 1))
    }

    /// Fixes out of any road's reach are left unmatched with their reason; the rest is matched.
    func testFixesOutsideCoverageAreUnmatched() throws {
        var trace = try clean()
        trace[5].coordinate = Coordinate(lon: 129.5, lat: 35.0)
        let result = try matcher.match(trace)
        guard case .failure(let u) = result.fixes[5] else { return XCTFail("fix 5 matched") }
        XCTAssertEqual(u.reason, .noRoadNearby)
        XCTAssertNotNil(result.matched(4))
        XCTAssertNotNil(result.matched(6))
    }

    func testTraceFarFromRoadsIsNoMatch() throws {
        let trace = (0..<10).map { TraceFix(Coordinate(lon: 126.0 + Double($0) * 0.001, lat: 36.0), time: MatchFixture.start + Double($0)) }
        guard case .noMatch = try XCTUnwrap(try error(trace)) else { return XCTFail("not noMatch") }
    }

    /// A car standing still (the same fix repeated) is matched, with no length made up.
    func testDuplicateFixes() throws {
        let trace = try clean()
        let still = (0..<30).map { TraceFix(trace[3].coordinate, time: MatchFixture.start + Double($0)) }
        let result = try matcher.match(still)
        XCTAssertEqual(result.matchings.count, 1)
        XCTAssertLessThan(result.matchings[0].distanceMeters, 1)
        let doubled = trace.flatMap { [$0, $0] }
        XCTAssertEqual(try matcher.match(doubled).matchings.reduce(0) { $0 + $1.distanceMeters },
                       try matcher.match(trace).matchings.reduce(0) { $0 + $1.distanceMeters }, accuracy: 1)
    }
}

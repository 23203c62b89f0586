import Foundation
import Geo
@testable import MapMatching
import Routing
import TestSupport
import XCTest

/// The central-Seoul engine of the shared test dataset.
enum MatchFixture {
    static let engine: Result<RouteEngine, Error> = Result {
        let built = try TestDataset.built.get()
        return RouteEngine(graph: try RoadGraph.load(path: built.graphPath), profile: try TrafficProfile.load(path: TestPaths.dataDir.appendingPathComponent("traffic/profile.csv").path))
    }
    /// A weekday 10:00 in Seoul (Unix seconds).
    static let start = 1_764_637_200.0

    /// `count` routes between random junctions, 1.5–8 km long.
    static func routes(_ engine: RouteEngine, count: Int, seed: UInt64) -> [RouteResult] {
        var out: [RouteResult] = []
        for (a, b) in RandomRoutes.pairs(engine.graph, count: count * 6, seed: seed) where out.count < count {
            guard let r = try? engine.route(RouteRequest(from: a, to: b, departAt: start)),
                  r.distanceMeters >= 1500, r.distanceMeters <= 8000 else { continue }
            out.append(r)
        }
        return out
    }
}

final class MapMatchingAccuracyTests: XCTestCase {
    /// Synthetic traces of real routes (1 s and 10 s sampling, σ 5–30 m, some with a tunnel
    /// gap): the matched length is within 2% of the driven length for nearly all of them.
    func testMatchedLengthFollowsTheDrivenRoute() throws {
        let engine = try MatchFixture.engine.get()
        let matcher = MapMatcher(engine: engine)
        let routes = MatchFixture.routes(engine, count: 30, seed: 38)
        XCTAssertEqual(routes.count, 30)
        var within = 0
        var report: [String] = []
        for (n, r) in routes.enumerated() {
            let interval = n % 2 == 0 ? 1.0 : 10.0
            let noise = [5.0, 10, 20, 30][n % 4]
            let gaps: [(at: Double, seconds: Double)] = n % 5 == 4 ? [(0.5, 40)] : []
            let trace = SyntheticTrace.make(r, intervalSeconds: interval, noiseMeters: noise, start: MatchFixture.start, seed: UInt64(n), gaps: gaps)
            let result = try matcher.match(trace)
            let matched = result.matchings.reduce(0) { $0 + $1.distanceMeters }
            // A gap's missing stretch is bridged: the matchings plus the straight line across it.
            var bridged = matched
            for m in 1..<max(1, result.matchings.count) {
                let a = result.matchings[m - 1].pieces.last!.snapped.last!, b = result.matchings[m].pieces.first!.snapped.first!
                bridged += (try? engine.route(RouteRequest(from: a, to: b, departAt: MatchFixture.start, maxSnapMeters: 1)).distanceMeters) ?? 0
            }
            let error = abs(bridged - r.distanceMeters) / r.distanceMeters
            if error <= 0.02 { within += 1 }
            report.append(String(format: "%2d: %5.0f m, %2.0f s, σ %2.0f m, %d matchings, error %.2f%%", n, r.distanceMeters, interval, noise, result.matchings.count, error * 100))
        }
        print(report.joined(separator: "\n"))
        XCTAssertGreaterThanOrEqual(within, 27, report.joined(separator: "\n"))
    }

    /// A clean 1 Hz trace of a route is matched to that route: every waypoint on the road it was
    /// driven on, one matching, confidence near 1.
    func testCleanTraceIsTheRoute() throws {
        let engine = try MatchFixture.engine.get()
        let r = try XCTUnwrap(MatchFixture.routes(engine, count: 1, seed: 7).first)
        let trace = SyntheticTrace.make(r, intervalSeconds: 1, noiseMeters: 0, start: MatchFixture.start, seed: 1)
        let result = try MapMatcher(engine: engine).match(trace)
        XCTAssertEqual(result.matchings.count, 1)
        XCTAssertEqual(result.matchings[0].distanceMeters, r.distanceMeters, accuracy: r.distanceMeters * 0.005)
        XCTAssertGreaterThan(result.matchings[0].confidence, 0.95)
        // Waypoints stand on the road; fixes between them are projected onto the chord of a road
        // segment (a curved edge's chord is a few metres off the curve).
        for i in trace.indices {
            let m = try XCTUnwrap(result.matched(i))
            XCTAssertLessThan(m.distanceMeters, m.waypointIndex == nil ? 5 : 1, "fix \(i)")
        }
    }

    /// Dense noisy traces (1 Hz, σ 20 m): single fixes 40 m off are common at that σ and each
    /// could pull the route onto the other carriageway or round a block; averaged with their
    /// neighbours (`smoothingSeconds`) they do not. Without the averaging (and with β not growing
    /// with σ, and 12 candidates per fix) 10 of these 20 traces were within 2%; now 19.
    func testDenseNoisyTracesFollowTheDrivenRoute() throws {
        let engine = try MatchFixture.engine.get()
        let matcher = MapMatcher(engine: engine)
        let routes = MatchFixture.routes(engine, count: 20, seed: 20)
        XCTAssertEqual(routes.count, 20)
        var within = 0
        var report: [String] = []
        for (n, r) in routes.enumerated() {
            let trace = SyntheticTrace.make(r, intervalSeconds: 1, noiseMeters: 20, start: MatchFixture.start, seed: 500 + UInt64(n))
            let matched = try matcher.match(trace).matchings.reduce(0) { $0 + $1.distanceMeters }
            let error = abs(matched - r.distanceMeters) / r.distanceMeters
            if error <= 0.02 { within += 1 }
            report.append(String(format: "%2d: %5.0f m, error %.2f%%", n, r.distanceMeters, error * 100))
        }
        XCTAssertGreaterThanOrEqual(within, 18, report.joined(separator: "\n"))
    }

    /// The averaging leaves sparse and precise traces alone, and keeps each fix's own distance to
    /// its road point (not the average's).
    func testSmoothingOnlyTouchesDenseNoisyFixes() throws {
        let fixes = (0..<5).map { TraceFix(Coordinate(lon: 127 + Double($0) * 1e-4, lat: 37.5 + ($0 % 2 == 0 ? 2e-4 : -2e-4)), time: Double($0), accuracyMeters: 20) }
        let o = MatchOptions()
        let smoothed = MapMatcher.smoothed(fixes, o)
        // The middle fix: the mean of all five (a symmetric window).
        XCTAssertEqual(smoothed[2].coordinate.lat, 37.5 + 0.4e-4, accuracy: 1e-9)
        XCTAssertEqual(smoothed[2].coordinate.lon, 127 + 2e-4, accuracy: 1e-9)
        XCTAssertEqual(smoothed[2].accuracyMeters!, 20 / 5.0.squareRoot(), accuracy: 1e-9)
        // The ends: the line fitted through all five, at their times (the window shifted inwards).
        let ts = (0..<5).map(Double.init), lats = fixes.map(\.coordinate.lat)
        let slope = zip(ts, lats).reduce(0) { $0 + ($1.0 - 2) * ($1.1 - lats.reduce(0, +) / 5) } / 10
        XCTAssertEqual(smoothed[0].coordinate.lat, lats.reduce(0, +) / 5 - 2 * slope, accuracy: 1e-9)
        XCTAssertEqual(smoothed[4].coordinate.lat, lats.reduce(0, +) / 5 + 2 * slope, accuracy: 1e-9)
        XCTAssertEqual(smoothed[0].coordinate.lon, 127, accuracy: 1e-9)
        XCTAssertEqual(smoothed[0].accuracyMeters!, 20 * (1 / 5.0 + 4 / 10.0).squareRoot(), accuracy: 1e-9)
        // Precise fixes, untimed fixes and 10 s sampling: left as they are.
        XCTAssertEqual(MapMatcher.smoothed(fixes.map { TraceFix($0.coordinate, time: $0.time, accuracyMeters: 5) }, o).map(\.coordinate), fixes.map(\.coordinate))
        XCTAssertEqual(MapMatcher.smoothed(fixes.map { TraceFix($0.coordinate, accuracyMeters: 20) }, o).map(\.coordinate), fixes.map(\.coordinate))
        XCTAssertEqual(MapMatcher.smoothed(fixes.map { TraceFix($0.coordinate, time: $0.time! * 10, accuracyMeters: 20) }, o).map(\.coordinate), fixes.map(\.coordinate))
    }

    /// A gap longer than the limit splits the trace into two matchings; `splitGaps = false`
    /// keeps one.
    func testGapSplitsTheTrace() throws {
        let engine = try MatchFixture.engine.get()
        let r = try XCTUnwrap(MatchFixture.routes(engine, count: 1, seed: 11).first)
        let trace = SyntheticTrace.make(r, intervalSeconds: 5, noiseMeters: 5, start: MatchFixture.start, seed: 2, gaps: [(0.5, 90)])
        XCTAssertEqual(try MapMatcher(engine: engine).match(trace).matchings.count, 2)
        var o = MatchOptions()
        o.splitGaps = false
        XCTAssertEqual(try MapMatcher(engine: engine).match(trace, options: o).matchings.count, 1)
    }
}

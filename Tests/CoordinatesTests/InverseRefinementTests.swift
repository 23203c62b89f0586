@testable import Coordinates
import Geo
import XCTest

/// Out of a CRS whose 2D datum shift drops a height (KATEC/TM128, EPSG:5174), answers are the exact
/// inverse of the way in for points on the WGS 84 surface; PROJ alone misses by up to ≈6 mm.
final class InverseRefinementTests: XCTestCase {
    let grid = KoreaGrid.points(columns: 17, rows: 17)

    func metres(_ a: XYPoint, _ b: XYPoint) -> Double {
        Coordinate(lon: a.x, lat: a.y).distance(to: Coordinate(lon: b.x, lat: b.y))
    }

    /// PROJ's own answer, one `proj_trans_generic` over the points, without the refinement.
    func plainPROJ(_ from: String, _ to: String, _ points: [XYPoint]) throws -> [XYPoint] {
        let worker = try ProjWorker(source: CRSCatalog.resolve(from), target: CRSCatalog.resolve(to))
        var xs = points.map(\.x), ys = points.map(\.y)
        let n = points.count
        xs.withUnsafeMutableBufferPointer { bx in
            ys.withUnsafeMutableBufferPointer { by in
                worker.transformWithPipeline(x: bx.baseAddress!, y: by.baseAddress!, stride: 1, count: n)
            }
        }
        return (0..<n).map { XYPoint(x: xs[$0], y: ys[$0]) }
    }

    func testOnlyTheWayOutOfAHeightDroppingDatumShiftIsRefined() throws {
        for alias in CRSCatalog.aliasNames {
            let katec = alias == "KATEC" || alias == "TM128"
            XCTAssertEqual(try CoordinateTransformer(from: alias, to: "WGS84").refinesInverse, katec, "\(alias) → WGS84")
            XCTAssertFalse(try CoordinateTransformer(from: "WGS84", to: alias).refinesInverse, "WGS84 → \(alias)")
        }
        XCTAssertTrue(try CoordinateTransformer(from: "KATEC", to: "UTMK").refinesInverse)
        XCTAssertFalse(try CoordinateTransformer(from: "UTMK", to: "KATEC").refinesInverse)
        XCTAssertTrue(try CoordinateTransformer(from: "EPSG:5174", to: "WGS84").refinesInverse)
        // Between two such CRSs PROJ stays geocentric from one shift to the other: left to PROJ.
        XCTAssertFalse(try CoordinateTransformer(from: "KATEC", to: "EPSG:5174").refinesInverse)
        XCTAssertFalse(try CoordinateTransformer(from: "KATEC", to: "TM128").refinesInverse)
    }

    /// WGS84 → KATEC stays PROJ's answer (cs2cs's): bit for bit through PROJ alone, within 1e-6 m
    /// with the closed-form kernels; KATEC → WGS84 is its inverse to well under 1 mm over South
    /// Korea, where PROJ's own inverse misses by millimetres.
    func testKATECWayBackInvertsTheWayIn() throws {
        for alias in ["KATEC", "TM128"] {
            let there = try CoordinateTransformer(from: "WGS84", to: alias).transform(grid)
            let proj = try plainPROJ("WGS84", alias, grid)
            XCTAssertEqual(try CoordinateTransformer(from: "WGS84", to: alias, fastKernels: false).transform(grid), proj, alias)
            let kernelWorst = zip(there, proj).map { max(abs($0.x - $1.x), abs($0.y - $1.y)) }.max() ?? .nan
            XCTAssertLessThanOrEqual(kernelWorst, 1e-6, alias)
            let home = try CoordinateTransformer(from: alias, to: "WGS84").transform(there)
            let worst = zip(grid, home).map { metres($0, $1) }.max() ?? .nan
            XCTAssertLessThan(worst, 1e-6, "\(alias) → WGS84 misses WGS84 → \(alias) by \(worst) m")

            let plainHome = try plainPROJ(alias, "WGS84", there)
            let plainWorst = zip(grid, plainHome).map { metres($0, $1) }.max() ?? .nan
            XCTAssertGreaterThan(plainWorst, 0.003, "PROJ's own inverse drops the Bessel height")
            XCTAssertLessThan(plainWorst, 0.01)

            // From KATEC's own grid: to WGS84 and back lands on the same metre coordinates.
            let again = try CoordinateTransformer(from: "WGS84", to: alias).transform(home)
            let worstXY = zip(there, again).map { hypot($0.x - $1.x, $0.y - $1.y) }.max() ?? .nan
            XCTAssertLessThan(worstXY, 1e-6, "\(alias) → WGS84 → \(alias) by \(worstXY) m")
        }
    }

    /// KATEC ↔ UTM-K and the 2010 Central Belt close both ways; so does EPSG:5174, the other
    /// height-dropping shift Korean data uses.
    func testRoundTripsBetweenGrids() throws {
        let katec = try CoordinateTransformer(from: "WGS84", to: "KATEC").transform(grid)
        for other in ["UTMK", "KOREA2000-CENTRAL"] {
            let out = try CoordinateTransformer(from: "KATEC", to: other).transform(katec)
            let back = try CoordinateTransformer(from: other, to: "KATEC").transform(out)
            let worst = zip(katec, back).map { hypot($0.x - $1.x, $0.y - $1.y) }.max() ?? .nan
            XCTAssertLessThan(worst, 1e-6, "KATEC → \(other) → KATEC by \(worst) m")
            let again = try CoordinateTransformer(from: "KATEC", to: other).transform(back)
            let worstOther = zip(out, again).map { hypot($0.x - $1.x, $0.y - $1.y) }.max() ?? .nan
            XCTAssertLessThan(worstOther, 1e-6, "\(other) → KATEC → \(other) by \(worstOther) m")
        }
        let old = try CoordinateTransformer(from: "WGS84", to: "EPSG:5174").transform(grid)
        let home = try CoordinateTransformer(from: "EPSG:5174", to: "WGS84").transform(old)
        let worst = zip(grid, home).map { metres($0, $1) }.max() ?? .nan
        XCTAssertLessThan(worst, 1e-6, "EPSG:5174 → WGS84 misses by \(worst) m")
        // Between the two, PROJ's pipeline drops only the last height: within 1 mm unrefined.
        let there = try CoordinateTransformer(from: "KATEC", to: "EPSG:5174").transform(katec)
        let back = try CoordinateTransformer(from: "EPSG:5174", to: "KATEC").transform(there)
        let worstOld = zip(katec, back).map { hypot($0.x - $1.x, $0.y - $1.y) }.max() ?? .nan
        XCTAssertLessThan(worstOld, 0.001, "KATEC → EPSG:5174 → KATEC by \(worstOld) m")
    }

    /// Separate buffers, interleaved buffers (split across cores) and single points agree bit for
    /// bit; bad inputs and points PROJ cannot map are reported as before.
    func testBatchPathsAgreeAndFailuresStayFailures() throws {
        let t = try CoordinateTransformer(from: "KATEC", to: "WGS84")
        var (xs, ys) = SeoulPoints.random(count: 40_000, seed: 11)
        _ = try CoordinateTransformer(from: "WGS84", to: "KATEC").transform(xs: &xs, ys: &ys)
        xs[5] = .nan
        xs[39_000] = 3e7  // 30,000 km east of the false origin: PROJ cannot map it
        XCTAssertFalse(try plainPROJ("KATEC", "WGS84", [XYPoint(x: 3e7, y: ys[39_000])])[0].x.isFinite)
        var interleaved: [Double] = []
        for i in 0..<xs.count { interleaved += [xs[i], ys[i]] }
        let samples = [0, 1, 2047, 2048, 20_000, 39_999]
        let single = try samples.map { try t.transform(XYPoint(x: xs[$0], y: ys[$0])) }

        let report = try t.transform(xs: &xs, ys: &ys)
        XCTAssertEqual(report.issues.map(\.index), [5, 39_000])
        XCTAssertEqual(report.issues.first?.error, .invalidPoint(index: 5, reason: "x is NaN"))
        guard case .transformFailed(index: 39_000, _) = report.issues.last?.error else {
            return XCTFail("\(report.issues)")
        }
        for (k, i) in samples.enumerated() { XCTAssertEqual(XYPoint(x: xs[i], y: ys[i]), single[k], "point \(i)") }
        let report2 = try interleaved.withUnsafeMutableBufferPointer { try t.transform(interleaved: $0) }
        XCTAssertEqual(report2, report)
        for i in 0..<xs.count where !xs[i].isNaN {
            guard interleaved[2 * i] == xs[i], interleaved[2 * i + 1] == ys[i] else {
                return XCTFail("interleaved point \(i) differs")
            }
        }
    }
}

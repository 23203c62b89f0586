import Coordinates
import XCTest

/// The closed-form kernels (Krüger transverse Mercator, geocentric conversion, Helmert) against
/// PROJ itself: the same transformation built with `fastKernels: false` runs every point through
/// PROJ (its pipeline, or its own steps chunk by chunk), and the answers must agree within 1e-6 m
/// (1e-11° for degrees) on 10,000 random points over South Korea and its seas, both ways.
final class FastKernelTests: XCTestCase {
    /// Every alias with a projected grid, and an EPSG code named directly.
    static let projected = ["UTMK", "WTM", "WCONGNAMUL", "KATEC", "TM128", "KOREA2000-WEST", "KOREA2000-CENTRAL",
                            "KOREA2000-EAST", "KOREA2000-EASTSEA", "EPSG:5186", "EPSG:32652"]

    /// Reproducible pseudo-random lon/lat points over 124–132°E, 33–39°N.
    static func koreaPoints(_ count: Int, seed: UInt64 = 7) -> [XYPoint] {
        var state = seed
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        return (0..<count).map { _ in XYPoint(x: 124 + 8 * next(), y: 33 + 6 * next()) }
    }

    /// The largest |Δx| or |Δy| between two transformers' answers; both must convert every point.
    func largestDifference(_ a: CoordinateTransformer, _ b: CoordinateTransformer, _ points: [XYPoint],
                           file: StaticString = #filePath, line: UInt = #line) throws -> Double
    {
        var pa = points, pb = points
        let ra = try a.transform(points: &pa), rb = try b.transform(points: &pb)
        XCTAssertEqual(ra.issues, [], file: file, line: line)
        XCTAssertEqual(rb.issues, [], file: file, line: line)
        var worst = 0.0
        for i in points.indices { worst = max(worst, abs(pa[i].x - pb[i].x), abs(pa[i].y - pb[i].y)) }
        return worst
    }

    func testKernelsAgreeWithPROJBothWays() throws {
        let lonLat = Self.koreaPoints(10_000)
        for name in Self.projected {
            let fast = try CoordinateTransformer(from: "WGS84", to: name)
            let proj = try CoordinateTransformer(from: "WGS84", to: name, fastKernels: false)
            XCTAssertTrue(fast.usesFastKernel, "WGS84 → \(name)")
            XCTAssertFalse(proj.usesFastKernel)
            let forward = try largestDifference(fast, proj, lonLat)
            XCTAssertLessThanOrEqual(forward, 1e-6, "WGS84 → \(name)")
            if let check = fast.fastKernelDifference { XCTAssertLessThanOrEqual(check, 1e-6) }

            let gridPoints = try proj.transform(lonLat)
            let back = try CoordinateTransformer(from: name, to: "WGS84")
            let backPROJ = try CoordinateTransformer(from: name, to: "WGS84", fastKernels: false)
            XCTAssertTrue(back.usesFastKernel, "\(name) → WGS84")
            let inverse = try largestDifference(back, backPROJ, gridPoints)
            XCTAssertLessThanOrEqual(inverse, 1e-11, "\(name) → WGS84")
            print("kernel check \(name): forward \(forward) (creation \(fast.fastKernelDifference ?? .nan)), "
                + "inverse \(inverse)° (creation \(back.fastKernelDifference ?? .nan)); \(fast.fastKernelSummary ?? "-")")
        }
    }
}

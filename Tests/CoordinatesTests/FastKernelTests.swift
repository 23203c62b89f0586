import Coordinates
import Geo
import XCTest

/// The closed-form kernels (Krüger transverse Mercator, geocentric conversion, Helmert) against
/// PROJ itself: the same transformation built with `fastKernels: false` runs every point through
/// PROJ (its pipeline, or its own steps chunk by chunk), and the answers must agree within 1e-6 m
/// (1e-11° for degrees) on 10,000 random points over South Korea and its seas, both ways.
final class FastKernelTests: XCTestCase {
    /// Every alias with a projected grid, and an EPSG code named directly.
    static let projected = ["UTMK", "WTM", "WCONGNAMUL", "KATEC", "TM128", "KOREA2000-WEST", "KOREA2000-CENTRAL",
                            "KOREA2000-EAST", "KOREA2000-EASTSEA", "EPSG:5186", "EPSG:32652", "WEBMERCATOR"]

    /// Reproducible pseudo-random lon/lat points over 124–132°E, 33–39°N.
    static func koreaPoints(_ count: Int, seed: UInt64 = 7) -> [XYPoint] {
        var random = SplitMix64(seed: seed)
        func next() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
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

/// Where the kernels do not apply, PROJ does, with its own answers bit for bit.
final class KernelFallbackTests: XCTestCase {
    func testPointsOutsideTheCheckedBoxGoThroughPROJ() throws {
        let fast = try CoordinateTransformer(from: "WGS84", to: "UTMK")
        let proj = try CoordinateTransformer(from: "WGS84", to: "UTMK", fastKernels: false)
        let seoul = XYPoint(x: 126.978546, y: 37.566554), berlin = XYPoint(x: 13.4, y: 52.5)
        XCTAssertTrue(fast.usesFastKernel(for: seoul))
        XCTAssertFalse(fast.usesFastKernel(for: berlin), "115° from the central meridian")
        XCTAssertFalse(fast.usesFastKernel(for: XYPoint(x: .nan, y: 37)))
        XCTAssertFalse(proj.usesFastKernel(for: seoul))
        let box = try XCTUnwrap(fast.fastKernelBox)
        XCTAssertLessThan(box.minX, 124)
        XCTAssertGreaterThan(box.maxX, 132)
        // A batch mixing both: the far points are PROJ's answers exactly, the near ones within 1e-6 m.
        var points = FastKernelTests.koreaPoints(5000, seed: 21)
        points.insert(berlin, at: 1234)
        points.append(XYPoint(x: 100, y: 10))
        let a = try fast.transform(points), b = try proj.transform(points)
        for i in points.indices {
            if fast.usesFastKernel(for: points[i]) {
                XCTAssertEqual(a[i].x, b[i].x, accuracy: 1e-6)
                XCTAssertEqual(a[i].y, b[i].y, accuracy: 1e-6)
            } else {
                XCTAssertEqual(a[i], b[i], "point \(i) \(points[i]) went through PROJ")
            }
        }
        XCTAssertFalse(fast.usesFastKernel(for: points[points.count - 1]))
        // Outside the box the way back is PROJ too (easting 10,000 km).
        let back = try CoordinateTransformer(from: "UTMK", to: "WGS84")
        XCTAssertFalse(back.usesFastKernel(for: XYPoint(x: 1e7, y: 2e6)))
        XCTAssertTrue(back.usesFastKernel(for: XYPoint(x: 953949.4172, y: 1952037.8043)))
    }

    func testCRSsWithoutKernelsUsePROJ() throws {
        // Polar stereographic (NSIDC north) and the Molodensky-Badekas shift of EPSG:5174.
        for (from, to) in [("WGS84", "EPSG:3413"), ("EPSG:3413", "WGS84"), ("WGS84", "EPSG:5174"),
                           ("EPSG:5174", "UTMK")] {
            let t = try CoordinateTransformer(from: from, to: to)
            XCTAssertFalse(t.usesFastKernel, "\(from) → \(to)")
            XCTAssertNil(t.fastKernelDifference)
            XCTAssertFalse(t.usesFastKernel(for: XYPoint(x: 127, y: 37.5)))
        }
        // Grid to grid through geocentric coordinates has kernels both ways, as has KATEC → WGS84,
        // whose refinement runs the kernels of both directions.
        XCTAssertTrue(try CoordinateTransformer(from: "UTMK", to: "KATEC").usesFastKernel)
        let katecBack = try CoordinateTransformer(from: "KATEC", to: "WGS84")
        XCTAssertTrue(katecBack.refinesInverse && katecBack.usesFastKernel)
        XCTAssertEqual(katecBack.fastKernelSummary, "inverse tmerc → cart → helmert → inverse cart")
    }

    func testEnvironmentSwitchForcesPROJ() throws {
        setenv(CoordinateTransformer.projOnlyEnvironmentVariable, "1", 1)
        defer { unsetenv(CoordinateTransformer.projOnlyEnvironmentVariable) }
        XCTAssertFalse(try CoordinateTransformer(from: "WGS84", to: "UTMK").usesFastKernel)
        unsetenv(CoordinateTransformer.projOnlyEnvironmentVariable)
        XCTAssertTrue(try CoordinateTransformer(from: "WGS84", to: "UTMK").usesFastKernel)
    }
}

import Coordinates
import Foundation
import Geo
import XCTest

/// The batch API, bad input, area-of-use checks, the cache, and use from many threads.
final class BatchAndErrorTests: XCTestCase {
    /// Pseudo-random points over Seoul and its surroundings, reproducible.
    static func seoulPoints(_ count: Int, seed: UInt64 = 42) -> (xs: [Double], ys: [Double]) {
        SeoulPoints.random(count: count, seed: seed)
    }

    // MARK: Unknown and unusable CRS names

    func testUnknownCRSNamesAreNamed() {
        for name in ["EPSG:999999", "FOO", "EPSG:", "EPSG:12a", "+proj=longlat", "EPSG:6326", ""] {
            XCTAssertThrowsError(try CoordinateTransformer(from: "WGS84", to: name), name) { error in
                guard case CoordinateError.unknownCRS(let named) = error else { return XCTFail("\(name): \(error)") }
                XCTAssertEqual(named, name.isEmpty ? "" : String(name.prefix(80)))
                XCTAssertTrue("\(error)".contains("'\(name)'"), "\(error)")
            }
        }
        // A name on the source side is reported the same way.
        XCTAssertThrowsError(try CoordinateTransformer(from: "KATECH", to: "WGS84")) { error in
            XCTAssertEqual(error as? CoordinateError, .unknownCRS("KATECH"))
        }
    }

    func testNonHorizontalCRSAreRefused() {
        // EPSG:4978 is geocentric (x, y, z); EPSG:5773 is a height (EGM96).
        for name in ["EPSG:4978", "EPSG:5773"] {
            XCTAssertThrowsError(try CoordinateTransformer(from: name, to: "WGS84")) { error in
                guard case CoordinateError.unsupportedCRS(let named, _) = error else { return XCTFail("\(name): \(error)") }
                XCTAssertEqual(named, name)
            }
        }
    }

    // MARK: Bad points

    func testInvalidGeographicInputsNameTheirIndex() throws {
        let t = try CoordinateTransformer(from: "WGS84", to: "UTMK")
        var points = [XYPoint(x: 127, y: 37.5), XYPoint(x: .nan, y: 37), XYPoint(x: 127, y: 91),
                      XYPoint(x: 181, y: 37), XYPoint(x: 127, y: -.infinity), XYPoint(x: -180, y: -90), XYPoint(x: 127.1, y: 37.6)]
        let report = try t.transform(points: &points)
        XCTAssertEqual(report.issues.map(\.index), [1, 2, 3, 4])
        XCTAssertEqual(report.issues[0].kind, .invalidInput("x is NaN"))
        XCTAssertEqual(report.issues[1].kind, .invalidInput("latitude 91.0 is beyond ±90"))
        XCTAssertEqual(report.issues[2].kind, .invalidInput("longitude 181.0 is beyond ±180"))
        XCTAssertEqual(report.issues[3].kind, .invalidInput("y is infinite"))
        for i in [1, 2, 3, 4] { XCTAssertTrue(points[i].x.isNaN && points[i].y.isNaN, "point \(i) is marked NaN") }
        // The valid ones converted, the same as one at a time.
        XCTAssertEqual(points[0], try t.transform(XYPoint(x: 127, y: 37.5)))
        XCTAssertEqual(points[6], try t.transform(XYPoint(x: 127.1, y: 37.6)))
        // The strict call throws the first, naming its index.
        XCTAssertThrowsError(try t.transform([XYPoint(x: 127, y: 37), XYPoint(x: 127, y: 37), XYPoint(x: 200, y: 37)])) { error in
            XCTAssertEqual(error as? CoordinateError, .invalidPoint(index: 2, reason: "longitude 200.0 is beyond ±180"))
            XCTAssertEqual("\(error)", "point 2: longitude 200.0 is beyond ±180")
        }
    }

    func testProjectedSourcesAcceptAnyFiniteNumberButNotNaN() throws {
        let t = try CoordinateTransformer(from: "UTMK", to: "WGS84")
        // 953949 m east is far beyond ±180, which only matters for degrees.
        let p = try t.transform(XYPoint(x: 953949.4172, y: 1952037.8043))
        XCTAssertEqual(p.x, 126.978546, accuracy: 1e-8)
        XCTAssertThrowsError(try t.transform(XYPoint(x: 953949, y: .infinity))) { error in
            XCTAssertEqual(error as? CoordinateError, .invalidPoint(index: 0, reason: "y is infinite"))
        }
    }

    func testPointsPROJCannotTransformAreReported() throws {
        // EPSG:3035 (Lambert azimuthal equal-area centred on 52°N 10°E) cannot map its antipode,
        // 52°S 170°W; `cs2cs EPSG:4326 EPSG:3035` prints "*" for it too.
        let t = try CoordinateTransformer(from: "WGS84", to: "EPSG:3035")
        var points = [XYPoint(x: 10, y: 52), XYPoint(x: -170, y: -52)]
        let report = try t.transform(points: &points)
        XCTAssertEqual(report.issues, [PointIssue(index: 1, kind: .transformFailed)])
        XCTAssertTrue(points[1].x.isNaN)
        XCTAssertFalse(points[0].x.isNaN)
        XCTAssertThrowsError(try t.transform(XYPoint(x: -170, y: -52))) { error in
            guard case CoordinateError.transformFailed(index: 0, _) = error else { return XCTFail("\(error)") }
        }
    }

    func testBufferLengthsMustAgree() throws {
        let t = try CoordinateTransformer(from: "WGS84", to: "UTMK")
        var xs = [127.0, 127.1], ys = [37.5]
        XCTAssertThrowsError(try t.transform(xs: &xs, ys: &ys)) { error in
            XCTAssertEqual(error as? CoordinateError, .lengthMismatch(xCount: 2, yCount: 1))
        }
        var odd = [127.0, 37.5, 127.1]
        XCTAssertThrowsError(try odd.withUnsafeMutableBufferPointer { try t.transform(interleaved: $0) })
        var empty: [XYPoint] = []
        XCTAssertEqual(try t.transform(points: &empty), BatchReport())
    }

    // MARK: Batches

    /// A batch large enough to be split across cores gives exactly the per-point answers, through
    /// separate buffers and interleaved alike, and issues keep their global index.
    func testSplitBatchMatchesPointByPoint() throws {
        let t = try CoordinateTransformer(from: "WGS84", to: "KATEC")
        var (xs, ys) = Self.seoulPoints(100_000)
        xs[77_777] = .nan
        ys[12_345] = 95
        var interleaved = [Double]()
        for i in 0..<xs.count { interleaved += [xs[i], ys[i]] }
        let samples = [0, 1, 12_344, 50_000, 77_776, 99_999]
        let expected = try samples.map { try t.transform(XYPoint(x: xs[$0], y: ys[$0])) }

        let report = try t.transform(xs: &xs, ys: &ys)
        XCTAssertEqual(report.issues.map(\.index), [12_345, 77_777])
        for (k, i) in samples.enumerated() { XCTAssertEqual(XYPoint(x: xs[i], y: ys[i]), expected[k]) }

        let report2 = try interleaved.withUnsafeMutableBufferPointer { try t.transform(interleaved: $0) }
        XCTAssertEqual(report2, report)
        for i in Swift.stride(from: 0, to: xs.count, by: 997) where !xs[i].isNaN {
            XCTAssertEqual(interleaved[2 * i], xs[i])
            XCTAssertEqual(interleaved[2 * i + 1], ys[i])
        }
    }

    /// Many threads sharing one transformer (and the cache) get bit-identical answers, for a plain
    /// PROJ transformation and for a refined inverse (KATEC → WGS84, see InverseRefinementTests).
    func testConcurrentUseGivesIdenticalResults() throws {
        let (xs, ys) = Self.seoulPoints(20_000, seed: 7)
        try assertConcurrentUseIsBitIdentical(names: [("wgs84", "utmk"), ("EPSG:4326", "UTMK")], xs: xs, ys: ys)
        var kx = xs, ky = ys
        _ = try CoordinateTransformer(from: "WGS84", to: "KATEC").transform(xs: &kx, ys: &ky)
        try assertConcurrentUseIsBitIdentical(names: [("KATEC", "WGS84"), ("tm128", "epsg:4326")], xs: kx, ys: ky)
    }

    /// Eight threads each transform whole batches (split across cores) and single points through one
    /// cache, alternating between two spellings of the same pair, and must all match one answer.
    private func assertConcurrentUseIsBitIdentical(names: [(String, String)], xs: [Double], ys: [Double],
                                                   line: UInt = #line) throws
    {
        let cache = TransformerCache()
        var rx = xs, ry = ys
        _ = try CoordinateTransformer(from: names[0].0, to: names[0].1).transform(xs: &rx, ys: &ry)
        let refX = rx, refY = ry
        let threads = 8
        let mismatches = UnsafeMutableBufferPointer<Int>.allocate(capacity: threads)
        mismatches.initialize(repeating: -1)
        defer { mismatches.deallocate() }
        nonisolated(unsafe) let slots = mismatches
        DispatchQueue.concurrentPerform(iterations: threads) { k in
            let (from, to) = names[k % names.count]
            guard let t = try? cache.transformer(from: from, to: to) else { return }
            var bad = 0
            for round in 0..<3 {
                // Alternate whole batches (split across cores) with single points.
                if round % 2 == 0 {
                    var bx = xs, by = ys
                    _ = try? t.transform(xs: &bx, ys: &by)
                    for i in 0..<bx.count where bx[i] != refX[i] || by[i] != refY[i] { bad += 1 }
                } else {
                    for i in Swift.stride(from: k, to: xs.count, by: 50) {
                        let p = try? t.transform(XYPoint(x: xs[i], y: ys[i]))
                        if p != XYPoint(x: refX[i], y: refY[i]) { bad += 1 }
                    }
                }
            }
            slots[k] = bad
        }
        XCTAssertEqual(Array(mismatches), [Int](repeating: 0, count: threads), "\(names[0])", line: line)
        XCTAssertEqual(cache.count, 1, "aliases share one cached transformer", line: line)
    }

    // MARK: Area of use

    func testOutsideAreaOfUseFromGeographicSource() throws {
        // EPSG:5181 (WTM) covers 126–128°E; Busan (129.08°E) is outside, Seoul inside.
        let t = try CoordinateTransformer(from: "WGS84", to: "WTM")
        var points = [XYPoint(x: 126.978546, y: 37.566554), XYPoint(x: 129.075642, y: 35.179554), XYPoint(x: 127.5, y: 36)]
        XCTAssertEqual(try t.transform(points: &points, checkAreaOfUse: true).outsideAreaOfUse, [1])
        XCTAssertEqual(t.targetAreaOfUse, BoundingBox(west: 126, south: 33.96, east: 128, north: 38.33))
        // Not asked, not computed.
        var again = [XYPoint(x: 129.075642, y: 35.179554)]
        XCTAssertEqual(try t.transform(points: &again).outsideAreaOfUse, [])
        // KATEC takes the area of its datum (Korean 1985, South Korea onshore); Tokyo is outside.
        let k = try CoordinateTransformer(from: "WGS84", to: "KATEC")
        var tokyo = [XYPoint(x: 139.69, y: 35.69), XYPoint(x: 127, y: 37)]
        XCTAssertEqual(try k.transform(points: &tokyo, checkAreaOfUse: true).outsideAreaOfUse, [0])
        // WGS84 covers the Earth: nothing is ever outside.
        let w = try CoordinateTransformer(from: "UTMK", to: "WGS84")
        var far = [XYPoint(x: 9_000_000, y: 1_000_000)]
        XCTAssertEqual(try w.transform(points: &far, checkAreaOfUse: true).outsideAreaOfUse, [])
    }

    func testOutsideAreaOfUseFromProjectedSource() throws {
        // UTM-K inputs are placed in WGS84 first: Busan is outside the Central Belt (5181).
        let t = try CoordinateTransformer(from: "UTMK", to: "WTM")
        var points = [XYPoint(x: 953949.4172, y: 1952037.8043), XYPoint(x: 1143471.2852, y: 1688276.9407)]
        XCTAssertEqual(try t.transform(points: &points, checkAreaOfUse: true).outsideAreaOfUse, [1])
        // And to a geographic target the outputs themselves are placed: 86°N is beyond Web Mercator.
        let m = try CoordinateTransformer(from: "WGS84", to: "WEBMERCATOR")
        var north = [XYPoint(x: 10, y: 86), XYPoint(x: 127, y: 37)]
        XCTAssertEqual(try m.transform(points: &north, checkAreaOfUse: true).outsideAreaOfUse, [0])
    }

    // MARK: The cache

    func testCacheSharesAndEvicts() throws {
        let cache = TransformerCache(capacity: 2)
        let a = try cache.transformer(from: "WGS84", to: "UTMK")
        XCTAssertTrue(a === (try cache.transformer(from: "epsg:4326", to: "EPSG:5179")))
        _ = try cache.transformer(from: "WGS84", to: "KATEC")
        _ = try cache.transformer(from: "WGS84", to: "UTMK")  // most recent again
        _ = try cache.transformer(from: "WGS84", to: "WTM")  // evicts KATEC, the least recent
        XCTAssertEqual(cache.count, 2)
        XCTAssertTrue(a === (try cache.transformer(from: "WGS84", to: "UTMK")))
        XCTAssertThrowsError(try cache.transformer(from: "WGS84", to: "NOPE"))
        XCTAssertEqual(cache.count, 2)
    }
}

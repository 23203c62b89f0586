@testable import Coordinates
import Foundation
import Geo
import XCTest

/// The kernels' polynomial sines, cosines and arctangents against libm, near and away from the
/// reference angles (where they hand over to libm).
final class ReferenceAngleTests: XCTestCase {
    /// Angles over ±1 rad around each reference, denser near it, plus the hand-over edges.
    func angles(around c: Double, seed: UInt64) -> [Double] {
        var random = SplitMix64(seed: seed)
        var out: [Double] = [c, c + 0.25, c - 0.25, c + 0.2500001, c - 0.2500001, c.nextUp, c.nextDown]
        for _ in 0..<50_000 {
            let u = Double(random.next() >> 11) / Double(1 << 53)
            out.append(c + (u - 0.5) * 0.6)
            out.append(c + (u - 0.5) * 2)
        }
        return out
    }

    func testSinCosWithinAFewUnitsInTheLastPlace() {
        for (reference, seed) in [(ReferenceAngle.koreanLatitude, UInt64(1)), (ReferenceAngle.koreanLongitude, 2)] {
            var worst = 0.0
            for x in angles(around: reference.angle, seed: seed) {
                let (s, c) = reference.sinCos(x)
                XCTAssertEqual(reference.sin(x), s)
                worst = max(worst, abs(s - sin(x)) / sin(x).ulp, abs(c - cos(x)) / max(cos(x).ulp, 1e-17))
            }
            XCTAssertLessThanOrEqual(worst, 4, "sin/cos around \(reference.angle): \(worst) ulp")
        }
    }

    func testAtan2WithinAFewUnitsInTheLastPlace() {
        for (reference, seed) in [(ReferenceAngle.koreanLatitude, UInt64(3)), (ReferenceAngle.koreanLongitude, 4)] {
            var worst = 0.0
            for angle in angles(around: reference.angle, seed: seed) {
                // Points at that angle, at radii from metres to the Earth's.
                for radius in [1.0, 6_378_137.0, 0.5] {
                    let x = radius * cos(angle), y = radius * sin(angle)
                    let expected = atan2(y, x)
                    worst = max(worst, abs(reference.atan2(y, x) - expected) / expected.ulp)
                }
            }
            XCTAssertLessThanOrEqual(worst, 4, "atan2 around \(reference.angle): \(worst) ulp")
        }
        // Far from the reference (other quadrants, the axes, zero): libm's own answer.
        let r = ReferenceAngle.koreanLatitude
        for (y, x) in [(0.0, 0.0), (-1.0, 0.0), (1.0, -1.0), (-3.0, -2.0), (0.0, -5.0), (2.0, 0.0)] {
            XCTAssertEqual(r.atan2(y, x), atan2(y, x), "\(y), \(x)")
        }
    }

    func testAtanhOfSineAndSmallAtanh() {
        let r = ReferenceAngle.koreanLatitude
        var worst = 0.0
        for phi in angles(around: r.angle, seed: 5) where abs(phi) < 1.5 {
            let s = sin(phi)
            let expected = atanh(s)
            worst = max(worst, abs(r.atanhOfSine(s) - expected) / expected.ulp)
        }
        XCTAssertLessThanOrEqual(worst, 4, "atanh(sin φ): \(worst) ulp")
        var random = SplitMix64(seed: 6)
        var worstSmall = 0.0
        for _ in 0..<100_000 {
            let t = (Double(random.next() >> 11) / Double(1 << 53) - 0.5) * 0.4
            guard t != 0 else { continue }
            worstSmall = max(worstSmall, abs(TransverseMercatorKernel.atanhSmall(t) - atanh(t)) / atanh(t).ulp)
        }
        XCTAssertLessThanOrEqual(worstSmall, 2, "atanh of small arguments: \(worstSmall) ulp")
        XCTAssertEqual(TransverseMercatorKernel.atanhSmall(0), 0)
        XCTAssertEqual(TransverseMercatorKernel.atanhSmall(-0.0).sign, .minus)
    }
}

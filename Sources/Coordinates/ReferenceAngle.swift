import Foundation

/// Sine, cosine and arctangent of angles near a reference angle, by short polynomials of the
/// difference (Korean latitudes and longitudes in the kernels), with libm away from it.
///
/// sin(c + d) = sin c cos d + cos c sin d and cos(c + d) = cos c cos d − sin c sin d with Taylor
/// polynomials of d for |d| ≤ 0.25 (first dropped term below 1e-19); atan2(y, x) = c + atan q where
/// q = y′/x′ for (x, y) rotated by −c, with the atan series for |q| ≤ 0.12 (first dropped term below
/// 1e-20). Each result is within a few units in the last place of libm's; the kernels that use them
/// are checked against PROJ when a transformer is made, like every kernel.
struct ReferenceAngle: Sendable, Equatable {
    let angle: Double
    let sine: Double
    let cosine: Double
    /// atanh(sin angle): the spherical Mercator ordinate of the angle as a latitude.
    let atanhSine: Double

    init(_ angle: Double) {
        self.angle = angle
        sine = Foundation.sin(angle)
        cosine = Foundation.cos(angle)
        atanhSine = Foundation.atanh(sine)
    }

    /// 36.1°N in radians: the middle of the Korean latitudes.
    static let koreanLatitude = ReferenceAngle(0.63)
    /// 127.5°E in radians: the middle of the Korean longitudes.
    static let koreanLongitude = ReferenceAngle(127.5 * Double.pi / 180)

    /// sin x.
    @inline(__always)
    func sin(_ x: Double) -> Double {
        let d = x - angle
        guard abs(d) <= 0.25 else { return Foundation.sin(x) }
        let (sd, _, omcd) = TransverseMercatorKernel.sinCosNearZero(d)
        return sine - sine * omcd + cosine * sd
    }

    /// (sin x, cos x).
    @inline(__always)
    func sinCos(_ x: Double) -> (Double, Double) {
        let d = x - angle
        guard abs(d) <= 0.25 else { return (Foundation.sin(x), Foundation.cos(x)) }
        let (sd, _, omcd) = TransverseMercatorKernel.sinCosNearZero(d)
        return (sine - sine * omcd + cosine * sd, cosine - cosine * omcd - sine * sd)
    }

    /// atanh(s) for s = sin φ near sin(angle): atanh s₀ + atanh((s − s₀) / (1 − s s₀)) with s₀ =
    /// sin(angle), the second by its series while the argument is at most 0.125 (latitudes within
    /// about ±5.7° of the angle); libm elsewhere.
    @inline(__always)
    func atanhOfSine(_ s: Double) -> Double {
        let u = (s - sine) / (1 - s * sine)
        return abs(u) <= 0.125 ? atanhSine + TransverseMercatorKernel.atanhSmall(u) : Foundation.atanh(s)
    }

    /// atan2(y, x).
    @inline(__always)
    func atan2(_ y: Double, _ x: Double) -> Double {
        let xr = x * cosine + y * sine, yr = y * cosine - x * sine
        guard xr > 0, abs(yr) <= 0.12 * xr else { return Foundation.atan2(y, x) }
        return angle + Self.atanSeries(yr / xr)
    }

    /// atan q by its series, for |q| ≤ 0.12 (the caller checks; the first dropped term is below 1e-20).
    @inline(__always)
    static func atanSeries<V: KernelValue>(_ q: V) -> V {
        let q2 = q * q
        // atan q = q − q³ (1/3 − q² (1/5 − q² (1/7 − …)))
        var sum = V(repeating: 1.0 / 21)
        sum = 1.0 / 19 - q2 * sum
        sum = 1.0 / 17 - q2 * sum
        sum = 1.0 / 15 - q2 * sum
        sum = 1.0 / 13 - q2 * sum
        sum = 1.0 / 11 - q2 * sum
        sum = 1.0 / 9 - q2 * sum
        sum = 1.0 / 7 - q2 * sum
        sum = 1.0 / 5 - q2 * sum
        sum = 1.0 / 3 - q2 * sum
        return q - q * (q2 * sum)
    }
}

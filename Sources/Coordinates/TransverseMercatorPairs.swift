/// Two points at once: the polynomial parts of the kernels (`TransverseMercatorKernel.forward`,
/// `GeocentricKernel`) on SIMD pairs of doubles (one SSE register), operation for operation as the
/// scalar versions.
enum Pair {
    typealias V = SIMD2<Double>

    @inline(__always)
    static func load(_ p: UnsafeMutablePointer<Double>) -> V {
        UnsafeRawPointer(p).loadUnaligned(as: V.self)
    }

    @inline(__always)
    static func store(_ v: V, _ p: UnsafeMutablePointer<Double>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: V.self)
    }

    @inline(__always)
    static func abs(_ v: V) -> V { v.replacing(with: -v, where: v .< 0) }

    /// `TransverseMercatorKernel.sineSeries`.
    @inline(__always)
    static func sineSeries(_ c: TransverseMercatorKernel.Six, _ s2: V, _ c2: V) -> V {
        let x = 2 * c2
        let b6 = V(repeating: c.c6)
        let b5 = c.c5 + x * b6
        let b4 = c.c4 + x * b5 - b6
        let b3 = c.c3 + x * b4 - b5
        let b2 = c.c2 + x * b3 - b4
        let b1 = c.c1 + x * b2 - b3
        return b1 * s2
    }

    /// `TransverseMercatorKernel.complexSineSeries`.
    @inline(__always)
    static func complexSineSeries(_ c: TransverseMercatorKernel.Six, s2: V, c2: V, sh2: V, ch2: V) -> (V, V) {
        let xr = 2 * c2 * ch2, xi = -2 * s2 * sh2
        var b1r = V(), b1i = V(), b2r = V(), b2i = V()
        @inline(__always) func step(_ ck: Double) {
            let b0r = ck + xr * b1r - xi * b1i - b2r
            let b0i = xr * b1i + xi * b1r - b2i
            b2r = b1r
            b2i = b1i
            b1r = b0r
            b1i = b0i
        }
        step(c.c6)
        step(c.c5)
        step(c.c4)
        step(c.c3)
        step(c.c2)
        step(c.c1)
        let sr = s2 * ch2, si = c2 * sh2
        return (b1r * sr - b1i * si, b1r * si + b1i * sr)
    }

    /// `TransverseMercatorKernel.smallSinCos`.
    @inline(__always)
    static func smallSinCos(_ d: V) -> (V, V) {
        let d2 = d * d
        var s: V = 1 - d2 * (1.0 / 42)
        s = 1 - d2 * (1.0 / 20) * s
        s = d * (1 - d2 * (1.0 / 6) * s)
        var c: V = 1 - d2 * (1.0 / 30)
        c = 1 - d2 * (1.0 / 12) * c
        c = 1 - d2 * (1.0 / 2) * c
        return (s, c)
    }

    /// `TransverseMercatorKernel.sinCosNearZero` within ±0.25 rad: (sin x, 1 − cos x).
    @inline(__always)
    static func sinCosNearZero(_ x: V) -> (V, V) {
        let x2 = x * x
        // The scalar version's nested products, innermost first (same operations in the same order).
        var s: V = 1 - x2 * (1.0 / 210)
        s = 1 - x2 * (1.0 / 156) * s
        s = 1 - x2 * (1.0 / 110) * s
        s = 1 - x2 * (1.0 / 72) * s
        s = 1 - x2 * (1.0 / 42) * s
        s = 1 - x2 * (1.0 / 20) * s
        s = 1 - x2 * (1.0 / 6) * s
        s = x * s
        var omc: V = 1 - x2 * (1.0 / 240)
        omc = 1 - x2 * (1.0 / 182) * omc
        omc = 1 - x2 * (1.0 / 132) * omc
        omc = 1 - x2 * (1.0 / 90) * omc
        omc = 1 - x2 * (1.0 / 56) * omc
        omc = 1 - x2 * (1.0 / 30) * omc
        omc = 1 - x2 * (1.0 / 12) * omc
        omc = x2 * (1.0 / 2) * omc
        return (s, omc)
    }

    /// `TransverseMercatorKernel.smallAtan`.
    @inline(__always)
    static func smallAtan(_ d: V) -> V {
        let d2 = d * d
        var q: V = 1.0 / 9 - d2 * (1.0 / 11)
        q = 1.0 / 7 - d2 * q
        q = 1.0 / 5 - d2 * q
        q = 1.0 / 3 - d2 * q
        return d * (1 - d2 * q)
    }

    /// `TransverseMercatorKernel.atanhSmall` within ±0.125.
    @inline(__always)
    static func atanhSmall(_ t: V) -> V {
        let t2 = t * t
        var sum = V(repeating: 1.0 / 21)
        sum = 1.0 / 19 + t2 * sum
        sum = 1.0 / 17 + t2 * sum
        sum = 1.0 / 15 + t2 * sum
        sum = 1.0 / 13 + t2 * sum
        sum = 1.0 / 11 + t2 * sum
        sum = 1.0 / 9 + t2 * sum
        sum = 1.0 / 7 + t2 * sum
        sum = 1.0 / 5 + t2 * sum
        sum = 1.0 / 3 + t2 * sum
        return t + t * (t2 * sum)
    }

    /// `ReferenceAngle.atan2` for both lanes, or nil when a lane is not near the reference (the
    /// caller then takes the scalar path).
    @inline(__always)
    static func atan2(_ y: V, _ x: V, near reference: ReferenceAngle) -> V? {
        let xr = x * reference.cosine + y * reference.sine, yr = y * reference.cosine - x * reference.sine
        guard all(xr .> 0), all(abs(yr) .<= 0.12 * xr) else { return nil }
        let q = yr / xr, q2 = q * q
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
        return reference.angle + (q - q * (q2 * sum))
    }
}

import Foundation

/// The ellipsoidal transverse Mercator projection by Krüger's series to sixth order in the third
/// flattening n (as in Karney 2011, "Transverse Mercator with an accuracy of a few nanometers", and
/// PROJ's exact `tmerc`), written for speed over arrays of points.
///
/// Forward: geodetic latitude φ → conformal latitude χ (a sine series in 2φ), the spherical
/// transverse Mercator (ξ′, η′) of (χ, λ), then ξ + iη = ζ′ + Σ αₖ sin 2kζ′ (complex Clenshaw sum).
/// Inverse: ζ′ = ζ − Σ βₖ sin 2kζ, the spherical inverse gives (χ, λ), then φ = χ + Σ dₖ sin 2kχ.
/// Small angle corrections are applied through Taylor sines and cosines; forward, sin φ (near Korean
/// latitudes, `ReferenceAngle`) and atanh (of small arguments) are polynomials too, and pairs of
/// points share SIMD registers (`Pair`), so a Korean point costs no libm call at all. Angles are radians; eastings and northings are in the ellipsoid's unit (metres).
/// The parameters come from PROJ (see `KernelRecipe`); a transformer uses the kernel only after
/// comparing it with PROJ (see `CoordinateTransformer.verifiedKernel`).
struct TransverseMercatorKernel: Sendable, Equatable {
    /// Central meridian (radians), scale factor × rectifying radius, false easting and northing.
    let lambda0: Double
    let kA: Double
    let x0: Double
    let y0: Double
    /// ξ of the latitude of origin on the central meridian.
    let xi0: Double
    /// Krüger's αₖ (forward) and βₖ (inverse), k = 1…6.
    let alpha: Six
    let beta: Six
    /// χ − φ = Σ toConformal[k] sin 2kφ, and φ − χ = Σ fromConformal[k] sin 2kχ.
    let toConformal: Six
    let fromConformal: Six

    /// Six series coefficients, stored inline (no array bounds checks in the point loops).
    struct Six: Sendable, Equatable {
        let c1, c2, c3, c4, c5, c6: Double
        init(_ c: [Double]) {
            (c1, c2, c3, c4, c5, c6) = (c[0], c[1], c[2], c[3], c[4], c[5])
        }
    }

    /// - Parameters: semi-major axis `a`, flattening `f`, latitude of origin and central meridian in
    ///   radians, scale factor on the central meridian `k0`, false easting and northing.
    init(a: Double, f: Double, phi0: Double, lambda0: Double, k0: Double, x0: Double, y0: Double) {
        let n = f / (2 - f)
        let n2 = n * n, n3 = n2 * n, n4 = n3 * n, n5 = n4 * n, n6 = n5 * n
        let rectifying = a / (1 + n) * (1 + n2 / 4 + n4 / 64 + n6 / 256)
        alpha = Six([
            n / 2 - 2 * n2 / 3 + 5 * n3 / 16 + 41 * n4 / 180 - 127 * n5 / 288 + 7891 * n6 / 37800,
            13 * n2 / 48 - 3 * n3 / 5 + 557 * n4 / 1440 + 281 * n5 / 630 - 1983433 * n6 / 1935360,
            61 * n3 / 240 - 103 * n4 / 140 + 15061 * n5 / 26880 + 167603 * n6 / 181440,
            49561 * n4 / 161280 - 179 * n5 / 168 + 6601661 * n6 / 7257600,
            34729 * n5 / 80640 - 3418889 * n6 / 1995840,
            212378941 * n6 / 319334400,
        ])
        beta = Six([
            n / 2 - 2 * n2 / 3 + 37 * n3 / 96 - n4 / 360 - 81 * n5 / 512 + 96199 * n6 / 604800,
            n2 / 48 + n3 / 15 - 437 * n4 / 1440 + 46 * n5 / 105 - 1118711 * n6 / 3870720,
            17 * n3 / 480 - 37 * n4 / 840 - 209 * n5 / 4480 + 5569 * n6 / 90720,
            4397 * n4 / 161280 - 11 * n5 / 504 - 830251 * n6 / 7257600,
            4583 * n5 / 161280 - 108847 * n6 / 3991680,
            20648693 * n6 / 638668800,
        ])
        toConformal = Six([
            -2 * n + 2 * n2 / 3 + 4 * n3 / 3 - 82 * n4 / 45 + 32 * n5 / 45 + 4642 * n6 / 4725,
            5 * n2 / 3 - 16 * n3 / 15 - 13 * n4 / 9 + 904 * n5 / 315 - 1522 * n6 / 945,
            -26 * n3 / 15 + 34 * n4 / 21 + 8 * n5 / 5 - 12686 * n6 / 2835,
            1237 * n4 / 630 - 12 * n5 / 5 - 24832 * n6 / 14175,
            -734 * n5 / 315 + 109598 * n6 / 31185,
            444337 * n6 / 155925,
        ])
        fromConformal = Six([
            2 * n - 2 * n2 / 3 - 2 * n3 + 116 * n4 / 45 + 26 * n5 / 45 - 2854 * n6 / 675,
            7 * n2 / 3 - 8 * n3 / 5 - 227 * n4 / 45 + 2704 * n5 / 315 + 2323 * n6 / 945,
            56 * n3 / 15 - 136 * n4 / 35 - 1262 * n5 / 105 + 73814 * n6 / 2835,
            4279 * n4 / 630 - 332 * n5 / 35 - 399572 * n6 / 14175,
            4174 * n5 / 315 - 144838 * n6 / 6237,
            601676 * n6 / 22275,
        ])
        self.lambda0 = lambda0
        self.kA = k0 * rectifying
        self.x0 = x0
        self.y0 = y0
        // On the central meridian η′ = 0 and ξ′ = χ, so ξ = χ + Σ αₖ sin 2kχ.
        let chi0 = phi0 + Self.sineSeries(toConformal, sin(2 * phi0), cos(2 * phi0))
        xi0 = chi0 + Self.sineSeries(alpha, sin(2 * chi0), cos(2 * chi0))
    }

    /// Σₖ c[k] sin 2kθ by Clenshaw's recurrence, from sin 2θ and cos 2θ.
    @inline(__always)
    static func sineSeries<V: KernelValue>(_ c: Six, _ s2: V, _ c2: V) -> V {
        let x = 2 * c2
        let b6 = V(repeating: c.c6)
        let b5 = c.c5 + x * b6
        let b4 = c.c4 + x * b5 - b6
        let b3 = c.c3 + x * b4 - b5
        let b2 = c.c2 + x * b3 - b4
        let b1 = c.c1 + x * b2 - b3
        return b1 * s2
    }

    /// Σₖ c[k] sin 2kζ for complex ζ = ξ + iη, from sin 2ξ, cos 2ξ, sinh 2η and cosh 2η:
    /// (real part, imaginary part).
    @inline(__always)
    static func complexSineSeries<V: KernelValue>(_ c: Six, s2: V, c2: V, sh2: V, ch2: V) -> (V, V) {
        // 2 cos 2ζ = 2 (cos 2ξ cosh 2η − i sin 2ξ sinh 2η)
        let xr = 2 * c2 * ch2, xi = -2 * s2 * sh2
        let zero = V(repeating: 0)
        var b1r = zero, b1i = zero, b2r = zero, b2i = zero
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
        // × sin 2ζ = sin 2ξ cosh 2η + i cos 2ξ sinh 2η
        let sr = s2 * ch2, si = c2 * sh2
        return (b1r * sr - b1i * si, b1r * si + b1i * sr)
    }

    /// sin d and cos d for |d| ≲ 0.01 (error below 1e-19).
    @inline(__always)
    static func smallSinCos<V: KernelValue>(_ d: V) -> (V, V) {
        let d2 = d * d
        var s: V = 1 - d2 * (1.0 / 42)
        s = 1 - d2 * (1.0 / 20) * s
        s = d * (1 - d2 * (1.0 / 6) * s)
        var c: V = 1 - d2 * (1.0 / 30)
        c = 1 - d2 * (1.0 / 12) * c
        c = 1 - d2 * (1.0 / 2) * c
        return (s, c)
    }

    /// sin x, cos x and 1 − cos x for a longitude from the central meridian: Taylor polynomials
    /// within ±0.25 rad (≈14°; the first dropped term is below 1e-19), libm beyond.
    @inline(__always)
    static func sinCosNearZero(_ x: Double) -> (Double, Double, Double) {
        guard abs(x) <= 0.25 else {
            let c = cos(x)
            return (sin(x), c, 1 - c)
        }
        let (s, omc) = sinCosSeries(x)
        return (s, 1 - omc, omc)
    }

    /// (sin x, 1 − cos x) by their Taylor polynomials, for |x| ≤ 0.25 (the caller checks):
    /// sin: x − x³/3! + … − x¹⁵/15!; 1 − cos: x²/2! − x⁴/4! + … − x¹⁶/16!.
    @inline(__always)
    static func sinCosSeries<V: KernelValue>(_ x: V) -> (V, V) {
        let x2 = x * x
        // Nested products, innermost first.
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

    /// sinh d and cosh d for |d| ≲ 0.01.
    @inline(__always)
    static func smallSinhCosh(_ d: Double) -> (Double, Double) {
        let d2 = d * d
        let s = d * (1 + d2 * (1.0 / 6) * (1 + d2 * (1.0 / 20) * (1 + d2 * (1.0 / 42))))
        let c = 1 + d2 * (1.0 / 2) * (1 + d2 * (1.0 / 12) * (1 + d2 * (1.0 / 30)))
        return (s, c)
    }

    /// Points per pass of `forward`: its loops run one stage over a block of points at a time, so
    /// that the processor overlaps independent points instead of waiting on one long chain.
    static let block = 256

    /// Projects `count` points in place: x holds longitudes, y latitudes (radians) on entry, and
    /// eastings, northings on return.
    func forward(x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>, count: Int) {
        let block = Self.block
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 4 * block) { scratch in
            guard let s = scratch.baseAddress else { return }
            var start = 0
            while start < count {
                let n = min(block, count - start)
                forwardBlock(x: x + start, y: y + start, count: n, sines: s, ts: s + block, us: s + 2 * block,
                             xis: s + 3 * block)
                start += n
            }
        }
    }

    @inline(__always)
    private func forwardBlock(x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>, count n: Int,
                              sines: UnsafeMutablePointer<Double>, ts: UnsafeMutablePointer<Double>,
                              us: UnsafeMutablePointer<Double>, xis: UnsafeMutablePointer<Double>)
    {
        let lambda0 = self.lambda0, kA = self.kA, x0 = self.x0, y0 = self.y0, xi0 = self.xi0
        let alpha = self.alpha, toConformal = self.toConformal
        let latitude = ReferenceAngle.koreanLatitude
        for i in 0..<n { sines[i] = latitude.sin(y[i]) }
        // Conformal latitude and the spherical transverse Mercator of (χ, λ):
        // tan ξ′ = tan χ / cos λ, tanh η′ = t = cos χ sin λ. `sines` then holds sin χ.
        @inline(__always) func sphere(_ i: Int) {
            let phi = y[i], sp = sines[i]
            // cos φ ≥ 0 for |φ| ≤ 90°: from sin φ while that keeps full precision (|φ| < 64°).
            let cp = abs(sp) < 0.9 ? ((1 - sp) * (1 + sp)).squareRoot() : cos(phi)
            // χ = φ + δ, |δ| < 0.0034.
            let delta = Self.sineSeries(toConformal, 2 * sp * cp, (cp - sp) * (cp + sp))
            let (sd, cd) = Self.smallSinCos(delta)
            let sChi = sp * cd + cp * sd, cChi = cp * cd - sp * sd
            let (sl, cl, oneMinusCl) = Self.sinCosNearZero(x[i] - lambda0)
            let u = cChi * cl
            // tan(ξ′ − χ) = sin χ cos χ (1 − cos λ) / (1 − cos²χ (1 − cos λ)): small near the central meridian.
            let d = sChi * cChi * oneMinusCl / (1 - cChi * cChi * oneMinusCl)
            xis[i] = abs(d) <= 0.02 ? (phi + delta) + Self.smallAtan(d) : atan2(sChi, u)
            sines[i] = sChi
            us[i] = u
            ts[i] = cChi * sl
        }
        // Two points at a time in SIMD registers while both take the polynomial branches (the
        // same operations as `sphere`, lane by lane); a pair that does not goes through `sphere`.
        var i = 0
        while i + 1 < n {
            let phi = Pair.load(y + i), sp = Pair.load(sines + i), lambda = Pair.load(x + i) - lambda0
            if all(Pair.abs(sp) .< 0.9), all(Pair.abs(lambda) .<= 0.25) {
                let cp = ((1 - sp) * (1 + sp)).squareRoot()
                let delta = Self.sineSeries(toConformal, 2 * sp * cp, (cp - sp) * (cp + sp))
                let (sd, cd) = Self.smallSinCos(delta)
                let sChi = sp * cd + cp * sd, cChi = cp * cd - sp * sd
                let (sl, oneMinusCl) = Self.sinCosSeries(lambda)
                let u = cChi * (1 - oneMinusCl)
                let d = sChi * cChi * oneMinusCl / (1 - cChi * cChi * oneMinusCl)
                if all(Pair.abs(d) .<= 0.02) {
                    Pair.store((phi + delta) + Self.smallAtan(d), xis + i)
                    Pair.store(sChi, sines + i)
                    Pair.store(u, us + i)
                    Pair.store(cChi * sl, ts + i)
                    i += 2
                    continue
                }
            }
            sphere(i)
            sphere(i + 1)
            i += 2
        }
        if i < n { sphere(i) }

        @inline(__always) func ellipsoid(_ i: Int) {
            let sChi = sines[i], u = us[i], t = ts[i]
            let etaP = Self.atanhSmall(t)
            // sin²χ + u² = 1 − t²: one division gives sin 2ξ′, cos 2ξ′, sinh 2η′ and cosh 2η′.
            let inv = 1 / ((1 - t) * (1 + t))
            let s2 = 2 * sChi * u * inv, c2 = (u - sChi) * (u + sChi) * inv
            let sh2 = 2 * t * inv, ch2 = (1 + t * t) * inv
            let (dxi, deta) = Self.complexSineSeries(alpha, s2: s2, c2: c2, sh2: sh2, ch2: ch2)
            x[i] = x0 + kA * (etaP + deta)
            y[i] = y0 + kA * ((xis[i] - xi0) + dxi)
        }
        i = 0
        while i + 1 < n {
            let t = Pair.load(ts + i)
            guard all(Pair.abs(t) .<= 0.125) else {
                ellipsoid(i)
                ellipsoid(i + 1)
                i += 2
                continue
            }
            let sChi = Pair.load(sines + i), u = Pair.load(us + i)
            let etaP = Self.atanhSeries(t)
            let inv = 1 / ((1 - t) * (1 + t))
            let s2 = 2 * sChi * u * inv, c2 = (u - sChi) * (u + sChi) * inv
            let sh2 = 2 * t * inv, ch2 = (1 + t * t) * inv
            let (dxi, deta) = Self.complexSineSeries(alpha, s2: s2, c2: c2, sh2: sh2, ch2: ch2)
            Pair.store(x0 + kA * (etaP + deta), x + i)
            Pair.store(y0 + kA * ((Pair.load(xis + i) - xi0) + dxi), y + i)
            i += 2
        }
        if i < n { ellipsoid(i) }
    }

    /// atanh t = t + t³/3 + t⁵/5 + … for |t| ≤ 0.125 (eleven terms: the first dropped one is below
    /// 1e-21 × |t|; t = cos χ sin λ stays this small within ±7° of the central meridian), libm beyond.
    @inline(__always)
    static func atanhSmall(_ t: Double) -> Double {
        guard abs(t) <= 0.125 else { return atanh(t) }
        return atanhSeries(t)
    }

    /// The series of `atanhSmall`, for |t| ≤ 0.125 (the caller checks).
    @inline(__always)
    static func atanhSeries<V: KernelValue>(_ t: V) -> V {
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

    /// atan d for |d| ≤ 0.02 (the first dropped term is below 1e-23).
    @inline(__always)
    static func smallAtan<V: KernelValue>(_ d: V) -> V {
        let d2 = d * d
        var q: V = 1.0 / 9 - d2 * (1.0 / 11)
        q = 1.0 / 7 - d2 * q
        q = 1.0 / 5 - d2 * q
        q = 1.0 / 3 - d2 * q
        return d * (1 - d2 * q)
    }

    /// Unprojects `count` points in place: x holds eastings, y northings on entry, and longitudes,
    /// latitudes (radians) on return.
    func inverse(x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>, count: Int) {
        let lambda0 = self.lambda0, kA = self.kA, x0 = self.x0, y0 = self.y0, xi0 = self.xi0
        let beta = self.beta, fromConformal = self.fromConformal
        for i in 0..<count {
            let xi = (y[i] - y0) / kA + xi0
            let eta = (x[i] - x0) / kA
            let sx = sin(xi), cx = cos(xi)
            let e = exp(eta), ie = 1 / e
            let sh = (e - ie) / 2, ch = (e + ie) / 2
            let s2 = 2 * sx * cx, c2 = (cx - sx) * (cx + sx)
            let (dxi, deta) = Self.complexSineSeries(beta, s2: s2, c2: c2, sh2: 2 * sh * ch, ch2: ch * ch + sh * sh)
            // ζ′ = ζ − (dξ + i dη): rotate sin/cos and sinh/cosh by the small corrections.
            let (sdx, cdx) = Self.smallSinCos(dxi)
            let (shd, chd) = Self.smallSinhCosh(deta)
            let sxP = sx * cdx - cx * sdx, cxP = cx * cdx + sx * sdx
            let shP = sh * chd - ch * shd, chP = ch * chd - sh * shd
            // Spherical inverse: sin χ = sin ξ′ / cosh η′, tan λ = sinh η′ / cos ξ′.
            let q = (shP * shP + cxP * cxP).squareRoot()
            let chi = atan2(sxP, q)
            let lambda = atan2(shP, cxP)
            let ch2P = chP * chP
            let sChi2 = 2 * sxP * q / ch2P, cChi2 = (q - sxP) * (q + sxP) / ch2P
            y[i] = chi + Self.sineSeries(fromConformal, sChi2, cChi2)
            x[i] = lambda + lambda0
        }
    }
}

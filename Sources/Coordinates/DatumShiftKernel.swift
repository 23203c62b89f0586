import Foundation

/// Geodetic (λ, φ, h) ↔ geocentric (X, Y, Z) on one ellipsoid, over arrays of points: PROJ's
/// `cart` step. Angles in radians, lengths in metres.
///
/// Forward: N = a / √(1 − e² sin²φ), X = (N + h) cos φ cos λ, Y = (N + h) cos φ sin λ,
/// Z = (N (1 − e²) + h) sin φ. Inverse: Bowring's closed form (one step from the parametric
/// latitude, exact to ≈1e-15 rad for heights within tens of kilometres of the surface), the same
/// formula PROJ's `cart` uses, so that both agree to rounding. Sines, cosines and arctangents of
/// Korean latitudes and longitudes come from `ReferenceAngle`'s polynomials.
struct GeocentricKernel: Sendable, Equatable {
    let a: Double
    let b: Double
    /// First and second eccentricity squared.
    let es: Double
    let secondES: Double

    init(a: Double, f: Double) {
        self.a = a
        b = a * (1 - f)
        es = f * (2 - f)
        secondES = es / ((1 - f) * (1 - f))
    }

    /// x = λ, y = φ, z = h on entry; X, Y, Z on return.
    func forward(x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>, z: UnsafeMutablePointer<Double>, count: Int) {
        let a = self.a, es = self.es
        let latitude = ReferenceAngle.koreanLatitude, longitude = ReferenceAngle.koreanLongitude
        @inline(__always) func one(_ i: Int) {
            let sp = latitude.sin(y[i])
            // cos φ ≥ 0: from sin φ while that keeps full precision (|φ| < 64°).
            let cp = abs(sp) < 0.9 ? ((1 - sp) * (1 + sp)).squareRoot() : cos(y[i])
            let (sl, cl) = longitude.sinCos(x[i])
            let h = z[i]
            let n = a / (1 - es * sp * sp).squareRoot()
            x[i] = (n + h) * cp * cl
            y[i] = (n + h) * cp * sl
            z[i] = (n * (1 - es) + h) * sp
        }
        // Pairs of points in SIMD registers while both are near the reference angles (see `Pair`).
        var i = 0
        while i + 1 < count {
            let phi = Pair.load(y + i), lambda = Pair.load(x + i)
            let dPhi = phi - latitude.angle, dLambda = lambda - longitude.angle
            guard all(Pair.abs(dPhi) .<= 0.25), all(Pair.abs(dLambda) .<= 0.25) else {
                one(i)
                one(i + 1)
                i += 2
                continue
            }
            let (sdp, omcp) = TransverseMercatorKernel.sinCosSeries(dPhi)
            let sp = latitude.sine - latitude.sine * omcp + latitude.cosine * sdp
            let (sdl, omcl) = TransverseMercatorKernel.sinCosSeries(dLambda)
            let sl = longitude.sine - longitude.sine * omcl + longitude.cosine * sdl
            let cl = longitude.cosine - longitude.cosine * omcl - longitude.sine * sdl
            let cp = ((1 - sp) * (1 + sp)).squareRoot()  // |sp| < 0.9 within ±0.25 rad of 36.1°
            let h = Pair.load(z + i)
            let n = a / (1 - es * sp * sp).squareRoot()
            Pair.store((n + h) * cp * cl, x + i)
            Pair.store((n + h) * cp * sl, y + i)
            Pair.store((n * (1 - es) + h) * sp, z + i)
            i += 2
        }
        if i < count { one(i) }
    }

    /// x = X, y = Y, z = Z on entry; λ, φ and (when `height`, else z is left as it was) h on return.
    func inverse(x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>, z: UnsafeMutablePointer<Double>, count: Int,
                 height: Bool = true)
    {
        let a = self.a, b = self.b, es = self.es, secondES = self.secondES
        let latitude = ReferenceAngle.koreanLatitude, longitude = ReferenceAngle.koreanLongitude
        @inline(__always) func one(_ i: Int) {
            let px = x[i], py = y[i], pz = z[i]
            let p = (px * px + py * py).squareRoot()
            // Parametric latitude θ of the point's projection (tan θ = z a / (p b)), then one Bowring step.
            let za = pz * a, pb = p * b
            let r = (za * za + pb * pb).squareRoot()
            let inverseR = 1 / r  // as in the pairs below: same bits whichever way a point goes
            let st = za * inverseR, ct = pb * inverseR
            let phi = latitude.atan2(pz + secondES * b * st * st * st, p - es * a * ct * ct * ct)
            x[i] = longitude.atan2(py, px)
            y[i] = phi
            if height {
                let (sp, cp) = latitude.sinCos(phi)
                let n = a / (1 - es * sp * sp).squareRoot()
                z[i] = abs(cp) < 1e-6 ? abs(pz) / abs(sp) - n * (1 - es) : p / cp - n
            }
        }
        guard !height else {
            for i in 0..<count { one(i) }
            return
        }
        // Pairs of points in SIMD registers while both are near the reference angles (see `Pair`).
        var i = 0
        while i + 1 < count {
            let px = Pair.load(x + i), py = Pair.load(y + i), pz = Pair.load(z + i)
            let p = (px * px + py * py).squareRoot()
            let za = pz * a, pb = p * b
            let r = (za * za + pb * pb).squareRoot()
            let inverseR = 1 / r
            let st = za * inverseR, ct = pb * inverseR
            let num = pz + secondES * b * st * st * st, den = p - es * a * ct * ct * ct
            guard let phi = Pair.atan2(num, den, near: latitude), let lambda = Pair.atan2(py, px, near: longitude) else {
                one(i)
                one(i + 1)
                i += 2
                continue
            }
            Pair.store(lambda, x + i)
            Pair.store(phi, y + i)
            i += 2
        }
        if i < count { one(i) }
    }
}

/// A 7-parameter Helmert transformation of geocentric coordinates (PROJ's `helmert` step without
/// time terms): X′ = T + (1 + s·10⁻⁶) R X with PROJ's small-angle rotation matrix R, in the
/// position-vector or coordinate-frame convention; the inverse is PROJ's too,
/// X = Rᵀ (X′ − T) / (1 + s·10⁻⁶) (the transpose, not the exact inverse of R).
struct HelmertKernel: Sendable, Equatable {
    let tx: Double, ty: Double, tz: Double
    let scale: Double
    /// The rotation matrix, row by row, as applied forward.
    let r: (Double, Double, Double, Double, Double, Double, Double, Double, Double)

    /// Translations in metres, rotations in arc-seconds, scale difference in parts per million.
    init(tx: Double, ty: Double, tz: Double, rx: Double, ry: Double, rz: Double, ppm: Double, positionVector: Bool) {
        self.tx = tx
        self.ty = ty
        self.tz = tz
        scale = 1 + ppm * 1e-6
        let k = Double.pi / (180 * 3600)
        let wx = rx * k, wy = ry * k, wz = rz * k
        // Position vector: R = [[1, −rz, ry], [rz, 1, −rx], [−ry, rx, 1]]; coordinate frame: Rᵀ.
        if positionVector {
            r = (1, -wz, wy, wz, 1, -wx, -wy, wx, 1)
        } else {
            r = (1, wz, -wy, -wz, 1, wx, wy, -wx, 1)
        }
    }

    static func == (l: HelmertKernel, r: HelmertKernel) -> Bool {
        l.tx == r.tx && l.ty == r.ty && l.tz == r.tz && l.scale == r.scale
            && [l.r.0, l.r.1, l.r.2, l.r.3, l.r.4, l.r.5, l.r.6, l.r.7, l.r.8]
            == [r.r.0, r.r.1, r.r.2, r.r.3, r.r.4, r.r.5, r.r.6, r.r.7, r.r.8]
    }

    func forward(x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>, z: UnsafeMutablePointer<Double>, count: Int) {
        let m = r, s = scale, tx = self.tx, ty = self.ty, tz = self.tz
        for i in 0..<count {
            let px = x[i], py = y[i], pz = z[i]
            x[i] = tx + s * (m.0 * px + m.1 * py + m.2 * pz)
            y[i] = ty + s * (m.3 * px + m.4 * py + m.5 * pz)
            z[i] = tz + s * (m.6 * px + m.7 * py + m.8 * pz)
        }
    }

    func inverse(x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>, z: UnsafeMutablePointer<Double>, count: Int) {
        // × (1 / s): within an ulp of PROJ's division, and no division per coordinate.
        let m = r, inverseScale = 1 / scale, tx = self.tx, ty = self.ty, tz = self.tz
        for i in 0..<count {
            let px = (x[i] - tx) * inverseScale, py = (y[i] - ty) * inverseScale, pz = (z[i] - tz) * inverseScale
            x[i] = m.0 * px + m.3 * py + m.6 * pz
            y[i] = m.1 * px + m.4 * py + m.7 * pz
            z[i] = m.2 * px + m.5 * py + m.8 * pz
        }
    }
}

/// The spherical ("Web") Mercator of PROJ's `webmerc` step on the sphere of radius a (EPSG:3857):
/// x = x₀ + a (λ − λ₀), y = y₀ + a atanh(sin φ); inverse φ = atan(sinh((y − y₀) / a)).
struct WebMercatorKernel: Sendable, Equatable {
    let a: Double
    let lambda0: Double
    let x0: Double
    let y0: Double

    /// x = λ, y = φ (radians) on entry; easting, northing on return.
    func forward(x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>, count: Int) {
        let a = self.a, lambda0 = self.lambda0, x0 = self.x0, y0 = self.y0
        let latitude = ReferenceAngle.koreanLatitude
        for i in 0..<count { x[i] = x0 + a * (x[i] - lambda0) }
        @inline(__always) func one(_ i: Int) {
            y[i] = y0 + a * latitude.atanhOfSine(latitude.sin(y[i]))
        }
        // Pairs of points in SIMD registers while both are near the reference latitude (see `Pair`).
        var i = 0
        while i + 1 < count {
            let d = Pair.load(y + i) - latitude.angle
            if all(Pair.abs(d) .<= 0.25) {
                let (sd, omcd) = TransverseMercatorKernel.sinCosSeries(d)
                let s = latitude.sine - latitude.sine * omcd + latitude.cosine * sd
                let u = (s - latitude.sine) / (1 - s * latitude.sine)
                if all(Pair.abs(u) .<= 0.125) {
                    Pair.store(y0 + a * (latitude.atanhSine + TransverseMercatorKernel.atanhSeries(u)), y + i)
                    i += 2
                    continue
                }
            }
            one(i)
            one(i + 1)
            i += 2
        }
        if i < count { one(i) }
    }

    /// Easting, northing on entry; x = λ, y = φ (radians) on return.
    func inverse(x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>, count: Int) {
        let a = self.a, lambda0 = self.lambda0, x0 = self.x0, y0 = self.y0
        for i in 0..<count {
            x[i] = (x[i] - x0) / a + lambda0
            y[i] = atan(sinh((y[i] - y0) / a))
        }
    }
}

import CProj

/// A PROJ pipeline rewritten with closed-form kernels: the transverse Mercator (`tmerc`, `utm`), Web Mercator (`webmerc`),
/// geodetic ↔ geocentric (`cart`) and 7-parameter Helmert steps computed in Swift over chunks of
/// points, with every parameter read from the pipeline PROJ chose and each ellipsoid's a and f
/// from PROJ itself. The trivial steps (unit conversion, axis swap, push/pop of z) are done as in
/// `StepwisePlan`. A transformer uses a recipe only inside the source-coordinate `box` where it was
/// checked against PROJ (see `CoordinateTransformer.verifiedKernel`).
struct KernelRecipe: Sendable, Equatable {
    enum Step: Sendable, Equatable {
        case scale(Double, Double)
        case swapXY
        case pushZ
        case popZ
        case tmercForward(TransverseMercatorKernel)
        case tmercInverse(TransverseMercatorKernel)
        case geocentricForward(GeocentricKernel)
        /// `height` false when the height is never read afterwards (restored by `popZ`, or dropped).
        case geocentricInverse(GeocentricKernel, height: Bool)
        case helmertForward(HelmertKernel)
        case helmertInverse(HelmertKernel)
        case webMercatorForward(WebMercatorKernel)
        case webMercatorInverse(WebMercatorKernel)
    }

    let steps: [Step]
    /// Source-coordinate box (x west…east, y south…north) where the kernel was checked: points
    /// outside it (and non-finite ones) go through PROJ.
    var box: (minX: Double, minY: Double, maxX: Double, maxY: Double)
    /// The largest difference from PROJ found by the check, in target units.
    var checkedDifference: Double

    static func == (l: KernelRecipe, r: KernelRecipe) -> Bool {
        l.steps == r.steps && l.box == r.box && l.checkedDifference == r.checkedDifference
    }

    /// A short description of the kernels, for diagnostics (`tmerc⁻¹ → cart → helmert …`).
    var summary: String {
        steps.compactMap { step -> String? in
            switch step {
            case .tmercForward: return "tmerc"
            case .tmercInverse: return "inverse tmerc"
            case .geocentricForward: return "cart"
            case .geocentricInverse: return "inverse cart"
            case .helmertForward: return "helmert"
            case .helmertInverse: return "inverse helmert"
            case .webMercatorForward: return "webmerc"
            case .webMercatorInverse: return "inverse webmerc"
            default: return nil
            }
        }.joined(separator: " → ")
    }

    /// The kernel form of `recipe`, with ellipsoids and unit factors learnt from PROJ in `ctx`;
    /// nil when a step has no kernel or carries a parameter the kernels do not model. The box is
    /// empty until the check sets it.
    static func make(_ recipe: StepRecipe, in ctx: OpaquePointer) -> KernelRecipe? {
        var steps: [Step] = []
        var hasKernel = false
        for step in recipe.steps {
            switch step {
            case .swapXY: steps.append(.swapXY)
            case .pushZ: steps.append(.pushZ)
            case .popZ: steps.append(.popZ)
            case .unitConvert(let definition, let inverse):
                guard let pj = proj_create(ctx, definition) else { return nil }
                var coord = PJ_COORD(v: (1, 1, 0, 0))
                coord = proj_trans(pj, inverse ? PJ_INV : PJ_FWD, coord)
                proj_destroy(pj)
                guard coord.v.0.isFinite, coord.v.1.isFinite else { return nil }
                steps.append(.scale(coord.v.0, coord.v.1))
            case .proj(let definition, let inverse):
                guard let made = kernelStep(definition, inverse: inverse, in: ctx) else { return nil }
                steps.append(made)
                hasKernel = true
            }
        }
        guard hasKernel else { return nil }
        // A geocentric → geodetic step need not compute the height when no later step reads it.
        for (k, step) in steps.enumerated() {
            guard case .geocentricInverse(let g, _) = step else { continue }
            var read = false
            for later in steps[(k + 1)...] {
                if case .popZ = later { break }
                if case .geocentricForward = later { read = true; break }
                if case .helmertForward = later { read = true; break }
                if case .helmertInverse = later { read = true; break }
                if case .pushZ = later { read = true; break }
            }
            steps[k] = .geocentricInverse(g, height: read)
        }
        return KernelRecipe(steps: steps, box: (0, 0, -1, -1), checkedDifference: .infinity)
    }

    /// Ellipsoid parameters a PROJ step may carry.
    private static let ellipsoidKeys: Set<String> = ["ellps", "a", "b", "rf", "f", "es", "e", "R"]

    private static func kernelStep(_ definition: String, inverse: Bool, in ctx: OpaquePointer) -> Step? {
        var params: [String: String] = [:]
        var ellipsoidTokens: [String] = []
        for token in definition.split(separator: " ") where token.hasPrefix("+") {
            let body = token.dropFirst()
            let parts = body.split(separator: "=", maxSplits: 1)
            let key = String(parts[0])
            params[key] = parts.count > 1 ? String(parts[1]) : ""
            if ellipsoidKeys.contains(key) { ellipsoidTokens.append(String(token)) }
        }
        func number(_ key: String, _ fallback: Double? = nil) -> Double? {
            guard let text = params[key] else { return fallback }
            return Double(text)
        }
        func only(_ allowed: Set<String>) -> Bool {
            params.keys.allSatisfy { allowed.contains($0) || ellipsoidKeys.contains($0) }
        }
        switch params["proj"] {
        case "tmerc":
            guard only(["proj", "lat_0", "lon_0", "k", "k_0", "x_0", "y_0", "units"]),
                  params["units"] == nil || params["units"] == "m",
                  let (a, f) = ellipsoid(ellipsoidTokens, in: ctx), f > 0,
                  let lat0 = number("lat_0", 0), let lon0 = number("lon_0", 0),
                  let k0 = number("k_0", nil) ?? number("k", 1), let x0 = number("x_0", 0), let y0 = number("y_0", 0)
            else { return nil }
            let tm = TransverseMercatorKernel(a: a, f: f, phi0: lat0 * .pi / 180, lambda0: lon0 * .pi / 180,
                                              k0: k0, x0: x0, y0: y0)
            return inverse ? .tmercInverse(tm) : .tmercForward(tm)
        case "utm":
            guard only(["proj", "zone", "south", "units"]), params["units"] == nil || params["units"] == "m",
                  let zoneText = params["zone"], let zone = Int(zoneText), (1...60).contains(zone),
                  let (a, f) = ellipsoid(ellipsoidTokens, in: ctx), f > 0
            else { return nil }
            let tm = TransverseMercatorKernel(a: a, f: f, phi0: 0, lambda0: Double(6 * zone - 183) * .pi / 180,
                                              k0: 0.9996, x0: 500_000, y0: params["south"] != nil ? 10_000_000 : 0)
            return inverse ? .tmercInverse(tm) : .tmercForward(tm)
        case "webmerc":
            guard only(["proj", "lat_0", "lon_0", "x_0", "y_0", "units"]), params["units"] == nil || params["units"] == "m",
                  number("lat_0", 0) == 0, let (a, _) = ellipsoid(ellipsoidTokens, in: ctx),
                  let lon0 = number("lon_0", 0), let x0 = number("x_0", 0), let y0 = number("y_0", 0)
            else { return nil }
            let merc = WebMercatorKernel(a: a, lambda0: lon0 * .pi / 180, x0: x0, y0: y0)
            return inverse ? .webMercatorInverse(merc) : .webMercatorForward(merc)
        case "cart":
            guard only(["proj"]), let (a, f) = ellipsoid(ellipsoidTokens, in: ctx) else { return nil }
            let g = GeocentricKernel(a: a, f: f)
            return inverse ? .geocentricInverse(g, height: true) : .geocentricForward(g)
        case "helmert":
            guard only(["proj", "x", "y", "z", "rx", "ry", "rz", "s", "convention"]),
                  let tx = number("x", 0), let ty = number("y", 0), let tz = number("z", 0),
                  let rx = number("rx", 0), let ry = number("ry", 0), let rz = number("rz", 0), let s = number("s", 0)
            else { return nil }
            let convention = params["convention"]
            guard convention == "position_vector" || convention == "coordinate_frame"
                || (convention == nil && rx == 0 && ry == 0 && rz == 0) else { return nil }
            let h = HelmertKernel(tx: tx, ty: ty, tz: tz, rx: rx, ry: ry, rz: rz, ppm: s,
                                  positionVector: convention != "coordinate_frame")
            return inverse ? .helmertInverse(h) : .helmertForward(h)
        default:
            return nil
        }
    }

    /// Semi-major axis and flattening of the ellipsoid a step names, asked of PROJ.
    private static func ellipsoid(_ tokens: [String], in ctx: OpaquePointer) -> (Double, Double)? {
        let text = "+proj=longlat " + (tokens.isEmpty ? "+ellps=GRS80" : tokens.joined(separator: " ")) + " +no_defs +type=crs"
        guard let crs = proj_create(ctx, text) else { return nil }
        defer { proj_destroy(crs) }
        guard let ellipsoid = proj_get_ellipsoid(ctx, crs) else { return nil }
        defer { proj_destroy(ellipsoid) }
        var a = 0.0, b = 0.0, inverseFlattening = 0.0
        var computed: Int32 = 0
        guard proj_ellipsoid_get_parameters(ctx, ellipsoid, &a, &b, &computed, &inverseFlattening) != 0,
              a > 0, a.isFinite else { return nil }
        let f = inverseFlattening > 0 ? 1 / inverseFlattening : (b > 0 && b < a ? (a - b) / a : 0)
        return (a, f)
    }
}

/// A kernel recipe's scratch buffers, for one worker (one thread at a time).
final class KernelPlan {
    let recipe: KernelRecipe
    private let buffer: UnsafeMutablePointer<Double>
    private let outside: UnsafeMutablePointer<Int>
    private static let chunk = StepwisePlan.chunkSize
    /// Depth of saved z arrays (push/pop nesting) the recipe needs.
    private let saveSlots: Int

    init(_ recipe: KernelRecipe) {
        self.recipe = recipe
        var depth = 0, most = 0
        for step in recipe.steps {
            if case .pushZ = step { depth += 1; most = max(most, depth) }
            if case .popZ = step { depth = max(0, depth - 1) }
        }
        saveSlots = most
        buffer = .allocate(capacity: (5 + most) * Self.chunk)
        outside = .allocate(capacity: Self.chunk)
    }

    deinit {
        buffer.deallocate()
        outside.deallocate()
    }

    /// True when the kernel handles a source point (inside the checked box).
    @inline(__always)
    func covers(x: Double, y: Double) -> Bool {
        let b = recipe.box
        return x >= b.minX && x <= b.maxX && y >= b.minY && y <= b.maxY
    }

    /// Transforms `count` points in place (x and y `stride` doubles apart): those inside the box
    /// with the kernels, the others with `fallback` (PROJ), called on packed x and y arrays.
    func transform(x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>, stride: Int, count: Int,
                   fallback: (UnsafeMutablePointer<Double>, UnsafeMutablePointer<Double>, Int) -> Void)
    {
        var done = 0
        while done < count {
            let n = min(Self.chunk, count - done)
            runChunk(x + done * stride, y + done * stride, stride: stride, count: n, checkBox: true, fallback: fallback)
            done += n
        }
    }

    private func runChunk(_ x: UnsafeMutablePointer<Double>, _ y: UnsafeMutablePointer<Double>, stride: Int, count n: Int,
                          checkBox: Bool, fallback: (UnsafeMutablePointer<Double>, UnsafeMutablePointer<Double>, Int) -> Void)
    {
        let size = Self.chunk
        var px = buffer, py = buffer + size
        let pz = buffer + 2 * size
        var outsideCount = 0
        for i in 0..<n {
            let vx = x[i * stride], vy = y[i * stride]
            px[i] = vx
            py[i] = vy
            pz[i] = 0
            if checkBox, !covers(x: vx, y: vy) {
                outside[outsideCount] = i
                outsideCount += 1
            }
        }
        var depth = 0
        for step in recipe.steps {
            switch step {
            case .scale(let fx, let fy):
                for i in 0..<n {
                    px[i] *= fx
                    py[i] *= fy
                }
            case .swapXY: swap(&px, &py)
            case .pushZ:
                let saved = buffer + (5 + depth) * size
                saved.update(from: pz, count: n)
                depth += 1
            case .popZ:
                if depth > 0 {
                    depth -= 1
                    pz.update(from: buffer + (5 + depth) * size, count: n)
                }
            case .tmercForward(let tm): tm.forward(x: px, y: py, count: n)
            case .tmercInverse(let tm): tm.inverse(x: px, y: py, count: n)
            case .geocentricForward(let g): g.forward(x: px, y: py, z: pz, count: n)
            case .geocentricInverse(let g, let height): g.inverse(x: px, y: py, z: pz, count: n, height: height)
            case .helmertForward(let h): h.forward(x: px, y: py, z: pz, count: n)
            case .helmertInverse(let h): h.inverse(x: px, y: py, z: pz, count: n)
            case .webMercatorForward(let m): m.forward(x: px, y: py, count: n)
            case .webMercatorInverse(let m): m.inverse(x: px, y: py, count: n)
            }
        }
        if outsideCount == 0 {
            for i in 0..<n {
                x[i * stride] = px[i]
                y[i * stride] = py[i]
            }
            return
        }
        // Points outside the box: PROJ, on packed copies of their inputs (still in x and y).
        let ox = buffer + 3 * size, oy = buffer + 4 * size
        for k in 0..<outsideCount {
            ox[k] = x[outside[k] * stride]
            oy[k] = y[outside[k] * stride]
        }
        for i in 0..<n {
            x[i * stride] = px[i]
            y[i * stride] = py[i]
        }
        fallback(ox, oy, outsideCount)
        for k in 0..<outsideCount {
            x[outside[k] * stride] = ox[k]
            y[outside[k] * stride] = oy[k]
        }
    }

    /// Runs the kernels alone (no box) on packed arrays: for the check against PROJ.
    func transformUnchecked(x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>, count: Int) {
        var done = 0
        while done < count {
            let n = min(Self.chunk, count - done)
            runChunk(x + done, y + done, stride: 1, count: n, checkBox: false) { _, _, _ in }
            done += n
        }
    }
}

import CProj
import Geo

/// Thin helpers over the PROJ C API. Every PROJ object belongs to one `PJ_CONTEXT` and must be
/// used by one thread at a time; callers pair each context with the objects made in it.
enum Proj {
    /// A new context that logs nothing (errors come back as values) and never uses the network.
    static func makeContext() -> OpaquePointer? {
        guard let ctx = proj_context_create() else { return nil }
        proj_log_level(ctx, PJ_LOG_NONE)
        _ = proj_context_set_enable_network(ctx, 0)
        return ctx
    }

    /// The message of the context's last error, or `fallback` when PROJ set none.
    static func lastError(_ ctx: OpaquePointer, fallback: String) -> String {
        let code = proj_context_errno(ctx)
        guard code != 0, let text = proj_context_errno_string(ctx, code) else { return fallback }
        return String(cString: text)
    }

    /// Builds the CRS object that `descriptor` names in `ctx`; the caller destroys it.
    ///
    /// Throws `unknownCRS` when PROJ does not know the name and `unsupportedCRS` when it is not a
    /// horizontal (geographic or projected) CRS.
    static func makeCRS(_ descriptor: CRSDescriptor, in ctx: OpaquePointer) throws(CoordinateError) -> OpaquePointer {
        let object: OpaquePointer?
        switch descriptor.definition {
        case .authority(let code):
            object = proj_create(ctx, code)
        case .projString(let text):
            object = proj_create(ctx, text)
        case .rescaled(let base, let unitName, let metresPerUnit):
            guard let baseCRS = proj_create(ctx, base) else { throw .unknownCRS(base) }
            defer { proj_destroy(baseCRS) }
            object = proj_crs_alter_cs_linear_unit(ctx, baseCRS, unitName, metresPerUnit, nil, nil)
        }
        guard let crs = object else { throw .unknownCRS(descriptor.name) }
        guard proj_is_crs(crs) != 0 else {
            proj_destroy(crs)
            throw .unknownCRS(descriptor.name)  // an EPSG code of a unit, datum or operation, not of a CRS
        }
        switch proj_get_type(crs) {
        case PJ_TYPE_GEOGRAPHIC_2D_CRS, PJ_TYPE_GEOGRAPHIC_3D_CRS, PJ_TYPE_PROJECTED_CRS,
             PJ_TYPE_BOUND_CRS, PJ_TYPE_COMPOUND_CRS:
            return crs
        case PJ_TYPE_GEOCENTRIC_CRS:
            proj_destroy(crs)
            throw .unsupportedCRS(name: descriptor.name, reason: "it is geocentric (x, y, z), not a 2D map CRS")
        case PJ_TYPE_VERTICAL_CRS:
            proj_destroy(crs)
            throw .unsupportedCRS(name: descriptor.name, reason: "it is a vertical (height) CRS")
        default:
            proj_destroy(crs)
            throw .unsupportedCRS(name: descriptor.name, reason: "it is not a geographic or projected CRS")
        }
    }

    /// What the engine needs to know of a CRS: its kind, axis unit and area of use.
    struct CRSFacts {
        /// Coordinates are angles (a geographic CRS).
        var isGeographic: Bool
        /// The angular unit is the degree (so ±180 / ±90 limits apply).
        var isDegrees: Bool
        /// The CRS's own name, for diagnostics.
        var crsName: String
        /// West, south, east, north in degrees; nil when unknown. West > east crosses the antimeridian.
        var areaOfUse: BoundingBox?
    }

    /// Inspects a CRS made by `makeCRS`.
    static func facts(of crs: OpaquePointer, descriptor: CRSDescriptor, in ctx: OpaquePointer) -> CRSFacts {
        // The horizontal part: a bound CRS wraps its source CRS; a compound CRS starts with it.
        var horizontal: OpaquePointer? = nil
        switch proj_get_type(crs) {
        case PJ_TYPE_BOUND_CRS: horizontal = proj_get_source_crs(ctx, crs)
        case PJ_TYPE_COMPOUND_CRS: horizontal = proj_crs_get_sub_crs(ctx, crs, 0)
        default: horizontal = proj_clone(ctx, crs)
        }
        defer { if let h = horizontal { proj_destroy(h) } }
        let type = horizontal.map { proj_get_type($0) } ?? PJ_TYPE_UNKNOWN
        let geographic = type == PJ_TYPE_GEOGRAPHIC_2D_CRS || type == PJ_TYPE_GEOGRAPHIC_3D_CRS
        var degrees = false
        if geographic, let h = horizontal, let cs = proj_crs_get_coordinate_system(ctx, h) {
            var factor = 0.0
            if proj_cs_get_axis_info(ctx, cs, 0, nil, nil, nil, &factor, nil, nil, nil) != 0 {
                degrees = abs(factor - Double.pi / 180) < 1e-12
            }
            proj_destroy(cs)
        }
        let name = proj_get_name(crs).map { String(cString: $0) } ?? descriptor.name
        var area = descriptor.areaOfUseOverride
        if area == nil {
            var w = -1000.0, s = -1000.0, e = -1000.0, n = -1000.0
            if proj_get_area_of_use(ctx, crs, &w, &s, &e, &n, nil) != 0, w > -1000, s > -1000 {
                area = BoundingBox(west: w, south: s, east: e, north: n)
            }
        }
        return CRSFacts(isGeographic: geographic, isDegrees: degrees, crsName: name, areaOfUse: area)
    }
}

/// One PROJ context and the normalised (x = east/longitude, y = north/latitude) operation made in it.
///
/// Not thread-safe: a worker is used by one thread at a time, handed out by `ProjWorkerPool`.
final class ProjWorker: @unchecked Sendable {
    let context: OpaquePointer
    let operation: OpaquePointer
    /// The step-by-step way to run `operation`, when the transformer verified one.
    var plan: StepwisePlan?
    /// Makes `transform` the exact inverse of the way back, when the source drops a datum height
    /// (it holds its own target → source worker and context).
    var refinement: InverseRefinement?
    /// The closed-form kernels for points inside their checked box, when the transformer verified them.
    var kernel: KernelPlan?

    /// Builds the operation from `source` to `target` in a new context, `recipe`'s plan in it and
    /// `kernel`'s buffers.
    init(source: CRSDescriptor, target: CRSDescriptor, recipe: StepRecipe? = nil, kernel: KernelRecipe? = nil) throws(CoordinateError) {
        do throws(ProjLibrary.LoadError) {
            try ProjLibrary.require()
        } catch {
            throw .noTransformation(from: source.name, to: target.name, reason: error.description)
        }
        guard let ctx = Proj.makeContext() else {
            throw .noTransformation(from: source.name, to: target.name, reason: "PROJ could not create a context")
        }
        var sourceCRS: OpaquePointer? = nil
        var targetCRS: OpaquePointer? = nil
        defer {
            if let s = sourceCRS { proj_destroy(s) }
            if let t = targetCRS { proj_destroy(t) }
        }
        do {
            sourceCRS = try Proj.makeCRS(source, in: ctx)
            targetCRS = try Proj.makeCRS(target, in: ctx)
        } catch {
            proj_context_destroy(ctx)
            throw error
        }
        guard let raw = proj_create_crs_to_crs_from_pj(ctx, sourceCRS, targetCRS, nil, nil) else {
            let reason = Proj.lastError(ctx, fallback: "PROJ found no coordinate operation")
            proj_context_destroy(ctx)
            throw .noTransformation(from: source.name, to: target.name, reason: reason)
        }
        let normalized = proj_normalize_for_visualization(ctx, raw)
        proj_destroy(raw)
        guard let op = normalized else {
            let reason = Proj.lastError(ctx, fallback: "PROJ could not normalise the axis order")
            proj_context_destroy(ctx)
            throw .noTransformation(from: source.name, to: target.name, reason: reason)
        }
        context = ctx
        operation = op
        plan = recipe.flatMap { StepwisePlan($0, in: ctx) }
        self.kernel = kernel.map { KernelPlan($0) }
    }

    deinit {
        plan = nil  // its PROJ objects belong to `context`: destroyed before it
        proj_destroy(operation)
        proj_context_destroy(context)
    }

    /// Transforms `count` points in place; x and y are `stride` doubles apart.
    /// Points PROJ cannot transform come back as infinity (PROJ's HUGE_VAL).
    func transform(x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>, stride: Int, count: Int) {
        guard count > 0 else { return }
        if let refinement {
            refinement.transform(with: self, x: x, y: y, stride: stride, count: count)
            return
        }
        transformPlain(x: x, y: y, stride: stride, count: count)
    }

    /// Transforms without the refinement: with the kernels inside their box and PROJ elsewhere, or
    /// with PROJ alone when there are no kernels.
    func transformPlain(x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>, stride: Int, count: Int) {
        guard count > 0 else { return }
        if let kernel {
            kernel.transform(x: x, y: y, stride: stride, count: count) { px, py, n in
                transformWithPROJ(x: px, y: py, stride: 1, count: n)
            }
            return
        }
        transformWithPROJ(x: x, y: y, stride: stride, count: count)
    }

    /// Transforms with PROJ's operation alone (its plan or pipeline).
    func transformWithPROJ(x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>, stride: Int, count: Int) {
        guard count > 0 else { return }
        if let plan {
            plan.transform(x: x, y: y, stride: stride, count: count)
            return
        }
        transformWithPipeline(x: x, y: y, stride: stride, count: count)
    }

    /// Transforms with one `proj_trans_generic` call on the whole operation (PROJ's own way).
    func transformWithPipeline(x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>, stride: Int, count: Int) {
        guard count > 0 else { return }
        let bytes = stride * MemoryLayout<Double>.stride
        _ = proj_trans_generic(operation, PJ_FWD, x, bytes, count, y, bytes, count, nil, 0, 0, nil, 0, 0)
    }
}

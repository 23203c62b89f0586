import CProj
import Foundation
import Geo

/// A point in a CRS: x = longitude or easting, y = latitude or northing, whatever the CRS's own
/// axis order.
public struct XYPoint: Sendable, Hashable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public var description: String { "\(x),\(y)" }
}

/// Converts coordinates from one CRS to another through PROJ, or, for the transverse Mercator,
/// Web Mercator and 7-parameter Helmert operations Korean grids use, through closed-form kernels
/// built from PROJ's own pipeline and checked against PROJ when the transformer is made (the choice
/// is `TransformStrategy`'s). What was chosen is visible to tests and benchmarks only, through
/// `package` access (`usesFastKernel`, `usesStepwisePlan`, …).
///
/// Built from two CRS names (see `CRSCatalog`); inputs and outputs are always x = longitude or
/// easting, y = latitude or northing (`proj_normalize_for_visualization`). Safe to share between
/// threads: each call borrows a PROJ worker (own context and operation) from a pool. Large batches
/// are split across the machine's cores. Get shared instances from a `TransformerCache`.
public final class CoordinateTransformer: Sendable {
    /// The source CRS, resolved.
    public let source: CRSDescriptor
    /// The target CRS, resolved.
    public let target: CRSDescriptor
    /// True when source coordinates are angles (longitude, latitude).
    public let sourceIsGeographic: Bool
    /// True when target coordinates are angles (longitude, latitude).
    public let targetIsGeographic: Bool
    /// The target CRS's area of use in degrees (west, south, east, north), when PROJ knows it.
    public let targetAreaOfUse: BoundingBox?
    /// The operation PROJ chose, as a PROJ string (or its name when it has no PROJ string form).
    public let operationDescription: String
    /// True when batches run PROJ's pipeline step by step over chunks (`StepwisePlan`), which was
    /// checked to give bit-identical answers; false when they run the whole pipeline per point.
    package let usesStepwisePlan: Bool
    /// True when the source CRS's 2D datum shift to WGS 84 drops a height (KATEC/TM128, EPSG:5174, …)
    /// and the target's does not. Answers are then refined to be the exact inverse of the
    /// target → source direction for points on the target's ellipsoid surface (h = 0), so that round
    /// trips close to ≈10 nm; they differ from PROJ's own (`cs2cs`'s) inverse by up to ≈6 mm, far
    /// below the ≈1 m accuracy of such a datum shift. Costs about 3× the time per point (see
    /// `InverseRefinement`). Between two such CRSs PROJ stays geocentric from one shift to the
    /// other, drops only the last height and closes within ≈0.4 mm: that is left to PROJ.
    public let refinesInverse: Bool
    /// True when points inside a checked box are transformed by closed-form kernels (transverse
    /// Mercator by Krüger's series, geocentric conversion, 7-parameter Helmert) instead of PROJ: at
    /// creation the kernels were compared with PROJ on a grid and random points over the area of use
    /// plus 1° and agreed within 1e-6 target units (1e-11° for degrees). Other points go through PROJ.
    /// For a refined transformer, the way back (see `refinesInverse`) was checked the same way.
    package let usesFastKernel: Bool
    /// The largest difference from PROJ the creation check found, in target units; nil without kernels.
    package let fastKernelDifference: Double?
    /// For a refined transformer with kernels: the check's figure for the way back, in source units.
    package let fastKernelBackDifference: Double?
    /// The kernels, e.g. `inverse tmerc → cart → helmert → inverse cart → tmerc`, or nil.
    package let fastKernelSummary: String?
    /// The kernels workers run, when `usesFastKernel`.
    let kernelRecipe: KernelRecipe?
    /// Kernel buffers for batches that need no PROJ worker (transformers without `refinesInverse`).
    let kernelPlans: KernelPlanPool?

    /// Source longitudes must lie within ±180 and latitudes within ±90.
    let sourceIsDegrees: Bool
    let pool: ProjWorkerPool
    /// Source → WGS84, made on first need, to place projected inputs in the area of use.
    let lonLatOfSource = LazyTransformer()

    /// Builds the transformation from the CRS named `from` to the one named `to`.
    ///
    /// Throws `unknownCRS` naming an unknown name, `unsupportedCRS` for a CRS that is not a 2D
    /// horizontal one, and `noTransformation` when PROJ has no way between them.
    /// With `TAXIPOT_COORDINATES_PROJ_ONLY=1` in the environment every point goes through PROJ.
    public convenience init(from: String, to: String) throws(CoordinateError) {
        try self.init(source: CRSCatalog.resolve(from), target: CRSCatalog.resolve(to), fastKernels: true)
    }

    /// Builds the transformation between two resolved CRSs (see `init(from:to:)`).
    public convenience init(source: CRSDescriptor, target: CRSDescriptor) throws(CoordinateError) {
        try self.init(source: source, target: target, fastKernels: true)
    }

    /// `init(from:to:)`; with `fastKernels: false` every point goes through PROJ (a test knob).
    package convenience init(from: String, to: String, fastKernels: Bool) throws(CoordinateError) {
        try self.init(source: CRSCatalog.resolve(from), target: CRSCatalog.resolve(to), fastKernels: fastKernels)
    }

    /// `init(source:target:)`; with `fastKernels: false` every point goes through PROJ (a test knob,
    /// also used inside the module for a PROJ-only twin).
    package init(source: CRSDescriptor, target: CRSDescriptor, fastKernels: Bool) throws(CoordinateError) {
        self.source = source
        self.target = target
        // The first worker's context serves the inspection too (one database connection less);
        // no other thread sees the worker before `init` returns.
        let first = try ProjWorker(source: source, target: target)
        let ctx = first.context
        let sourceCRS = try Proj.makeCRS(source, in: ctx)
        defer { proj_destroy(sourceCRS) }
        let targetCRS = try Proj.makeCRS(target, in: ctx)
        defer { proj_destroy(targetCRS) }
        let sourceFacts = Proj.facts(of: sourceCRS, descriptor: source, in: ctx)
        let targetFacts = Proj.facts(of: targetCRS, descriptor: target, in: ctx)
        sourceIsGeographic = sourceFacts.isGeographic
        sourceIsDegrees = sourceFacts.isDegrees
        targetIsGeographic = targetFacts.isGeographic
        targetAreaOfUse = targetFacts.areaOfUse

        operationDescription = Self.describe(first)
        let strategy = TransformStrategy.choose(first: first, source: source, target: target, sourceCRS: sourceCRS, targetCRS: targetCRS,
                                                sourceFacts: sourceFacts, targetFacts: targetFacts, fastKernels: fastKernels)
        let recipe = strategy.stepwise, workerKernel = strategy.kernel, refinement = strategy.refinement
        usesStepwisePlan = recipe != nil
        refinesInverse = refinement != nil
        usesFastKernel = workerKernel != nil
        fastKernelDifference = workerKernel?.checkedDifference
        fastKernelBackDifference = workerKernel != nil ? refinement?.backKernel?.checkedDifference : nil
        fastKernelSummary = workerKernel?.summary
        kernelRecipe = workerKernel
        kernelPlans = refinement == nil ? workerKernel.map { KernelPlanPool($0) } : nil
        pool = ProjWorkerPool(first: first) { () throws(CoordinateError) -> ProjWorker in
            let worker = try ProjWorker(source: source, target: target, recipe: recipe, kernel: workerKernel)
            worker.refinement = try refinement?.make(source: source, target: target)
            return worker
        }
    }

    private static func describe(_ worker: ProjWorker) -> String {
        if let text = proj_as_proj_string(worker.context, worker.operation, PJ_PROJ_5, nil) {
            return String(cString: text)
        }
        return proj_get_name(worker.operation).map { String(cString: $0) } ?? "unnamed operation"
    }

    /// True when `point` (source coordinates) would be transformed by the kernels, false when by
    /// PROJ (no kernels, or the point lies outside the box where they were checked, or is not finite).
    package func usesFastKernel(for point: XYPoint) -> Bool {
        guard let box = kernelRecipe?.box else { return false }
        return point.x >= box.minX && point.x <= box.maxX && point.y >= box.minY && point.y <= box.maxY
    }

    /// The source-coordinate box (west/min x, south/min y, east/max x, north/max y) where the
    /// kernels are used, or nil without kernels.
    package var fastKernelBox: (minX: Double, minY: Double, maxX: Double, maxY: Double)? { kernelRecipe?.box }

    // MARK: Single points and arrays

    /// Transforms one point; throws `invalidPoint(index: 0, …)` or `transformFailed(index: 0, …)`.
    public func transform(_ point: XYPoint) throws(CoordinateError) -> XYPoint {
        var points = [point]
        let report = try transform(points: &points)
        if let issue = report.issues.first { throw issue.error }
        return points[0]
    }

    /// Transforms an array of points, throwing the first bad point's error (naming its index).
    public func transform(_ points: [XYPoint]) throws(CoordinateError) -> [XYPoint] {
        var out = points
        let report = try transform(points: &out)
        if let issue = report.issues.first { throw issue.error }
        return out
    }

    /// Transforms points in place. Points that could not be converted become NaN and are listed
    /// in the report; with `checkAreaOfUse`, the report also lists inputs outside the target's area.
    public func transform(points: inout [XYPoint], checkAreaOfUse: Bool = false) throws(CoordinateError) -> BatchReport {
        precondition(MemoryLayout<XYPoint>.stride == 2 * MemoryLayout<Double>.stride
            && MemoryLayout<XYPoint>.offset(of: \XYPoint.y) == MemoryLayout<Double>.stride)
        let count = points.count
        return try points.withUnsafeMutableBufferPointer { (buffer) throws(CoordinateError) -> BatchReport in
            guard let base = buffer.baseAddress else { return BatchReport() }
            return try UnsafeMutableRawPointer(base).withMemoryRebound(to: Double.self, capacity: 2 * count) {
                (doubles) throws(CoordinateError) -> BatchReport in
                try run(x: doubles, y: doubles + 1, stride: 2, count: count, checkAreaOfUse: checkAreaOfUse)
            }
        }
    }

    // MARK: Contiguous buffers (the batch API)

    /// Transforms points held in two separate buffers (x in one, y in the other), in place.
    ///
    /// The batch is split across all cores when large. Invalid and failed points become NaN and are
    /// listed in the report; nothing is thrown for them. Throws `lengthMismatch` when the buffers
    /// differ in length.
    public func transform(x: UnsafeMutableBufferPointer<Double>, y: UnsafeMutableBufferPointer<Double>,
                          checkAreaOfUse: Bool = false) throws(CoordinateError) -> BatchReport
    {
        guard x.count == y.count else { throw .lengthMismatch(xCount: x.count, yCount: y.count) }
        guard let xb = x.baseAddress, let yb = y.baseAddress else { return BatchReport() }
        return try run(x: xb, y: yb, stride: 1, count: x.count, checkAreaOfUse: checkAreaOfUse)
    }

    /// Transforms points interleaved in one buffer (`x0, y0, x1, y1, …`), in place.
    ///
    /// Throws `lengthMismatch` when the buffer holds an odd number of values.
    public func transform(interleaved buffer: UnsafeMutableBufferPointer<Double>,
                          checkAreaOfUse: Bool = false) throws(CoordinateError) -> BatchReport
    {
        guard buffer.count % 2 == 0 else { throw .lengthMismatch(xCount: (buffer.count + 1) / 2, yCount: buffer.count / 2) }
        guard let base = buffer.baseAddress else { return BatchReport() }
        return try run(x: base, y: base + 1, stride: 2, count: buffer.count / 2, checkAreaOfUse: checkAreaOfUse)
    }

    /// Transforms `xs` and `ys` in place (see `transform(x:y:checkAreaOfUse:)`).
    public func transform(xs: inout [Double], ys: inout [Double], checkAreaOfUse: Bool = false) throws(CoordinateError) -> BatchReport {
        guard xs.count == ys.count else { throw .lengthMismatch(xCount: xs.count, yCount: ys.count) }
        return try xs.withUnsafeMutableBufferPointer { (xb) throws(CoordinateError) -> BatchReport in
            try ys.withUnsafeMutableBufferPointer { (yb) throws(CoordinateError) -> BatchReport in
                try transform(x: xb, y: yb, checkAreaOfUse: checkAreaOfUse)
            }
        }
    }
}

/// What a batch transformation found besides the converted points.
public struct BatchReport: Sendable, Equatable {
    /// Points that could not be converted (now NaN in the output), by ascending index.
    public var issues: [PointIssue] = []
    /// Indices of inputs outside the target CRS's area of use, ascending (only when asked for).
    public var outsideAreaOfUse: [Int] = []

    public init(issues: [PointIssue] = [], outsideAreaOfUse: [Int] = []) {
        self.issues = issues
        self.outsideAreaOfUse = outsideAreaOfUse
    }

    /// The first issue as an error, or nil when every point converted.
    public var firstError: CoordinateError? { issues.first?.error }
}

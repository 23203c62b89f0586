import CProj

/// How a `CoordinateTransformer` converts points, decided in one place (`choose`) when the
/// transformer is made:
///
/// - PROJ's pipeline run step by step over chunks (`StepwisePlan`) when that was checked to give
///   bit-identical answers, else the whole pipeline per point;
/// - closed-form kernels (`KernelRecipe`: transverse Mercator, geocentric conversion, Helmert)
///   inside the box where they were checked against PROJ, unless kernels are turned off
///   (`fastKernels: false`, `TAXIPOT_COORDINATES_PROJ_ONLY=1`) or none agreed;
/// - a refined inverse (`InverseRefinement`) when the source's datum shift drops a height and the
///   target's does not; kernels are then used only when both directions have verified ones.
///
/// See docs/DESIGN.md, "The coordinate pipeline".
struct TransformStrategy {
    /// The verified step-by-step plan of the source → target operation; nil: the whole pipeline.
    let stepwise: StepRecipe?
    /// The verified kernels every worker runs inside their box; nil: PROJ for every point.
    let kernel: KernelRecipe?
    /// The way back (target → source) each worker of a refined transformer inverts exactly; nil
    /// when answers are not refined.
    let refinement: RefinementRecipe?

    /// Chooses the strategy for the operation of `first` (the transformer's first worker, whose
    /// context serves the inspection) and installs it in `first`: its step-wise plan, its kernels
    /// and its refinement. `sourceCRS` and `targetCRS` are PROJ objects of `first`'s context.
    static func choose(first: ProjWorker, source: CRSDescriptor, target: CRSDescriptor,
                       sourceCRS: OpaquePointer, targetCRS: OpaquePointer,
                       sourceFacts: Proj.CRSFacts, targetFacts: Proj.CRSFacts, fastKernels: Bool) -> TransformStrategy
    {
        let ctx = first.context
        let recipe = CoordinateTransformer.verifiedRecipe(for: first, source: source, sourceFacts: sourceFacts, targetFacts: targetFacts)
        let kernelsAllowed = fastKernels && CoordinateTransformer.kernelsAllowedByEnvironment
        let kernel = kernelsAllowed
            ? CoordinateTransformer.verifiedKernel(for: first, source: source, sourceFacts: sourceFacts, targetFacts: targetFacts) : nil
        first.kernel = kernel.map { KernelPlan($0) }

        // The way back (target → source) that a refined transformer inverts exactly.
        var refinementRecipe: RefinementRecipe? = nil
        // WGS 84 itself never shifts to WGS 84 (saves PROJ an operation search for the common source).
        if source != target, source.name != "EPSG:4326", Proj.dropsDatumHeight(sourceCRS, in: ctx), !Proj.dropsDatumHeight(targetCRS, in: ctx),
           let back = try? ProjWorker(source: target, target: source)
        {
            var made = RefinementRecipe(
                back: CoordinateTransformer.verifiedRecipe(for: back, source: target, sourceFacts: targetFacts, targetFacts: sourceFacts),
                maxCorrection: sourceFacts.isGeographic ? 1e-5 : 1)
            if kernel != nil {
                made.backKernel = CoordinateTransformer.verifiedKernel(
                    for: back, source: target, sourceFacts: targetFacts, targetFacts: sourceFacts)
                back.kernel = made.backKernel.map { KernelPlan($0) }
            }
            first.refinement = InverseRefinement(forward: back, maxCorrection: made.maxCorrection)
            refinementRecipe = made
        }
        // A refined transformer uses kernels only when both directions have verified ones.
        let useKernel = kernel != nil && (refinementRecipe == nil || refinementRecipe?.backKernel != nil)
        if !useKernel { first.kernel = nil }
        return TransformStrategy(stepwise: recipe, kernel: useKernel ? kernel : nil, refinement: refinementRecipe)
    }
}

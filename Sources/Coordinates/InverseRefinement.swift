import CProj

/// Makes the way out of a CRS with a height-dropping datum shift (KATEC/TM128, EPSG:5174, …) the
/// exact inverse of the way into it, for points on the target's ellipsoid surface (h = 0).
///
/// PROJ runs a 2D CRS's Helmert-type datum shift through geocentric coordinates and drops the
/// ellipsoidal height the shift produces (`+proj=push +v_3` … `+proj=pop +v_3`). Going into KATEC,
/// a point at h = 0 on WGS 84 lands tens of metres off the Bessel ellipsoid and that height is
/// dropped; coming out, PROJ starts from h = 0 on Bessel. So WGS 84 → KATEC → WGS 84 misses by up
/// to ≈6 mm over South Korea with PROJ alone, and `cs2cs` does the same.
///
/// Here the way out is defined as the inverse of the way in: for a source point `q` the answer is
/// the target point `p` whose forward image (PROJ's target → source operation, what `cs2cs` prints
/// going in) is `q`. It is found by a fixed-point correction in the source CRS: `p = inv(q)`, then
/// `p = inv(a)` with `a += q − fwd(p)`, `refinementSteps` times. The miss varies by millimetres
/// over hundreds of kilometres, so each step shrinks it by a factor of about 10⁻⁷: one step takes
/// it from ≈6 mm to ≈10 nm. It costs two more PROJ transformations per point (about 3× the time).
/// Carrying the height through a 3D pipeline instead (run the datum step again from the height
/// that lands at h = 0) would cost ≈1.7× but closes only to ≈0.3 mm, because PROJ's own Helmert
/// inverse is not exact (small-angle rotation matrix, transposed).
///
/// The answer differs from `cs2cs`'s inverse by up to ≈6 mm, far below the ≈1 m accuracy of the
/// datum shift itself; in exchange every round trip through such a CRS closes. Answers into the
/// CRS are PROJ's own, unchanged (within nanometres when the closed-form kernels run both ways). Points where a step fails, or where it would move the answer by
/// more than `maxCorrection` (source units, ≈1 m: no dropped height does that), keep PROJ's plain
/// answer. Used by one thread at a time, like the worker that owns it.
final class InverseRefinement {
    /// Correction steps per point; each costs one forward and one inverse transformation.
    static let refinementSteps = 1

    /// PROJ's target → source operation, plain (the forward that the owner inverts).
    private let forward: ProjWorker
    /// The largest correction applied per step, in source units: larger misses mean the point lies
    /// where the operations are not mutual inverses at all, and PROJ's plain answer stays.
    private let maxCorrection: Double
    /// Scratch for one chunk: the source points, the adjusted aims and the trial points (x and y each).
    private let scratch = UnsafeMutablePointer<Double>.allocate(capacity: 6 * StepwisePlan.chunkSize)

    /// `forward` runs target → source; `maxCorrection` is in source units (≈1 m).
    init(forward: ProjWorker, maxCorrection: Double) {
        self.forward = forward
        self.maxCorrection = maxCorrection
    }

    deinit { scratch.deallocate() }

    /// Transforms `count` points in place (x and y `stride` doubles apart) with `inverse`, the
    /// owner's plain source → target operation, then corrects each answer as described above.
    func transform(with inverse: ProjWorker, x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>,
                   stride: Int, count: Int)
    {
        var done = 0
        while done < count {
            let n = min(StepwisePlan.chunkSize, count - done)
            refineChunk(with: inverse, x: x + done * stride, y: y + done * stride, stride: stride, count: n)
            done += n
        }
    }

    private func refineChunk(with inverse: ProjWorker, x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>,
                             stride: Int, count n: Int)
    {
        let size = StepwisePlan.chunkSize
        let qx = scratch, qy = scratch + size, ax = scratch + 2 * size, ay = scratch + 3 * size
        let px = scratch + 4 * size, py = scratch + 5 * size
        for i in 0..<n {
            qx[i] = x[i * stride]
            qy[i] = y[i * stride]
            ax[i] = qx[i]
            ay[i] = qy[i]
        }
        inverse.transformPlain(x: x, y: y, stride: stride, count: n)  // p = inv(q): PROJ's answer
        for _ in 0..<Self.refinementSteps {
            for i in 0..<n {
                px[i] = x[i * stride]
                py[i] = y[i * stride]
            }
            forward.transformPlain(x: px, y: py, stride: 1, count: n)  // fwd(p)
            for i in 0..<n {
                let dx = qx[i] - px[i], dy = qy[i] - py[i]
                // False for NaN and infinity: a failed point keeps its aim, hence its answer.
                if abs(dx) <= maxCorrection && abs(dy) <= maxCorrection {
                    ax[i] += dx
                    ay[i] += dy
                }
                px[i] = ax[i]
                py[i] = ay[i]
            }
            inverse.transformPlain(x: px, y: py, stride: 1, count: n)  // p = inv(a)
            for i in 0..<n where px[i].isFinite && py[i].isFinite {
                x[i * stride] = px[i]
                y[i * stride] = py[i]
            }
        }
    }
}

/// What each worker of a refined transformer needs to build its own `InverseRefinement`.
struct RefinementRecipe: Sendable {
    /// The verified step-by-step plan of the target → source operation, if any.
    let back: StepRecipe?
    /// The largest correction per step, in source units (≈1 m: 1 unit, or 1e-5°).
    let maxCorrection: Double
    /// The verified closed-form kernels of the target → source operation, if any.
    var backKernel: KernelRecipe? = nil

    /// A refinement with its own target → source worker.
    func make(source: CRSDescriptor, target: CRSDescriptor) throws(CoordinateError) -> InverseRefinement {
        InverseRefinement(forward: try ProjWorker(source: target, target: source, recipe: back, kernel: backKernel),
                          maxCorrection: maxCorrection)
    }
}

extension Proj {
    /// True when PROJ's operation from `crs` to WGS 84 shifts the datum through geocentric
    /// coordinates and drops the ellipsoidal height it produces (`+proj=push +v_3`), so that its
    /// reverse is not an exact inverse (see `InverseRefinement`).
    static func dropsDatumHeight(_ crs: OpaquePointer, in ctx: OpaquePointer) -> Bool {
        guard let wgs84 = proj_create(ctx, "EPSG:4326") else { return false }
        defer { proj_destroy(wgs84) }
        guard let op = proj_create_crs_to_crs_from_pj(ctx, crs, wgs84, nil, nil) else { return false }
        defer { proj_destroy(op) }
        guard let text = proj_as_proj_string(ctx, op, PJ_PROJ_5, nil) else { return false }
        return String(cString: text).contains("+proj=push +v_3")
    }
}

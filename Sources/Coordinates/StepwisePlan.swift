import CProj

/// A faster way to run a PROJ pipeline over a batch: step by step over cache-sized chunks.
///
/// `proj_trans_generic` on a pipeline pays PROJ's per-point dispatch once for the pipeline and
/// again for every step, including the trivial ones (`unitconvert`, `axisswap`, `push`/`pop`).
/// The plan runs each real step (projection, `cart`, `helmert`, …) as its own PROJ object over a
/// chunk of points, and does the trivial ones itself: a multiplication, a swap, a saved z.
/// The arithmetic is PROJ's own; a transformer uses a plan only after checking that it gives
/// bit-identical answers to the whole pipeline (see `CoordinateTransformer.verifiedRecipe`).
struct StepRecipe: Sendable, Equatable {
    enum Step: Sendable, Equatable {
        /// A PROJ step (`+proj=…` without `+inv`), run forward or inverse.
        case proj(definition: String, inverse: Bool)
        /// `unitconvert` of x and y only: run through PROJ once to learn its factor.
        case unitConvert(definition: String, inverse: Bool)
        /// `axisswap +order=2,1`.
        case swapXY
        /// `push +v_3` / `pop +v_3`: save or restore z.
        case pushZ
        case popZ
    }

    let steps: [Step]

    /// Parses a single-line PROJ pipeline string; nil for anything the plan does not reproduce
    /// exactly (pipeline-wide options, `omit_fwd`/`omit_inv`, quoted values, other push/pop forms).
    static func parse(_ text: String) -> StepRecipe? {
        guard !text.contains("\""), !text.contains("\n") else { return nil }
        let tokens = text.split(separator: " ").map(String.init)
        guard tokens.first == "+proj=pipeline" else { return nil }
        var groups: [[String]] = []
        for token in tokens.dropFirst() {
            if token == "+step" {
                groups.append([])
            } else if groups.isEmpty {
                return nil  // a pipeline-wide option applies to every step: run the pipeline as is
            } else {
                groups[groups.count - 1].append(token)
            }
        }
        var steps: [Step] = []
        for group in groups {
            let inverse = group.contains("+inv")
            let params = group.filter { $0 != "+inv" }
            guard let first = params.first, first.hasPrefix("+proj="),
                  !params.contains(where: { $0.hasPrefix("+omit_") }) else { return nil }
            let definition = params.joined(separator: " ")
            switch first {
            case "+proj=push", "+proj=pop":
                guard params.count == 2, params[1] == "+v_3", !inverse else { return nil }
                steps.append(first == "+proj=push" ? .pushZ : .popZ)
            case "+proj=axisswap":
                guard params.count == 2, params[1] == "+order=2,1" else { return nil }
                steps.append(.swapXY)
            case "+proj=unitconvert":
                guard params.dropFirst().allSatisfy({ $0.hasPrefix("+xy_in=") || $0.hasPrefix("+xy_out=") }) else { return nil }
                steps.append(.unitConvert(definition: definition, inverse: inverse))
            default:
                steps.append(.proj(definition: definition, inverse: inverse))
            }
        }
        guard !steps.isEmpty else { return nil }
        return StepRecipe(steps: steps)
    }
}

/// A recipe made real in one worker's context. Used by one thread at a time, like its worker.
final class StepwisePlan {
    private enum Op {
        case proj(OpaquePointer, PJ_DIRECTION)
        case scale(Double, Double)
        case swapXY
        case pushZ
        case popZ
    }

    /// Points per chunk: x, y, z and a saved z fit in L2 cache.
    static let chunkSize = 2048

    private let ops: [Op]
    private let objects: [OpaquePointer]
    private let context: OpaquePointer
    private var cx = [Double](repeating: 0, count: chunkSize)
    private var cy = [Double](repeating: 0, count: chunkSize)
    private var cz = [Double](repeating: 0, count: chunkSize)
    private var savedZ: [[Double]] = []

    /// Builds the recipe's PROJ objects in `ctx`; nil when PROJ refuses one of them.
    init?(_ recipe: StepRecipe, in ctx: OpaquePointer) {
        var ops: [Op] = []
        var objects: [OpaquePointer] = []
        var ok = true
        for step in recipe.steps {
            switch step {
            case .swapXY: ops.append(.swapXY)
            case .pushZ: ops.append(.pushZ)
            case .popZ: ops.append(.popZ)
            case .proj(let definition, let inverse):
                guard let pj = proj_create(ctx, definition) else { ok = false; break }
                objects.append(pj)
                ops.append(.proj(pj, inverse ? PJ_INV : PJ_FWD))
            case .unitConvert(let definition, let inverse):
                // PROJ's unitconvert multiplies x and y by a constant factor: learn it from PROJ.
                guard let pj = proj_create(ctx, definition) else { ok = false; break }
                var coord = PJ_COORD(v: (1, 1, 0, 0))
                coord = proj_trans(pj, inverse ? PJ_INV : PJ_FWD, coord)
                proj_destroy(pj)
                guard coord.v.0.isFinite, coord.v.1.isFinite else { ok = false; break }
                ops.append(.scale(coord.v.0, coord.v.1))
            }
            if !ok { break }
        }
        self.context = ctx
        self.objects = objects
        self.ops = ops
        if !ok { return nil }
    }

    deinit {
        for pj in objects { proj_destroy(pj) }
    }

    /// Transforms `count` points in place (x and y `stride` doubles apart), like `proj_trans_generic`
    /// on the whole pipeline with no z and no time.
    func transform(x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>, stride: Int, count: Int) {
        var done = 0
        while done < count {
            let n = min(Self.chunkSize, count - done)
            let bx = x + done * stride, by = y + done * stride
            runChunk(bx, by, stride: stride, count: n)
            done += n
        }
    }

    private func runChunk(_ x: UnsafeMutablePointer<Double>, _ y: UnsafeMutablePointer<Double>, stride: Int, count n: Int) {
        let ops = self.ops
        cx.withUnsafeMutableBufferPointer { xs in
            cy.withUnsafeMutableBufferPointer { ys in
                cz.withUnsafeMutableBufferPointer { zs in
                    guard var px = xs.baseAddress, var py = ys.baseAddress, let pz = zs.baseAddress else { return }
                    for i in 0..<n {
                        px[i] = x[i * stride]
                        py[i] = y[i * stride]
                        pz[i] = 0
                    }
                    var depth = 0
                    let bytes = MemoryLayout<Double>.stride
                    for op in ops {
                        switch op {
                        case .proj(let pj, let direction):
                            _ = proj_trans_generic(pj, direction, px, bytes, n, py, bytes, n, pz, bytes, n, nil, 0, 0)
                        case .scale(let fx, let fy):
                            for i in 0..<n {
                                px[i] *= fx
                                py[i] *= fy
                            }
                        case .swapXY:
                            swap(&px, &py)
                        case .pushZ:
                            if savedZ.count <= depth { savedZ.append([Double](repeating: 0, count: Self.chunkSize)) }
                            savedZ[depth].withUnsafeMutableBufferPointer { saved in
                                for i in 0..<n { saved[i] = pz[i] }
                            }
                            depth += 1
                        case .popZ:
                            if depth > 0 {
                                depth -= 1
                                savedZ[depth].withUnsafeBufferPointer { saved in
                                    for i in 0..<n { pz[i] = saved[i] }
                                }
                            }
                        }
                    }
                    for i in 0..<n {
                        x[i * stride] = px[i]
                        y[i * stride] = py[i]
                    }
                }
            }
        }
    }
}

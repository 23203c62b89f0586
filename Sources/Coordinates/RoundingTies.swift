import Foundation

/// Makes the CSV output of a transformer with kernels byte for byte what PROJ alone would write.
///
/// The kernels agree with PROJ to nanometres (≈1e-14°), far below the 3 or 8 printed decimals, so
/// the printed text differs only where PROJ's value lies that close to a rounding boundary (one
/// line in a million or so). Points whose x or y lies within `band` (in units of the last printed
/// decimal) of a boundary are recomputed by PROJ alone: the transformer's own PROJ operation in one
/// of its workers, or, for a transformer that refines its inverse, a PROJ-only twin made on first need.
final class RoundingTies: @unchecked Sendable {
    let transformer: CoordinateTransformer
    /// Half-width of the guard band around a boundary, in units of the last decimal: 1e-4, or ten
    /// times the kernel's checked difference from PROJ when that is larger.
    let band: Double
    let scale: Double
    private let lock = NSLock()
    private var twin: CoordinateTransformer?
    private var twinFailed = false

    init(transformer: CoordinateTransformer, decimals: Int) {
        self.transformer = transformer
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        self.scale = scale
        let checked = max(transformer.fastKernelDifference ?? 0, (transformer.fastKernelBackDifference ?? 0)
            * (transformer.targetIsGeographic && !transformer.sourceIsGeographic ? 1e-5 : 1))
        band = max(1e-4, 10 * checked * scale)
    }

    /// Recomputes through PROJ alone the converted points (finite x and y) near a rounding boundary.
    func settle(xs: inout [Double], ys: inout [Double], inputX: [Double], inputY: [Double]) {
        guard transformer.usesFastKernel else { return }
        let count = min(xs.count, ys.count, inputX.count, inputY.count)
        xs.withUnsafeMutableBufferPointer { bx in
            ys.withUnsafeMutableBufferPointer { by in
                inputX.withUnsafeBufferPointer { ix in
                    inputY.withUnsafeBufferPointer { iy in
                        guard let x = bx.baseAddress, let y = by.baseAddress, let sx = ix.baseAddress, let sy = iy.baseAddress
                        else { return }
                        settle(x: x, y: y, inputX: sx, inputY: sy, count: count)
                    }
                }
            }
        }
    }

    /// `settle` over `count` points at raw addresses.
    func settle(x xs: UnsafeMutablePointer<Double>, y ys: UnsafeMutablePointer<Double>, inputX: UnsafePointer<Double>,
                inputY: UnsafePointer<Double>, count: Int)
    {
        guard transformer.usesFastKernel else { return }
        var near: [Int] = []
        for i in 0..<count where isNearTie(xs[i]) || isNearTie(ys[i]) { near.append(i) }
        guard !near.isEmpty else { return }
        var px = near.map { inputX[$0] }, py = near.map { inputY[$0] }
        if !transformer.refinesInverse {
            // PROJ's own operation in one of the transformer's workers (its plan or pipeline, which is
            // what a PROJ-only transformer runs): no second PROJ set-up.
            let n = near.count
            let done: Void? = px.withUnsafeMutableBufferPointer { bx in
                py.withUnsafeMutableBufferPointer { by in
                    guard let x = bx.baseAddress, let y = by.baseAddress else { return nil }
                    return try? transformer.pool.withSharedWorker { $0.transformWithPROJ(x: x, y: y, stride: 1, count: n) }
                }
            }
            guard done != nil else { return }
        } else {
            guard let twin = projTwin(), (try? twin.transform(xs: &px, ys: &py)) != nil else { return }
        }
        for (k, i) in near.enumerated() where px[k].isFinite && py[k].isFinite {
            xs[i] = px[k]
            ys[i] = py[k]
        }
    }

    @inline(__always)
    private func isNearTie(_ v: Double) -> Bool {
        let p = abs(v * scale)
        guard p < 8.9e15 else { return false }
        // ⌊p⌋ by truncation to an integer and back (`rounded(.down)` is a libm call on baseline x86-64).
        return abs(p - Double(Int64(p)) - 0.5) < band
    }

    private func projTwin() -> CoordinateTransformer? {
        lock.lock()
        defer { lock.unlock() }
        if let twin { return twin }
        if twinFailed { return nil }
        twin = try? CoordinateTransformer(source: transformer.source, target: transformer.target, fastKernels: false)
        twinFailed = twin == nil
        return twin
    }
}

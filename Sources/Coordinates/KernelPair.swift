/// Two points at once: loads, stores and the checks of the kernels' paired paths on SIMD pairs
/// of doubles (one SSE register). The polynomials themselves are generic over `KernelValue`, so
/// the paired path does operation for operation what the scalar one does.
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

    /// `ReferenceAngle.atan2` for both lanes, or nil when a lane is not near the reference (the
    /// caller then takes the scalar path).
    @inline(__always)
    static func atan2(_ y: V, _ x: V, near reference: ReferenceAngle) -> V? {
        let xr = x * reference.cosine + y * reference.sine, yr = y * reference.cosine - x * reference.sine
        guard all(xr .> 0), all(abs(yr) .<= 0.12 * xr) else { return nil }
        return reference.angle + ReferenceAngle.atanSeries(yr / xr)
    }
}

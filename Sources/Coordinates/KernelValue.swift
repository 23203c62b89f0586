/// One double, or a SIMD pair of them: the arithmetic the kernels' polynomials need. Each
/// polynomial is written once over it (`TransverseMercatorKernel.sineSeries` and the others), so
/// the scalar path and the paired path do the same operations in the same order and give the
/// same bits whichever way a batch is split.
protocol KernelValue {
    init(repeating value: Double)
    static func + (a: Self, b: Self) -> Self
    static func - (a: Self, b: Self) -> Self
    static func * (a: Self, b: Self) -> Self
    static func / (a: Self, b: Self) -> Self
    static func + (a: Double, b: Self) -> Self
    static func - (a: Double, b: Self) -> Self
    static func * (a: Double, b: Self) -> Self
    static func * (a: Self, b: Double) -> Self
}

extension Double: KernelValue {
    @inline(__always)
    init(repeating value: Double) { self = value }
}

extension SIMD2: KernelValue where Scalar == Double {}

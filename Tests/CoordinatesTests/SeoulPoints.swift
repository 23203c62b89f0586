import Geo

/// Reproducible pseudo-random WGS84 points over Seoul (126.76–127.20°E, 37.41–37.71°N), the
/// inputs of the batch, CSV and worker-pool tests.
enum SeoulPoints {
    static func random(count: Int, seed: UInt64 = 2024) -> (xs: [Double], ys: [Double]) {
        var random = SplitMix64(seed: seed)
        func next() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        var xs = [Double](repeating: 0, count: count), ys = [Double](repeating: 0, count: count)
        for i in 0..<count {
            xs[i] = 126.76 + 0.44 * next()
            ys[i] = 37.41 + 0.30 * next()
        }
        return (xs, ys)
    }
}

import Foundation
import Geo

/// In-process throughput of the batch API, for `taxipot-bench`.
public enum CoordinatesBenchmark {
    /// One measured transformation.
    public struct Result: Sendable, CustomStringConvertible {
        /// `from → to`.
        public let name: String
        /// Points per run.
        public let points: Int
        /// Each run's wall-clock seconds.
        public let seconds: [Double]
        /// Each run's CPU seconds (user + system, all threads of the process): on a busy machine the
        /// wall clock also counts time waiting for a core, the CPU time does not.
        public let cpuSeconds: [Double]
        /// The largest distance (target units, metres for projected targets) between the batch API's
        /// answer and PROJ's plain single-threaded `proj_trans_generic` over the same points.
        public let maxDeviationFromPROJ: Double

        /// The median run time in seconds.
        public var medianSeconds: Double {
            let s = seconds.sorted()
            return s.isEmpty ? .nan : (s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2)
        }

        /// Points per second at the median run.
        public var pointsPerSecond: Double { Double(points) / medianSeconds }

        /// The median CPU nanoseconds per point (summed over threads).
        public var cpuNanosecondsPerPoint: Double {
            let s = cpuSeconds.sorted()
            return s.isEmpty ? .nan : s[s.count / 2] * 1e9 / Double(points)
        }

        public var description: String {
            String(format: "%@: N=%d, median of %d runs %.1f ms = %.2f M points/s (%.1f ns/pt wall, %.1f ns/pt CPU), max deviation from PROJ %.3g",
                   name, points, seconds.count, medianSeconds * 1000, pointsPerSecond / 1e6,
                   medianSeconds * 1e9 / Double(points), cpuNanosecondsPerPoint, maxDeviationFromPROJ)
        }
    }

    /// Reproducible pseudo-random WGS84 points over Seoul (126.76–127.20°E, 37.41–37.71°N).
    public static func seoulPoints(count: Int, seed: UInt64 = 2024) -> (xs: [Double], ys: [Double]) {
        var random = SplitMix64(seed: seed)
        func next() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        var xs = [Double](repeating: 0, count: count), ys = [Double](repeating: 0, count: count)
        for i in 0..<count {
            xs[i] = 126.76 + 0.44 * next()
            ys[i] = 37.41 + 0.30 * next()
        }
        return (xs, ys)
    }

    /// Transforms `points` Seoul points from WGS84 to each target `runs` times with the batch API
    /// (split across all cores) and reports each run's time and the deviation from plain PROJ.
    public static func run(points: Int = 1_000_000, runs: Int = 5,
                           targets: [String] = ["UTMK", "KATEC", "WEBMERCATOR"]) throws -> [Result]
    {
        let (xs, ys) = seoulPoints(count: points)
        var results: [Result] = []
        for target in targets {
            let transformer = try CoordinateTransformer(from: "WGS84", to: target)
            // PROJ's own answer: one worker, one proj_trans_generic call over the whole batch.
            var refX = xs, refY = ys
            let reference = try ProjWorker(source: transformer.source, target: transformer.target)
            refX.withUnsafeMutableBufferPointer { rx in
                refY.withUnsafeMutableBufferPointer { ry in
                    if let bx = rx.baseAddress, let by = ry.baseAddress {
                        reference.transform(x: bx, y: by, stride: 1, count: points)
                    }
                }
            }
            var seconds: [Double] = [], cpu: [Double] = []
            var deviation = 0.0
            for _ in 0..<max(1, runs) {
                var bx = xs, by = ys
                let cpuStart = processCPUSeconds()
                let start = DispatchTime.now().uptimeNanoseconds
                _ = try transformer.transform(xs: &bx, ys: &by)
                seconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                cpu.append(processCPUSeconds() - cpuStart)
                for i in 0..<points { deviation = max(deviation, abs(bx[i] - refX[i]), abs(by[i] - refY[i])) }
            }
            let path = transformer.usesFastKernel ? "fast kernel checked against PROJ" : "PROJ"
            results.append(Result(name: "WGS84 → \(target) (\(path))", points: points, seconds: seconds, cpuSeconds: cpu,
                                  maxDeviationFromPROJ: deviation))
        }
        return results
    }
}

/// User + system CPU seconds of the whole process so far.
private func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

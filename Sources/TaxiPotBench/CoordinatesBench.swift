import Foundation
import TaxiPot
import Coordinates

/// Coordinates: the batch API over the same 1M points pyproj transforms (bench-out/inputs/coords_1m.f64),
/// WGS84 → UTM-K (5179), KATEC and Web Mercator, and the largest difference from pyproj's answers.
/// The conditions say which path ran: the closed-form kernels (transverse Mercator, and for KATEC the
/// geocentric Helmert shift) checked against PROJ when the transformer was made, or PROJ itself.
enum CoordinatesBench {
    /// (record key suffix, our CRS name).
    static let targets = [("5179", "UTMK"), ("katec", "KATEC"), ("3857", "WEBMERCATOR")]

    static func run(_ ctx: BenchContext, _ options: [String: String]) throws {
        let (xs, ys) = try readPairs(ctx.input("coords_1m.f64"))
        let n = xs.count
        var worst = 0.0
        var worstTarget = ""
        for (key, name) in targets {
            let transformer = try CoordinateTransformer(from: "WGS84", to: name)
            var rates: [Double] = []
            var outX = xs, outY = ys
            for run in 0...ctx.runs {  // run 0 is the warm-up
                outX = xs
                outY = ys
                let s = try seconds { _ = try transformer.transform(xs: &outX, ys: &outY) }
                if run > 0 { rates.append(Double(n) / s / 1e6) }
            }
            var conditions = "1M points WGS84 -> \(key.uppercased()) (\(name)), batch API on two [Double] buffers, "
                + "all \(ProcessInfo.processInfo.activeProcessorCount) cores, "
                + (transformer.usesFastKernel
                    ? String(format: "fast closed-form kernel (%@) verified against PROJ at creation (max %.1g m)",
                             transformer.fastKernelSummary ?? "", transformer.fastKernelDifference ?? .nan)
                    : "PROJ " + (transformer.usesStepwisePlan ? "step by step" : "pipeline"))
            if let (peerX, peerY) = try? readPairs(ctx.output("coords-peer-\(key).f64")), peerX.count == n {
                var dev = 0.0
                for i in 0..<n where outX[i].isFinite && peerX[i].isFinite {
                    dev = max(dev, abs(outX[i] - peerX[i]), abs(outY[i] - peerY[i]))
                }
                conditions += String(format: "; largest difference from pyproj %.2g m", dev)
                if dev > worst { worst = dev; worstTarget = key }
            } else {
                ctx.note("coordinates \(key): no pyproj answer in \(ctx.output("coords-peer-\(key).f64")) to compare with")
            }
            ctx.add(BenchRecord(key: "coordinates.\(key)", impl: "taxipot CoordinateTransformer", metric: "throughput",
                                unit: "M points/s", better: "higher", samples: rates, n: n, conditions: conditions))
        }
        ctx.add(BenchRecord(key: "coordinates.deviation", impl: "taxipot CoordinateTransformer",
                            metric: "largest difference from PROJ (pyproj)", unit: "m", better: "lower", samples: [worst],
                            n: n, conditions: "largest difference of x or y over 1M points and the 3 targets against pyproj's answers "
                                + "(worst: \(worstTarget.isEmpty ? "none" : worstTarget.uppercased()))"))
    }
}

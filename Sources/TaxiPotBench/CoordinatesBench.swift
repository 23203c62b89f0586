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
        let cores = ProcessInfo.processInfo.activeProcessorCount
        // The warm-up transforms other points: the same ones moved 0.01° north-east.
        let warmXs = xs.map { $0 + 0.01 }, warmYs = ys.map { $0 + 0.01 }
        var worst = 0.0, worstTarget = "", compared = 0, comparedTargets: [String] = [], nonFinite = 0
        for (key, name) in targets {
            let transformer = try CoordinateTransformer(from: "WGS84", to: name)
            var rates: [Double] = []
            var outX = warmXs, outY = warmYs
            _ = try transformer.transform(xs: &outX, ys: &outY)  // warm-up
            for _ in 0..<ctx.runs {
                outX = xs
                outY = ys
                let s = try seconds { _ = try transformer.transform(xs: &outX, ys: &outY) }
                rates.append(Double(n) / s / 1e6)
            }
            // Every input is a point of South Korea's bounding box: an output that is not a finite
            // number is a failure, not a point to skip.
            let failed = (0..<n).reduce(0) { $0 + (outX[$1].isFinite && outY[$1].isFinite ? 0 : 1) }
            nonFinite += failed
            var conditions = "1M points WGS84 -> \(key.uppercased()) (\(name)), batch API on two [Double] buffers, "
                + "all \(cores) cores, "
                + (transformer.usesFastKernel
                    ? String(format: "fast closed-form kernel (%@) verified against PROJ at creation (max %.1g m)",
                             transformer.fastKernelSummary ?? "", transformer.fastKernelDifference ?? .nan)
                    : "PROJ " + (transformer.usesStepwisePlan ? "step by step" : "pipeline"))
                + "; \(failed) outputs not finite; warm-up on the points moved 0.01° north-east"
            if let (peerX, peerY) = try? readPairs(ctx.output("coords-peer-\(key).f64")), peerX.count == n {
                var dev = 0.0
                for i in 0..<n where outX[i].isFinite && outY[i].isFinite && peerX[i].isFinite && peerY[i].isFinite {
                    dev = max(dev, abs(outX[i] - peerX[i]), abs(outY[i] - peerY[i]))
                    compared += 1
                }
                conditions += String(format: "; largest difference from pyproj %.2g m", dev)
                comparedTargets.append(key.uppercased())
                if dev >= worst { worst = dev; worstTarget = key }
            } else {
                ctx.note("coordinates \(key): no pyproj answer in \(ctx.output("coords-peer-\(key).f64")) to compare with")
            }
            ctx.add(BenchRecord(key: "coordinates.\(key)", impl: "taxipot CoordinateTransformer", metric: "throughput",
                                unit: "M points/s", better: "higher", samples: rates, n: n, conditions: conditions,
                                errors: failed, cores: cores))
        }
        // No figure when nothing was compared (no peer answer file): "0 m" would claim agreement.
        guard compared > 0 else {
            ctx.note("coordinates: no pyproj answer to compare with: the difference from PROJ is not measured")
            return
        }
        ctx.add(BenchRecord(key: "coordinates.deviation", impl: "taxipot CoordinateTransformer",
                            metric: "largest difference from PROJ (pyproj)", unit: "m", better: "lower", samples: [worst],
                            n: compared, conditions: "largest difference of x or y over \(compared) points compared (1M points of "
                                + "\(comparedTargets.joined(separator: ", ")) against pyproj's answers; worst: \(worstTarget.uppercased())); "
                                + "\(nonFinite) of our outputs not finite (failures)",
                            errors: nonFinite))
    }
}

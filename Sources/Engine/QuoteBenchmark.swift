import Foundation
import Geo
import Routing

/// Measures what a quote costs next to a route alone, in-process (for `taxipot-bench`).
public enum QuoteBenchmark {
    /// Latency of routes alone and of quotes over the same pairs.
    public struct Figures: Sendable, CustomStringConvertible {
        public let pairs: Int
        public let failures: Int
        public let routeP50Microseconds: Double
        public let quoteP50Microseconds: Double
        public let routeMeanMicroseconds: Double
        public let quoteMeanMicroseconds: Double
        /// quote p50 ÷ route p50 (the target is at most 1.2).
        public var p50Ratio: Double { quoteP50Microseconds / max(routeP50Microseconds, 1e-9) }

        public var description: String {
            String(format: "%d pairs (%d failed): route p50 %.1f µs (mean %.1f), quote p50 %.1f µs (mean %.1f), ratio %.3f",
                   pairs, failures, routeP50Microseconds, routeMeanMicroseconds, quoteP50Microseconds, quoteMeanMicroseconds, p50Ratio)
        }
    }

    /// Times `engine.routes.route` over all pairs, then `engine.quote` (one rider, equal split)
    /// over the same pairs, in separate passes (so neither gains from the other having just
    /// searched the same pair), for `rounds` rounds after one untimed round; each figure is the
    /// median over the rounds (robust to other load on the machine).
    public static func measure(_ engine: QuoteEngine, pairs: [(Coordinate, Coordinate)], departAt: Double, rounds: Int = 5) -> Figures {
        var failed = Set<Int>()
        func pass(_ quote: Bool) -> [Double] {
            var times: [Double] = []
            times.reserveCapacity(pairs.count)
            for (i, (a, b)) in pairs.enumerated() {
                let t0 = DispatchTime.now().uptimeNanoseconds
                let ok = quote ? (try? engine.quote(QuoteRequest(origin: a, destination: b, departure: departAt))) != nil
                    : (try? engine.routes.route(RouteRequest(from: a, to: b, departAt: departAt))) != nil
                let t1 = DispatchTime.now().uptimeNanoseconds
                if ok { times.append(Double(t1 - t0) / 1000) } else { failed.insert(i) }
            }
            return times
        }
        func p50(_ v: [Double]) -> Double { v.isEmpty ? 0 : v.sorted()[v.count / 2] }
        func mean(_ v: [Double]) -> Double { v.reduce(0, +) / Double(max(1, v.count)) }
        _ = pass(false)
        _ = pass(true)
        var r50: [Double] = [], q50: [Double] = [], rMean: [Double] = [], qMean: [Double] = []
        for _ in 0..<max(1, rounds) {
            let r = pass(false), q = pass(true)
            r50.append(p50(r)); q50.append(p50(q)); rMean.append(mean(r)); qMean.append(mean(q))
        }
        return Figures(pairs: pairs.count, failures: failed.count, routeP50Microseconds: p50(r50),
                       quoteP50Microseconds: p50(q50), routeMeanMicroseconds: p50(rMean), quoteMeanMicroseconds: p50(qMean))
    }
}

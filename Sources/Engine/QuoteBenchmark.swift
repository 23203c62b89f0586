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

    /// Times `engine.routes.route` and `engine.quote` (one rider, equal split) on each pair,
    /// alternating the two so that both see the same cache state; one untimed pass first.
    public static func measure(_ engine: QuoteEngine, pairs: [(Coordinate, Coordinate)], departAt: Double) -> Figures {
        var routeTimes: [Double] = [], quoteTimes: [Double] = []
        var failures = 0
        for record in [false, true] {
            for (a, b) in pairs {
                let t0 = DispatchTime.now().uptimeNanoseconds
                let route = try? engine.routes.route(RouteRequest(from: a, to: b, departAt: departAt))
                let t1 = DispatchTime.now().uptimeNanoseconds
                let quote = try? engine.quote(QuoteRequest(origin: a, destination: b, departure: departAt))
                let t2 = DispatchTime.now().uptimeNanoseconds
                guard record else { continue }
                if route == nil || quote == nil { failures += 1; continue }
                routeTimes.append(Double(t1 - t0) / 1000)
                quoteTimes.append(Double(t2 - t1) / 1000)
            }
        }
        func p50(_ v: [Double]) -> Double { v.isEmpty ? 0 : v.sorted()[v.count / 2] }
        func mean(_ v: [Double]) -> Double { v.reduce(0, +) / Double(max(1, v.count)) }
        return Figures(pairs: pairs.count, failures: failures, routeP50Microseconds: p50(routeTimes),
                       quoteP50Microseconds: p50(quoteTimes), routeMeanMicroseconds: mean(routeTimes),
                       quoteMeanMicroseconds: mean(quoteTimes))
    }
}

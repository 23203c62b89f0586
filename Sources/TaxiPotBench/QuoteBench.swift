import Foundation
import TaxiPot

/// Fares: what a quote (route + fare meter along it + split) costs next to the route alone,
/// in-process, on the central-Seoul pairs the routing peers use.
enum QuoteBench {
    static func run(_ ctx: BenchContext, _ options: [String: String]) throws {
        let dataset = try Dataset(directory: ctx.dataDir)
        let pairs = try readRoutePairs(ctx)
        let departAt = RoutingBench.departAt
        func routeAll() -> Int {
            var failed = 0
            for (a, b) in pairs where (try? dataset.routes.route(RouteRequest(from: a, to: b, departAt: departAt))) == nil {
                failed += 1
            }
            return failed
        }
        func quoteAll() -> Int {
            var failed = 0
            for (a, b) in pairs where (try? dataset.quotes.quote(QuoteRequest(origin: a, destination: b, riders: 2, departure: departAt))) == nil {
                failed += 1
            }
            return failed
        }
        // A straight-line estimate of the same trips (what answers outside the served roads).
        func estimateAll() -> Int {
            var failed = 0
            for (a, b) in pairs where (try? dataset.quotes.estimate(QuoteRequest(origin: a, destination: b, riders: 2, departure: departAt))) == nil {
                failed += 1
            }
            return failed
        }
        // Warm-up pass of each, then alternating timed passes (route, quote) so drift hits both.
        let routeFailed = routeAll()
        let quoteFailed = quoteAll()
        let estimateFailed = estimateAll()
        var ratios: [Double] = [], quoteMicros: [Double] = [], routeMicros: [Double] = [], estimateRatios: [Double] = []
        for _ in 0..<ctx.runs {
            let r = seconds { _ = routeAll() }
            let q = seconds { _ = quoteAll() }
            let e = seconds { _ = estimateAll() }
            estimateRatios.append(e / r)
            ratios.append(q / r)
            routeMicros.append(r / Double(pairs.count) * 1e6)
            quoteMicros.append(q / Double(pairs.count) * 1e6)
        }
        let cond = "\(pairs.count) central-Seoul pairs x \(ctx.runs) runs: time of a pass of quotes (2 riders, equal split, "
            + "mid-size, route + meter + split) / time of a pass of routes alone (same pairs, same departure); "
            + "route failures \(routeFailed), quote failures \(quoteFailed)"
        ctx.add(BenchRecord(key: "quote.cost_ratio", impl: "taxipot RideQuoter", metric: "quote cost / route cost", unit: "×",
                            better: "lower", samples: ratios, n: pairs.count, conditions: cond))
        ctx.add(BenchRecord(key: "quote.estimate_cost_ratio", impl: "taxipot RideQuoter", metric: "estimate cost / route cost", unit: "×",
                            better: "lower", samples: estimateRatios, n: pairs.count,
                            conditions: "\(pairs.count) central-Seoul pairs x \(ctx.runs) runs: time of a pass of straight-line estimates "
                                + "(RideQuoter.estimate: circuity by band, meter at median, p05 and p95) / time of a pass of routes alone; "
                                + "estimate failures \(estimateFailed)"))
        ctx.add(BenchRecord(key: "quote.mean_us", impl: "taxipot RideQuoter", metric: "quote mean", unit: "µs",
                            better: "lower", samples: quoteMicros, n: pairs.count,
                            conditions: cond + String(format: "; route mean %.1f µs", Stats(samples: routeMicros).median)))
    }
}

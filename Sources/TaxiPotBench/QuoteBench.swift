import Foundation
import TaxiPot

/// Fares: what a quote (route + fare meter along it + split) costs next to the route alone,
/// in-process, on the central-Seoul pairs the routing peers use.
enum QuoteBench {
    static func run(_ ctx: BenchContext, _ options: [String: String]) throws {
        let dataset = try Dataset(directory: ctx.dataDir)
        let departAt = RoutingBench.departAt
        func request(_ a: Coordinate, _ b: Coordinate) -> QuoteRequest { QuoteRequest(origin: a, destination: b, riders: 2, departure: departAt) }
        func route(_ a: Coordinate, _ b: Coordinate) -> Bool { (try? dataset.routes.route(RouteRequest(from: a, to: b, departAt: departAt))) != nil }
        func quote(_ a: Coordinate, _ b: Coordinate) -> Bool { (try? dataset.quotes.quote(request(a, b))) != nil }
        // A straight-line estimate of the same trips (what answers outside the served roads).
        func estimate(_ a: Coordinate, _ b: Coordinate) -> Bool { (try? dataset.quotes.estimate(request(a, b))) != nil }
        // The routing peers' pairs on which all three succeed (the engines keep nothing per trip,
        // so choosing them times nothing in advance); the warm-up runs on other pairs.
        let given = try readRoutePairs(ctx)
        let pairs = given.filter { route($0.0, $0.1) && quote($0.0, $0.1) && estimate($0.0, $0.1) }
        guard !pairs.isEmpty else { throw BenchError("quote: no pair of route_pairs.csv is routed, quoted and estimated") }
        let warmup = RoutingBench.randomPairs(dataset.graph, count: pairs.count, seed: 19)
        var failures = 0
        /// A pass of `body` over `pairs`; failures counted.
        func pass(_ pairs: [(Coordinate, Coordinate)], _ body: (Coordinate, Coordinate) -> Bool) -> Double {
            seconds { for (a, b) in pairs where !body(a, b) { failures += 1 } }
        }
        // Warm-up pass of each on other pairs, then alternating timed passes (route, quote) so drift hits both.
        for body in [route, quote, estimate] { _ = pass(warmup, body) }
        failures = 0
        var ratios: [Double] = [], quoteMicros: [Double] = [], routeMicros: [Double] = [], estimateRatios: [Double] = []
        for _ in 0..<ctx.runs {
            let r = pass(pairs, route)
            let q = pass(pairs, quote)
            let e = pass(pairs, estimate)
            estimateRatios.append(e / r)
            ratios.append(q / r)
            routeMicros.append(r / Double(pairs.count) * 1e6)
            quoteMicros.append(q / Double(pairs.count) * 1e6)
        }
        let chosen = "\(pairs.count) of the \(given.count) central-Seoul pairs (those routed, quoted and estimated; warm-up on \(warmup.count) other pairs)"
        let cond = chosen + " x \(ctx.runs) runs: time of a pass of quotes (2 riders, equal split, "
            + "mid-size, route + meter + split) / time of a pass of routes alone (same pairs, same departure); "
            + "\(failures) failures in the timed passes"
        ctx.add(BenchRecord(key: "quote.cost_ratio", impl: "taxipot RideQuoter", metric: "quote cost / route cost", unit: "×",
                            better: "lower", samples: ratios, n: pairs.count, conditions: cond, errors: failures))
        ctx.add(BenchRecord(key: "quote.estimate_cost_ratio", impl: "taxipot RideQuoter", metric: "estimate cost / route cost", unit: "×",
                            better: "lower", samples: estimateRatios, n: pairs.count,
                            conditions: chosen + " x \(ctx.runs) runs: time of a pass of straight-line estimates "
                                + "(RideQuoter.estimate: circuity by band, meter at median, p05 and p95) / time of a pass of routes alone; "
                                + "\(failures) failures in the timed passes", errors: failures))
        ctx.add(BenchRecord(key: "quote.mean_us", impl: "taxipot RideQuoter", metric: "quote mean", unit: "µs",
                            better: "lower", samples: quoteMicros, n: pairs.count,
                            conditions: cond + String(format: "; route mean %.1f µs", Stats(samples: routeMicros).median), errors: failures))
    }
}

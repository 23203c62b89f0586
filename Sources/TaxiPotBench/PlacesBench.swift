import Foundation
import TaxiPot

/// Places in-process: the project's query set (data/places/queries.tsv) over the place DB
/// (DATA/build/places.db): top-1 accuracy and search latency, as the peers measure them.
enum PlacesBench {
    static func run(_ ctx: BenchContext, _ options: [String: String]) throws {
        let dbPath = ctx.dataDir + "/build/places.db"
        var index: PlaceIndex?
        let openSeconds = try seconds { index = try PlaceIndex.open(path: dbPath) }
        guard let index else { throw BenchError("\(dbPath): not opened") }
        let cases = try PlaceQuerySet.load(path: ctx.dataDir + "/places/queries.tsv")
        let base = "\(cases.count) queries of data/places/queries.tsv x \(ctx.runs) rounds over \(index.count) places "
            + "(with the cases' location bias)"
        let queries = cases.map { PlaceQuery(text: $0.query, near: $0.near) }
        // The warm-up types other text: each query less its last character (as typed so far).
        let warmup = queries.compactMap { q in q.text.count > 1 ? PlaceQuery(text: String(q.text.dropLast()), near: q.near) : nil }
        let m = latencyRounds(queries, rounds: ctx.runs, warmup: warmup) { q in (try? index.search(q)) != nil }
        // Accuracy after the timed passes (its pass would be a warm-up on the timed queries).
        let evaluation = PlaceQuerySet.evaluate(cases, on: index)
        let kinds = evaluation.byKind.keys.sorted().map { k in
            "\(k) \(evaluation.byKind[k]?.correct ?? 0)/\(evaluation.byKind[k]?.total ?? 0)"
        }.joined(separator: ", ")
        ctx.add(BenchRecord(key: "places.top1", impl: "taxipot PlaceIndex", metric: "top-1 accuracy", unit: "%",
                            better: "higher", samples: [100 * evaluation.accuracy], n: cases.count,
                            conditions: base + "; by kind: " + kinds))
        let cond = base + String(format: "; default limit, index opened in %.2f s; warm-up on the queries less their last character; %d failed",
                                 openSeconds, m.failures)
        ctx.add(BenchRecord(key: "places.p50", impl: "taxipot PlaceIndex", metric: "search p50", unit: "µs", better: "lower",
                            samples: m.p50, n: cases.count, conditions: cond, errors: m.failures))
        ctx.add(BenchRecord(key: "places.p99", impl: "taxipot PlaceIndex", metric: "search p99", unit: "µs", better: "lower",
                            samples: m.p99, n: cases.count, conditions: cond, errors: m.failures))
    }
}

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
        let evaluation = PlaceQuerySet.evaluate(cases, on: index)
        let kinds = evaluation.byKind.keys.sorted().map { k in
            "\(k) \(evaluation.byKind[k]?.correct ?? 0)/\(evaluation.byKind[k]?.total ?? 0)"
        }.joined(separator: ", ")
        let base = "\(cases.count) queries of data/places/queries.tsv x \(ctx.runs) rounds over \(index.count) places "
            + "(with the cases' location bias)"
        ctx.add(BenchRecord(key: "places.top1", impl: "taxipot PlaceIndex", metric: "top-1 accuracy", unit: "%",
                            better: "higher", samples: [100 * evaluation.accuracy], n: cases.count,
                            conditions: base + "; by kind: " + kinds))
        let queries = cases.map { PlaceQuery(text: $0.query, near: $0.near) }
        let (p50, p99) = latencyRounds(queries, rounds: ctx.runs) { q in _ = try? index.search(q) }
        let cond = base + String(format: "; default limit, index opened in %.2f s", openSeconds)
        ctx.add(BenchRecord(key: "places.p50", impl: "taxipot PlaceIndex", metric: "search p50", unit: "µs", better: "lower",
                            samples: p50, n: cases.count, conditions: cond))
        ctx.add(BenchRecord(key: "places.p99", impl: "taxipot PlaceIndex", metric: "search p99", unit: "µs", better: "lower",
                            samples: p99, n: cases.count, conditions: cond))
    }
}

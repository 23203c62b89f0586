import Foundation
import JSON
import TaxiPot

// taxipot-bench: in-process figures of the engine, as JSON records on stdout (the same format as
// the peers of tools/bench), each a median over at least 5 timed runs after a warm-up.
//
// Usage: taxipot-bench [--only a,b,…] [--quick] [--data DIR] [--out DIR] [--graph FILE --label L]
// Sections: see `sections` below. Inputs come from bench-out/inputs (tools/bench/inputs.py).

/// Every section, by name, in the order they run.
let sections: [(String, (BenchContext, [String: String]) throws -> Void)] = [
    ("coordinates", CoordinatesBench.run),
    ("routing", RoutingBench.run),
    ("table", TableBench.run),
    ("places", PlacesBench.run),
    ("addresses", AddressesBench.run),
    ("quote", QuoteBench.run),
    ("clusters", ClustersBench.run),
    ("pooling", PoolingBench.run),
    ("matching", MatchingBench.run),
    // Only with --graph FILE --label L (a synthetic city); not part of the default set.
    ("synthetic", RoutingBench.runSynthetic),
    // Only with --only store-check: the cost of checking the party store at start.
    ("store-check", StoreCheckBench.run),
]

var options: [String: String] = [:]
var quick = false
var args = Array(CommandLine.arguments.dropFirst())
while !args.isEmpty {
    let a = args.removeFirst()
    switch a {
    case "--quick": quick = true
    case "--help", "-h":
        print("Usage: taxipot-bench [--only \(sections.map(\.0).joined(separator: ","))] [--quick] [--data DIR] [--out DIR] [--graph FILE --label L]")
        exit(0)
    case _ where a.hasPrefix("--") && !args.isEmpty: options[String(a.dropFirst(2))] = args.removeFirst()
    default:
        log("unknown argument '\(a)'")
        exit(1)
    }
}
let root = FileManager.default.currentDirectoryPath
let ctx = BenchContext(root: root, dataDir: options["data"] ?? "data", outDir: options["out"] ?? "bench-out", quick: quick)
let only = options["only"].map { Set($0.split(separator: ",").map(String.init)) }
if let only, let unknown = only.first(where: { name in !sections.contains { $0.0 == name } }) {
    log("unknown section '\(unknown)' (known: \(sections.map(\.0).joined(separator: ", ")))")
    exit(1)
}
var failed = false
for (name, run) in sections where only?.contains(name) ?? (name != "synthetic" && name != "store-check") {
    do {
        try run(ctx, options)
    } catch {
        ctx.note("\(name): failed: \(error)")
        failed = true
    }
}
let doc: JSONValue = ["results": .array(ctx.records.map(\.json)), "notes": .array(ctx.notes.map { .string($0) })]
print(JSONWriter.string(doc))
exit(failed ? 2 : 0)

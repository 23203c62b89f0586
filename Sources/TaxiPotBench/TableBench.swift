import Foundation
import TaxiPot

/// Many-to-many tables in-process on central Seoul: 1,000 × 1,000 and 100 × 100 on the points
/// of bench-out/inputs/table_points.csv (the first N are the sources, the next N the
/// destinations; the same points tools/bench/peer_table.py sends to osrm-routed and our server).
enum TableBench {
    /// The points of table_points.csv (lon,lat).
    static func readPoints(_ ctx: BenchContext) throws -> [Coordinate] {
        try readSimpleCSV(ctx.input("table_points.csv")).compactMap { f in
            guard f.count == 2, let lon = Double(f[0]), let lat = Double(f[1]) else { return nil }
            return Coordinate(lon: lon, lat: lat)
        }
    }

    static func run(_ ctx: BenchContext, _ options: [String: String]) throws {
        let engine = try RoutingBench.engine(graphPath: ctx.dataDir + "/build/seoul.graph", dataDir: ctx.dataDir)
        let points = try readPoints(ctx)
        let search = RoutingBench.prepareSearch(engine)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        for n in ctx.quick ? [100, 1000] : [100, 1000] {
            guard points.count >= 2 * n else { throw BenchError("table_points.csv has \(points.count) points; \(2 * n) needed") }
            let (first, second) = (Array(points[0..<n]), Array(points[n..<(2 * n)]))
            let request = TableRequest(sources: first, destinations: second, departAt: RoutingBench.departAt)
            // warm-up on another table: the same points, sources and destinations swapped
            _ = try engine.table(TableRequest(sources: second, destinations: first, departAt: RoutingBench.departAt))
            var table: RouteTable?
            var samples: [Double] = []
            for _ in 0..<max(ctx.runs, n <= 100 ? 21 : ctx.runs) {
                samples.append(try seconds { table = try engine.table(request) } * 1000)
            }
            // the points are nodes of one strongly connected road graph: an unreachable cell is a failure
            let reachable = table?.durationsMs.filter { $0 != RouteTable.unreachable }.count ?? 0
            let cond = String(format: "%d × %d central-Seoul road points (table_points.csv), durations and distances, "
                + "bucket many-to-many search over the hierarchy (%@), snapping included, %d cores; %d of %d cells reachable; warm-up on the swapped table",
                n, n, search, cores, reachable, n * n)
            ctx.add(BenchRecord(key: "table.inprocess.\(n)", impl: "taxipot RouteEngine.table", metric: "\(n) × \(n) table", unit: "ms",
                                better: "lower", samples: samples, n: n * n, conditions: cond, errors: n * n - reachable,
                                cores: cores))
        }
    }
}

import Foundation
import SQLiteKit
import TaxiPot

/// `--only store-check`: what checking the party store at start costs. Writes N random
/// parties (`--parties N`, default 1,000,000) around Seoul to bench-out/state-check, then
/// times opening the party service over them (the checks, the load with its row checksums
/// and index comparison, the index build) and SQLite's `quick_check` alone, 5 runs each.
/// Not part of the default set: the clusters section's restart figure is the tracked one.
enum StoreCheckBench {
    static func run(_ ctx: BenchContext, _ options: [String: String]) throws {
        let n = options["parties"].flatMap { Int($0) } ?? 1_000_000
        let dir = ctx.output("state-check")
        for name in ["parties.db", "parties.db-wal", "parties.db-shm", "parties.db.bak"] { try? FileManager.default.removeItem(atPath: dir + "/" + name) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var rng = SplitMix64(seed: 21)
        let now = Date().timeIntervalSince1970.rounded()
        let parties = (0..<n).map { i in
            let o = Coordinate(lon: 126.8 + Double.random(in: 0..<0.4, using: &rng), lat: 37.4 + Double.random(in: 0..<0.3, using: &rng))
            return Party(id: "p\(i)", origin: o, destination: o.offset(eastMeters: 3000, northMeters: 2000),
                         departAt: now + 3600 + Double(i % 86_400), seatsTotal: 4, seatsTaken: i % 4, title: i % 3 == 0 ? "파티 \(i)" : nil)
        }
        do {
            let store = try PartyStore(stateDirectory: dir)
            var i = 0
            while i < parties.count {
                try store.put(parties[i..<min(i + 50_000, parties.count)])
                i += 50_000
            }
            try store.close(backup: false)
        }
        _ = try PartyService(stateDirectory: dir)  // warm-up (file cache)
        var opens: [Double] = [], checks: [Double] = []
        var loaded = 0
        for _ in 0..<ctx.runs {
            opens.append(try seconds { loaded = try PartyService(stateDirectory: dir).count })
            let db = try SQLiteDatabase(path: dir + "/parties.db", readOnly: true)
            checks.append(try seconds { _ = try db.scalarText("PRAGMA quick_check") })
        }
        ctx.add(BenchRecord(key: "parties.store_open_s", impl: "taxipot PartyService", metric: "open a checked store (checks + load + index)", unit: "s",
                            better: "lower", samples: opens, n: loaded, conditions: "\(n) parties in SQLite (WAL) under bench-out/state-check"))
        ctx.add(BenchRecord(key: "parties.quick_check_s", impl: "SQLite PRAGMA quick_check", metric: "quick_check alone", unit: "s",
                            better: "lower", samples: checks, n: n, conditions: "the same store"))
    }
}

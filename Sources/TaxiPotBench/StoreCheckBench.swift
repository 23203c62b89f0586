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
            let store = try SQLitePartyDatabase(stateDirectory: dir)
            var i = 0
            while i < parties.count {
                try store.put(parties[i..<min(i + 50_000, parties.count)])
                i += 50_000
            }
            try store.close(backup: false)
        }
        _ = try PartyService(stateDirectory: dir)  // warm-up (file cache)
        // Interleaved, wall and CPU seconds: the checked open, the open as it was before the
        // checks (plain scan + validation + index build, no quick_check, row sums or index
        // comparison), and the two added scans alone.
        var figures: [String: (wall: [Double], cpu: [Double])] = [:]
        func time(_ name: String, _ body: () throws -> Void) rethrows {
            let c0 = cpuSeconds()
            let w = try seconds(body)
            figures[name, default: ([], [])].wall.append(w)
            figures[name, default: ([], [])].cpu.append(cpuSeconds() - c0)
        }
        var loaded = 0
        for _ in 0..<ctx.runs {
            try time("open_checked") { loaded = try PartyService(stateDirectory: dir).count }
            try time("open_unchecked") { loaded = try uncheckedOpen(dir + "/parties.db") }
            let db = try SQLiteDatabase(path: dir + "/parties.db", readOnly: true)
            try time("quick_check") { _ = try db.scalarText("PRAGMA quick_check") }
            try time("index_scan") {
                let s = try db.prepare("SELECT depart_at, id FROM parties INDEXED BY parties_by_departure ORDER BY depart_at")
                var n = 0
                while try s.step() { n += s.text(1).utf8.count }
                precondition(n > 0)
            }
        }
        let labels = ["open_checked": "open the party service over a checked store (checks + load + index)",
                      "open_unchecked": "the same open without the start checks (as before issue 21)",
                      "quick_check": "SQLite PRAGMA quick_check alone", "index_scan": "a scan of the departure index alone"]
        for name in ["open_checked", "open_unchecked", "quick_check", "index_scan"] {
            let f = figures[name]!
            ctx.add(BenchRecord(key: "parties.\(name)_s", impl: "taxipot", metric: labels[name]!, unit: "s", better: "lower", samples: f.wall,
                                n: n, conditions: "\(n) parties (\(loaded) live) under bench-out/state-check; CPU s median \(String(format: "%.3f", Stats(samples: f.cpu).median))"))
        }
    }

    /// The party service's open before the start checks: scan, validate, build the index.
    static func uncheckedOpen(_ path: String) throws -> Int {
        let db = try SQLiteDatabase(path: path, readOnly: true)
        let s = try db.prepare("""
            SELECT id, origin_lon, origin_lat, dest_lon, dest_lat, depart_at, seats_total, seats_taken, title
            FROM parties WHERE +depart_at > ?1 ORDER BY id
            """)
        s.bind(1, Date().timeIntervalSince1970 - 1800)
        var parties: [Party] = []
        while try s.step() {
            let p = Party(id: s.text(0), origin: Coordinate(lon: s.double(1), lat: s.double(2)),
                          destination: Coordinate(lon: s.double(3), lat: s.double(4)), departAt: s.double(5),
                          seatsTotal: Int(s.int(6)), seatsTaken: Int(s.int(7)), title: s.optionalText(8))
            if (try? p.validate()) != nil { parties.append(p) }
        }
        return PartyIndex(parties: parties, radius: 60).count
    }

    static func cpuSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
    }
}

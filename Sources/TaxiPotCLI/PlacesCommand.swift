import Foundation
import TaxiPot

/// `taxipot places "강남역"`: keyword search in the place DB.
struct PlacesCommand: Command {
    let name = "places"
    let summary = "search places by name, 초성, romanisation or address"
    let help = """
        Usage: taxipot places QUERY [--near lon,lat] [--radius-m M] [--rect w,s,e,n] [--category CAT]
                              [--sort accuracy|distance] [--limit n] [--db PATH]
               taxipot places --eval QUERIES.tsv [--repeat n] [--db PATH]

        Prints the best matches, one per line: name, category, address, lon,lat and, with
        --near, the distance in metres.

        Options:
          --near lon,lat     rank places near this point higher
          --radius-m M       only places within M metres of --near (1–20000)
          --rect w,s,e,n     only places inside this rectangle
          --category CAT     only places of this category
          --sort S           accuracy (default) or distance (needs --near)
          --limit n          number of results, 1–50 (default 10)
          --db PATH          the place DB (default data/build/places.db)
          --eval FILE        run a query set (data/places/queries.tsv) and print the top-1
                             accuracy per kind, the misses and the search time (p50, p99)
          --repeat n         with --eval, run the set n times for the timing (default 20)

        Exit (with --eval): 0 when at least 95% of the cases are right, 2 otherwise.
        """

    func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, valued: ["near", "radius-m", "rect", "category", "sort", "limit", "db", "eval", "repeat"])
        if let eval = a.value("eval") {
            guard a.positionals.isEmpty else { throw UsageError("--eval takes no QUERY") }
            return try evaluate(eval, repeat: try a.int("repeat", default: 20, range: 1...10_000), db: a.value("db"))
        }
        guard a.positionals.count == 1 else {
            throw UsageError(a.positionals.isEmpty ? "missing the QUERY to search for" : "give the QUERY as one argument (quote it)")
        }
        var query = PlaceQuery(text: a.positionals[0], limit: try a.int("limit", default: 10, range: 1...PlaceQuery.maximumLimit))
        do {
            if let n = a.value("near") { query.near = try PlaceQuery.parseNear(n) }
            if let r = a.value("radius-m") { query.radiusMeters = try PlaceQuery.parseRadius(r) }
            if let r = a.value("rect") { query.rect = try PlaceQuery.parseRect(r) }
            if let s = a.value("sort") { query.sort = try PlaceQuery.parseSort(s) }
        } catch {
            throw UsageError(error.message)
        }
        query.category = a.value("category")
        let index = try PlaceIndex.open(path: a.value("db") ?? "data/build/places.db")
        let result: PlaceSearchResult
        do {
            result = try index.search(query)
        } catch {
            throw UsageError(error.message)
        }
        if result.places.isEmpty { print("no places match '\(query.text)'") }
        for hit in result.places {
            let p = hit.place
            var line = "\(p.name)\t\(p.category)\t\(p.address)\t\(p.lon),\(p.lat)"
            if let d = hit.distanceMeters { line += "\t\(Int(d.rounded())) m" }
            if let precision = hit.precision { line += "\tprecision \(precision.rawValue)" }
            print(line)
        }
        return 0
    }

    func evaluate(_ path: String, repeat times: Int, db: String?) throws -> Int32 {
        let started = Date()
        let index = try PlaceIndex.open(path: db ?? "data/build/places.db")
        print("opened \(index.count) places, \(index.keyCount) keys in \(String(format: "%.2f", Date().timeIntervalSince(started))) s")
        let cases = try PlaceQuerySet.load(path: path)
        let first = PlaceQuerySet.evaluate(cases, on: index)
        print(first.report, terminator: "")
        var all: [Double] = []
        for _ in 0..<times { all += PlaceQuerySet.evaluate(cases, on: index).latencies }
        let perCase = (0..<cases.count).map { i in (cases[i], stride(from: i, to: all.count, by: cases.count).map { all[$0] }.max() ?? 0) }
        for (c, t) in perCase.sorted(by: { $0.1 > $1.1 }).prefix(5) {
            print("slowest: \(String(format: "%.3f", t * 1000)) ms  \(c.kind) '\(c.query)'")
        }
        all.sort()
        func ms(_ q: Double) -> String { String(format: "%.3f", all[min(all.count - 1, Int(q * Double(all.count)))] * 1000) }
        print("search time over \(all.count) searches: p50 \(ms(0.5)) ms, p90 \(ms(0.9)) ms, p99 \(ms(0.99)) ms, max \(ms(0.9999)) ms")
        return first.accuracy >= 0.95 ? 0 : 2
    }
}

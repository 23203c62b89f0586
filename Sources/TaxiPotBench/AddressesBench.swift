import Foundation
import TaxiPot

/// Road-name addresses in-process (issue 36): the public test set is every Seoul rail station
/// (`road_address`) and tourist site (`소재지도로명주소`) of data/places with a position: each
/// address is searched as written and its answer compared with the known position. No
/// calibration is fitted on these pairs (the placement is the plain 기초번호 rule), so every
/// pair is held out.
enum AddressesBench {
    struct Case { let label: String; let address: String; let truth: Coordinate }

    static func cases(_ dataDir: String) throws -> [Case] {
        var out: [Case] = [], seen: Set<String> = []
        func add(_ label: String, _ address: String, _ lon: String, _ lat: String) {
            guard address.hasPrefix("서울"), let lon = Double(lon), let lat = Double(lat) else { return }
            let key = "\(address)|\((lon * 1e4).rounded())|\((lat * 1e4).rounded())"
            guard seen.insert(key).inserted else { return }
            out.append(Case(label: label, address: address, truth: Coordinate(lon: lon, lat: lat)))
        }
        let stations = try CSVTable(path: dataDir + "/places/urban_rail_stations.csv")
        let (sn, sa, sx, sy) = (try stations.column("name"), try stations.column("road_address"), try stations.column("lon"), try stations.column("lat"))
        for r in stations.rows { add("station " + r[sn], r[sa], r[sx], r[sy]) }
        let sites = try CSVTable(path: dataDir + "/places/kr_tourist_spots_std.csv")
        let (tn, ta, tx, ty) = (try sites.column("관광지명"), try sites.column("소재지도로명주소"), try sites.column("경도"), try sites.column("위도"))
        for r in sites.rows { add("tourist " + r[tn], r[ta], r[tx], r[ty]) }
        return out
    }

    static func run(_ ctx: BenchContext, _ options: [String: String]) throws {
        let index = try PlaceIndex.open(path: ctx.dataDir + "/build/places.db")
        let all = try cases(ctx.dataDir)
        // A station whose position lies outside Seoul contradicts its own address (양원역 is
        // filed at 129.09,36.96): not a test of the geocoder.
        let seoul = BoundingBox(west: 126.76, south: 37.42, east: 127.19, north: 37.72)
        let usable = all.filter { seoul.contains($0.truth) }
        var errors: [Double] = [], roadErrors: [Double] = []
        var byPrecision: [String: Int] = [:], examples: [String: [String]] = [:]
        for c in usable {
            let hit = try? index.search(PlaceQuery(text: c.address, limit: 1)).places.first { $0.precision != nil }
            let kind = hit?.precision?.rawValue ?? "none"
            byPrecision[kind, default: 0] += 1
            if let hit {
                let e = hit.place.coordinate.distance(to: c.truth)
                if hit.precision == .interpolated { errors.append(e) }
                if hit.precision != .dong { roadErrors.append(e) }
            }
            if hit?.precision != .interpolated && (examples[kind]?.count ?? 0) < 4 { examples[kind, default: []].append("\(c.label): \(c.address)") }
        }
        func share(_ xs: [Double], _ limit: Double) -> Double { xs.isEmpty ? .nan : 100 * Double(xs.filter { $0 <= limit }.count) / Double(xs.count) }
        let counts = byPrecision.keys.sorted().map { "\($0) \(byPrecision[$0]!)" }.joined(separator: ", ")
        let base = "\(usable.count) Seoul station/tourist-site road addresses of data/places (\(all.count - usable.count) with a position outside Seoul left out); "
            + "answers by precision: \(counts); no calibration (every pair held out)"
        for (key, metric, value) in [("addresses.median", "median error, interpolated", percentile(errors, 50)),
                                     ("addresses.p90", "p90 error, interpolated", percentile(errors, 90))] {
            ctx.add(BenchRecord(key: key, impl: "taxipot PlaceIndex", metric: metric, unit: "m", better: "lower",
                                samples: [value], n: errors.count, conditions: base))
        }
        ctx.add(BenchRecord(key: "addresses.within300", impl: "taxipot PlaceIndex", metric: "within 300 m, interpolated", unit: "%",
                            better: "higher", samples: [share(errors, 300)], n: errors.count, conditions: base))
        ctx.add(BenchRecord(key: "addresses.within300.road", impl: "taxipot PlaceIndex", metric: "within 300 m, interpolated + road-level points",
                            unit: "%", better: "higher", samples: [share(roadErrors, 300)], n: roadErrors.count,
                            conditions: base + String(format: "; median %.0f m", percentile(roadErrors, 50))))
        for (kind, list) in examples.sorted(by: { $0.key < $1.key }) { ctx.note("addresses: \(kind): e.g. " + list.joined(separator: "; ")) }
        let queries = usable.map { PlaceQuery(text: $0.address) }
        // The warm-up reads other texts: each address without its last character.
        let warmupTexts = usable.map { String($0.address.dropLast()) }.filter { !$0.isEmpty }
        let m = latencyRounds(queries, rounds: ctx.runs, warmup: warmupTexts.map { PlaceQuery(text: $0) }) { q in (try? index.search(q)) != nil }
        let cond = "\(usable.count) road addresses as written, default limit; warm-up on the texts less their last character; \(m.failures) failed"
        ctx.add(BenchRecord(key: "addresses.p50", impl: "taxipot PlaceIndex", metric: "address search p50", unit: "µs", better: "lower",
                            samples: m.p50, n: usable.count, conditions: cond, errors: m.failures))
        ctx.add(BenchRecord(key: "addresses.p99", impl: "taxipot PlaceIndex", metric: "address search p99", unit: "µs", better: "lower",
                            samples: m.p99, n: usable.count, conditions: cond, errors: m.failures))
        // The address reading alone: what it adds to every search.
        let texts = usable.map(\.address)
        let r = latencyRounds(texts, rounds: ctx.runs, warmup: warmupTexts) { t in _ = index.address(t); return true }
        let (l50, l99) = (r.p50, r.p99)
        ctx.add(BenchRecord(key: "addresses.read_p50", impl: "taxipot PlaceIndex", metric: "address reading alone p50", unit: "µs",
                            better: "lower", samples: l50, n: usable.count, conditions: cond))
        ctx.add(BenchRecord(key: "addresses.read_p99", impl: "taxipot PlaceIndex", metric: "address reading alone p99", unit: "µs",
                            better: "lower", samples: l99, n: usable.count, conditions: cond))
    }
}

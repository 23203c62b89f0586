import Foundation
import TaxiPot

/// Road-name addresses in-process (issue 36): the public test set is every Seoul rail station
/// (`road_address`) and tourist site (`소재지도로명주소`) of data/places with a position: each
/// address is read as written and its answer compared with the known position: by the 기초번호
/// rule alone, and with a per-road calibration fitted on the other pairs only (held out; the
/// place DB's own calibration table, fitted on all of them, is never measured here).
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
        // The rule alone (no calibration), then each address placed with the calibration fitted
        // on the other pairs (`heldOut`): never a figure on the pairs a calibration was fitted to.
        let plain = usable.map { index.address($0.address, calibration: [:]) }
        let pairs: [(road: Int, pair: AddressCalibration.Pair)?] = zip(usable, plain).map { c, m in
            guard let m, let r = m.road, let n = m.number else { return nil }
            return (r, AddressCalibration.Pair(road: index.addressRoad(r), number: n, truth: c.truth))
        }
        let heldOut: [AddressMatch?] = usable.indices.map { i in
            guard let own = pairs[i] else { return plain[i] }
            // Left out with the address: every pair of its road with the same number or within
            // 150 m of it (the same station filed twice, 도곡 and 도곡역).
            let others = pairs.indices.compactMap { j -> AddressCalibration.Pair? in
                guard j != i, let p = pairs[j], p.road == own.road, p.pair.number != own.pair.number,
                      p.pair.truth.distance(to: usable[i].truth) > 150 else { return nil }
                return p.pair
            }
            return index.address(usable[i].address, calibration: AddressCalibration.fit(others))
        }
        // `--addresses-calibration-out FILE`: the table fitted on every pair (data/nodelink/address_calibration.csv).
        if let path = options["addresses-calibration-out"] {
            let all = pairs.compactMap { $0?.pair }
            var counts: [String: Int] = [:]
            for p in all { counts[AddressCalibration.key(p.road), default: 0] += 1 }
            try AddressCalibration.csv(AddressCalibration.fit(all), pairs: counts).write(toFile: path, atomically: true, encoding: .utf8)
        }
        let calibratedRoads = Set(usable.indices.compactMap { i -> Int? in
            guard let p = pairs[i], let h = heldOut[i], h.coordinate != plain[i]?.coordinate else { return nil }
            return p.road
        }).count
        var examples: [String: [String]] = [:]
        // `--addresses-dump FILE`: every case and its answers, tab-separated (for study of the errors).
        var dump = "label\taddress\ttruth_lon\ttruth_lat\tprecision\tlon\tlat\terror\ttext\theld_out_precision\theld_out_error\n"
        for (i, c) in usable.enumerated() {
            let m = plain[i], h = heldOut[i]
            let kind = m?.precision.rawValue ?? "none"
            let placed = m.map { "\($0.coordinate.lon)\t\($0.coordinate.lat)\t\(Int($0.coordinate.distance(to: c.truth)))\t\($0.text)" } ?? "\t\t\t"
            let held = h.map { "\($0.precision.rawValue)\t\(Int($0.coordinate.distance(to: c.truth)))" } ?? "none\t"
            dump += "\(c.label)\t\(c.address)\t\(c.truth.lon)\t\(c.truth.lat)\t\(kind)\t\(placed)\t\(held)\n"
            let heldKind = h?.precision.rawValue ?? "none"
            if h?.precision != .interpolated && (examples[heldKind]?.count ?? 0) < 4 { examples[heldKind, default: []].append("\(c.label): \(c.address)") }
        }
        if let path = options["addresses-dump"] { try dump.write(toFile: path, atomically: true, encoding: .utf8) }
        func share(_ xs: [Double], _ limit: Double) -> Double { xs.isEmpty ? .nan : 100 * Double(xs.filter { $0 <= limit }.count) / Double(xs.count) }
        let head = "\(usable.count) Seoul station/tourist-site road addresses of data/places (\(all.count - usable.count) with a position outside Seoul left out)"
        for (prefix, answers, how) in [("addresses.rule", plain, "the rule alone (20 m per basic number from the west/south end), no calibration"),
                                       ("addresses", heldOut, "calibrated per road, held out: each address placed with the calibration fitted on the other pairs of its road "
                                        + "(≥ \(AddressCalibration.minimumPairs) pairs of other numbers, those within 150 m of it left out too; "
                                        + "\(calibratedRoads) roads calibrated, the rest by the rule)")] {
            var byPrecision: [String: Int] = [:]
            var errors: [Double] = [], roadErrors: [Double] = []
            for (c, m) in zip(usable, answers) {
                byPrecision[m?.precision.rawValue ?? "none", default: 0] += 1
                guard let m else { continue }
                let e = m.coordinate.distance(to: c.truth)
                if m.precision == .interpolated { errors.append(e) }
                if m.precision != .dong { roadErrors.append(e) }
            }
            let counts = byPrecision.keys.sorted().map { "\($0) \(byPrecision[$0]!)" }.joined(separator: ", ")
            let base = head + "; answers by precision: \(counts); " + how
            for (key, metric, value) in [(".median", "median error, interpolated", percentile(errors, 50)),
                                         (".p90", "p90 error, interpolated", percentile(errors, 90))] {
                ctx.add(BenchRecord(key: prefix + key, impl: "taxipot PlaceIndex", metric: metric, unit: "m", better: "lower",
                                    samples: [value], n: errors.count, conditions: base))
            }
            ctx.add(BenchRecord(key: prefix + ".within300", impl: "taxipot PlaceIndex", metric: "within 300 m, interpolated", unit: "%",
                                better: "higher", samples: [share(errors, 300)], n: errors.count, conditions: base))
            ctx.add(BenchRecord(key: prefix + ".within300.road", impl: "taxipot PlaceIndex", metric: "within 300 m, interpolated + road-level points",
                                unit: "%", better: "higher", samples: [share(roadErrors, 300)], n: roadErrors.count,
                                conditions: base + String(format: "; median %.0f m", percentile(roadErrors, 50))))
        }
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

import Foundation
import Geo
@testable import PartyClusters
@testable import PartyModel
import XCTest


/// Random parties around Korean cities: dense near city centres, some at the very same spot
/// as another party (a station exit), some scattered over the country.
enum RandomParties {
    /// (lon, lat, spread in degrees) of Seoul, Busan, Incheon, Daegu, Daejeon, Gwangju.
    static let cities: [(Double, Double, Double)] = [
        (126.978, 37.5665, 0.08), (129.075, 35.1796, 0.05), (126.705, 37.4563, 0.04),
        (128.601, 35.8714, 0.04), (127.385, 36.3504, 0.03), (126.852, 35.1595, 0.03),
    ]

    static func make(_ n: Int, seed: UInt64, now: Double = 1_700_000_000, idPrefix: String = "p") -> [Party] {
        var rng = SplitMix64(seed: seed)
        var out = [Party]()
        out.reserveCapacity(n)
        for i in 0..<n {
            let origin: Coordinate
            let roll = Double.random(in: 0..<1, using: &rng)
            if roll < 0.08, let other = out.randomElement(using: &rng) {
                origin = other.origin
            } else if roll < 0.18 {
                origin = Coordinate(lon: Double.random(in: 126.0...129.5, using: &rng), lat: Double.random(in: 34.5...38.3, using: &rng))
            } else {
                let c = cities[Int.random(in: 0..<cities.count, using: &rng)]
                // Sum of uniforms: a cheap bell around the centre.
                let dx = (0..<3).map { _ in Double.random(in: -1...1, using: &rng) }.reduce(0, +) / 3
                let dy = (0..<3).map { _ in Double.random(in: -1...1, using: &rng) }.reduce(0, +) / 3
                origin = Coordinate(lon: c.0 + dx * c.2, lat: c.1 + dy * c.2 * 0.8)
            }
            let dest = origin.offset(eastMeters: Double.random(in: -20_000...20_000, using: &rng),
                                     northMeters: Double.random(in: -20_000...20_000, using: &rng))
            let total = Int.random(in: 2...4, using: &rng)
            out.append(Party(id: "\(idPrefix)\(i)", origin: origin, destination: dest,
                             departAt: (now + Double.random(in: 0...86_400, using: &rng)).rounded(),
                             seatsTotal: total, seatsTaken: Int.random(in: 0...total, using: &rng),
                             title: i % 3 == 0 ? "파티 \(i)" : nil))
        }
        return out
    }

    static let world = BoundingBox(west: -180, south: -85.06, east: 180, north: 85.06)

    /// `count` phone-sized boxes (412 × 914 px) near the cities (centres within `spread`
    /// degrees) at zooms 5–18.
    static func phoneViews(_ count: Int, seed: UInt64, spread: Double = 0.05) -> [(BoundingBox, Int)] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            let zoom = Int.random(in: 5...18, using: &rng)
            let c = cities[Int.random(in: 0..<cities.count, using: &rng)]
            let world = WebMercator.tileSize * Double(1 << zoom)
            let n = WebMercator.normalized(Coordinate(lon: c.0 + Double.random(in: -spread...spread, using: &rng),
                                                      lat: c.1 + Double.random(in: -spread...spread, using: &rng)))
            let nw = WebMercator.coordinate(normalizedX: n.x - 206 / world, y: n.y - 457 / world)
            let se = WebMercator.coordinate(normalizedX: n.x + 206 / world, y: n.y + 457 / world)
            return (BoundingBox(west: nw.lon, south: se.lat, east: se.lon, north: nw.lat), zoom)
        }
    }

    /// One random write to `index` and `live` alike: an insert from `pool` (4 in 10, or when
    /// empty), a delete (3 in 10), or a move, near where it was or onto another party's very spot.
    static func write(_ index: inout PartyIndex, live: inout [String: Party], pool: [Party], rng: inout SplitMix64) {
        let roll = Int.random(in: 0..<10, using: &rng)
        if roll < 4 || live.isEmpty {
            let p = pool.randomElement(using: &rng)!
            index.upsert(p)
            live[p.id] = p
        } else if roll < 7 {
            let id = live.keys.randomElement(using: &rng)!
            XCTAssertNotNil(index.remove(id: id))
            live[id] = nil
        } else {
            var p = live.values.randomElement(using: &rng)!
            p.origin = roll == 7 ? live.values.randomElement(using: &rng)!.origin
                : p.origin.offset(eastMeters: Double.random(in: -300...300, using: &rng), northMeters: Double.random(in: -300...300, using: &rng))
            index.upsert(p)
            live[p.id] = p
        }
    }
}

/// Spacing checks of cluster answers.
enum Spacing {
    /// Asserts no two features are closer than `radius` pixels (a grid of radius-sized buckets).
    static func assert(_ features: [ClusterFeature], zoom: Int, radius: Double, file: StaticString = #filePath, line: UInt = #line) {
        var buckets = [Int64: [(Double, Double)]]()
        for f in features {
            let p = WebMercator.pixel(f.coordinate, zoom: zoom)
            buckets[Int64((p.y / radius).rounded(.down)) << 32 | Int64((p.x / radius).rounded(.down)), default: []].append(p)
        }
        var closest = Double.infinity
        for f in features {
            let p = WebMercator.pixel(f.coordinate, zoom: zoom)
            let gx = Int64((p.x / radius).rounded(.down)), gy = Int64((p.y / radius).rounded(.down))
            for dy in -1...1 { for dx in -1...1 {
                for q in buckets[(gy + Int64(dy)) << 32 | (gx + Int64(dx))] ?? [] where q != p {
                    closest = min(closest, ((q.0 - p.x) * (q.0 - p.x) + (q.1 - p.y) * (q.1 - p.y)).squareRoot())
                }
            } }
        }
        XCTAssertGreaterThanOrEqual(closest, radius - 1e-6, "two features \(closest) px apart at zoom \(zoom)", file: file, line: line)
    }
}

/// Answers as sorted text lines, one a feature, coordinates to 1e-7 degrees (sums kept live
/// may differ from sums added up afresh in the last bits).
enum AnswerLines {
    static func of(_ features: [ClusterFeature]) -> [String] {
        features.map { f -> String in
            switch f {
            case .party(let p): return "party \(p.id)"
            case .cluster(let c):
                return "cluster \(c.id) \(c.count) \(c.expansionZoom) \((c.coordinate.lon * 1e7).rounded()) \((c.coordinate.lat * 1e7).rounded())"
            }
        }.sorted()
    }
}

import Dispatch
import Foundation
import Geo
@testable import PartyClusters
@testable import PartyModel
import XCTest

/// Answers built from tiles: kept tiles stay current under writes, copies keep their own,
/// clusters do not depend on the view away from its edges, and shared tiles are safe to read
/// from many threads.
final class PartyTileTests: XCTestCase {
    func lines(_ features: [ClusterFeature]) -> [String] { AnswerLines.of(features) }

    func boxes(_ count: Int, seed: UInt64) -> [(BoundingBox, Int)] { RandomParties.phoneViews(count, seed: seed) }

    /// Queries keep tiles; writes in between drop the ones they touch, so every kept tile
    /// always equals its tile merged afresh, and answers equal a fresh build's.
    func testKeptTilesStayCurrentUnderWrites() {
        var rng = SplitMix64(seed: 77)
        let pool = RandomParties.make(2000, seed: 31)
        var index = PartyIndex(parties: pool.prefix(1200), radius: 60)
        var live = Dictionary(uniqueKeysWithValues: pool.prefix(1200).map { ($0.id, $0) })
        let views = boxes(60, seed: 8) + (0...PartyIndex.maxZoom).map { (RandomParties.world, $0) }
        var scratch = ClusterQueryScratch()
        for round in 0..<8 {
            for (box, zoom) in views { _ = index.clusters(in: box, zoom: zoom, scratch: &scratch) }
            XCTAssertGreaterThan(index.tileCache.entryCount, 100, "round \(round): queries should keep tiles")
            for _ in 0..<150 {
                let roll = Int.random(in: 0..<3, using: &rng)
                if roll == 0 {
                    let p = pool.randomElement(using: &rng)!
                    index.upsert(p)
                    live[p.id] = p
                } else if roll == 1, let id = live.keys.randomElement(using: &rng) {
                    index.remove(id: id)
                    live[id] = nil
                } else if var p = live.values.randomElement(using: &rng) {
                    p.origin = p.origin.offset(eastMeters: Double.random(in: -500...500, using: &rng), northMeters: Double.random(in: -500...500, using: &rng))
                    index.upsert(p)
                    live[p.id] = p
                }
            }
            XCTAssertNil(index.invariantViolation(), "round \(round)")
        }
        let fresh = PartyIndex(parties: Array(live.values), radius: 60)
        for (box, zoom) in views {
            XCTAssertEqual(lines(index.clusters(in: box, zoom: zoom, scratch: &scratch)), lines(fresh.clusters(in: box, zoom: zoom)), "zoom \(zoom) \(box)")
        }
    }

    /// A copy shares the kept tiles until it writes; then each answers for its own parties.
    func testCopiesKeepTheirOwnTiles() {
        let parties = RandomParties.make(1500, seed: 12)
        var original = PartyIndex(parties: parties, radius: 60)
        let views = boxes(40, seed: 9)
        let before = views.map { original.clusters(in: $0.0, zoom: $0.1) }
        XCTAssertGreaterThan(original.tileCache.entryCount, 20)
        var copy = original
        XCTAssertTrue(copy.tileCache === original.tileCache, "a copy shares the kept tiles")
        // Writes in the copy: a party added at every view's centre, and a few removed.
        for (k, (box, _)) in views.enumerated() {
            let c = Coordinate(lon: (box.west + box.east) / 2, lat: (box.south + box.north) / 2)
            copy.upsert(Party(id: "new\(k)", origin: c, destination: c, departAt: 1_700_000_000, seatsTotal: 3, seatsTaken: 0))
        }
        for p in parties.prefix(200) { copy.remove(id: p.id) }
        XCTAssertFalse(copy.tileCache === original.tileCache, "a copy that writes takes a cache of its own")
        for (k, (box, zoom)) in views.enumerated() {
            _ = copy.clusters(in: box, zoom: zoom)
            XCTAssertEqual(original.clusters(in: box, zoom: zoom), before[k], "zoom \(zoom): the original changed")
        }
        XCTAssertNil(original.invariantViolation())
        XCTAssertNil(copy.invariantViolation())
        let freshCopy = PartyIndex(parties: copy.allParties, radius: 60)
        for (box, zoom) in views {
            XCTAssertEqual(lines(copy.clusters(in: box, zoom: zoom)), lines(freshCopy.clusters(in: box, zoom: zoom)), "zoom \(zoom)")
        }
        // And the original still writes and answers correctly on its own.
        original.remove(id: parties[500].id)
        XCTAssertNil(original.invariantViolation())
    }

    /// A feature of a tile whose neighbouring tiles all lie inside the view is the same as in
    /// the answer for the whole world: clusters do not change as the view pans, away from its edges.
    func testClustersAwayFromTheEdgesDoNotDependOnTheView() {
        let parties = RandomParties.make(3000, seed: 21)
        let index = PartyIndex(parties: parties, radius: 60)
        var rng = SplitMix64(seed: 4)
        var compared = 0
        for zoom in [8, 10, 12, 14] {
            let world = Set(lines(index.clusters(in: RandomParties.world, zoom: zoom)))
            let down = zoom - PartyIndex.tileDepth(zoom: zoom)
            for _ in 0..<25 {
                let c = RandomParties.cities[Int.random(in: 0..<RandomParties.cities.count, using: &rng)]
                let w = WebMercator.tileSize * Double(1 << zoom)
                let n = WebMercator.normalized(Coordinate(lon: c.0 + Double.random(in: -0.05...0.05, using: &rng), lat: c.1 + Double.random(in: -0.05...0.05, using: &rng)))
                // Four tiles a side, so some tiles have all their neighbours in view.
                let half = 2.5 * 60 * Double(1 << down) / w
                let nw = WebMercator.coordinate(normalizedX: n.x - half, y: n.y - half)
                let se = WebMercator.coordinate(normalizedX: n.x + half, y: n.y + half)
                let box = BoundingBox(west: nw.lon, south: se.lat, east: se.lon, north: nw.lat)
                let range = index.cellRanges(box, zoom: zoom)[0]
                // Tiles whose 3 × 3 neighbourhood lies wholly in view.
                let inner = { (t: (x: Int, y: Int)) -> Bool in
                    ((t.x - 1) << down) >= range.xs.lowerBound && (((t.x + 2) << down) - 1) <= range.xs.upperBound
                        && ((t.y - 1) << down) >= range.ys.lowerBound && (((t.y + 2) << down) - 1) <= range.ys.upperBound
                }
                let answer = index.clusters(in: box, zoom: zoom)
                for (f, line) in zip(answer, answer.map { lines([$0])[0] }) {
                    let cells: [ClusterID.Cell]
                    switch f {
                    case .cluster(let c): cells = c.id.cells
                    case .party(let p):
                        let q = WebMercator.normalized(p.origin)
                        let cell = index.cell(x: q.x, y: q.y)
                        cells = [ClusterID.Cell(x: cell.x >> (PartyIndex.maxZoom - zoom), y: cell.y >> (PartyIndex.maxZoom - zoom))]
                    }
                    guard cells.allSatisfy({ inner(($0.x >> down, $0.y >> down)) }) else { continue }
                    XCTAssertTrue(world.contains(line), "zoom \(zoom): \(line) is not in the world's answer")
                    compared += 1
                }
            }
        }
        XCTAssertGreaterThan(compared, 200, "too few features away from the edges")
    }

    /// A bulk load forms every tile of its lowest zooms: answers there merge no tile, and
    /// equal the answers of the same index with no tile kept.
    func testABulkLoadFormsTheLowestZoomsTiles() {
        let parties = RandomParties.make(2500, seed: 41)
        let index = PartyIndex(parties: parties, radius: 60)
        let zooms = Set(index.tileCache.keptTiles.map(\.zoom))
        XCTAssertFalse(zooms.isEmpty, "a bulk load should form tiles")
        XCTAssertEqual(zooms, Set(0...(zooms.max() ?? 0)), "the lowest zooms, each whole")
        XCTAssertLessThan(zooms.count, PartyIndex.maxZoom + 1, "not every zoom: the budget stops it")
        XCTAssertNil(index.tileCacheViolation())
        var cold = index
        cold.dropKeptTiles()
        let kept = index.tileCache.entryCount
        var scratch = ClusterQueryScratch()
        for (box, zoom) in boxes(80, seed: 13) + (0...PartyIndex.maxZoom).map({ (RandomParties.world, $0) }) where zooms.contains(zoom) {
            XCTAssertEqual(lines(index.clusters(in: box, zoom: zoom, scratch: &scratch)), lines(cold.clusters(in: box, zoom: zoom)), "zoom \(zoom)")
        }
        XCTAssertEqual(index.tileCache.entryCount, kept, "answers at the formed zooms should merge no tile")
    }

    /// Past its bound the cache drops everything and goes on keeping tiles; answers stay right.
    func testTheCacheStaysWithinItsBound() {
        let parties = RandomParties.make(2500, seed: 19)
        var index = PartyIndex(parties: parties, radius: 60)
        let fresh = PartyIndex(parties: parties, radius: 60)
        index.tileCache = TileCache(maxGroups: 300)
        var most = 0
        for (box, zoom) in boxes(120, seed: 11) {
            XCTAssertEqual(index.clusters(in: box, zoom: zoom), fresh.clusters(in: box, zoom: zoom), "zoom \(zoom)")
            XCTAssertLessThanOrEqual(index.tileCache.groupCount, 300)
            most = max(most, index.tileCache.groupCount)
        }
        XCTAssertGreaterThan(most, 150, "the cache should fill up")
        XCTAssertNil(index.invariantViolation())
    }

    /// Dropping the kept tiles frees them; the next answers merge them again, the same answers.
    func testDroppingKeptTilesKeepsTheAnswers() {
        var index = PartyIndex(parties: RandomParties.make(1500, seed: 27), radius: 60)
        let views = boxes(30, seed: 12)
        let before = views.map { index.clusters(in: $0.0, zoom: $0.1) }
        XCTAssertGreaterThan(index.tileCache.entryCount, 10)
        index.dropKeptTiles()
        XCTAssertEqual(index.tileCache.entryCount, 0)
        XCTAssertEqual(index.tileCache.groupCount, 0)
        for (k, v) in views.enumerated() { XCTAssertEqual(index.clusters(in: v.0, zoom: v.1), before[k], "zoom \(v.1)") }
        XCTAssertGreaterThan(index.tileCache.entryCount, 10)
        XCTAssertNil(index.invariantViolation())
    }

    /// Copies sharing kept tiles answer from many threads at once as one thread does alone.
    func testSharedTilesAreSafeToReadFromManyThreads() {
        let index = PartyIndex(parties: RandomParties.make(2500, seed: 15), radius: 60)
        let views = boxes(80, seed: 10)
        let expected = views.map { lines(PartyIndex(parties: index.allParties, radius: 60).clusters(in: $0.0, zoom: $0.1)) }
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var lines = [Int: [String]]()
        }
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 4) { t in
            let copy = index
            var scratch = ClusterQueryScratch()
            for k in 0..<views.count {
                let i = (k + 20 * t) % views.count
                let got = AnswerLines.of(copy.clusters(in: views[i].0, zoom: views[i].1, scratch: &scratch))
                results.lock.lock()
                results.lines[t * views.count + i] = got
                results.lock.unlock()
            }
        }
        for t in 0..<4 {
            for k in 0..<views.count { XCTAssertEqual(results.lines[t * views.count + k], expected[k], "thread \(t), view \(k)") }
        }
        XCTAssertNil(index.invariantViolation())
    }
}

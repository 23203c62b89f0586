import Geo
@testable import PartyClusters
@testable import PartyModel
import XCTest

/// Inserts, deletes and moves without a rebuild give the same answers as a fresh build.
final class PartyIndexLiveTests: XCTestCase {
    func answer(_ index: PartyIndex, zoom: Int, _ box: BoundingBox = RandomParties.world, filter: PartyFilter = PartyFilter()) -> [String] {
        AnswerLines.of(index.clusters(in: box, zoom: zoom, filter: filter))
    }

    func testRandomUpdatesMatchAFreshBuild() {
        var rng = SplitMix64(seed: 99)
        let pool = RandomParties.make(1500, seed: 3)
        var live = [String: Party]()
        var index = PartyIndex(radius: 60)
        for step in 0..<6000 {
            let roll = Int.random(in: 0..<10, using: &rng)
            if roll < 5 || live.isEmpty {
                let p = pool.randomElement(using: &rng)!
                XCTAssertEqual(index.upsert(p)?.id, live[p.id]?.id)
                live[p.id] = p
            } else if roll < 8 {
                let id = live.keys.randomElement(using: &rng)!
                XCTAssertEqual(index.remove(id: id)?.id, id)
                live[id] = nil
            } else {
                // Move a party (possibly onto another party's exact spot), or change its seats only.
                let id = live.keys.randomElement(using: &rng)!
                var p = live[id]!
                if roll == 8 {
                    p.origin = pool.randomElement(using: &rng)!.origin
                } else {
                    p.seatsTaken = Int.random(in: 0...p.seatsTotal, using: &rng)
                }
                XCTAssertNotNil(index.upsert(p))
                live[id] = p
            }
            XCTAssertNil(index.remove(id: "absent"))
            if step % 500 == 0, let e = index.invariantViolation() { XCTFail("step \(step): \(e)"); return }
        }
        XCTAssertNil(index.invariantViolation())
        XCTAssertEqual(index.count, live.count)
        let fresh = PartyIndex(parties: Array(live.values), radius: 60)
        XCTAssertNil(fresh.invariantViolation())
        let filter = PartyFilter(minSeats: 2)
        for zoom in 0...PartyIndex.maxZoom {
            XCTAssertEqual(answer(index, zoom: zoom), answer(fresh, zoom: zoom), "zoom \(zoom)")
            XCTAssertEqual(answer(index, zoom: zoom, filter: filter), answer(fresh, zoom: zoom, filter: filter), "zoom \(zoom), filtered")
        }
        // Empty it completely: nothing left, nodes all freed.
        for id in live.keys { index.remove(id: id) }
        XCTAssertEqual(index.count, 0)
        XCTAssertTrue(index.clusters(in: RandomParties.world, zoom: 5).isEmpty)
        XCTAssertEqual(index.liveNodeCount, 0)
    }

    /// A bulk load with a repeated id keeps the later party, like upserts one by one.
    func testBulkLoadWithRepeatedIDs() {
        let base = RandomParties.make(400, seed: 17)
        var moved = base.prefix(50).map { p -> Party in var q = p; q.origin = q.origin.offset(eastMeters: 900, northMeters: 0); return q }
        moved[0].seatsTaken = 0
        let bulk = PartyIndex(parties: base + moved, radius: 60)
        XCTAssertNil(bulk.invariantViolation())
        XCTAssertEqual(bulk.count, 400)
        XCTAssertEqual(bulk.party(id: base[0].id), moved[0])
        var oneByOne = PartyIndex(radius: 60)
        for p in base + moved { oneByOne.upsert(p) }
        for zoom in [3, 9, 15, 20] { XCTAssertEqual(answer(bulk, zoom: zoom), answer(oneByOne, zoom: zoom), "zoom \(zoom)") }
        // It stays a sound index under later updates.
        var grown = bulk
        grown.upsert(Party(id: "new", origin: Coordinate(lon: 127, lat: 37.5), destination: Coordinate(lon: 127, lat: 37.6), departAt: 1_700_000_000, seatsTotal: 2, seatsTaken: 0))
        for p in moved.prefix(10) { grown.remove(id: p.id) }
        XCTAssertNil(grown.invariantViolation())
        XCTAssertEqual(grown.count, 391)
        XCTAssertEqual(bulk.count, 400, "a copy is independent")
    }

    /// A put shows in the next query; a delete vanishes from it.
    func testPutAndDeleteShowInTheNextQuery() {
        var index = PartyIndex(parties: RandomParties.make(500, seed: 11), radius: 60)
        let lonely = Party(id: "lonely", origin: Coordinate(lon: 124.7, lat: 33.2), destination: Coordinate(lon: 124.8, lat: 33.3),
                           departAt: 1_700_000_100, seatsTotal: 4, seatsTaken: 1)
        let box = BoundingBox(west: 124.6, south: 33.1, east: 124.8, north: 33.3)
        XCTAssertTrue(index.clusters(in: box, zoom: 12).isEmpty)
        index.upsert(lonely)
        XCTAssertEqual(index.clusters(in: box, zoom: 12), [.party(lonely)])
        var twin = lonely
        twin.id = "twin"
        index.upsert(twin)
        guard case .cluster(let c)? = index.clusters(in: box, zoom: 12).first else { return XCTFail("no cluster") }
        XCTAssertEqual(c.count, 2)
        XCTAssertEqual(c.expansionZoom, PartyIndex.maxZoom + 1)
        index.remove(id: "lonely")
        XCTAssertEqual(index.clusters(in: box, zoom: 12), [.party(twin)])
        index.remove(id: "twin")
        XCTAssertTrue(index.clusters(in: box, zoom: 12).isEmpty)
    }

    /// Cluster ids survive updates elsewhere; a cluster keeps its id while its cell stays occupied.
    func testClusterIDsAreStable() {
        let base = RandomParties.make(2000, seed: 5)
        var index = PartyIndex(parties: base, radius: 60)
        let seoul = BoundingBox(west: 126.8, south: 37.45, east: 127.15, north: 37.7)
        var singleCellClusters = 0
        for zoom in [9, 11, 13] {
            let before = index.clusters(in: seoul, zoom: zoom)
            // Unrelated updates: parties added and removed in Busan, 300 km away.
            var changed = index
            for p in RandomParties.make(200, seed: 6, idPrefix: "busan").map({ var q = $0; q.origin = Coordinate(lon: 129.0 + q.origin.lon.truncatingRemainder(dividingBy: 0.1), lat: 35.1 + q.origin.lat.truncatingRemainder(dividingBy: 0.1)); return q }) {
                changed.upsert(p)
            }
            for p in base.prefix(400) where p.origin.lat < 36 { changed.remove(id: p.id) }
            XCTAssertEqual(changed.clusters(in: seoul, zoom: zoom), before, "zoom \(zoom)")
            // A single-cell cluster gains a party at its centroid: same id, one more party.
            let singles = before.compactMap { f -> Cluster? in
                if case .cluster(let c) = f, c.id.cells.count == 1 { return c } else { return nil }
            }
            singleCellClusters += singles.count
            for c in singles.prefix(5) {
                var grown = index
                grown.upsert(Party(id: "extra", origin: c.coordinate, destination: c.coordinate, departAt: 1_700_000_000, seatsTotal: 2, seatsTaken: 0))
                let after = grown.clusters(in: seoul, zoom: zoom)
                let same = after.compactMap { f -> Cluster? in if case .cluster(let d) = f, d.id == c.id { return d } else { return nil } }
                XCTAssertEqual(same.map(\.count), [c.count + 1], "zoom \(zoom): \(c.id) lost its id")
            }
        }
        XCTAssertGreaterThan(singleCellClusters, 5, "too few single-cell clusters to check")
        index.remove(id: "p0")
    }
}

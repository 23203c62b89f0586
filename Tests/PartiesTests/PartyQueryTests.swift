import Geo
@testable import PartyClusters
@testable import PartyModel
import XCTest

/// Nearby lists and boxes smaller than the world, checked against brute force.
final class PartyQueryTests: XCTestCase {
    static let parties = RandomParties.make(3000, seed: 13)
    static let index = PartyIndex(parties: parties, radius: 60)

    func testNearbyPagesMatchBruteForce() {
        let centers = [Coordinate(lon: 126.978, lat: 37.5665), Coordinate(lon: 129.075, lat: 35.1796), Coordinate(lon: 127.6, lat: 36.9)]
        let filter = PartyFilter(minSeats: 1)
        for center in centers {
            for radius in [300.0, 2500, 20_000] {
                let expected = Self.parties.filter { filter.matches($0) && center.distance(to: $0.origin) <= radius }
                    .sorted { a, b in
                        let da = center.distance(to: a.origin), db = center.distance(to: b.origin)
                        return da != db ? da < db : (a.departAt != b.departAt ? a.departAt < b.departAt : a.id < b.id)
                    }
                var got = [String]()
                var cursor: NearbyCursor?
                var pages = 0
                repeat {
                    let page = Self.index.nearby(center, radiusMeters: radius, filter: filter, limit: 7, after: cursor)
                    XCTAssertLessThanOrEqual(page.parties.count, 7)
                    XCTAssertTrue(zip(page.parties, page.parties.dropFirst()).allSatisfy { $0.distance <= $1.distance })
                    got += page.parties.map(\.party.id)
                    // The cursor survives its text form.
                    cursor = page.next.flatMap { NearbyCursor($0.description) }
                    XCTAssertEqual(cursor, page.next)
                    pages += 1
                } while cursor != nil && pages < 1000
                XCTAssertEqual(got, expected.map(\.id), "near \(center) within \(radius) m")
            }
        }
        XCTAssertNil(NearbyCursor("zz-1-a"))
        XCTAssertTrue(Self.index.nearby(Coordinate(lon: 0, lat: 0), radiusMeters: 1000, limit: 5).parties.isEmpty)
    }

    /// In a box, every matching party inside it is counted; every feature reaches into the
    /// cells the box touches (a cluster at the edge is shown whole, as its tile formed it), so
    /// nothing lies beyond one tile of the box; features stay `radius` apart across tile borders.
    func testBoxCountsCoverTheBoxAndNoMore() {
        var rng = SplitMix64(seed: 4)
        let filters = [PartyFilter(), PartyFilter(departAfter: 1_700_030_000), PartyFilter(departBefore: 1_700_050_000, minSeats: 2)]
        for _ in 0..<60 {
            let zoom = Int.random(in: 6...17, using: &rng)
            let c = RandomParties.cities[Int.random(in: 0..<RandomParties.cities.count, using: &rng)]
            let world = WebMercator.tileSize * Double(1 << zoom)
            let w = Double.random(in: 200...1500, using: &rng), h = Double.random(in: 200...1000, using: &rng)
            let n = WebMercator.normalized(Coordinate(lon: c.0 + Double.random(in: -0.05...0.05, using: &rng), lat: c.1 + Double.random(in: -0.05...0.05, using: &rng)))
            let nw = WebMercator.coordinate(normalizedX: n.x - w / 2 / world, y: n.y - h / 2 / world)
            let se = WebMercator.coordinate(normalizedX: n.x + w / 2 / world, y: n.y + h / 2 / world)
            let box = BoundingBox(west: nw.lon, south: se.lat, east: se.lon, north: nw.lat)
            // The box grown by one tile (2^tileLevels cells of radius pixels) on every side.
            let g = 60 * Double(1 << PartyIndex.tileLevels) / world
            let a = WebMercator.coordinate(normalizedX: n.x - w / 2 / world - g, y: n.y - h / 2 / world - g)
            let b = WebMercator.coordinate(normalizedX: n.x + w / 2 / world + g, y: n.y + h / 2 / world + g)
            let grown = BoundingBox(west: a.lon, south: b.lat, east: b.lon, north: a.lat)
            for filter in filters {
                let answer = Self.index.clusters(in: box, zoom: zoom, filter: filter)
                let total = answer.reduce(0) { $0 + $1.count }
                let inside = Self.parties.filter { filter.matches($0) && box.contains($0.origin) }.count
                let near = Self.parties.filter { filter.matches($0) && grown.contains($0.origin) }.count
                XCTAssertGreaterThanOrEqual(total, inside, "zoom \(zoom): parties inside the box missing")
                XCTAssertLessThanOrEqual(total, near, "zoom \(zoom): parties from beyond the box's tiles counted")
                // Each feature has a cell the box touches.
                let down = PartyIndex.maxZoom - zoom
                let ranges = Self.index.cellRanges(box, zoom: zoom)
                for f in answer {
                    let cells: [ClusterID.Cell]
                    switch f {
                    case .cluster(let c): cells = c.id.cells
                    case .party(let p):
                        let n = WebMercator.normalized(p.origin)
                        let c = Self.index.cell(x: n.x, y: n.y)
                        cells = [ClusterID.Cell(x: c.x >> down, y: c.y >> down)]
                    }
                    XCTAssertTrue(cells.contains { c in ranges.contains { $0.xs.contains(c.x) && $0.ys.contains(c.y) } },
                                  "zoom \(zoom): \(f) has no cell in view")
                }
                Spacing.assert(answer, zoom: zoom, radius: 60)
                // Ids of lone parties and clusters are unique in an answer.
                let ids = answer.map { f -> String in
                    if case .cluster(let c) = f { return c.id.description }
                    if case .party(let p) = f { return p.id }
                    return ""
                }
                XCTAssertEqual(Set(ids).count, ids.count)
            }
        }
    }

    /// Leaves page through a cluster by departure, and filters apply to them.
    func testLeavesPaging() throws {
        guard case .cluster(let big)? = Self.index.clusters(in: RandomParties.world, zoom: 4).max(by: { $0.count < $1.count }) else {
            return XCTFail("no cluster at zoom 4")
        }
        XCTAssertGreaterThan(big.count, 100)
        var all = [Party]()
        var offset = 0
        while let page = Self.index.leaves(of: big.id, limit: 37, offset: offset), !page.parties.isEmpty {
            XCTAssertEqual(page.total, big.count)
            all += page.parties
            offset += 37
        }
        XCTAssertEqual(all.count, big.count)
        XCTAssertEqual(Set(all.map(\.id)).count, big.count)
        XCTAssertTrue(zip(all, all.dropFirst()).allSatisfy { $0.departAt <= $1.departAt })
        let filter = PartyFilter(minSeats: 3)
        let filtered = try XCTUnwrap(Self.index.leaves(of: big.id, filter: filter, limit: .max, offset: 0))
        XCTAssertEqual(filtered.total, all.filter(filter.matches).count)
        XCTAssertNil(Self.index.leaves(of: ClusterID(zoom: 4, cell: .init(x: 0, y: 0)), limit: 10, offset: 0))
        XCTAssertNil(Self.index.children(of: ClusterID(zoom: 19, cell: .init(x: 999_999_999, y: 5))))
    }
}

import Geo
@testable import PartyClusters
@testable import PartyModel
import XCTest

/// Properties of the cluster index on random data, at every zoom.
final class PartyIndexTests: XCTestCase {
    static let parties = RandomParties.make(2500, seed: 7)

    /// Pixel position of a feature at `zoom`.
    func pixel(_ c: Coordinate, _ zoom: Int) -> (x: Double, y: Double) { WebMercator.pixel(c, zoom: zoom) }

    /// Asserts no two features are closer than `radius` pixels.
    func assertSpacing(_ features: [ClusterFeature], zoom: Int, radius: Double, file: StaticString = #filePath, line: UInt = #line) {
        Spacing.assert(features, zoom: zoom, radius: radius, file: file, line: line)
    }

    /// The ids of the parties a feature stands for (its leaves when a cluster).
    func members(_ f: ClusterFeature, _ index: PartyIndex, _ filter: PartyFilter) -> [String] {
        switch f {
        case .party(let p): return [p.id]
        case .cluster(let c): return index.leaves(of: c.id, filter: filter, limit: .max, offset: 0)?.parties.map(\.id) ?? []
        }
    }

    func testEveryZoomCountsSpacingLeavesAndExpansion() {
        let index = PartyIndex(parties: Self.parties, radius: 60)
        XCTAssertEqual(index.count, Self.parties.count)
        let filters = [PartyFilter(), PartyFilter(departAfter: 1_700_020_000, departBefore: 1_700_060_000, minSeats: 1)]
        for filter in filters {
            let expected = Set(Self.parties.filter(filter.matches).map(\.id))
            XCTAssertGreaterThan(expected.count, 100)
            for zoom in 0...PartyIndex.maxZoom {
                let answer = index.clusters(in: RandomParties.world, zoom: zoom, filter: filter)
                XCTAssertEqual(answer.reduce(0) { $0 + $1.count }, expected.count, "zoom \(zoom): counts do not add up")
                assertSpacing(answer, zoom: zoom, radius: 60)
                // Every matching party is in exactly one feature, and a cluster's leaves number its count.
                var seen = [String: Int]()
                for f in answer {
                    let m = members(f, index, filter)
                    XCTAssertEqual(m.count, f.count, "zoom \(zoom): leaves of \(f) do not number its count")
                    for id in m { seen[id, default: 0] += 1 }
                }
                XCTAssertEqual(Set(seen.keys), expected, "zoom \(zoom)")
                XCTAssertTrue(seen.values.allSatisfy { $0 == 1 }, "zoom \(zoom): a party is in two features")
                if zoom == 0 { XCTAssertLessThan(answer.count, 10, "zoom 0 should show a handful of clusters") }
                if zoom == PartyIndex.maxZoom { XCTAssertGreaterThan(answer.count, expected.count / 2) }
            }
        }
    }

    /// Following children from a cluster, it stays one feature until its expansion zoom and
    /// is two or more there; the children's counts add up to the cluster's.
    func testExpansionZoomReallySplits() {
        let index = PartyIndex(parties: Self.parties, radius: 60)
        var checked = 0, neverSplit = 0
        // For each zoom, which feature of the world answer holds each party.
        var holderAt = [Int: [String: Int]]()
        func holders(_ zoom: Int) -> [String: Int] {
            if let h = holderAt[zoom] { return h }
            var h = [String: Int]()
            for (k, f) in index.clusters(in: RandomParties.world, zoom: zoom).enumerated() {
                for id in members(f, index, PartyFilter()) { h[id] = k }
            }
            holderAt[zoom] = h
            return h
        }
        for zoom in [3, 6, 9, 12, 15, 18] {
            for case .cluster(let c) in index.clusters(in: RandomParties.world, zoom: zoom) {
                XCTAssertGreaterThan(c.expansionZoom, zoom)
                var current = c
                var level = zoom
                while true {
                    guard let kids = index.children(of: current.id) else { XCTFail("no children of \(current.id)"); break }
                    XCTAssertEqual(kids.reduce(0) { $0 + $1.count }, current.count, "children of \(current.id) do not add up")
                    if level == PartyIndex.maxZoom {
                        XCTAssertEqual(c.expansionZoom, PartyIndex.maxZoom + 1)
                        // Never split: the parties sit within a few metres of each other.
                        let spots = Set(index.leaves(of: c.id, limit: .max, offset: 0)!.parties.map(\.origin))
                        let a = spots.first!
                        XCTAssertTrue(spots.allSatisfy { $0.distance(to: a) < 15 }, "\(c.id) never splits but its parties are apart")
                        neverSplit += 1
                        break
                    }
                    assertSpacing(kids, zoom: level + 1, radius: 60)
                    if level + 1 == c.expansionZoom {
                        XCTAssertGreaterThan(kids.count, 1, "\(c.id) does not split at its expansion zoom \(c.expansionZoom)")
                        break
                    }
                    XCTAssertEqual(kids.count, 1, "\(c.id) splits at \(level + 1), before its expansion zoom \(c.expansionZoom)")
                    guard kids.count == 1, case .cluster(let only) = kids[0] else { break }
                    XCTAssertEqual(only.expansionZoom, c.expansionZoom)
                    current = only
                    level += 1
                }
                // And in a real query at the expansion zoom, its parties are in more than one feature.
                if c.expansionZoom <= PartyIndex.maxZoom {
                    let h = holders(c.expansionZoom)
                    let features = Set(index.leaves(of: c.id, limit: .max, offset: 0)!.parties.map { h[$0.id] ?? -1 })
                    XCTAssertFalse(features.contains(-1))
                    XCTAssertGreaterThan(features.count, 1, "\(c.id) is still one feature at zoom \(c.expansionZoom)")
                }
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 200)
        XCTAssertGreaterThan(neverSplit, 0, "the data has co-located parties; some cluster should never split")
    }
}

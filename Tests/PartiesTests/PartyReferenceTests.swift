import Geo
@testable import PartyClusters
@testable import PartyModel
import XCTest

/// The index's answers (quadtree aggregates, kept tiles, kept expansion zooms, the merger's
/// fast paths, the border merge) against `ReferenceClusters`, the plain algorithm over a list
/// of parties: the same features in the same order, the same ids, counts, expansion zooms,
/// children and leaves. Centroids agree to 1e-9° only: the index adds positions in another
/// order and keeps running sums across writes, so their last bits may differ.
final class PartyReferenceTests: XCTestCase {
    /// The first difference between `fast` and `reference`, described; nil when they agree.
    static func difference(_ fast: [ClusterFeature], _ reference: [ClusterFeature]) -> String? {
        guard fast.count == reference.count else { return "\(fast.count) features, the reference \(reference.count)" }
        for (k, (f, r)) in zip(fast, reference).enumerated() {
            switch (f, r) {
            case (.party(let a), .party(let b)) where a == b: continue
            case (.cluster(let a), .cluster(let b)):
                if a.id == b.id && a.count == b.count && a.expansionZoom == b.expansionZoom
                    && abs(a.coordinate.lon - b.coordinate.lon) < 1e-9 && abs(a.coordinate.lat - b.coordinate.lat) < 1e-9 { continue }
                return "feature \(k): cluster \(a.id) \(a.count) z\(a.expansionZoom) \(a.coordinate), the reference \(b.id) \(b.count) z\(b.expansionZoom) \(b.coordinate)"
            default: return "feature \(k): \(f), the reference \(r)"
            }
        }
        return nil
    }

    /// Views: the world at every zoom, Korea at low zooms, phone views near the cities, and one across the antimeridian.
    static let views: [(BoundingBox, Int)] = (0...PartyIndex.maxZoom).map { (RandomParties.world, $0) }
        + (3...9).map { (BoundingBox(west: 125.5, south: 34.0, east: 130.0, north: 38.6), $0) }
        + RandomParties.phoneViews(60, seed: 77, spread: 0.05)
        + [(BoundingBox(west: 170, south: -50, east: -170, north: 60), 3)]

    static let filters = [PartyFilter(), PartyFilter(minSeats: 2), PartyFilter(departAfter: 1_700_020_000, departBefore: 1_700_060_000)]

    /// Asserts that `index` answers every view, filter, cluster's children and leaves as the
    /// reference over `parties`; returns how many clusters it compared (nil after a failure).
    @discardableResult
    func assertMatchesReference(_ index: PartyIndex, _ parties: [Party], _ label: String, file: StaticString = #filePath, line: UInt = #line) -> Int? {
        let reference = ReferenceClusters(parties: parties, radius: index.radius)
        var scratch = ClusterQueryScratch()
        var clusters = [ClusterID]()
        for filter in PartyReferenceTests.filters {
            for (box, zoom) in PartyReferenceTests.views {
                let fast = index.clusters(in: box, zoom: zoom, filter: filter, scratch: &scratch)
                if let d = PartyReferenceTests.difference(fast, reference.clusters(in: box, zoom: zoom, filter: filter)) {
                    XCTFail("\(label), zoom \(zoom) \(box) \(filter): \(d)", file: file, line: line)
                    return nil
                }
                if filter.isEmpty {
                    for case .cluster(let c) in fast where clusters.count < 400 { clusters.append(c.id) }
                }
            }
        }
        // Children and leaves of clusters seen, of single cells of parties at every zoom, and
        // of cells no party holds.
        var ids = clusters
        for (k, p) in parties.prefix(40).enumerated() {
            ids.append(ClusterID(zoom: k % 21, cell: reference.cell(p, zoom: k % 21)))
        }
        ids.append(ClusterID(zoom: 12, cell: .init(x: 0, y: 0)))
        for id in ids {
            for filter in PartyReferenceTests.filters.prefix(2) {
                let fast = index.children(of: id, filter: filter), ref = reference.children(of: id, filter: filter)
                XCTAssertEqual(fast == nil, ref == nil, "\(label): children of \(id)", file: file, line: line)
                if let fast, let ref, let d = PartyReferenceTests.difference(fast, ref) {
                    XCTFail("\(label): children of \(id) \(filter): \(d)", file: file, line: line)
                }
                let leaves = index.leaves(of: id, filter: filter, limit: 7, offset: 3)
                let refLeaves = reference.leaves(of: id, filter: filter, limit: 7, offset: 3)
                XCTAssertEqual(leaves?.total, refLeaves?.total, "\(label): leaves of \(id)", file: file, line: line)
                XCTAssertEqual(leaves?.parties.map(\.id), refLeaves?.parties.map(\.id), "\(label): leaves of \(id)", file: file, line: line)
            }
        }
        return clusters.count
    }

    func testIndexAnswersAsTheReferenceAfterABulkLoad() {
        for (radius, n, seed) in [(60.0, 1500, UInt64(3)), (40.0, 800, 4), (120.0, 800, 5)] {
            let parties = RandomParties.make(n, seed: seed)
            if let compared = assertMatchesReference(PartyIndex(parties: parties, radius: radius), parties, "radius \(radius)") {
                XCTAssertGreaterThan(compared, 100, "radius \(radius): too few clusters compared")
            }
        }
    }

    /// Inserts, deletes and moves (near, and onto another party's spot), one by one: the live
    /// index (running sums, refreshed expansion zooms, kept tiles dropped by writes) answers as
    /// the reference over the parties it holds. Queries between writes keep tiles, so stale
    /// ones would show.
    func testIndexAnswersAsTheReferenceUnderRandomWrites() {
        var rng = SplitMix64(seed: 91)
        let initial = RandomParties.make(900, seed: 31)
        let pool = RandomParties.make(900, seed: 32, idPrefix: "q")
        var index = PartyIndex(parties: initial, radius: 60)
        var live = Dictionary(uniqueKeysWithValues: initial.map { ($0.id, $0) })
        var scratch = ClusterQueryScratch()
        for step in 1...1500 {
            RandomParties.write(&index, live: &live, pool: pool, rng: &rng)
            // Keep tiles along the way (a few views), so a write that leaves one stale shows below.
            for (box, zoom) in PartyReferenceTests.views[(step % 60)..<(step % 60 + 3)] { _ = index.clusters(in: box, zoom: zoom, scratch: &scratch) }
            if step % 500 == 0 { assertMatchesReference(index, Array(live.values), "step \(step)") }
        }
    }
}

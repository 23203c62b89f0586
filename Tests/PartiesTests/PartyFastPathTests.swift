import Geo
@testable import PartyClusters
@testable import PartyModel
import XCTest

/// Unfiltered answers read expansion zooms kept in the nodes and split checks straight from
/// child nodes; the general (filtered) path searches them. Both must give the same answers,
/// after a bulk load and after any mix of inserts, deletes and moves.
final class PartyFastPathTests: XCTestCase {
    func lines(_ features: [ClusterFeature]) -> [String] { AnswerLines.of(features) }

    func assertPathsAgree(_ index: PartyIndex, boxes: [(BoundingBox, Int)], _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        var scratch = ClusterQueryScratch()
        // The merge's first round through the grid of positions instead of the table of cells.
        var gridScratch = ClusterQueryScratch()
        gridScratch.merger.allowsCellTable = false
        // Lets every party through, but is not empty: the filtered path over the same parties.
        let everyone = PartyFilter(departAfter: 0)
        var clusters = 0
        for (box, zoom) in boxes {
            let fast = index.clusters(in: box, zoom: zoom, filter: PartyFilter(), scratch: &scratch)
            let general = index.searchedClusters(in: box, zoom: zoom, scratch: &scratch)
            XCTAssertEqual(lines(fast), lines(general), "\(label): zoom \(zoom) \(box)", file: file, line: line)
            XCTAssertTrue(fast == general, "\(label): zoom \(zoom) \(box): answers differ in the last bits", file: file, line: line)
            XCTAssertTrue(fast == index.clusters(in: box, zoom: zoom, filter: PartyFilter(), scratch: &gridScratch),
                          "\(label): zoom \(zoom) \(box): the cell table and the grid merge differently", file: file, line: line)
            XCTAssertEqual(lines(fast), lines(index.clusters(in: box, zoom: zoom, filter: everyone)), "\(label): zoom \(zoom), filtered path", file: file, line: line)
            clusters += fast.filter { if case .cluster = $0 { return true } else { return false } }.count
        }
        XCTAssertGreaterThan(clusters, 50, "\(label): too few clusters to compare", file: file, line: line)
    }

    func testFastAndGeneralPathsAgreeUnderRandomUpdates() {
        var rng = SplitMix64(seed: 41)
        let initial = RandomParties.make(1200, seed: 23)
        let pool = RandomParties.make(1200, seed: 24, idPrefix: "q")
        var index = PartyIndex(parties: initial, radius: 60)
        var live = Dictionary(uniqueKeysWithValues: initial.map { ($0.id, $0) })
        // The world at every zoom, and boxes around the cities.
        let boxes = (0...PartyIndex.maxZoom).map { (RandomParties.world, $0) } + RandomParties.phoneViews(40, seed: 42, spread: 0.04)
        XCTAssertNil(index.invariantViolation())
        assertPathsAgree(index, boxes: boxes, "after the bulk load")
        for step in 1...2400 {
            RandomParties.write(&index, live: &live, pool: pool, rng: &rng)
            if step % 800 == 0 {
                XCTAssertNil(index.invariantViolation(), "step \(step)")
                assertPathsAgree(index, boxes: boxes, "step \(step)")
            }
        }
        // And the live index answers as a fresh build of the same parties.
        let fresh = PartyIndex(parties: Array(live.values), radius: 60)
        var scratch = ClusterQueryScratch()
        for (box, zoom) in boxes {
            XCTAssertEqual(lines(index.clusters(in: box, zoom: zoom, scratch: &scratch)), lines(fresh.clusters(in: box, zoom: zoom, scratch: &scratch)), "zoom \(zoom) \(box)")
        }
    }

    /// The merge's first round reads neighbours from a table of cells when every position
    /// lies in its own cell, else from a grid of positions: both must merge alike, to the bit,
    /// on dense and sparse random cells, with positions on cell borders among them.
    func testCellTableAndGridMergeAlike() {
        var rng = SplitMix64(seed: 5)
        let radius = 60.0, scale = 256.0 * 4096  // zoom 12
        var tableRuns = 0
        for round in 0..<300 {
            let side = Int.random(in: 4...24, using: &rng)
            let fill = [0.3, 0.7, 1.0][round % 3]
            var table = ClusterMerger(), grid = ClusterMerger()
            grid.allowsCellTable = false
            var key: UInt64 = 0
            for cy in 0..<side {
                for cx in 0..<side where Double.random(in: 0..<1, using: &rng) < fill {
                    let count = Int.random(in: 1...40, using: &rng)
                    // A position in the cell; now and then on its border (the table then stands down).
                    let onBorder = round % 5 == 0 && Int.random(in: 0..<20, using: &rng) == 0
                    let x = (Double(1000 + cx) + (onBorder ? 0 : Double.random(in: 0.001..<0.999, using: &rng))) * radius
                    let y = (Double(700 + cy) + Double.random(in: 0.001..<0.999, using: &rng)) * radius
                    let sx = x / scale * Double(count), sy = y / scale * Double(count)
                    key += 1
                    for m in [0, 1] {
                        if m == 0 {
                            table.add(count: count, sumX: sx, sumY: sy, key: key, cellX: Int32(1000 + cx), cellY: Int32(700 + cy))
                        } else {
                            grid.add(count: count, sumX: sx, sumY: sy, key: key, cellX: Int32(1000 + cx), cellY: Int32(700 + cy))
                        }
                    }
                }
            }
            table.merge(radius: radius, scale: scale)
            grid.merge(radius: radius, scale: scale)
            XCTAssertFalse(grid.usedCellTable)
            if table.usedCellTable { tableRuns += 1 }
            XCTAssertEqual(table.groupCount, grid.groupCount, "round \(round)")
            let a = table.withGroups { items, groups in groups.map { g in (g, items[Int(g)].count, items[Int(g)].sumX, items[Int(g)].sumY) } }
            let b = grid.withGroups { items, groups in groups.map { g in (g, items[Int(g)].count, items[Int(g)].sumX, items[Int(g)].sumY) } }
            XCTAssertEqual(a.count, b.count, "round \(round)")
            for (p, q) in zip(a, b) {
                XCTAssertTrue(p == q, "round \(round): \(p) vs \(q)")
            }
            for (g, _, _, _) in a {
                var ma = [Int](), mb = [Int]()
                table.forEachMember(of: Int(g)) { ma.append($0) }
                grid.forEachMember(of: Int(g)) { mb.append($0) }
                XCTAssertEqual(ma, mb, "round \(round): members of \(g)")
            }
        }
        XCTAssertGreaterThan(tableRuns, 150, "too few merges took the table")
    }
}

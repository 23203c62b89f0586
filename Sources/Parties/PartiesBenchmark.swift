import Geo

/// A probe into the cluster query for `taxipot-bench --clusters-stages` (where an answer's time
/// goes). Not part of the library's API: it is SPI (`@_spi(Benchmarks) import Parties`).
@_spi(Benchmarks)
public enum PartiesBenchmark {
    /// How far an unfiltered viewport answer is taken, to see where its time goes: each stage
    /// does the work of the ones before it too, so the differences of their latencies are the
    /// costs of the parts.
    public enum QueryStage: String, CaseIterable, Sendable {
        /// The tile nodes in view, gathered from the tree (see `PartyIndex+Tiles`).
        case tiles
        /// The whole answer, as `PartyIndex.clusters(in:zoom:filter:scratch:)`: tiles' groups
        /// read (merged afresh when not kept), those in view merged across tile borders.
        case answer
    }

    /// Runs the unfiltered answer for `box` at `zoom` up to `stage`; returns what that stage
    /// produced (tiles gathered, or features).
    public static func run(_ stage: QueryStage, _ index: PartyIndex, box: BoundingBox, zoom: Int,
                           scratch sc: inout ClusterQueryScratch) -> Int
    {
        if stage == .answer { return index.clusters(in: box, zoom: zoom, scratch: &sc).count }
        let z = min(max(zoom, 0), PartyIndex.maxZoom)
        let td = PartyIndex.tileDepth(zoom: z), down = z - td
        sc.tiles.removeAll(keepingCapacity: true)
        for r in index.cellRanges(box, zoom: z) {
            index.collectCells(zoom: td, xs: (r.xs.lowerBound >> down)...(r.xs.upperBound >> down),
                               ys: (r.ys.lowerBound >> down)...(r.ys.upperBound >> down), into: &sc.tiles)
        }
        return sc.tiles.count
    }
}

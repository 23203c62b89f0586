import Geo
import PartyClusters

/// A probe into the cluster query for `taxipot-bench --clusters-stages` (where an answer's time
/// goes). The bench's own code: the index's first stage is its `package` probe `gatherTiles`.
enum PartiesBenchmark {
    /// How far an unfiltered viewport answer is taken, to see where its time goes: each stage
    /// does the work of the ones before it too, so the differences of their latencies are the
    /// costs of the parts.
    enum QueryStage: String, CaseIterable, Sendable {
        /// The tile nodes in view, gathered from the tree (see `PartyIndex+Tiles`).
        case tiles
        /// The whole answer, as `PartyIndex.clusters(in:zoom:filter:scratch:)`: tiles' groups
        /// read (merged afresh when not kept), those in view merged across tile borders.
        case answer
    }

    /// Runs the unfiltered answer for `box` at `zoom` up to `stage`; returns what that stage
    /// produced (tiles gathered, or features).
    static func run(_ stage: QueryStage, _ index: PartyIndex, box: BoundingBox, zoom: Int,
                    scratch sc: inout ClusterQueryScratch) -> Int
    {
        switch stage {
        case .tiles: index.gatherTiles(in: box, zoom: zoom, scratch: &sc)
        case .answer: index.clusters(in: box, zoom: zoom, scratch: &sc).count
        }
    }
}

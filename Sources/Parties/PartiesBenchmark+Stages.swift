import Geo

extension PartiesBenchmark {
    /// How far an unfiltered viewport answer is taken, to see where its time goes: each stage
    /// does the work of the ones before it too, so the differences of their latencies are the
    /// costs of the parts.
    public enum QueryStage: String, CaseIterable, Sendable {
        /// The occupied cells in view, gathered from the tree.
        case collect
        /// Their counts and sums read, and neighbours merged (`ClusterMerger`), no features built.
        case merge
        /// The whole answer, as `PartyIndex.clusters(in:zoom:filter:scratch:)`: features built,
        /// expansion zooms read from the nodes or checked one zoom down.
        case answer
    }

    /// Runs the unfiltered answer for `box` at `zoom` up to `stage`; returns what that stage
    /// produced (cells gathered, groups left by the merge, or features).
    public static func run(_ stage: QueryStage, _ index: PartyIndex, box: BoundingBox, zoom: Int,
                           scratch sc: inout ClusterQueryScratch) -> Int
    {
        if stage == .answer { return index.clusters(in: box, zoom: zoom, scratch: &sc).count }
        let z = min(max(zoom, 0), PartyIndex.maxZoom)
        sc.refs.removeAll(keepingCapacity: true)
        for range in index.cellRanges(box, zoom: z) {
            index.collectCells(zoom: z, xs: range.xs, ys: range.ys, into: &sc.refs)
        }
        if stage == .collect { return sc.refs.count }
        // As `PartyIndex.features` does before it builds the features.
        sc.merger.reset()
        sc.merger.reserve(sc.refs.count)
        for r in sc.refs {
            let a = index.aggregate(r, filter: PartyFilter())
            sc.merger.add(count: a.count, sumX: a.sumX, sumY: a.sumY, key: r.key(zoom: z), cellX: r.x, cellY: r.y)
        }
        sc.merger.merge(radius: index.radius, scale: PartyIndex.worldPixels(zoom: z))
        return sc.merger.groupCount
    }
}

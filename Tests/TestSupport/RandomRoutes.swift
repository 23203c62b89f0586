import TaxiPot

/// Route endpoints for tests that compare searches.
public enum RandomRoutes {
    /// `count` pairs of junction positions drawn uniformly from `graph` (deterministic for a seed).
    public static func pairs(_ graph: RoadGraph, count: Int, seed: UInt64) -> [(Coordinate, Coordinate)] {
        var rng = SplitMix64(seed: seed)
        let n = UInt64(graph.nodeCount)
        return (0..<count).map { _ in
            (graph.coordinate(ofNode: Int(rng.next() % n)), graph.coordinate(ofNode: Int(rng.next() % n)))
        }
    }
}

import PartyModel

/// How a cluster answer reads the index, decided once per query (from its filter) and handed
/// down: the one switch between the fast unfiltered path and the general one.
enum ClusterReads: Sendable, Equatable {
    /// No filter: what the index keeps counts every party, so the answer reads it: tiles merged by
    /// earlier queries (`tileCache`), expansion zooms kept in the nodes (`PartyIndex+Expansion`),
    /// split checks and lone parties straight from the nodes.
    case kept
    /// A filter: every tile is merged afresh, expansion zooms are searched, lone parties are
    /// found by the filter. (Tests also take it without a filter: `searchedClusters`.)
    case searched

    /// `.kept` for an empty filter, `.searched` otherwise.
    @inline(__always)
    init(_ filter: PartyFilter) { self = filter.isEmpty ? .kept : .searched }
}

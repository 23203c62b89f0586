/// What a match offered a rider for joining a party (`GET /v1/match`'s `offer`), handed back with
/// the join: the join places the rider as the offer did, or is refused when the live party's
/// offer is no longer this one (docs/FARES.md, "the join keeps the offer").
public struct JoinOffer: Sendable, Hashable {
    /// The party's riders in the order they get off, the joining rider among them.
    public var dropOffOrder: [String]
    /// The joining rider's `by_leg` share of the party's ride with them in it, in won.
    public var pooledKrw: Int
    /// The limit the offer was found within: the growth, in percent, of the party's ride time
    /// and of each aboard rider's own arrival time.
    public var maxDetourPercent: Double

    public init(dropOffOrder: [String], pooledKrw: Int, maxDetourPercent: Double) {
        self.dropOffOrder = dropOffOrder
        self.pooledKrw = pooledKrw
        self.maxDetourPercent = maxDetourPercent
    }

    /// The limit a join without an offer is placed within (`GET /v1/match`'s default).
    public static let defaultMaxDetourPercent = 25.0
}

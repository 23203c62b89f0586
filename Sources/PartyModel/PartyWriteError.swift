import Geo

/// Why a party write (join, leave, a conditional put or delete) was refused; nothing changed.
public enum PartyWriteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No live party has that id.
    case notFound(id: String)
    /// The party has departed: riders can no longer join or leave.
    case departed(id: String, departAt: Double)
    /// Fewer seats are free than the rider asks for.
    case full(id: String, seatsLeft: Int, asked: Int)
    /// The rider is already in the party.
    case alreadyJoined(id: String, riderID: String)
    /// The rider is not in the party.
    case riderNotFound(id: String, riderID: String)
    /// The live party is not what the writer's precondition asked for (`expected`, in words;
    /// `current` nil: no live party).
    case versionMismatch(id: String, current: Int?, expected: String)
    /// A write without a rider list would leave the riders who joined without seats.
    case seatsConflict(id: String, message: String)
    /// The party's ride cannot take the rider to their drop-off (`reason` says why: off the
    /// served roads, or no road from the party's origin).
    case dropOffNotServed(id: String, riderID: String, reason: String)
    /// The party's fare was settled: it takes no more riders, loses none and cannot be replaced.
    case settled(id: String)
    /// The offer the rider accepted (`JoinOffer`) no longer holds for the live party: `offer` is
    /// the one it gives now (nil: none within the offer's limit), `reason` says what changed.
    case offerChanged(id: String, riderID: String, reason: String, offer: JoinOffer?)
    /// A join without an offer: no place for the rider's drop-off delays the ride and every
    /// rider aboard within the default limit (`reason` says which).
    case detourTooLong(id: String, riderID: String, reason: String)
    /// The party's stored row was refused at load (damaged or invalid): writes to it wait until
    /// the operator restores it (`taxipot parties recover`), since one would replace the row.
    case quarantined(id: String)

    public var description: String {
        switch self {
        case .notFound(let id): "no live party '\(id)' (never created, deleted, or expired)"
        case let .departed(id, at): "party '\(id)' departed at \(SeoulTime.format(at)): riders can no longer join or leave"
        case let .full(id, left, asked): "party '\(id)' has \(left) seat\(left == 1 ? "" : "s") left; \(asked) asked"
        case let .alreadyJoined(id, rider): "rider '\(rider)' is already in party '\(id)'"
        case let .riderNotFound(id, rider): "party '\(id)' has no rider '\(rider)'"
        case let .versionMismatch(id, current, expected):
            current.map { "party '\(id)' is at version \($0); the write asked for \(expected): read it again, then retry" }
                ?? "no live party '\(id)'; the write asked for \(expected)"
        case let .seatsConflict(id, message): "party '\(id)': \(message)"
        case let .dropOffNotServed(id, rider, reason): "party '\(id)' cannot take rider '\(rider)' to their drop-off: \(reason)"
        case let .settled(id): "party '\(id)' is settled: it takes no more riders (and its riders and values are fixed)"
        case let .offerChanged(id, rider, reason, offer):
            "party '\(id)' changed since rider '\(rider)''s offer: \(reason); " + (offer.map { "it offers now drop_off_order \($0.dropOffOrder) at \($0.pooledKrw) won (join with that offer to accept it)" } ?? "it has no offer for the rider now")
        case let .detourTooLong(id, rider, reason): "party '\(id)' cannot take rider '\(rider)': \(reason)"
        case let .quarantined(id):
            "party '\(id)' is quarantined: its stored row was refused at load (damaged on disk or edited outside taxipot), and a write "
                + "would replace it and lose what it holds; writes to it are refused until the operator restores it ('taxipot parties recover')"
        }
    }
}

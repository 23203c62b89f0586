import FareEstimation
import Routing

/// A field of an offer request (`OfferRequest`), named by value: the API turns it into its own
/// name (`window_min`).
public enum OfferField: Sendable, Hashable, CustomStringConvertible {
    case origin, destination, departure, window, walk, seats, maxDetour, limit, riderID

    /// The Swift property the field comes from (`windowMinutes`, …).
    public var description: String {
        switch self {
        case .origin: "origin"
        case .destination: "destination"
        case .departure: "departAt"
        case .window: "windowMinutes"
        case .walk: "walkMeters"
        case .seats: "seats"
        case .maxDetour: "maxDetourPercent"
        case .limit: "limit"
        case .riderID: "riderID"
        }
    }
}

/// Why an offer request (`PoolingService.offers`) or a party's quote (`PoolingService.quote(partyID:)`) was
/// refused: what went wrong and which input, as values. The API layer maps each case to an
/// HTTP status and code (`ErrorMapping` in the API module).
public enum PoolingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An offer option out of range: the field and what it must be.
    case invalid(OfferField, reason: String)
    /// No live party with this id.
    case partyNotFound(id: String)
    /// The rider's solo trip, or the party's ride, could not be routed or priced: the fare's
    /// error, whose route points are the ride's (`RoutePoint`).
    case fare(FareRequestError)

    /// A human sentence, with fields named by `name` and route points by `point`.
    public func message(naming name: (OfferField) -> String, point: (RoutePoint) -> String,
                        fareField: (RequestField) -> String) -> String
    {
        switch self {
        case .invalid(let f, let reason): "\(name(f)) \(reason)"
        case .partyNotFound(let id): "no live party '\(id)' (never created, deleted, or expired)"
        case .fare(let e): e.message(naming: fareField, point: point)
        }
    }

    /// The sentence with the Swift property names.
    public var description: String {
        switch self {
        case .fare(let e): e.description
        default: message(naming: \.description, point: \.description, fareField: \.description)
        }
    }
}

import Fares
import Geo
import Routing

/// A field of a fare, quote or table-fare request, named by value: the API and the CLI
/// each turn it into their own name (`distance_m`, `--distance-m`).
public enum RequestField: Sendable, Hashable, CustomStringConvertible {
    case distance, duration, slowTime, departure, region, taxiClass, riders, split, rounding, toll
    /// A quote's points: the origin, the destination, the drop-off list and drop-off i.
    case origin, destination, dropOffs, dropOff(Int)
    /// The riders getting off at drop-off i.
    case dropOffRiders(Int)
    /// Source i of a table whose fares are asked for, and the table itself.
    case source(Int), table

    /// The Swift property the field comes from (`distanceM`, `dropOffs[2]`, …).
    public var description: String {
        switch self {
        case .distance: "distanceM"
        case .duration: "durationS"
        case .slowTime: "slowS"
        case .departure: "departure"
        case .region: "region"
        case .taxiClass: "taxiClass"
        case .riders: "riders"
        case .split: "split"
        case .rounding: "roundingKrw"
        case .toll: "tollKrw"
        case .origin: "origin"
        case .destination: "destination"
        case .dropOffs: "dropOffs"
        case .dropOff(let i): "dropOffs[\(i)]"
        case .dropOffRiders(let i): "dropOffs[\(i)].riders"
        case .source(let i): "sources[\(i)]"
        case .table: "table"
        }
    }

    /// The request field of a quote's route point: the route's first point is the origin, its
    /// via points the drop-offs and its last point the destination; a table's source is itself.
    public init?(quotePoint p: RoutePoint) {
        switch p {
        case .origin: self = .origin
        case .via(let i): self = .dropOff(i)
        case .destination: self = .destination
        case .source(let i): self = .source(i)
        case .tableDestination: return nil
        }
    }
}

/// Why a fare, quote, table-fare or party pricing request was refused: what went wrong and
/// which input, as values. The API layer maps each case to an HTTP status and code
/// (`ErrorMapping` in the API module); the CLI names the option. A match's own errors (its
/// options, a party that is not there) are Pooling's `PoolingError`, which carries this one
/// for the fare of the rider's trip or the party's ride.
public enum FareRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A value out of range: the field and what it must be ("must be …, got …").
    case invalid(RequestField, reason: String)
    /// Values that each lie in range but do not go together (slow time over the duration,
    /// riders not exceeding those getting off at drop-offs): the field and why.
    case conflicting(RequestField, reason: String)
    /// The schedule lookup failed: unknown region or taxi class, or a departure before every
    /// known schedule.
    case schedule(FareLookupError)
    /// The point (the origin, or a table's source) is in no known fare region.
    case outsideFareRegions(RequestField, Coordinate)
    /// The region of the point has no fare schedule.
    case noScheduleForRegion(RequestField, region: String, regionsWithSchedules: [String])
    /// A straight-line estimate was asked for (or needed) beyond what an estimate covers: a
    /// point outside the estimate area (`field` that point), or a trip longer than the limit
    /// (`field` nil); `reason` says which and where the range ends.
    case outsideEstimateRange(RequestField?, reason: String)
    /// The meter refused the trip as given.
    case invalidTrip(FareMeterError)
    /// The split policy cannot split this fare.
    case invalidSplit(FareSplitError)
    /// The route failed; its points are the route request's (`RoutePoint`), which a quote
    /// names as `RequestField(quotePoint:)` says.
    case route(RoutingError)
    /// A failure of the engine itself (a bug): what failed.
    case internalFailure(String)

    /// The field at fault, when one is.
    public var field: RequestField? {
        switch self {
        case .invalid(let f, _), .conflicting(let f, _), .outsideFareRegions(let f, _), .noScheduleForRegion(let f, _, _): f
        case .outsideEstimateRange(let f, _): f
        case .schedule(.unknownRegion): .region
        case .schedule(.unknownTaxiClass): .taxiClass
        case .schedule(.beforeOldestSchedule): .departure
        case .invalidSplit: .split
        case .route(let e):
            switch e {
            case .invalidCoordinate(let p), .outsideCoverage(let p, _, _, _, _): RequestField(quotePoint: p)
            default: nil
            }
        case .invalidTrip, .internalFailure: nil
        }
    }

    /// A human sentence, with fields named by `name` and route points by `point`.
    public func message(naming name: (RequestField) -> String, point: (RoutePoint) -> String) -> String {
        switch self {
        case .invalid(let f, let reason), .conflicting(let f, let reason): "\(name(f)) \(reason)"
        case .schedule(let e): e.description
        case let .outsideFareRegions(f, c):
            f == .origin ? "the origin (\(c)) is in no known fare region" : "\(name(f)) (\(c)) is in no known fare region"
        case let .noScheduleForRegion(f, region, allowed):
            f == .origin
                ? "no fare schedule for the origin's region '\(region)'; regions with schedules: \(allowed.joined(separator: ", "))"
                : "no fare schedule for the region '\(region)' of \(name(f))"
        case .outsideEstimateRange(let f, let reason): f.map { "\(name($0)) \(reason)" } ?? reason
        case .invalidTrip(let e): e.message
        case .invalidSplit(let e): e.message
        case .route(let e): e.message(naming: point)
        case .internalFailure(let what): what
        }
    }

    /// The sentence with the Swift property names (`distanceM`, and a quote's points as
    /// `origin`, `dropOffs[i]`, `destination`).
    public var description: String {
        message(naming: \.description, point: { RequestField(quotePoint: $0)?.description ?? $0.description })
    }
}

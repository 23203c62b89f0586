import Geo

/// One end of a trip as a row gives it: a coordinate, or place text to geocode.
public enum TripEndpoint: Sendable, Equatable {
    case coordinate(Coordinate)
    case place(String)
}

/// The parsed fields of one input row: what to estimate.
public struct TripRequest: Sendable, Equatable {
    public var origin: TripEndpoint
    public var destination: TripEndpoint
    /// Departure instant, Unix seconds.
    public var departAt: Double
    /// Riders sharing the taxi, 1–10.
    public var riders: Int
    /// The taxi class as written (`mid` when the row leaves it empty).
    public var taxiClass: String
    /// The split policy as written (`equal` when the row leaves it empty).
    public var split: String
    /// The row's physical line in the input (for messages).
    public var line: Int

    public init(origin: TripEndpoint, destination: TripEndpoint, departAt: Double, riders: Int = 1,
                taxiClass: String = "mid", split: String = "equal", line: Int = 0)
    {
        self.origin = origin
        self.destination = destination
        self.departAt = departAt
        self.riders = riders
        self.taxiClass = taxiClass
        self.split = split
        self.line = line
    }
}

/// The result columns of one row.
public struct TripFare: Sendable, Equatable {
    /// Route length in metres.
    public var distanceMeters: Double
    /// Expected travel time in seconds.
    public var durationSeconds: Double
    /// Total metered fare, won.
    public var fareKRW: Int
    /// What each rider pays (the largest share when shares differ by rounding), won.
    public var perPersonKRW: Int
    /// The part of the fare due to night surcharges, won.
    public var nightKRW: Int
    /// The identifier of the fare schedule applied.
    public var schedule: String
    /// True when the trip could not be routed and the figures are a straight-line estimate
    /// (`taxipot batch --estimate`); then the fare range below is set.
    public var estimated: Bool
    public var fareLowKRW: Int?
    public var fareHighKRW: Int?
    /// The places the row's place text was taken to be (nil for a trip end given as coordinates).
    public var originPlace: GeocodedPlace?
    public var destinationPlace: GeocodedPlace?

    public init(distanceMeters: Double, durationSeconds: Double, fareKRW: Int, perPersonKRW: Int,
                nightKRW: Int, schedule: String, estimated: Bool = false, fareLowKRW: Int? = nil, fareHighKRW: Int? = nil,
                originPlace: GeocodedPlace? = nil, destinationPlace: GeocodedPlace? = nil)
    {
        self.originPlace = originPlace
        self.destinationPlace = destinationPlace
        self.estimated = estimated
        self.fareLowKRW = fareLowKRW
        self.fareHighKRW = fareHighKRW
        self.distanceMeters = distanceMeters
        self.durationSeconds = durationSeconds
        self.fareKRW = fareKRW
        self.perPersonKRW = perPersonKRW
        self.nightKRW = nightKRW
        self.schedule = schedule
    }

    /// The values for the columns `distance_m, duration_s, fare_krw, per_person_krw, night_krw, schedule`.
    public var columns: [String] {
        [String(Int(distanceMeters.rounded())), String(Int(durationSeconds.rounded())),
         String(fareKRW), String(perPersonKRW), String(nightKRW), schedule]
    }

    /// The values of the place columns (`--place-columns`) for the ends that have a place column.
    public func placeColumns(origin: Bool, destination: Bool) -> [String] {
        (origin ? GeocodedPlace.columns(originPlace) : []) + (destination ? GeocodedPlace.columns(destinationPlace) : [])
    }

    /// The values for the columns `estimated, fare_low_krw, fare_high_krw` (`--estimate`):
    /// `true` and the range for an estimate, `false` and empty for a routed trip.
    public var estimateColumns: [String] {
        [estimated ? "true" : "false", fareLowKRW.map(String.init) ?? "", fareHighKRW.map(String.init) ?? ""]
    }
}

/// The place a row's text was geocoded to, written out so that an analyst can check it.
public struct GeocodedPlace: Sendable, Equatable {
    public var name: String
    public var coordinate: Coordinate

    public init(name: String, coordinate: Coordinate) {
        self.name = name
        self.coordinate = coordinate
    }

    /// `name, lon, lat` (empty when nil: the end was given as coordinates).
    static func columns(_ p: GeocodedPlace?) -> [String] {
        guard let p else { return ["", "", ""] }
        return [p.name, String(p.coordinate.lon), String(p.coordinate.lat)]
    }
}

/// The kinds of row failure; each has its own code in the `error` column.
public enum RowErrorCode: String, Sendable, CaseIterable, Comparable {
    /// A required field is empty.
    case emptyField = "empty_field"
    /// A coordinate field is not a number.
    case notANumber = "not_a_number"
    /// A coordinate is outside ±90 latitude or ±180 longitude.
    case outOfRange = "out_of_range"
    /// `depart_at` is not an ISO 8601 date-time.
    case badDate = "bad_date"
    /// `riders` is not a whole number from 1 to 10.
    case badRiders = "bad_riders"
    /// `taxi_class` names no known class.
    case unknownTaxiClass = "unknown_taxi_class"
    /// `split` names no known policy.
    case unknownSplit = "unknown_split"
    /// Place text that geocoding does not find.
    case unknownPlace = "unknown_place"
    /// A point with no road within the snapping distance.
    case noRoadNearby = "no_road_nearby"
    /// No route joins the two points.
    case noRoute = "no_route"
    /// A point outside the served road network (no road near it, or in an area no road joins
    /// to the other point's); `--estimate` prices such rows instead.
    case outsideCoverage = "outside_coverage"
    /// `--estimate` was asked for a row beyond an estimate's range: a point outside South Korea,
    /// or an estimated route over 1,000 km.
    case outsideEstimateRange = "outside_estimate_range"
    /// No fare schedule covers the departure (its date, or the region's taxi class).
    case noSchedule = "no_schedule"
    /// The origin lies in no fare region.
    case outsideFareRegions = "outside_fare_regions"
    /// The row has a different number of fields than the header.
    case badFieldCount = "bad_field_count"
    /// The row holds bytes that are not text in the input encoding.
    case badEncoding = "bad_encoding"
    /// The record is longer than the reader's limit (1 MiB by default); its fields were not read.
    case recordTooLong = "record_too_long"
    /// The estimate failed for another reason (the message says which).
    case estimateFailed = "estimate_failed"

    public static func < (a: RowErrorCode, b: RowErrorCode) -> Bool { a.rawValue < b.rawValue }
}

/// Why one row has no estimate: written as `code: message` in the `error` column.
public struct RowError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: RowErrorCode
    public var message: String

    public init(_ code: RowErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}

/// Estimates one trip: route, fare and split. The batch runner calls it from several
/// worker threads at once, so implementations must be safe to share.
public protocol TripEstimator: Sendable {
    /// The estimate for `trip`, or the row's error.
    func estimate(_ trip: TripRequest) -> Result<TripFare, RowError>
}

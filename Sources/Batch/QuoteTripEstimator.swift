import Quoting
import FareEstimation
import Fares
import Geo
import Places
import Routing

/// The batch estimator of the product: place text geocoded by the places engine, then a quote
/// (route + fare + split) by `RideQuoter`, exactly as `POST /v1/quote` prices the same trip.
public struct QuoteTripEstimator: TripEstimator {
    public let quotes: RideQuoter
    /// Resolves `origin`/`destination` text; nil when the batch has only coordinates.
    public let geocoder: PlaceGeocoder?
    /// Rows with a point outside the served roads get a labelled straight-line estimate
    /// (`--estimate`) instead of the `outside_coverage` error.
    public let allowEstimate: Bool

    public init(quotes: RideQuoter, geocoder: PlaceGeocoder?, allowEstimate: Bool = false) {
        self.quotes = quotes
        self.geocoder = geocoder
        self.allowEstimate = allowEstimate
    }

    /// The estimator over a loaded dataset; place text resolves towards the road network's centre.
    public init(dataset: Dataset, allowEstimate: Bool = false) {
        let box = dataset.graph.boundingBox
        let centre = Coordinate(lon: (box.west + box.east) / 2, lat: (box.south + box.north) / 2)
        self.init(quotes: dataset.quotes, geocoder: PlaceGeocoder(index: dataset.places, bias: centre), allowEstimate: allowEstimate)
    }

    public func estimate(_ trip: TripRequest) -> Result<TripFare, RowError> {
        guard let split = SplitPolicy(rawValue: trip.split) else {
            let allowed = SplitPolicy.allCases.map(\.rawValue).joined(separator: ", ")
            return .failure(RowError(.unknownSplit, "split '\(RowParser.excerpt(trip.split))' is not one of \(allowed)"))
        }
        let origin: Coordinate, destination: Coordinate
        var originPlace: GeocodedPlace?, destinationPlace: GeocodedPlace?
        switch locate(trip.origin, column: "origin") {
        case .success(let c): (origin, originPlace) = c
        case .failure(let e): return .failure(e)
        }
        switch locate(trip.destination, column: "destination") {
        case .success(let c): (destination, destinationPlace) = c
        case .failure(let e): return .failure(e)
        }
        let request = QuoteRequest(origin: origin, destination: destination, riders: trip.riders, departure: trip.departAt,
                                   taxiClass: trip.taxiClass, split: split, allowEstimate: allowEstimate)
        do {
            let q = try quotes.quote(request)
            return .success(TripFare(distanceMeters: q.route.distanceMeters, durationSeconds: q.route.durationSeconds,
                                         fareKRW: q.fare.totalKrw, perPersonKRW: q.perPersonKrw, nightKRW: q.fare.nightKrw,
                                         schedule: q.schedule.id, estimated: q.estimate != nil,
                                         fareLowKRW: q.estimate?.fareLowKrw, fareHighKRW: q.estimate?.fareHighKrw,
                                         originPlace: originPlace, destinationPlace: destinationPlace))
        } catch {
            return .failure(Self.rowError(error))
        }
    }

    private func locate(_ end: TripEndpoint, column: String) -> Result<(Coordinate, GeocodedPlace?), RowError> {
        switch end {
        case .coordinate(let c):
            return .success((c, nil))
        case .place(let text):
            guard let geocoder else {
                return .failure(RowError(.unknownPlace, "\(column) '\(RowParser.excerpt(text))' is place text, and no place index is loaded"))
            }
            return geocoder.locate(text, column: column).map { ($0.coordinate, GeocodedPlace(name: $0.name, coordinate: $0.coordinate)) }
        }
    }

    /// The row error for a quote failure: the engine's message (fields named as the batch's
    /// columns and the JSON fields are) under the batch's code for its case.
    static func rowError(_ e: FareRequestError) -> RowError {
        let code: RowErrorCode
        switch e {
        case .route(.noRoute): code = .noRoute
        case .route(.outsideCoverage): code = .outsideCoverage
        case .schedule(.unknownTaxiClass): code = .unknownTaxiClass
        case .schedule(.beforeOldestSchedule), .noScheduleForRegion: code = .noSchedule
        case .outsideFareRegions, .schedule(.unknownRegion): code = .outsideFareRegions
        case .outsideEstimateRange: code = .outsideEstimateRange
        case .invalidSplit: code = .unknownSplit
        case .invalid(.riders, _), .conflicting(.riders, _): code = .badRiders
        case .invalid(.departure, _): code = .badDate
        case .invalid(.origin, _), .invalid(.destination, _): code = .outOfRange
        default: code = .estimateFailed
        }
        return RowError(code, e.message(naming: columnName, point: { RequestField(quotePoint: $0).map(columnName) ?? $0.description }))
    }

    /// A request field by the name a batch row's message gives it (the column, else the JSON field).
    static func columnName(_ f: RequestField) -> String {
        switch f {
        case .departure: "depart_at"
        case .taxiClass: "taxi_class"
        case .rounding: "rounding"
        case .toll: "toll_krw"
        case .dropOffs: "drop_offs"
        case .dropOff(let i): "drop_offs[\(i)]"
        default: f.description
        }
    }
}

import TaxiPot

extension FareRequestError {
    /// The case of a request error, by name (a schedule lookup or a route failure by its inner case).
    public var caseName: String {
        switch self {
        case .invalid: "invalid"
        case .conflicting: "conflicting"
        case .schedule(.unknownRegion): "unknownRegion"
        case .schedule(.unknownTaxiClass): "unknownTaxiClass"
        case .schedule(.beforeOldestSchedule): "beforeOldestSchedule"
        case .outsideFareRegions: "outsideFareRegions"
        case .noScheduleForRegion: "noScheduleForRegion"
        case .outsideEstimateRange: "outsideEstimateRange"
        case .invalidTrip: "invalidTrip"
        case .invalidSplit: "invalidSplit"
        case .route(.outsideCoverage): "outsideCoverage"
        case .route(.noRoute): "noRoute"
        case .route: "route"
        case .internalFailure: "internalFailure"
        }
    }
}

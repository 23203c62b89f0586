import Fares
import Foundation
import Geo
import Routing

/// A fare estimate for a trip whose distance the caller brings (no routing).
public struct FareRequest: Sendable {
    public var distanceM: Double
    /// The trip's duration; nil: from the traffic profile.
    public var durationS: Double?
    /// Seconds below the meter's speed threshold; nil: from the traffic profile.
    public var slowS: Double?
    /// The departure instant (Unix seconds).
    public var departure: Double
    public var region: String
    public var taxiClass: String
    /// Persons sharing the taxi (1–10), all going to the same destination.
    public var riders: Int
    public var split: SplitPolicy
    /// The unit shares are rounded to: 10 or 100 won.
    public var roundingKrw: Int
    public var tollKrw: Int

    public init(distanceM: Double, durationS: Double? = nil, slowS: Double? = nil, departure: Double,
                region: String = FareRequest.defaultRegion, taxiClass: String = FareRequest.defaultTaxiClass,
                riders: Int = 1, split: SplitPolicy = .equal, roundingKrw: Int = 10, tollKrw: Int = 0)
    {
        self.distanceM = distanceM
        self.durationS = durationS
        self.slowS = slowS
        self.departure = departure
        self.region = region
        self.taxiClass = taxiClass
        self.riders = riders
        self.split = split
        self.roundingKrw = roundingKrw
        self.tollKrw = tollKrw
    }

    public static let defaultRegion = "seoul"
    public static let defaultTaxiClass = "mid"
    /// Limits of a request: distance (m), duration (s), riders, share rounding units, toll (won).
    public static let maxDistanceM = 1_000_000.0
    public static let maxDurationS = 172_800.0
    public static let riderRange = 1...10
    public static let roundingUnits = [10, 100]
    public static let maxTollKrw = 1_000_000
}

/// A priced trip: its timing, the meter's breakdown and the split.
public struct MeteredFare: Sendable {
    public var distanceM: Double
    public var durationS: Double
    public var slowS: Double
    public var departure: Double
    /// `profile` when duration and slow time came from the traffic profile, `given` when from
    /// the request, `mixed` when one of them did.
    public var timing: String
    public var schedule: FareSchedule
    public var fare: FareBreakdown
    /// One share per person (rider 0 is the host).
    public var split: [Int]
    public var perPersonKrw: Int
}

/// Fares without routing: the schedule book and the traffic profile.
public struct FareEstimator: Sendable {
    public let book: FareScheduleBook
    public let profile: TrafficProfile

    public init(book: FareScheduleBook, profile: TrafficProfile) {
        self.book = book
        self.profile = profile
    }

    /// Prices a trip: validates the request, picks the schedule, builds the trip (from the
    /// profile where the request gives no timing), runs the meter and splits the total.
    public func estimate(_ r: FareRequest) throws(FareRequestError) -> MeteredFare {
        try Self.validateCommon(distanceM: r.distanceM, departure: r.departure, riders: r.riders,
                                roundingKrw: r.roundingKrw, tollKrw: r.tollKrw)
        if let d = r.durationS, !(d.isFinite && d >= 0 && d <= FareRequest.maxDurationS) {
            throw .invalid(.duration, reason: "must be a number of seconds from 0 to \(Int(FareRequest.maxDurationS)), got \(d)")
        }
        if let s = r.slowS, !(s.isFinite && s >= 0) { throw .invalid(.slowTime, reason: "must be a number of seconds ≥ 0, got \(s)") }
        if let s = r.slowS, let d = r.durationS, s > d {
            throw .conflicting(.slowTime, reason: "must not exceed duration_s (\(s) > \(d))")
        }
        let meter = try rideMeter(region: r.region, taxiClass: r.taxiClass, departure: r.departure)

        let segments: [TripSegment]
        let timing: String
        switch (r.durationS, r.slowS) {
        case let (d?, s?):
            segments = ProfileTrip.segments(distanceM: r.distanceM, durationS: d, slowS: s)
            timing = "given"
        case let (d?, nil):
            segments = ProfileTrip.segments(distanceM: r.distanceM, durationS: d, departure: r.departure, profile: profile)
            timing = "mixed"
        case let (nil, s?):
            guard let trip = ProfileTrip.segments(distanceM: r.distanceM, slowS: s, departure: r.departure, profile: profile) else {
                let d = ProfileTrip.segments(distanceM: r.distanceM, departure: r.departure, profile: profile).reduce(0) { $0 + $1.durationS }
                throw .conflicting(.slowTime, reason: "exceeds the trip's duration from the traffic profile (\(Int(d.rounded())) s); give duration_s too")
            }
            segments = trip
            timing = "mixed"
        case (nil, nil):
            segments = ProfileTrip.segments(distanceM: r.distanceM, departure: r.departure, profile: profile)
            timing = "profile"
        }
        let fare = try meter.run(.trip(segments), departure: r.departure, tollKrw: r.tollKrw).fare
        let riders = [SplitRider](repeating: SplitRider(count: 1, lastLeg: 0, soloFareKrw: fare.totalKrw), count: r.riders)
        let shares = try Self.split(fare: fare, riders: riders, policy: r.split, roundingKrw: r.roundingKrw)
        return MeteredFare(
            distanceM: r.distanceM, durationS: segments.reduce(0) { $0 + $1.durationS },
            slowS: segments.reduce(0) { $0 + $1.slowS }, departure: r.departure, timing: timing, schedule: meter.schedule,
            fare: fare, split: shares, perPersonKrw: FareSplit.perPerson(totalKrw: fare.totalKrw, persons: r.riders, roundingKrw: r.roundingKrw))
    }

    /// Checks the parts every fare and quote request shares.
    public static func validateCommon(distanceM: Double, departure: Double, riders: Int, roundingKrw: Int, tollKrw: Int) throws(FareRequestError) {
        guard distanceM.isFinite, distanceM >= 0, distanceM <= FareRequest.maxDistanceM else {
            throw .invalid(.distance, reason: "must be a number of metres from 0 to \(Int(FareRequest.maxDistanceM)) (1,000 km), got \(distanceM)")
        }
        guard departure.isFinite else { throw .invalid(.departure, reason: "must be an ISO 8601 date-time") }
        guard FareRequest.riderRange.contains(riders) else {
            throw .invalid(.riders, reason: "must be a whole number from \(FareRequest.riderRange.lowerBound) to \(FareRequest.riderRange.upperBound), got \(riders)")
        }
        guard FareRequest.roundingUnits.contains(roundingKrw) else {
            throw .invalid(.rounding, reason: "must be one of \(FareRequest.roundingUnits.map(String.init).joined(separator: ", ")), got \(roundingKrw)")
        }
        guard tollKrw >= 0, tollKrw <= FareRequest.maxTollKrw else {
            throw .invalid(.toll, reason: "must be a whole number of won from 0 to \(FareRequest.maxTollKrw), got \(tollKrw)")
        }
    }

    /// Splits a metered fare, mapping split failures to request errors.
    public static func split(fare: FareBreakdown, riders: [SplitRider], policy: SplitPolicy, roundingKrw: Int) throws(FareRequestError) -> [Int] {
        do {
            return try FareSplit.split(totalKrw: fare.totalKrw, riders: riders, policy: policy, roundingKrw: roundingKrw, legKrw: fare.legKrw)
        } catch {
            throw .invalidSplit(error)
        }
    }

    /// Loads `DIR/fares/` and `DIR/traffic/profile.csv` of a dataset folder.
    public static func load(dataDir: String) throws -> FareEstimator {
        let book = try FareScheduleBook.load(directory: (dataDir as NSString).appendingPathComponent("fares"))
        let profile = try TrafficProfile.load(path: (dataDir as NSString).appendingPathComponent("traffic/profile.csv"))
        return FareEstimator(book: book, profile: profile)
    }
}

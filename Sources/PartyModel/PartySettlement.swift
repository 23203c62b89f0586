import Geo

/// How a party was settled (issue 38): the idempotency key of the settlement and what was
/// settled, kept with the party in its store so every replica answers a repeated settlement
/// the same way and sees the party closed.
public struct PartySettlement: Sendable, Hashable {
    /// What was settled.
    public enum Record: Sendable, Hashable {
        /// The settled ride as values (`Pooling.PartySettler` makes it; the API writes the answer from it).
        case ride(SettledRide)
        /// The answer text an earlier build stored in the party's row (or in a record file of
        /// `SettlementRecords`): given again as it was, byte for byte.
        case earlierAnswer(String)
    }

    /// The key the settlement was made under (the client's idempotency key, or one made from
    /// its trace): 1–`maxKeyLength` code points, or a `trace:` key (a digest of the trace; an
    /// earlier build's held the whole trace).
    public var key: String
    /// What was settled, given again to a settlement with the same key. Nil in the copy the
    /// service's listing holds in memory (`PartyService.kept(id:)` reads it from the store).
    public var record: Record?

    public init(key: String, record: Record?) {
        self.key = key
        self.record = record
    }

    /// Longest client key accepted, in code points.
    public static let maxKeyLength = 200

    /// Checks that the key is not empty and the record is there (an earlier answer not empty).
    public func validate() throws(PartyValidationError) {
        guard !key.isEmpty else { throw PartyValidationError(field: "settlement.key", message: "must not be empty") }
        switch record {
        case nil, .earlierAnswer(""): throw PartyValidationError(field: "settlement.answer", message: "must not be empty")
        default: break
        }
    }
}

/// A party's ride as settled from its GPS trace (docs/FARES.md, "Settling a ride from its
/// trace"): what the request read, what was driven, the fare metered along it, each rider's
/// share and the matched route. Plain values, so the party store keeps them without knowing
/// fares or map matching; `Pooling` makes it from a `Settlement`.
public struct SettledRide: Sendable, Hashable {
    /// What the settlement read.
    public struct Reading: Sendable, Hashable {
        public var fixCount: Int
        /// The first and last fixes' times (nil for a trace without times).
        public var firstTime: Double?
        public var lastTime: Double?
        /// The request's members, in its order, and where its idempotency key came from
        /// (the API's words: body, header or trace).
        public var members: [String]
        public var keyFrom: String
        /// The lone glitches tolerated (fix indices).
        public var outlierFixes: [Int]

        public init(fixCount: Int, firstTime: Double?, lastTime: Double?, members: [String], keyFrom: String, outlierFixes: [Int]) {
            (self.fixCount, self.firstTime, self.lastTime) = (fixCount, firstTime, lastTime)
            (self.members, self.keyFrom, self.outlierFixes) = (members, keyFrom, outlierFixes)
        }
    }

    /// The metered fare's parts, in won, and each leg's meter increment.
    public struct Fare: Sendable, Hashable {
        public var scheduleID: String
        public var totalKrw, baseKrw, distanceKrw, timeKrw, nightKrw, outOfCityKrw, roundingKrw: Int
        public var legKrw: [Int]

        public init(scheduleID: String, totalKrw: Int, baseKrw: Int, distanceKrw: Int, timeKrw: Int, nightKrw: Int,
                    outOfCityKrw: Int, roundingKrw: Int, legKrw: [Int]) {
            (self.scheduleID, self.totalKrw, self.baseKrw, self.distanceKrw) = (scheduleID, totalKrw, baseKrw, distanceKrw)
            (self.timeKrw, self.nightKrw, self.outOfCityKrw, self.roundingKrw, self.legKrw) = (timeKrw, nightKrw, outOfCityKrw, roundingKrw, legKrw)
        }
    }

    /// A rider's drop-off (the stop in riding order, the trace fix, where) and shares.
    public struct Rider: Sendable, Hashable {
        public var id: String
        public var seats, stop, fix: Int
        public var dropOff: Coordinate
        public var meteredKrw, settledKrw: Int

        public init(id: String, seats: Int, stop: Int, fix: Int, dropOff: Coordinate, meteredKrw: Int, settledKrw: Int) {
            (self.id, self.seats, self.stop, self.fix, self.dropOff) = (id, seats, stop, fix, dropOff)
            (self.meteredKrw, self.settledKrw) = (meteredKrw, settledKrw)
        }
    }

    /// One matched stretch of the route: its size, the fixes it matched, its geometry and legs.
    public struct Matching: Sendable, Hashable {
        public struct Leg: Sendable, Hashable {
            public var distanceMeters, durationSeconds: Double
            public init(distanceMeters: Double, durationSeconds: Double) { (self.distanceMeters, self.durationSeconds) = (distanceMeters, durationSeconds) }
        }

        public var distanceMeters, durationSeconds, confidence: Double
        public var fixes: [Int]
        public var geometry: [Coordinate]
        public var legs: [Leg]

        public init(distanceMeters: Double, durationSeconds: Double, confidence: Double, fixes: [Int], geometry: [Coordinate], legs: [Leg]) {
            (self.distanceMeters, self.durationSeconds, self.confidence) = (distanceMeters, durationSeconds, confidence)
            (self.fixes, self.geometry, self.legs) = (fixes, geometry, legs)
        }
    }

    /// Where a fix was matched (its matching, and its waypoint when it is one), or why not.
    public enum Tracepoint: Sendable, Hashable {
        case matched(location: Coordinate, distanceMeters: Double, matching: Int, waypoint: Int?)
        case unmatched(reason: String)
    }

    public var reading: Reading
    /// Metres and seconds driven up to the last drop-off.
    public var distanceMeters, durationSeconds: Double
    public var region: String
    /// The split policy's name.
    public var split: String
    public var fare: Fare
    public var riders: [Rider]
    /// The meter's total as given, and it less the metered fare (nil without one).
    public var meterTotalKrw, differenceKrw: Int?
    public var matchings: [Matching]
    public var tracepoints: [Tracepoint]

    public init(reading: Reading, distanceMeters: Double, durationSeconds: Double, region: String, split: String, fare: Fare,
                riders: [Rider], meterTotalKrw: Int?, differenceKrw: Int?, matchings: [Matching], tracepoints: [Tracepoint]) {
        (self.reading, self.distanceMeters, self.durationSeconds, self.region, self.split) = (reading, distanceMeters, durationSeconds, region, split)
        (self.fare, self.riders, self.meterTotalKrw, self.differenceKrw) = (fare, riders, meterTotalKrw, differenceKrw)
        (self.matchings, self.tracepoints) = (matchings, tracepoints)
    }
}

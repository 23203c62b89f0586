import Geo

/// One GPS fix of a trace: where, when (Unix seconds, optional) and how precise (metres, optional).
public struct TraceFix: Sendable, Equatable {
    public var coordinate: Coordinate
    /// Unix seconds; nil when the trace carries no times (then every fix must lack one).
    public var time: Double?
    /// The fix's accuracy (one standard deviation, metres); nil: the options' default.
    public var accuracyMeters: Double?

    public init(_ coordinate: Coordinate, time: Double? = nil, accuracyMeters: Double? = nil) {
        self.coordinate = coordinate
        self.time = time
        self.accuracyMeters = accuracyMeters
    }
}

/// The knobs of the hidden Markov model (Newson & Krumm 2009) and of the trace's checks.
public struct MatchOptions: Sendable {
    /// σ of the GPS noise when a fix gives no accuracy, metres (emission: Gaussian in the
    /// distance from the fix to the road).
    public var defaultAccuracyMeters: Double = 10
    /// β of the transition's exponential in |route length − great-circle length|, metres.
    public var betaMeters: Double = 20
    /// … at least this many times the fixes' σ (the straight line between two noisy fixes is off by about σ√2).
    public var betaPerSigma: Double = 2
    /// Road pieces considered per fix: those within `searchSigmas`·σ (at least
    /// `minSearchMeters`, at most `maxSearchMeters`), the `maxCandidates` nearest.
    public var searchSigmas: Double = 4
    public var minSearchMeters: Double = 30
    public var maxSearchMeters: Double = 400
    public var maxCandidates: Int = 24
    /// A fix closer than max(`thinningSigmas`·σ, `minSpacingMeters`) to the last fix kept is not a state of the
    /// model (N&K's thinning, with a floor): its position is projected onto the matched route
    /// instead (or, with `tidy`, left out). The floor keeps 1 Hz traces from becoming hundreds
    /// of 10 m steps, each a chance for noise to route a U-turn or a loop round the block.
    public var minSpacingMeters: Double = 50
    /// The thinning radius in σ (N&K: 2).
    public var thinningSigmas: Double = 4
    public var tidy: Bool = false
    /// Timed fixes of σ ≥ `smoothingMinAccuracyMeters` are averaged with the fixes within
    /// `smoothingSeconds` either side before matching (0: off); see `MapMatcher.smoothed`.
    public var smoothingSeconds: Double = 2
    public var smoothingMinAccuracyMeters: Double = 10
    /// Consecutive fixes further apart than this in time (s) or distance (m) start a new matching.
    public var maxGapSeconds: Double = 60
    public var maxGapMeters: Double = 2000
    /// Whether gaps split the trace (OSRM's `gaps=split`); `ignore` keeps one model across them.
    public var splitGaps: Bool = true
    /// A transition is impossible when its route is longer than the straight line by more than
    /// this (m), or faster than `maxSpeedMps` over the fixes' time difference.
    public var maxDetourMeters: Double = 2000
    public var maxSpeedMps: Double = 70
    /// Departure instant for the speeds when the trace has no times (Unix seconds).
    public var departAt: Double = 0
    /// Places the vehicle is known to have stopped at (a rider's drop-off): where the fixes
    /// reach one and turn back, the route is taken out to it (`MapMatcher.turnedAtStops`).
    public var stops: [Coordinate] = []

    /// The most fixes one trace may hold (2.8 hours at 1 Hz).
    public static let maxFixes = 10_000

    public init() {}
}

/// Why a trace cannot be matched at all: bad input (naming the fix) or no road near it.
public enum MatchError: Error, Sendable, Equatable, CustomStringConvertible {
    case tooFewFixes(count: Int)
    case tooManyFixes(count: Int, limit: Int)
    case invalidCoordinate(index: Int)
    case missingTime(index: Int)
    case invalidTime(index: Int)
    case timeGoesBack(index: Int, previous: Double, time: Double)
    case invalidAccuracy(index: Int)
    case invalidOption(name: String, reason: String)
    /// No two consecutive fixes could be joined by a road route (the trace is far from any road,
    /// or outside the graph).
    case noMatch(reason: String)

    public var message: String {
        switch self {
        case .tooFewFixes(let n): "a trace needs at least 2 fixes, got \(n)"
        case .tooManyFixes(let n, let limit): "a trace holds at most \(limit) fixes, got \(n); split it"
        case .invalidCoordinate(let i): "fix \(i): coordinate is not a finite lon/lat in range"
        case .missingTime(let i): "fix \(i): time missing (give every fix a time, or none)"
        case .invalidTime(let i): "fix \(i): time is not a finite number of seconds"
        case .timeGoesBack(let i, let p, let t): "fix \(i): time \(t) is before the previous fix's \(p) (times must not decrease)"
        case .invalidAccuracy(let i): "fix \(i): accuracy must be a finite number of metres above 0"
        case .invalidOption(let name, let reason): "\(name): \(reason)"
        case .noMatch(let reason): reason
        }
    }

    public var description: String { message }
}

import Parties
import PartyModel
import Quoting
import FareEstimation
import Fares
import Geo
import MapMatching
import Routing

/// Where a rider got off, as the client knows it.
public enum DropOffEvidence: Sendable, Equatable {
    /// At this point (the trace's waypoint nearest to it).
    case point(Coordinate)
    /// At this instant (Unix seconds; the first waypoint at or after it, else the last).
    case time(Double)
    /// Unknown: the waypoint nearest the rider's planned drop-off (the party's destination for
    /// riders without one; those riding to the destination get off at the trace's end).
    case detect
}

/// What a settlement takes: the trace, what is known of each rider's drop-off, optionally the
/// meter's total as the driver showed it.
public struct SettleInput: Sendable {
    public var trace: [TraceFix]
    public var dropOffs: [String: DropOffEvidence]
    public var meterTotalKrw: Int?
    public var split: SplitPolicy
    public var roundingKrw: Int
    public var matchOptions: MatchOptions
    /// How long after the party's departure a fix may be (the settle window; `TracePlausibility`).
    public var latestAfterDepartureSeconds: Double = PartyServiceOptions.defaultSettleWindow

    /// The matcher's defaults with no spacing floor (N&K's 2σ thinning only): drop-offs land on
    /// waypoints, so waypoints are kept as dense as the noise allows.
    public static var defaultMatchOptions: MatchOptions {
        var o = MatchOptions()
        o.minSpacingMeters = 0
        o.thinningSigmas = 2
        return o
    }

    public init(trace: [TraceFix], dropOffs: [String: DropOffEvidence] = [:], meterTotalKrw: Int? = nil, split: SplitPolicy = .byLeg,
                roundingKrw: Int = 10, matchOptions: MatchOptions = SettleInput.defaultMatchOptions) {
        self.trace = trace
        self.dropOffs = dropOffs
        self.meterTotalKrw = meterTotalKrw
        self.split = split
        self.roundingKrw = roundingKrw
        self.matchOptions = matchOptions
    }
}

/// The fare settled from what was driven (docs/FARES.md, "Settling a ride from its trace").
public struct Settlement: Sendable {
    public struct Rider: Sendable, Equatable {
        public let id: String
        public let seats: Int
        /// The trace fix where the rider got off, and the stop's position in riding order.
        public let fixIndex: Int
        public let stop: Int
        public let location: Coordinate
        /// The share of the metered fare, and (with a meter total) of that total.
        public let meteredKrw: Int
        public let settledKrw: Int
    }

    public let match: MatchResult
    /// Metres and seconds (by the trace's clock) driven up to the last drop-off.
    public let distanceMeters: Double
    public let durationSeconds: Double
    public let region: String
    public let fare: FareBreakdown
    public let split: SplitPolicy
    public let riders: [Rider]
    /// The meter's total as given, and it less the metered fare (nil without one).
    public let meterTotalKrw: Int?
    public let differenceKrw: Int?
    /// What the plausibility check found (lone glitches tolerated).
    public let reading: TracePlausibility.Reading
}

/// Why a trace cannot be settled.
public enum SettlementError: Error, Sendable, CustomStringConvertible {
    case match(MatchError)
    case unknownRider(String)
    case fare(FareRequestError)
    case invalidInput(field: String, reason: String)
    /// The trace cannot be a taxi ride of the party (`TracePlausibility`): why, at which fix.
    case implausible(fix: Int, reason: String)

    public var description: String {
        switch self {
        case .match(let e): e.message
        case .unknownRider(let id): "drop_offs: '\(id.prefix(64))' is not a rider of the party"
        case .fare(let e): e.description
        case .invalidInput(let f, let r): "\(f): \(r)"
        case .implausible(let i, let r): "fix \(i): \(r)"
        }
    }
}

/// Settles a party's ride from its GPS trace with the quote engine's meter and the split code.
public struct Settler: Sendable {
    public let pricer: RidePricer
    public init(pricer: RidePricer) { self.pricer = pricer }

    /// One stretch of the driven route between consecutive waypoints (or across a gap).
    struct FixLeg {
        var fromFix: Int
        var toFix: Int
        var segments: ArraySlice<RouteSegment>
        var duration: Double
    }

    public func settle(_ party: Party, _ input: SettleInput) throws(SettlementError) -> Settlement {
        if let m = input.meterTotalKrw, !(0...100_000_000).contains(m) {
            throw .invalidInput(field: "meter_total_krw", reason: "must be from 0 to 100,000,000 won, got \(m)")
        }
        let riders = PartyRide(party: party, order: []).riders
        for id in input.dropOffs.keys where !riders.contains(where: { $0.id == id }) { throw .unknownRider(id) }
        let reading = try TracePlausibility(latestAfterDepartureSeconds: input.latestAfterDepartureSeconds)
            .check(input.trace, party: party, defaultAccuracyMeters: input.matchOptions.defaultAccuracyMeters)
        var options = input.matchOptions
        options.departAt = party.departAt
        // Where riders got off (the point given, else the planned drop-off short of the
        // destination): a route that turns back near one is taken out to it.
        options.stops += riders.compactMap { r in
            if case .point(let p) = input.dropOffs[r.id], p.isValid { return p }
            return party.riders.first { $0.id == r.id }?.dropOff.flatMap { $0 == party.destination ? nil : $0 }
        }
        let match: MatchResult
        do throws(MatchError) { match = try MapMatcher(engine: pricer.quotes.routes).match(input.trace, options: options) } catch { throw .match(error) }
        let legs = fixLegs(match, input.trace)
        let waypoints = [legs[0].fromFix] + legs.map(\.toFix)
        let departure = input.trace[0].time ?? party.departAt

        // Each rider's drop-off fix, then the stops in riding order.
        func nearest(_ p: Coordinate) -> Int {
            waypoints.min { match.matched($0)!.location.distance(to: p) < match.matched($1)!.location.distance(to: p) }!
        }
        var dropFix: [Int] = []
        for r in riders {
            switch input.dropOffs[r.id] ?? .detect {
            case .point(let p):
                guard p.isValid else { throw .invalidInput(field: "drop_offs.\(r.id).point", reason: "not a valid lon/lat") }
                dropFix.append(nearest(p))
            case .time(let t):
                guard t.isFinite, input.trace[0].time != nil else {
                    throw .invalidInput(field: "drop_offs.\(r.id).time", reason: "needs a finite time and a trace with times")
                }
                dropFix.append(waypoints.first { input.trace[$0].time! >= t } ?? waypoints[waypoints.count - 1])
            case .detect:
                let planned = party.riders.first { $0.id == r.id }?.dropOff
                dropFix.append(planned.map { $0 == party.destination ? waypoints[waypoints.count - 1] : nearest($0) } ?? waypoints[waypoints.count - 1])
            }
        }
        let stops = Array(Set(dropFix)).sorted()
        let lastFix = stops[stops.count - 1]

        // The meter's trip: each stretch with the quote's road classes and slow shares, its time
        // the trace's own (the stretch's engine durations scaled to the fixes' time difference).
        let driven = legs.filter { $0.toFix <= lastFix }.map { leg in
            DrivenStretch(segments: leg.segments, seconds: leg.duration, leg: stops.firstIndex { $0 > leg.fromFix } ?? stops.count - 1)
        }
        let meter: RideMeter, metered: MeteredRide
        do throws(FareRequestError) {
            meter = try pricer.quotes.rideMeter(at: party.origin, field: .origin, taxiClass: FareRequest.defaultTaxiClass, departure: departure)
            metered = try meter.run(.driven(driven), departure: departure, legs: stops.count)
        } catch { throw .fare(error) }
        let fare = metered.fare
        let distance = metered.trip.reduce(0) { $0 + $1.distanceM }
        let clock = driven.reduce(departure) { $0 + $1.seconds }

        // Shares: the metered fare split by the party's policy; with a meter total, that total
        // split by the same policy and weights (so the shares sum to it exactly).
        var split: [SplitRider] = []
        for (r, fix) in zip(riders, dropFix) {
            var solo = 0
            if input.split == .proportional {
                do throws(FareRequestError) { solo = try pricer.soloFare(from: party.origin, to: match.matched(fix)!.location, departure: departure) } catch { throw .fare(error) }
            }
            split.append(SplitRider(count: r.seats, lastLeg: stops.firstIndex(of: fix)!, soloFareKrw: solo))
        }
        let meteredKrw: [Int], settled: [Int]
        do throws(FareSplitError) {
            meteredKrw = try FareSplit.split(totalKrw: fare.totalKrw, riders: split, policy: input.split, roundingKrw: input.roundingKrw, legKrw: fare.legKrw)
            settled = try input.meterTotalKrw.map { t throws(FareSplitError) in
                try FareSplit.split(totalKrw: t, riders: split, policy: input.split, roundingKrw: input.roundingKrw, legKrw: fare.legKrw)
            } ?? meteredKrw
        } catch {
            throw .fare(.internalFailure("splitting the fare failed: \(error.message)"))
        }
        let out = riders.indices.map { i in
            Settlement.Rider(id: riders[i].id, seats: riders[i].seats, fixIndex: dropFix[i], stop: split[i].lastLeg,
                             location: match.matched(dropFix[i])!.location, meteredKrw: meteredKrw[i], settledKrw: settled[i])
        }
        return Settlement(match: match, distanceMeters: distance, durationSeconds: clock - departure, region: meter.region, fare: fare,
                          split: input.split, riders: out, meterTotalKrw: input.meterTotalKrw,
                          differenceKrw: input.meterTotalKrw.map { $0 - fare.totalKrw }, reading: reading)
    }

    /// The driven route as stretches between consecutive waypoints; a gap between matchings is
    /// bridged by the engine's route between their ends (its time the trace's).
    func fixLegs(_ match: MatchResult, _ trace: [TraceFix]) -> [FixLeg] {
        var out: [FixLeg] = []
        func seconds(_ a: Int, _ b: Int, engine: Double) -> Double {
            if let ta = trace[a].time, let tb = trace[b].time { return tb - ta }
            return engine
        }
        for (m, matching) in match.matchings.enumerated() {
            if m > 0, let a = match.matchings[m - 1].fixIndices.last, let first = matching.fixIndices.first,
               let bridge = try? pricer.quotes.routes.route(RouteRequest(from: match.matched(a)!.location, to: match.matched(first)!.location,
                                                                         departAt: trace[a].time ?? 0, maxSnapMeters: 1)) {
                out.append(FixLeg(fromFix: a, toFix: first, segments: bridge.segments[...], duration: seconds(a, first, engine: bridge.durationSeconds)))
            }
            var w = 0
            for piece in matching.pieces {
                var start = 0
                for (l, leg) in piece.legs.enumerated() {
                    var end = start
                    while end < piece.segments.count && piece.segments[end].legIndex == l { end += 1 }
                    let a = matching.fixIndices[w], b = matching.fixIndices[w + 1]
                    out.append(FixLeg(fromFix: a, toFix: b, segments: piece.segments[start..<end], duration: seconds(a, b, engine: leg.durationSeconds)))
                    start = end
                    w += 1
                }
            }
        }
        return out
    }
}

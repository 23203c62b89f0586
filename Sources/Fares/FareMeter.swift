import Geo

/// One stretch of a trip, driven at a uniform pace: its distance, duration and the seconds of
/// it spent below the meter's speed threshold are spread evenly over its duration.
public struct TripSegment: Sendable, Hashable {
    public var distanceM: Double
    public var durationS: Double
    /// Seconds of `durationS` spent below the schedule's speed threshold.
    public var slowS: Double
    /// True when the stretch lies outside the trip region's city boundary.
    public var outOfCity: Bool
    /// The leg of the route (0 = origin to the first stop), for `by_leg` splits.
    public var leg: Int

    public init(distanceM: Double, durationS: Double, slowS: Double, outOfCity: Bool = false, leg: Int = 0) {
        self.distanceM = distanceM
        self.durationS = durationS
        self.slowS = slowS
        self.outOfCity = outOfCity
        self.leg = leg
    }
}

/// Why a trip could not be metered: the segment and field at fault.
public struct FareMeterError: Error, Sendable, CustomStringConvertible, Equatable {
    public let message: String
    public var description: String { message }
}

/// What a metered trip costs, part by part. All amounts are whole won and
/// `total = base + distance + time + night + outOfCity + rounding + toll`.
public struct FareBreakdown: Sendable, Hashable {
    /// What the passenger pays: the rounded meter plus tolls.
    public var totalKrw: Int
    /// The day base fare (the night raise of the base fare is in `nightKrw`).
    public var baseKrw: Int
    /// Distance units at their day price.
    public var distanceKrw: Int
    /// Time units at their day price.
    public var timeKrw: Int
    /// Night surcharge: on the base fare (after its rounding) and on every unit counted in a band.
    public var nightKrw: Int
    /// Out-of-city surcharge on units counted outside the city boundary.
    public var outOfCityKrw: Int
    /// The final rounding of the meter (−40 for 4,040 → 4,000; +50 for 4,050 → 4,100).
    public var roundingKrw: Int
    /// Tolls, passed through.
    public var tollKrw: Int
    /// The schedule used.
    public var scheduleID: String
    /// How many distance and time units were counted.
    public var distanceUnits: Int
    public var timeUnits: Int
    /// What the meter added on each leg, before the final rounding and without tolls; leg 0
    /// holds the base fare. Sums to `totalKrw − roundingKrw − tollKrw`.
    public var legKrw: [Int]

    /// The meter reading: the total without tolls.
    public var meterKrw: Int { totalKrw - tollKrw }
}

/// A Korean taxi meter simulated along a trip, following `docs/FARES.md` rule by rule.
///
/// 1. The base fare (raised by the night percent in force at departure, then rounded to the
///    schedule's `surchargedBaseRoundingKrw`) covers the first `baseDistanceM` metres.
///    Units count only after it: distance driven and slow seconds spent before the base
///    distance is used up are not charged.
/// 2. Every completed distance unit adds its price.
/// 3. `simultaneous`: every completed time unit of slow time adds its price on top.
///    `mutual`: slow time is charged by time instead of by distance — the distance covered
///    while slow is not counted towards distance units.
/// 4. A unit's price is raised by the night percent of the band the clock is in when the
///    unit is counted; bands switch mid-ride at their boundaries.
/// 5. Outside the city the out-of-city percent is added to the night percent (20 + 40 = 60 %),
///    held under the schedule's optional `combinedPercentCap`.
/// 6. The meter total is rounded half up to `roundingKrw` (100: 4,040 → 4,000; 4,050 → 4,100).
/// 7. Tolls are added as given: never rounded, never surcharged.
///
/// Assumptions where docs/FARES.md is silent:
/// - Within a segment, distance and slow time are spread evenly over its duration; a
///   segment of zero duration happens at one instant.
/// - Under `mutual` charging, the taxi is assumed to cover slow stretches at half the speed
///   threshold (e.g. 7.55 km/h for 15.10 km/h), capped at the segment's distance; that
///   distance is charged by time and the rest by distance.
/// - Unit counters carry over between segments, bands and legs (a unit straddling a band
///   boundary is charged at the price in force when it completes).
/// - The out-of-city percent applies to units only, never to the base fare.
/// - The schedule in force at departure applies to the whole ride, even across a tariff change.
/// - Surcharge and rounding rules documented for Seoul (base rounding to 100 won, total
///   half up at the 10-won digit) are applied to every schedule that says so in its file.
public struct FareMeter: Sendable {
    public let schedule: FareSchedule

    public init(schedule: FareSchedule) {
        self.schedule = schedule
    }

    /// Meters a trip of `segments` departing at `departure` (Unix seconds), adding `tollKrw`.
    public func run(_ segments: [TripSegment], departure: Double, tollKrw: Int = 0) throws(FareMeterError) -> FareBreakdown {
        guard departure.isFinite else { throw FareMeterError(message: "the departure instant is not a finite number") }
        guard tollKrw >= 0, tollKrw <= 10_000_000 else {
            throw FareMeterError(message: "toll_krw must be from 0 to 10,000,000 won, got \(tollKrw)")
        }
        var lastLeg = 0
        var totalDuration = 0.0
        for (k, s) in segments.enumerated() {
            func bad(_ field: String, _ what: String) -> FareMeterError {
                FareMeterError(message: "trip segment \(k): \(field) \(what)")
            }
            guard s.distanceM.isFinite, s.distanceM >= 0 else { throw bad("distance_m", "must be a finite number ≥ 0") }
            guard s.durationS.isFinite, s.durationS >= 0 else { throw bad("duration_s", "must be a finite number ≥ 0") }
            guard s.slowS.isFinite, s.slowS >= 0 else { throw bad("slow_s", "must be a finite number ≥ 0") }
            guard s.slowS <= s.durationS * (1 + 1e-9) + 1e-6 else { throw bad("slow_s", "must not exceed the segment's duration") }
            guard s.leg >= lastLeg, s.leg < 1_000 else { throw bad("leg", "must not decrease along the trip (and stay below 1,000)") }
            lastLeg = s.leg
            totalDuration += s.durationS
        }
        guard totalDuration <= 30 * 86_400 else {
            throw FareMeterError(message: "the trip lasts more than 30 days (\(Int(totalDuration)) s)")
        }

        var state = MeterState(schedule: schedule, legs: lastLeg + 1)
        var local = SeoulTime.secondOfDay(departure)  // seconds since the departure day's midnight
        let startPercent = schedule.nightPercent(atSecondOfDay: Self.clockSecond(local))
        let base = schedule.surchargedBaseFare(nightPercent: startPercent)
        state.base = schedule.baseFareKrw
        state.night = base - schedule.baseFareKrw
        state.legKrw[0] = base

        let slowSpeed = schedule.speedThresholdKmh / 3.6 / 2  // m/s, for mutual charging
        let mutual = schedule.charging == .mutual
        let baseDistance = schedule.baseDistanceM
        var travelled = 0.0
        // The night percent in force from `local` until `bandEnd` (the next band boundary).
        var bandEnd = -Double.infinity
        var night = 0
        for s in segments {
            var remD = s.distanceM, remT = s.durationS
            var remS = min(s.slowS, s.durationS)
            var remSlowD = mutual ? min(remD, remS * slowSpeed) : 0
            while remD > 0 || remT > 0 {
                if local >= bandEnd - 1e-6 {
                    night = schedule.nightPercent(atSecondOfDay: Self.clockSecond(local))
                    bandEnd = nextBoundary(after: local)
                }
                // The piece ends at the next band boundary, the end of the base distance, or the segment's end.
                var fraction = 1.0
                if remT > 0, local + remT > bandEnd {
                    fraction = (bandEnd - local) / remT
                }
                let beforeBase = travelled < baseDistance
                var endsAtBase = false
                if beforeBase, remD > 0, (baseDistance - travelled) / remD < fraction {
                    fraction = (baseDistance - travelled) / remD
                    endsAtBase = true
                }
                if fraction >= 1 {
                    if !beforeBase {
                        state.count(distance: mutual ? remD - remSlowD : remD, slow: remS, nightPercent: night, outOfCity: s.outOfCity, leg: s.leg)
                    }
                    travelled += remD
                    local += remT
                    break
                }
                let pd = remD * fraction, pt = remT * fraction, ps = remS * fraction, psd = remSlowD * fraction
                if !beforeBase {
                    state.count(distance: mutual ? pd - psd : pd, slow: ps, nightPercent: night, outOfCity: s.outOfCity, leg: s.leg)
                }
                travelled = endsAtBase ? baseDistance : travelled + pd
                local += pt
                remD -= pd; remT -= pt; remS -= ps; remSlowD -= psd
                if remD < 1e-9 { remD = 0 }
                if remT < 1e-9 { remT = 0 }
            }
        }

        let subtotal = state.base + state.distance + state.time + state.night + state.outOfCity
        let meter = KRWRounding.halfUp(subtotal, unit: schedule.roundingKrw)
        return FareBreakdown(
            totalKrw: meter + tollKrw, baseKrw: state.base, distanceKrw: state.distance, timeKrw: state.time,
            nightKrw: state.night, outOfCityKrw: state.outOfCity, roundingKrw: meter - subtotal, tollKrw: tollKrw,
            scheduleID: schedule.id, distanceUnits: state.distanceUnits, timeUnits: state.timeUnits, legKrw: state.legKrw)
    }

    /// The whole second of the Seoul day for a count of local seconds since some midnight.
    static func clockSecond(_ local: Double) -> Int {
        let s = Int((local + 1e-6).rounded(.down)) % 86_400
        return s < 0 ? s + 86_400 : s
    }

    /// The next band boundary strictly after `local` (seconds since the departure day's
    /// midnight), or +∞ when the schedule has no night bands.
    func nextBoundary(after local: Double) -> Double {
        let bounds = schedule.bandBoundaries
        guard !bounds.isEmpty else { return .infinity }
        let day = (local / 86_400).rounded(.down) * 86_400
        for k in 0..<3 {
            for b in bounds where day + Double(k * 86_400 + b) > local + 1e-6 { return day + Double(k * 86_400 + b) }
        }
        return .infinity  // unreachable: a boundary lies within every day
    }
}

/// The meter's running counters.
struct MeterState {
    let schedule: FareSchedule
    var base = 0, distance = 0, time = 0, night = 0, outOfCity = 0
    var distanceUnits = 0, timeUnits = 0
    var distanceCarry = 0.0, timeCarry = 0.0
    var legKrw: [Int]

    init(schedule: FareSchedule, legs: Int) {
        self.schedule = schedule
        self.legKrw = [Int](repeating: 0, count: legs)
    }

    /// Counts a piece of trip driven under one price: `distance` metres towards distance
    /// units and `slow` seconds towards time units.
    mutating func count(distance d: Double, slow: Double, nightPercent: Int, outOfCity: Bool, leg: Int) {
        let pct = schedule.surchargePercent(night: nightPercent, outOfCity: outOfCity)
        distanceCarry += max(0, d)
        let dn = Int((distanceCarry / schedule.distanceUnitM + 1e-9).rounded(.down))
        distanceCarry = max(0, distanceCarry - Double(dn) * schedule.distanceUnitM)
        timeCarry += max(0, slow)
        let tn = Int((timeCarry / schedule.timeUnitS + 1e-9).rounded(.down))
        timeCarry = max(0, timeCarry - Double(tn) * schedule.timeUnitS)
        guard dn > 0 || tn > 0 else { return }
        let dayPrice = dn * schedule.distanceUnitKrw + tn * schedule.timeUnitKrw
        let nightPart = dayPrice * pct.night / 100
        let outPart = dayPrice * pct.outOfCity / 100
        distanceUnits += dn
        timeUnits += tn
        distance += dn * schedule.distanceUnitKrw
        time += tn * schedule.timeUnitKrw
        night += nightPart
        self.outOfCity += outPart
        legKrw[leg] += dayPrice + nightPart + outPart
    }
}

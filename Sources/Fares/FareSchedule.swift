/// How a meter charges time spent below the speed threshold.
public enum ChargingRule: String, Sendable, CaseIterable {
    /// 동시병산: slow time is charged on top of every distance unit (Seoul mid-size).
    case simultaneous
    /// 상호병산: a slow stretch is charged by time instead of by distance (Seoul deluxe).
    case mutual
}

/// A time of day on the Seoul clock, in seconds after midnight (0 ..< 86,400).
public struct ClockTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let secondOfDay: Int

    public init?(secondOfDay: Int) {
        guard (0..<86_400).contains(secondOfDay) else { return nil }
        self.secondOfDay = secondOfDay
    }

    /// Parses `HH:MM` (00:00–23:59); `24:00` is read as midnight.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
              parts[0].allSatisfy(\.isASCII), parts[1].allSatisfy(\.isASCII),
              let h = Int(parts[0]), let m = Int(parts[1]), (0...24).contains(h), (0...59).contains(m),
              h < 24 || m == 0
        else { return nil }
        self.secondOfDay = (h * 3600 + m * 60) % 86_400
    }

    public static func < (a: ClockTime, b: ClockTime) -> Bool { a.secondOfDay < b.secondOfDay }

    /// `HH:MM`.
    public var description: String {
        let h = secondOfDay / 3600, m = secondOfDay % 3600 / 60
        return (h < 10 ? "0\(h)" : "\(h)") + ":" + (m < 10 ? "0\(m)" : "\(m)")
    }
}

/// A night surcharge band: from a clock time (included) to another (excluded), wrapping past
/// midnight when `to` is not after `from`, raising prices by `percent`.
public struct NightBand: Sendable, Hashable {
    public let from: ClockTime
    public let to: ClockTime
    /// The surcharge in whole percent (20 means prices × 1.2).
    public let percent: Int

    public init(from: ClockTime, to: ClockTime, percent: Int) {
        self.from = from
        self.to = to
        self.percent = percent
    }

    /// True when the second of day lies in [from, to), across midnight when the band wraps.
    public func contains(secondOfDay s: Int) -> Bool {
        if from < to { return s >= from.secondOfDay && s < to.secondOfDay }
        return s >= from.secondOfDay || s < to.secondOfDay
    }

    /// The band's length in seconds (a band from a time to the same time lasts 24 hours).
    public var lengthSeconds: Int {
        let d = to.secondOfDay - from.secondOfDay
        return d > 0 ? d : d + 86_400
    }
}

/// One regional taxi tariff, as published, in force from `effectiveFrom` until the next
/// schedule of the same region and class.
///
/// Schedules are data (`data/fares/*.json`, one file each); see `FareScheduleBook`.
/// All prices are whole won; percents are whole percent.
public struct FareSchedule: Sendable, Hashable {
    /// The schedule's id: its file name without `.json` (e.g. `seoul-mid-2023-02-01`).
    public let id: String
    /// The region id (`seoul`, `busan`, …), lower case.
    public let region: String
    /// A human name of the region (for messages).
    public let regionName: String
    /// The taxi class id (`mid`, `deluxe`), lower case.
    public let taxiClass: String
    /// The instant (Unix seconds) from which this schedule applies.
    public let effectiveFrom: Double
    /// The base fare, covering the first `baseDistanceM` metres.
    public let baseFareKrw: Int
    public let baseDistanceM: Double
    /// One distance unit: `distanceUnitKrw` per `distanceUnitM` metres.
    public let distanceUnitM: Double
    public let distanceUnitKrw: Int
    /// One time unit: `timeUnitKrw` per `timeUnitS` seconds spent below the speed threshold.
    public let timeUnitS: Double
    public let timeUnitKrw: Int
    /// The speed under which time is charged, km/h (distance unit ÷ time unit by design).
    public let speedThresholdKmh: Double
    /// Night surcharge bands; they never overlap.
    public let nightBands: [NightBand]
    /// Surcharge on units counted outside the region's city boundary, whole percent.
    public let outOfCityPercent: Int
    /// An optional ceiling on night + out-of-city percent together (nil: they simply add up).
    public let combinedPercentCap: Int?
    /// The unit a surcharged base fare is rounded to, half up (Seoul: 100 → 5,800 / 6,700).
    public let surchargedBaseRoundingKrw: Int
    /// The unit the meter total is rounded to, half up (100: 4,040 → 4,000; 4,050 → 4,100).
    public let roundingKrw: Int
    /// Simultaneous or mutual charging of slow time.
    public let charging: ChargingRule
    /// Where the numbers come from (free text with URLs).
    public let source: String

    public init(id: String, region: String, regionName: String, taxiClass: String, effectiveFrom: Double,
                baseFareKrw: Int, baseDistanceM: Double, distanceUnitM: Double, distanceUnitKrw: Int,
                timeUnitS: Double, timeUnitKrw: Int, speedThresholdKmh: Double, nightBands: [NightBand],
                outOfCityPercent: Int, combinedPercentCap: Int? = nil, surchargedBaseRoundingKrw: Int = 100,
                roundingKrw: Int = 100, charging: ChargingRule, source: String)
    {
        self.id = id
        self.region = region
        self.regionName = regionName
        self.taxiClass = taxiClass
        self.effectiveFrom = effectiveFrom
        self.baseFareKrw = baseFareKrw
        self.baseDistanceM = baseDistanceM
        self.distanceUnitM = distanceUnitM
        self.distanceUnitKrw = distanceUnitKrw
        self.timeUnitS = timeUnitS
        self.timeUnitKrw = timeUnitKrw
        self.speedThresholdKmh = speedThresholdKmh
        self.nightBands = nightBands
        self.outOfCityPercent = outOfCityPercent
        self.combinedPercentCap = combinedPercentCap
        self.surchargedBaseRoundingKrw = surchargedBaseRoundingKrw
        self.roundingKrw = roundingKrw
        self.charging = charging
        self.source = source
        self.bandBoundaries = Array(Set(nightBands.flatMap { [$0.from.secondOfDay, $0.to.secondOfDay] })).sorted()
    }

    /// The night band in force at a second of the Seoul day, or nil in daytime.
    public func nightBand(atSecondOfDay s: Int) -> NightBand? {
        nightBands.first { $0.contains(secondOfDay: s) }
    }

    /// The night percent in force at a second of the Seoul day (0 in daytime).
    public func nightPercent(atSecondOfDay s: Int) -> Int { nightBand(atSecondOfDay: s)?.percent ?? 0 }

    /// The total surcharge percent for a night percent and an out-of-city flag: added, not
    /// multiplied (20 % + 40 % = 60 %), then held under `combinedPercentCap` when there is one.
    public func surchargePercent(night: Int, outOfCity: Bool) -> (night: Int, outOfCity: Int) {
        let ooc = outOfCity ? outOfCityPercent : 0
        guard let cap = combinedPercentCap, night + ooc > cap else { return (night, ooc) }
        let n = min(night, cap)
        return (n, max(0, cap - n))
    }

    /// The base fare raised by a night percent, rounded half up to `surchargedBaseRoundingKrw`.
    public func surchargedBaseFare(nightPercent: Int) -> Int {
        guard nightPercent != 0 else { return baseFareKrw }
        return KRWRounding.halfUp(baseFareKrw * (100 + nightPercent), unit: surchargedBaseRoundingKrw * 100) / 100
    }

    /// The clock boundaries (seconds of day) where the night percent may change, ascending.
    public let bandBoundaries: [Int]
}

/// Rounding of won amounts.
public enum KRWRounding {
    /// `amount` rounded to a multiple of `unit`, halves up (unit 100: 4,040 → 4,000, 4,050 → 4,100).
    /// `amount` must not be negative; a unit below 2 leaves it unchanged.
    public static func halfUp(_ amount: Int, unit: Int) -> Int {
        guard unit > 1 else { return amount }
        let r = amount % unit
        return r * 2 >= unit ? amount - r + unit : amount - r
    }
}

import Engine
import Fares
import Foundation
import Geo
import Routing
import TestSupport
import XCTest

/// The repository's schedules and traffic profile, loaded once per test process.
enum FareData {
    static let book: FareScheduleBook = {
        do {
            return try FareScheduleBook.load(directory: TestPaths.dataDir.appendingPathComponent("fares").path)
        } catch {
            fatalError("data/fares does not load: \(error)")
        }
    }()

    static let profile: TrafficProfile = {
        do {
            return try TrafficProfile.load(path: TestPaths.dataDir.appendingPathComponent("traffic/profile.csv").path)
        } catch {
            fatalError("data/traffic/profile.csv does not load: \(error)")
        }
    }()

    static var estimator: FareEstimator { FareEstimator(book: book, profile: profile) }

    /// A schedule of the book by id (the test fails loudly when it is missing).
    static func schedule(_ id: String) -> FareSchedule {
        guard let s = book.schedule(id: id) else { fatalError("no schedule \(id) in data/fares") }
        return s
    }

    static var seoulMid: FareSchedule { schedule("seoul-mid-2023-02-01") }
}

/// An instant from Seoul clock text (`2024-05-08T22:00`).
func seoul(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> Double {
    guard let t = SeoulTime.parse(text) else {
        XCTFail("bad test date \(text)", file: file, line: line)
        return 0
    }
    return t
}

/// A copy of `s` with some fields changed, for contrasts (mutual vs simultaneous, caps).
func variant(of s: FareSchedule, id: String? = nil, charging: ChargingRule? = nil, combinedPercentCap: Int?? = nil) -> FareSchedule {
    FareSchedule(id: id ?? s.id, region: s.region, regionName: s.regionName, taxiClass: s.taxiClass, effectiveFrom: s.effectiveFrom,
                 baseFareKrw: s.baseFareKrw, baseDistanceM: s.baseDistanceM, distanceUnitM: s.distanceUnitM,
                 distanceUnitKrw: s.distanceUnitKrw, timeUnitS: s.timeUnitS, timeUnitKrw: s.timeUnitKrw,
                 speedThresholdKmh: s.speedThresholdKmh, nightBands: s.nightBands, outOfCityPercent: s.outOfCityPercent,
                 combinedPercentCap: combinedPercentCap ?? s.combinedPercentCap,
                 surchargedBaseRoundingKrw: s.surchargedBaseRoundingKrw, roundingKrw: s.roundingKrw,
                 charging: charging ?? s.charging, source: s.source)
}

extension FareBreakdown {
    /// The sum of the parts, which must equal `totalKrw`.
    var sumOfParts: Int { baseKrw + distanceKrw + timeKrw + nightKrw + outOfCityKrw + roundingKrw + tollKrw }
}

import Quoting
import Fares
import Foundation
import Geo
import Routing
import TestSupport
import XCTest

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

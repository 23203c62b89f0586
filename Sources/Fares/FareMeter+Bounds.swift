extension FareMeter {
    /// The least the meter can add over one leg of a trip, whatever the road classes, the slow
    /// time and the clock along it: a leg of `distanceM` metres taking `durationS` seconds, that
    /// starts after `travelledM` metres of the trip; `first`: the trip's first leg (it holds
    /// the base fare, at its lowest surcharge). What `run` credits to that leg in `legKrw` is
    /// never less, so a rider's share can be bounded before the leg is routed (matching prunes
    /// parties with it).
    ///
    /// Units counted within the leg: at least ⌊charged ÷ unit⌋ of the distance after the base
    /// distance (carries only add), less the distance covered while slow under `mutual`
    /// charging (at most slow seconds × half the threshold speed), plus ⌊slow ÷ time unit⌋;
    /// the slow seconds (0…`durationS`) are taken at whichever end costs less. Surcharges only
    /// add when no percent is negative (else the bound keeps the base fare alone).
    public func leastLegKrw(distanceM: Double, durationS: Double, travelledM: Double, first: Bool) -> Int {
        let s = schedule
        let percents = s.nightBands.map(\.percent) + [s.outOfCityPercent]
        var base = 0
        if first { base = ([0] + s.nightBands.map(\.percent)).map { s.surchargedBaseFare(nightPercent: $0) }.min() ?? 0 }
        guard distanceM.isFinite, durationS.isFinite, travelledM.isFinite, distanceM > 0, !percents.contains(where: { $0 < 0 }),
              s.distanceUnitM > 0, s.timeUnitS > 0 else { return base }
        let charged = distanceM - max(0, min(distanceM, s.baseDistanceM - travelledM))
        let pD = Double(s.distanceUnitKrw), pT = Double(s.timeUnitKrw)
        var units: Double
        switch s.charging {
        case .simultaneous:
            units = pD * charged / s.distanceUnitM - pD
        case .mutual:
            let slowSpeed = s.speedThresholdKmh / 3.6 / 2
            let perSlowSecond = pT / s.timeUnitS - pD * slowSpeed / s.distanceUnitM
            let slow = perSlowSecond >= 0 ? 0 : max(0, durationS)
            units = pD * (charged - slow * slowSpeed) / s.distanceUnitM + pT * slow / s.timeUnitS - pD - pT
        }
        return base + max(0, Int(units.rounded(.down)) - 1)
    }
}

/// How a pooled fare is shared between riders.
public enum SplitPolicy: String, Sendable, CaseIterable {
    /// Total ÷ persons.
    case equal
    /// Each leg's meter increment split equally among the persons aboard on that leg; the
    /// base fare belongs to the first leg (as 반반택시 and TADA do).
    case byLeg = "by_leg"
    /// In proportion to each person's solo fare from the shared origin to their own drop-off.
    case proportional
}

/// One rider of a split: a single person or a group travelling together (a group of 2 counts 2).
public struct SplitRider: Sendable, Hashable {
    /// Persons in the group, at least 1.
    public var count: Int
    /// The leg at whose end the group gets off (0 = the first stop), for `by_leg`.
    public var lastLeg: Int
    /// The fare the group would pay riding alone from the shared origin to its own drop-off,
    /// for `proportional`.
    public var soloFareKrw: Int

    public init(count: Int = 1, lastLeg: Int = 0, soloFareKrw: Int = 0) {
        self.count = count
        self.lastLeg = lastLeg
        self.soloFareKrw = soloFareKrw
    }
}

/// Why a split was refused.
public struct FareSplitError: Error, Sendable, CustomStringConvertible, Equatable {
    public let message: String
    public var description: String { message }
}

/// Splitting one fare between riders (docs/FARES.md, "Splitting one fare between riders").
///
/// Every policy keeps the sum of the shares exactly equal to the total and gives no negative
/// share. Shares are whole multiples of the rounding unit, except the host's (rider 0), which
/// also takes what is left below one unit (a toll that is not a multiple of the unit).
/// The units left after rounding every share down are handed out one each:
/// - `equal` and `by_leg`: host first, then riders in order, among the riders whose exact share
///   was rounded down (so nobody gets more than their exact share rounded up);
/// - `proportional`: largest remainder first, ties to the lower rider index (host first).
///
/// Arithmetic is exact (integers), so the same input always gives the same shares.
public enum FareSplit {
    /// The largest number of persons in one split.
    public static let maxPersons = 20

    /// The shares of `totalKrw` for each rider group, in the riders' order (rider 0 is the host).
    /// `legKrw` is the meter's per-leg increments (`FareBreakdown.legKrw`), used by `by_leg`.
    public static func split(totalKrw: Int, riders: [SplitRider], policy: SplitPolicy, roundingKrw: Int = 10,
                             legKrw: [Int] = []) throws(FareSplitError) -> [Int]
    {
        guard !riders.isEmpty else { throw FareSplitError(message: "a split needs at least one rider") }
        guard totalKrw >= 0, totalKrw <= 100_000_000 else {
            throw FareSplitError(message: "the total to split must be from 0 to 100,000,000 won, got \(totalKrw)")
        }
        guard roundingKrw >= 1, roundingKrw <= 10_000 else {
            throw FareSplitError(message: "the rounding unit must be from 1 to 10,000 won, got \(roundingKrw)")
        }
        var persons = 0
        for (i, r) in riders.enumerated() {
            guard r.count >= 1 else { throw FareSplitError(message: "rider \(i): count must be at least 1, got \(r.count)") }
            persons += r.count
            guard persons <= maxPersons else { throw FareSplitError(message: "a split takes at most \(maxPersons) persons") }
        }

        let weights: [Int]
        switch policy {
        case .equal:
            weights = riders.map(\.count)
        case .proportional:
            for (i, r) in riders.enumerated() where r.soloFareKrw < 0 || r.soloFareKrw > 100_000_000 {
                throw FareSplitError(message: "rider \(i): solo fare must be from 0 to 100,000,000 won, got \(r.soloFareKrw)")
            }
            weights = riders.map { $0.count * $0.soloFareKrw }
        case .byLeg:
            weights = try byLegWeights(riders: riders, legKrw: legKrw)
        }
        if riders.count == 1 { return [totalKrw] }
        let total = weights.reduce(0, +)
        return apportion(totalKrw, weights: total > 0 ? weights : riders.map(\.count), unit: roundingKrw,
                         largestRemainder: policy == .proportional)
    }

    /// The per-person headline figure: the total ÷ persons, rounded half up to the unit.
    public static func perPerson(totalKrw: Int, persons: Int, roundingKrw: Int = 10) -> Int {
        guard persons > 0 else { return totalKrw }
        let unit = max(1, roundingKrw)
        // Round (total / persons) half up to `unit` using integers: (2·total + persons·unit) ÷ (2·persons·unit).
        return (2 * totalKrw + persons * unit) / (2 * persons * unit) * unit
    }

    /// `by_leg` weights: each person aboard on leg k gets `legKrw[k] / aboard(k)`, scaled by a
    /// common multiple of the aboard counts so that every weight is a whole number.
    static func byLegWeights(riders: [SplitRider], legKrw: [Int]) throws(FareSplitError) -> [Int] {
        guard !legKrw.isEmpty else { throw FareSplitError(message: "a by_leg split needs the meter's per-leg amounts") }
        for (k, a) in legKrw.enumerated() where a < 0 || a > 100_000_000 {
            throw FareSplitError(message: "leg \(k): amount must be from 0 to 100,000,000 won, got \(a)")
        }
        guard legKrw.count <= 1_000, legKrw.reduce(0, +) <= 100_000_000 else {
            throw FareSplitError(message: "the legs must total at most 100,000,000 won over at most 1,000 legs")
        }
        for (i, r) in riders.enumerated() where r.lastLeg < 0 || r.lastLeg >= legKrw.count {
            throw FareSplitError(message: "rider \(i): gets off after leg \(r.lastLeg), but the trip has legs 0–\(legKrw.count - 1)")
        }
        var aboard = [Int](repeating: 0, count: legKrw.count)
        for r in riders { for k in 0...r.lastLeg { aboard[k] += r.count } }
        for (k, n) in aboard.enumerated() where n == 0 {
            throw FareSplitError(message: "leg \(k) has nobody aboard: the last rider must get off at the end of the last leg")
        }
        var common = 1
        for n in Set(aboard) { common = common / gcd(common, n) * n }  // ≤ lcm(1…20) = 232,792,560
        return riders.map { r in (0...r.lastLeg).reduce(0) { $0 + legKrw[$1] * (common / aboard[$1]) } * r.count }
    }

    /// Shares of `total` in proportion to `weights` (not all zero), rounded to `unit` as the
    /// type's documentation says.
    static func apportion(_ total: Int, weights: [Int], unit: Int, largestRemainder: Bool) -> [Int] {
        let units = total / unit, leftover = total % unit
        let sum = weights.reduce(0, +)
        var shares = [Int](repeating: 0, count: weights.count)
        var remainders = [Int](repeating: 0, count: weights.count)
        var given = 0
        for (i, w) in weights.enumerated() {
            let product = units.multipliedFullWidth(by: w)
            let (q, r) = sum.dividingFullWidth(product)
            shares[i] = q
            remainders[i] = r
            given += q
        }
        var order = Array(weights.indices).filter { remainders[$0] > 0 }
        if largestRemainder {
            order.sort { remainders[$0] != remainders[$1] ? remainders[$0] > remainders[$1] : $0 < $1 }
        }
        for i in order.prefix(units - given) { shares[i] += 1 }
        var out = shares.map { $0 * unit }
        out[0] += leftover
        return out
    }

    static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}

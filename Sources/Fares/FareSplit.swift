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
/// share. One share per person: a rider group of n persons pays n persons' shares, each a whole
/// multiple of the rounding unit, except the host's (rider 0's first person), which also takes
/// what is left below one unit (a toll that is not a multiple of the unit).
/// The units left after rounding every person's share down are handed out one each, in the
/// leftover order: the host first, then the riders in the order they get off (`lastLeg`; at one
/// stop in rider order), a group's persons together:
/// - `equal` and `by_leg`: in that order, among the persons whose exact share was rounded down
///   (so nobody gets more than their exact share rounded up);
/// - `proportional`: largest remainder first, ties in that order.
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

        // One weight per person of each rider group (a group of 2 is two persons of that weight).
        let weights: [Int]
        switch policy {
        case .equal:
            weights = riders.map { _ in 1 }
        case .proportional:
            for (i, r) in riders.enumerated() where r.soloFareKrw < 0 || r.soloFareKrw > 100_000_000 {
                throw FareSplitError(message: "rider \(i): solo fare must be from 0 to 100,000,000 won, got \(r.soloFareKrw)")
            }
            weights = riders.map(\.soloFareKrw)
        case .byLeg:
            weights = try byLegWeights(riders: riders, legKrw: legKrw)
        }
        if riders.count == 1 && riders[0].count == 1 { return [totalKrw] }
        // One share per person: each rounded on its own, a group's shares summed.
        var owner: [Int] = [], personWeights: [Int] = []
        for (i, r) in riders.enumerated() {
            owner += Array(repeating: i, count: r.count)
            personWeights += Array(repeating: weights[i], count: r.count)
        }
        let weighted = personWeights.contains { $0 > 0 }
        let perPerson = apportion(totalKrw, weights: weighted ? personWeights : personWeights.map { _ in 1 }, unit: roundingKrw,
                                largestRemainder: policy == .proportional, priority: leftoverOrder(riders, owner: owner))
        var shares = [Int](repeating: 0, count: riders.count)
        for (p, krw) in perPerson.enumerated() { shares[owner[p]] += krw }
        return shares
    }

    /// The order in which persons take leftover units: the host's (rider 0) first, then the
    /// others in the order they get off (by `lastLeg`; at one stop in rider order), a group's
    /// persons together. `owner[p]`: the rider of person p.
    static func leftoverOrder(_ riders: [SplitRider], owner: [Int]) -> [Int] {
        owner.indices.sorted { a, b in
            let ra = owner[a], rb = owner[b]
            let ka = (ra == 0 ? 0 : 1, riders[ra].lastLeg, ra, a), kb = (rb == 0 ? 0 : 1, riders[rb].lastLeg, rb, b)
            return ka < kb
        }
    }

    /// The per-person headline figure: the total ÷ persons, rounded half up to the unit.
    public static func perPerson(totalKrw: Int, persons: Int, roundingKrw: Int = 10) -> Int {
        guard persons > 0 else { return totalKrw }
        let unit = max(1, roundingKrw)
        // Round (total / persons) half up to `unit` using integers: (2·total + persons·unit) ÷ (2·persons·unit).
        return (2 * totalKrw + persons * unit) / (2 * persons * unit) * unit
    }

    /// `by_leg` weights, one person of each rider: each person aboard on leg k gets
    /// `legKrw[k] / aboard(k)`, scaled by a common multiple of the aboard counts so that every
    /// weight is a whole number. A leg nobody is aboard on is the host's (rider 0 rides to the
    /// destination).
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
        // The host rides to the destination: a leg nobody else is aboard on is the host's.
        let hostOnly = aboard.map { $0 == 0 }
        for k in aboard.indices where hostOnly[k] { aboard[k] = riders[0].count }
        var common = 1
        for n in Set(aboard) { common = common / gcd(common, n) * n }  // ≤ lcm(1…20) = 232,792,560
        return riders.enumerated().map { i, r in
            let legs = i == 0 ? Array(0...r.lastLeg) + aboard.indices.filter { $0 > r.lastLeg && hostOnly[$0] } : Array(0...r.lastLeg)
            return legs.reduce(0) { $0 + legKrw[$1] * (common / aboard[$1]) }
        }
    }

    /// Shares of `total` in proportion to `weights` (not all zero), rounded to `unit` as the
    /// type's documentation says; leftover units go in `priority` order (largest remainder
    /// first with `largestRemainder`, ties in `priority` order).
    static func apportion(_ total: Int, weights: [Int], unit: Int, largestRemainder: Bool, priority: [Int]) -> [Int] {
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
        var order = priority.filter { remainders[$0] > 0 }
        if largestRemainder {
            let rank = Dictionary(uniqueKeysWithValues: priority.enumerated().map { ($1, $0) })
            order.sort { remainders[$0] != remainders[$1] ? remainders[$0] > remainders[$1] : rank[$0]! < rank[$1]! }
        }
        for i in order.prefix(units - given) { shares[i] += 1 }
        var out = shares.map { $0 * unit }
        out[0] += leftover
        return out
    }

    static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}

import Geo
import Fares
import Routing
import TestSupport
import Foundation
import XCTest

final class FareSplitTests: XCTestCase {
    func testEqualSplitRemainderToTheHostFirst() throws {
        let three = [SplitRider](repeating: SplitRider(), count: 3)
        XCTAssertEqual(try FareSplit.split(totalKrw: 10_000, riders: three, policy: .equal), [3340, 3330, 3330])
        XCTAssertEqual(try FareSplit.split(totalKrw: 10_000, riders: three, policy: .equal, roundingKrw: 100), [3400, 3300, 3300])
        XCTAssertEqual(try FareSplit.split(totalKrw: 10_100, riders: three, policy: .equal, roundingKrw: 100), [3400, 3400, 3300])
        // A group of 2 counts 2.
        XCTAssertEqual(try FareSplit.split(totalKrw: 10_000, riders: [SplitRider(count: 2), SplitRider()], policy: .equal), [6670, 3330])
        XCTAssertEqual(try FareSplit.split(totalKrw: 10_000, riders: [SplitRider(), SplitRider(count: 2)], policy: .equal), [3340, 6660])
        // What is below one unit (an odd toll) stays with the host.
        XCTAssertEqual(try FareSplit.split(totalKrw: 10_005, riders: [SplitRider(), SplitRider()], policy: .equal), [5005, 5000])
        XCTAssertEqual(FareSplit.perPerson(totalKrw: 10_000, persons: 3), 3330)
        XCTAssertEqual(FareSplit.perPerson(totalKrw: 10_000, persons: 3, roundingKrw: 100), 3300)
        XCTAssertEqual(FareSplit.perPerson(totalKrw: 10_050, persons: 2, roundingKrw: 100), 5000)  // 5,025 → 5,000
        XCTAssertEqual(FareSplit.perPerson(totalKrw: 10_100, persons: 2, roundingKrw: 100), 5100)  // 5,050 → 5,100
    }

    func testByLegSplitsEachLegAmongThoseAboard() throws {
        // Leg 0 (with the base fare) 8,000 won shared by 2; leg 1 4,000 won for the host alone.
        let riders = [SplitRider(count: 1, lastLeg: 1), SplitRider(count: 1, lastLeg: 0)]
        XCTAssertEqual(try FareSplit.split(totalKrw: 12_000, riders: riders, policy: .byLeg, legKrw: [8000, 4000]), [8000, 4000])
        // A group of 2 getting off first pays two thirds of leg 0.
        let group = [SplitRider(count: 1, lastLeg: 1), SplitRider(count: 2, lastLeg: 0)]
        XCTAssertEqual(try FareSplit.split(totalKrw: 12_000, riders: group, policy: .byLeg, legKrw: [9000, 3000]), [6000, 6000])
        // The rounded total (with rounding and tolls) is shared in proportion to the leg weights.
        XCTAssertEqual(try FareSplit.split(totalKrw: 12_100, riders: riders, policy: .byLeg, legKrw: [8000, 4040]).reduce(0, +), 12_100)
        // A leg nobody is aboard on is the host's (rider 0 rides to the destination): never a refusal.
        XCTAssertEqual(try FareSplit.split(totalKrw: 1000, riders: [SplitRider(lastLeg: 0)], policy: .byLeg, legKrw: [500, 500]), [1000])
        XCTAssertThrowsError(try FareSplit.split(totalKrw: 1000, riders: [SplitRider(lastLeg: 2)], policy: .byLeg, legKrw: [500, 500]))
        XCTAssertThrowsError(try FareSplit.split(totalKrw: 1000, riders: [SplitRider()], policy: .byLeg, legKrw: []))
    }

    /// A leg with nobody aboard (everyone listed gets off before the destination) is the host's:
    /// the host (rider 0) takes it whole, and the legs shared before are split as usual.
    func testByLegLegWithNobodyAboardIsTheHosts() throws {
        // Host gets off after leg 0, rider 1 after leg 1; leg 2 has nobody: the host's.
        let riders = [SplitRider(count: 1, lastLeg: 0), SplitRider(count: 1, lastLeg: 1)]
        XCTAssertEqual(try FareSplit.split(totalKrw: 9000, riders: riders, policy: .byLeg, legKrw: [4000, 2000, 3000]), [5000, 4000])
        // The same when the host is a group of 2: each of its persons carries half of leg 2.
        let group = [SplitRider(count: 2, lastLeg: 0), SplitRider(count: 1, lastLeg: 0)]
        XCTAssertEqual(try FareSplit.split(totalKrw: 6000, riders: group, policy: .byLeg, legKrw: [3000, 3000]), [5000, 1000])
    }

    /// One share per person: a group's persons are each rounded like anyone else's share, so a
    /// group of 2 pays two persons' shares of whole units, not one share rounded once for the
    /// group (which would make its persons pay 145 won each here).
    func testOneSharePerPersonForGroups() throws {
        // 1,010 won, 7 persons: 14 units each and 3 left over, for the host and the group's two
        // persons (next in order): 150, 150 + 150, then 140 each. Rounded once for the group,
        // it would pay 290 (⌊20.2 units⌋ + 1) and rider 2 one unit more.
        let riders = [SplitRider(count: 1), SplitRider(count: 2)] + Array(repeating: SplitRider(count: 1), count: 4)
        let want = [150, 300, 140, 140, 140, 140]
        XCTAssertEqual(try FareSplit.split(totalKrw: 1010, riders: riders, policy: .equal), want)
        XCTAssertEqual(try FareSplit.split(totalKrw: 1010, riders: riders, policy: .byLeg, legKrw: [1010]), want)
        let proportional = riders.map { SplitRider(count: $0.count, soloFareKrw: 5000) }
        XCTAssertEqual(try FareSplit.split(totalKrw: 1010, riders: proportional, policy: .proportional), want)
    }

    /// Leftover units go to the host first, then in the order riders get off (`lastLeg`), not
    /// in the order they are listed.
    func testLeftoverUnitsGoHostFirstThenInDropOffOrder() throws {
        // 10,010 won, 3 persons: 333 units each and 2 left over: the host, then rider 2 (off first).
        let riders = [SplitRider(count: 1, lastLeg: 2), SplitRider(count: 1, lastLeg: 1), SplitRider(count: 1, lastLeg: 0)]
        XCTAssertEqual(try FareSplit.split(totalKrw: 10_010, riders: riders, policy: .equal), [3340, 3330, 3340])
        // At one stop, in rider order.
        let sameStop = [SplitRider(count: 1, lastLeg: 1), SplitRider(count: 1, lastLeg: 0), SplitRider(count: 1, lastLeg: 0)]
        XCTAssertEqual(try FareSplit.split(totalKrw: 10_010, riders: sameStop, policy: .equal), [3340, 3340, 3330])
        // Proportional: equal remainders in the same order.
        let same = riders.map { SplitRider(count: 1, lastLeg: $0.lastLeg, soloFareKrw: 3000) }
        XCTAssertEqual(try FareSplit.split(totalKrw: 10_010, riders: same, policy: .proportional), [3340, 3330, 3340])
    }

    func testProportionalUsesLargestRemainder() throws {
        let riders = [SplitRider(soloFareKrw: 10_000), SplitRider(soloFareKrw: 5_000)]
        XCTAssertEqual(try FareSplit.split(totalKrw: 12_000, riders: riders, policy: .proportional), [8000, 4000])
        // 1,000 won in the ratio 1 : 2 is 333.3 : 666.7 — the larger remainder (rider 1) gets the last 10 won.
        let uneven = [SplitRider(soloFareKrw: 4800), SplitRider(soloFareKrw: 9600)]
        XCTAssertEqual(try FareSplit.split(totalKrw: 1000, riders: uneven, policy: .proportional), [330, 670])
        // Equal remainders: host first.
        let same = [SplitRider](repeating: SplitRider(soloFareKrw: 3000), count: 3)
        XCTAssertEqual(try FareSplit.split(totalKrw: 10_000, riders: same, policy: .proportional), [3340, 3330, 3330])
    }

    func testRefusedSplits() {
        XCTAssertThrowsError(try FareSplit.split(totalKrw: 1000, riders: [], policy: .equal))
        XCTAssertThrowsError(try FareSplit.split(totalKrw: 1000, riders: [SplitRider(count: 0)], policy: .equal))
        XCTAssertThrowsError(try FareSplit.split(totalKrw: 1000, riders: [SplitRider(count: 21)], policy: .equal))
        XCTAssertThrowsError(try FareSplit.split(totalKrw: -1, riders: [SplitRider()], policy: .equal))
        XCTAssertThrowsError(try FareSplit.split(totalKrw: 1000, riders: [SplitRider()], policy: .equal, roundingKrw: 0))
        XCTAssertThrowsError(try FareSplit.split(totalKrw: 1000, riders: [SplitRider(soloFareKrw: -5)], policy: .proportional))
    }

    /// 1,000 random pooled rides along one road (the drop-offs in order, no detour), each split
    /// with every policy: shares sum exactly to the total, none is negative, all but the host's
    /// are whole units, and under `by_leg` and `proportional` nobody pays more per person than
    /// their solo fare (by_leg: not even per group).
    func testPropertiesOverAThousandRandomPooledRides() throws {
        var rng = SplitMix64(seed: 2024)
        let schedules = FareData.book.schedules
        var checked = 0
        for ride in 0..<1000 {
            let schedule = schedules.randomElement(using: &rng)!
            let meter = FareMeter(schedule: schedule)
            let legs = Int.random(in: 1...4, using: &rng)
            var trip = [TripSegment]()
            for leg in 0..<legs {
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    let d = Double.random(in: 100...6000, using: &rng)
                    let t = d / Double.random(in: 2...15, using: &rng)
                    trip.append(TripSegment(distanceM: d, durationS: t, slowS: t * Double.random(in: 0...0.9, using: &rng),
                                            outOfCity: Int.random(in: 0..<6, using: &rng) == 0, leg: leg))
                }
            }
            // Groups: one gets off at the end of every leg (the host's group at the destination), some extra.
            var lastLegs = Array(0..<legs)
            for _ in 0..<Int.random(in: 0...2, using: &rng) { lastLegs.append(Int.random(in: 0..<legs, using: &rng)) }
            lastLegs.shuffle(using: &rng)
            if let i = lastLegs.firstIndex(of: legs - 1) { lastLegs.swapAt(0, i) }  // rider 0 (host) rides to the end
            var persons = 0
            var riders = [SplitRider]()
            for leg in lastLegs where persons < 10 {
                let count = min(Int.random(in: 1...3, using: &rng), 10 - persons)
                persons += count
                let solo = try meter.run(trip.filter { $0.leg <= leg }, departure: 0).totalKrw
                riders.append(SplitRider(count: count, lastLeg: leg, soloFareKrw: solo))
            }
            let start = Double.random(in: schedule.effectiveFrom...(schedule.effectiveFrom + 365 * 86_400), using: &rng)
            let fare = try meter.run(trip, departure: start)
            // Solo fares at the same departure (the line above used a placeholder instant).
            for i in riders.indices {
                riders[i].soloFareKrw = try meter.run(trip.filter { $0.leg <= riders[i].lastLeg }, departure: start).totalKrw
            }
            XCTAssertEqual(riders[0].soloFareKrw, fare.totalKrw, "ride \(ride): the host's solo route is the pooled route")
            for policy in SplitPolicy.allCases {
                let unit = Bool.random(using: &rng) ? 10 : 100
                let shares = try FareSplit.split(totalKrw: fare.totalKrw, riders: riders, policy: policy, roundingKrw: unit,
                                                 legKrw: fare.legKrw)
                let label = "ride \(ride) \(policy) unit \(unit) riders \(riders) legs \(fare.legKrw) shares \(shares)"
                XCTAssertEqual(shares.count, riders.count, label)
                XCTAssertEqual(shares.reduce(0, +), fare.totalKrw, label)
                XCTAssertTrue(shares.allSatisfy { $0 >= 0 }, label)
                XCTAssertTrue(shares.dropFirst().allSatisfy { $0 % unit == 0 }, label)
                if policy != .equal {
                    for (r, share) in zip(riders, shares) {
                        XCTAssertLessThanOrEqual(share, r.count * r.soloFareKrw, label)
                        if policy == .byLeg { XCTAssertLessThanOrEqual(share, r.soloFareKrw, label) }
                    }
                }
                checked += 1
            }
        }
        XCTAssertEqual(checked, 3000)
    }
}

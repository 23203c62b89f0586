import Foundation
import MapMatching
import TaxiPot
import TaxiPotServer
import TestSupport
import XCTest

/// Settling a party's fare from its GPS trace (issue 38 part 2) on the Seoul dataset.
final class SettlementTests: XCTestCase {
    static let context: Result<ServiceContext, Error> = Result { try TestDataset.context() }
    // A weekday 10:00 in Seoul.
    static let departAt = 1_764_637_200.0
    var departAt: Double { Self.departAt }
    // City Hall → Gwanghwamun (rider a) → Jongno 3-ga (rider b, the destination).
    static let origin = Coordinate(lon: 126.9780, lat: 37.5665)
    var origin: Coordinate { Self.origin }
    static let stop = Coordinate(lon: 126.9769, lat: 37.5759)
    var stop: Coordinate { Self.stop }
    static let destination = Coordinate(lon: 126.9882, lat: 37.5701)
    var destination: Coordinate { Self.destination }

    /// The party settled here (also `PartySettlerTests`'): `id`, departing at `departAt`.
    static func party(id: String = "settle-1") -> Party {
        Party(id: id, origin: origin, destination: destination, departAt: departAt, seatsTotal: 4,
              riders: [PartyRider(id: "b", seats: 1), PartyRider(id: "a", seats: 2, dropOff: stop)])
    }

    var party: Party { Self.party() }

    func quoted(_ split: SplitPolicy = .byLeg) throws -> PricedRide {
        try RidePricer(quotes: try Self.context.get().quotes).price(PartyRide(party: party, order: [1]), split: split)
    }

    func settler() throws -> Settler { Settler(pricer: RidePricer(quotes: try Self.context.get().quotes)) }

    /// A clean 1 Hz trace of the quoted route settles to the quote's fare to the won, and to the
    /// quote's shares.
    func testCleanTraceOfTheQuotedRouteSettlesToTheQuote() throws {
        for split in [SplitPolicy.byLeg, .equal] {
            let quote = try quoted(split)
            let trace = SyntheticTrace.make(quote.route, intervalSeconds: 1, noiseMeters: 0, start: departAt, seed: 5)
            let s = try settler().settle(party, SettleInput(trace: trace, split: split))
            XCTAssertEqual(s.fare.totalKrw, quote.fare.totalKrw, "\(split)")
            XCTAssertEqual(s.distanceMeters, quote.route.distanceMeters, accuracy: 5)
            XCTAssertEqual(s.riders.map(\.id), quote.shares.map(\.riderID))
            XCTAssertEqual(s.riders.map(\.meteredKrw), quote.shares.map(\.krw), "\(split)")
            XCTAssertEqual(s.riders.first { $0.id == "a" }?.stop, 0)
            XCTAssertNil(s.differenceKrw)
        }
    }

    /// With the meter's total, the shares sum to it exactly and the difference is reported.
    func testMeterTotalScalesSharesExactly() throws {
        let quote = try quoted()
        let trace = SyntheticTrace.make(quote.route, intervalSeconds: 5, noiseMeters: 8, start: departAt, seed: 6)
        let meter = quote.fare.totalKrw + 1_230
        let s = try settler().settle(party, SettleInput(trace: trace, meterTotalKrw: meter))
        XCTAssertEqual(s.riders.reduce(0) { $0 + $1.settledKrw }, meter)
        XCTAssertEqual(s.riders.reduce(0) { $0 + $1.meteredKrw }, s.fare.totalKrw)
        XCTAssertEqual(s.differenceKrw, meter - s.fare.totalKrw)
        // Same trace, same answer.
        let again = try settler().settle(party, SettleInput(trace: trace, meterTotalKrw: meter))
        XCTAssertEqual(again.riders, s.riders)
    }

    /// Drop-offs by time and by point move the stop; an unknown rider is an error.
    func testDropOffEvidence() throws {
        let quote = try quoted()
        let trace = SyntheticTrace.make(quote.route, intervalSeconds: 2, noiseMeters: 3, start: departAt, seed: 7)
        let mid = trace[trace.count / 2]
        let byTime = try settler().settle(party, SettleInput(trace: trace, dropOffs: ["a": .time(mid.time!)]))
        XCTAssertEqual(byTime.riders.first { $0.id == "a" }?.fixIndex, trace.count / 2)
        let byPoint = try settler().settle(party, SettleInput(trace: trace, dropOffs: ["a": .point(mid.coordinate)]))
        XCTAssertEqual(Double(byPoint.riders.first { $0.id == "a" }?.fixIndex ?? 0), Double(trace.count / 2), accuracy: 3)
        XCTAssertThrowsError(try settler().settle(party, SettleInput(trace: trace, dropOffs: ["zz": .detect])))
    }

    /// The plausibility rules (docs/FARES.md): a lone fix jumping far from both neighbours is
    /// tolerated and reported; a trace that does not move, or whose times lie outside the ride's
    /// window, is refused naming the fix.
    func testPlausibilityRulesOnTheQuotedTrace() throws {
        let quote = try quoted()
        var trace = SyntheticTrace.make(quote.route, intervalSeconds: 1, noiseMeters: 0, start: departAt, seed: 5)
        let k = trace.count / 3
        trace[k].coordinate = trace[k].coordinate.offset(eastMeters: 3000, northMeters: 0)
        let s = try settler().settle(party, SettleInput(trace: trace))
        XCTAssertEqual(s.reading.outliers, [k])
        XCTAssertEqual(s.distanceMeters, quote.route.distanceMeters, accuracy: 50)
        func refusal(_ t: [TraceFix]) -> (fix: Int, reason: String)? {
            do { _ = try settler().settle(party, SettleInput(trace: t)); return nil } catch {
                if case .implausible(let fix, let reason) = error as? SettlementError { return (fix, reason) }
                return (-1, "\(error)")
            }
        }
        let still = [TraceFix(origin, time: departAt), TraceFix(origin, time: departAt + 10)]
        XCTAssertEqual(refusal(still)?.fix, 1)
        var late = trace
        late[5].time = 1e300
        XCTAssertEqual(refusal(late)?.fix, 5)
        let early = trace.map { TraceFix($0.coordinate, time: $0.time! - 2 * TracePlausibility.earlySlackSeconds, accuracyMeters: $0.accuracyMeters) }
        XCTAssertEqual(refusal(early)?.fix, 0)
        var jump = trace
        for i in k..<(k + 5) { jump[i].coordinate = jump[i].coordinate.offset(eastMeters: 3000, northMeters: 0) }
        XCTAssertEqual(refusal(jump)?.fix, k, "a sustained jump is refused where it starts")
    }
}

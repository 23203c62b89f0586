import Foundation
import MapMatching
import TaxiPot
import TaxiPotServer
import TestSupport
import XCTest

/// Issue 43 item 5: a party whose quoted route drives out to a rider's drop-off and turns back
/// the way it came. Its trace at the quoted speeds settles to the quote to the won.
final class OutAndBackSettlementTests: XCTestCase {
    static let context: Result<ServiceContext, Error> = Result { try TestDataset.context() }
    let departAt = 1_764_637_200.0

    /// Parties (origin, destination, rider a's drop-off) drawn from the network's junctions whose
    /// quoted route turns back at the drop-off (seed 43 of a search over random junctions).
    let parties: [(Coordinate, Coordinate, Coordinate)] = [
        (Coordinate(lon: 126.9592943, lat: 37.5604935), Coordinate(lon: 126.9760108, lat: 37.5509252), Coordinate(lon: 126.9640432, lat: 37.5671244)),
        (Coordinate(lon: 126.9732578, lat: 37.5628155), Coordinate(lon: 126.9998982, lat: 37.565972), Coordinate(lon: 126.986533, lat: 37.558058)),
        (Coordinate(lon: 126.9734311, lat: 37.5599944), Coordinate(lon: 126.9881894, lat: 37.5596994), Coordinate(lon: 126.9746049, lat: 37.5478015)),
    ]

    /// Metres the route retraces where leg `k` ends (leg k + 1 starting back along it).
    static func retraced(_ route: RouteResult, atLeg k: Int) -> Double {
        let a = route.segments.filter { $0.legIndex == k }, b = route.segments.filter { $0.legIndex == k + 1 }
        var i = a.count - 1, j = 0, m = 0.0
        while i >= 0, j < b.count, a[i].start.distance(to: b[j].end) < 1, a[i].end.distance(to: b[j].start) < 1 {
            m += a[i].distanceMeters
            i -= 1
            j += 1
        }
        return m
    }

    /// Every fix 1 s or 5 s, with the fixes' accuracy (1 m) or without (σ 10 m assumed: the
    /// fixes are averaged and thinned), with and without the drop-off's point: the settled
    /// distance is the quote's to the metre and the fare the quote's to the won. The old
    /// matcher ended the out-and-back at the fixes nearest the turn (7–64 m, up to 200 won, short).
    func testOutAndBackToADropOffSettlesToTheQuote() throws {
        let pricer = RidePricer(quotes: try Self.context.get().quotes)
        for (n, (origin, destination, stop)) in parties.enumerated() {
            let party = Party(id: "oab-\(n)", origin: origin, destination: destination, departAt: departAt, seatsTotal: 4,
                              riders: [PartyRider(id: "b", seats: 1), PartyRider(id: "a", seats: 1, dropOff: stop)])
            let quote = try pricer.price(PartyRide(party: party, order: [1]), split: .byLeg)
            XCTAssertGreaterThan(Self.retraced(quote.route, atLeg: 0), 40, "party \(n): the quoted route turns back at the drop-off")
            for (interval, accuracy, evidence) in [(1.0, true, false), (1.0, false, false), (1.0, true, true), (5.0, false, true)] {
                var trace = SyntheticTrace.make(quote.route, intervalSeconds: interval, noiseMeters: 0, start: departAt, seed: 5)
                if !accuracy { for i in trace.indices { trace[i].accuracyMeters = nil } }
                let s = try Settler(pricer: pricer).settle(party, SettleInput(trace: trace, dropOffs: evidence ? ["a": .point(stop)] : [:]))
                let label = "party \(n), every \(interval) s, accuracy \(accuracy), drop-off point \(evidence)"
                XCTAssertEqual(s.distanceMeters, quote.route.distanceMeters, accuracy: 1, label)
                XCTAssertEqual(s.fare.totalKrw, quote.fare.totalKrw, label)
                XCTAssertEqual(s.riders.map(\.meteredKrw), quote.shares.map(\.krw), label)
            }
        }
    }
}

import Foundation
import MapMatching
import TaxiPot
import TaxiPotServer
import TestSupport
import XCTest

/// Settling a stored party once (`PartySettler`, the domain's workflow without HTTP): stored
/// only if the party is unchanged (computed again from the changed party, a bounded number of
/// times), replayed for its key, refused for another; on the Seoul dataset.
final class PartySettlerTests: XCTestCase {
    static let context: Result<ServiceContext, Error> = Result { try TestDataset.context() }
    // SettlementTests' party (City Hall → Jongno 3-ga, a weekday 10:00); the clock stands ten minutes before.
    let departAt = SettlementTests.departAt

    /// A party service of its own (a fresh state folder, the clock before departure), a settler
    /// over it, and the party stored.
    func setUp(_ name: String) throws -> (PartyService, PartySettler, [TraceFix]) {
        let now = departAt - 600
        let parties = try PartyService(stateDirectory: TestPaths.temporaryDirectory("settler-\(name)").path, now: { now })
        addTeardownBlock { _ = try? parties.close(backup: false) }
        let party = SettlementTests.party(id: "p")
        _ = try parties.save(party)
        let pricer = try Self.context.get().pooling.pricer
        let route = try pricer.price(PartyRide(party: party, order: [1]), split: .byLeg).route
        let trace = SyntheticTrace.make(route, intervalSeconds: 5, noiseMeters: 3, start: departAt, seed: 11)
        return (parties, PartySettler(parties: parties, pricer: pricer), trace)
    }

    func request(_ trace: [TraceFix], key: String = "k1", earlierKey: String? = nil) -> SettleRequest {
        SettleRequest(partyID: "p", key: key, earlierKey: earlierKey, input: SettleInput(trace: trace, meterTotalKrw: 9900),
                      members: ["trace", "meter_total_krw", "idempotency_key"], keyFrom: "body")
    }

    func ride(_ r: SettleResult) throws -> SettledRide {
        guard case .ride(let ride) = r.record else { throw NotARide(record: r.record) }
        return ride
    }

    /// Settled once: the ride is what `Settler` computes, stored in the party's row; the same
    /// key (or the earlier build's key of the same trace) replays it, another key is refused.
    func testSettlesOnceAndReplaysByKey() throws {
        let (parties, settler, trace) = try setUp("once")
        let first = try settler.settle(request(trace))
        XCTAssertFalse(first.replayed)
        let computed = try settler.settler.settle(try XCTUnwrap(parties.kept(id: "p")), SettleInput(trace: trace, meterTotalKrw: 9900))
        XCTAssertEqual(try ride(first), SettledRide(computed, trace: trace, members: ["trace", "meter_total_krw", "idempotency_key"], keyFrom: "body"))
        XCTAssertEqual(try ride(first).riders.reduce(0) { $0 + $1.settledKrw }, 9900)
        XCTAssertEqual(try parties.kept(id: "p")?.settlement, PartySettlement(key: "k1", record: first.record))

        let again = try settler.settle(request(trace))
        XCTAssertTrue(again.replayed)
        XCTAssertEqual(again.record, first.record)
        // The replay is the stored ride, not one computed again: a request reading other members still gets the first reading.
        var other = request(trace)
        other.members = ["trace"]
        XCTAssertEqual(try ride(try settler.settle(other)).reading.members, ["trace", "meter_total_krw", "idempotency_key"])
        XCTAssertEqual(try settler.settle(request(trace, key: "trace:new", earlierKey: "k1")).record, first.record)
        XCTAssertThrowsError(try settler.settle(request(trace, key: "k2"))) { e in
            guard case PartySettleError.settledUnderAnotherKey(partyID: "p") = e else { return XCTFail("\(e)") }
        }
    }

    /// A rider who joins between the settlement's computation and its storing: the party is not
    /// settled from the old state but computed again from the new one (the joiner gets a share).
    func testAPartyChangedMeanwhileIsSettledFromWhatItIsNow() throws {
        let (parties, made, trace) = try setUp("changed")
        var settler = made
        let attempts = SettleAttempts()
        settler.beforeStoring = { attempt in
            attempts.add()
            if attempt == 0 { _ = try? parties.join(partyID: "p", rider: PartyRider(id: "c", seats: 1)) }
        }
        let result = try settler.settle(request(trace))
        XCTAssertEqual(attempts.value, 2)
        XCTAssertFalse(result.replayed)
        XCTAssertEqual(try ride(result).riders.map(\.id).sorted(), ["a", "b", "c"])
        XCTAssertEqual(try parties.kept(id: "p")?.settlement?.record, result.record)
    }

    /// A party that changes every time is not settled: after `attempts` computations the
    /// request is refused (retry), and the party stays open.
    func testAPartyThatKeepsChangingIsRefusedAfterTheAttempts() throws {
        let (parties, made, trace) = try setUp("changing")
        var settler = made
        let attempts = SettleAttempts()
        settler.beforeStoring = { attempt in
            attempts.add()
            // A rider joins, then leaves, then joins again: a change every time.
            if attempt % 2 == 0 {
                _ = try? parties.join(partyID: "p", rider: PartyRider(id: "c", seats: 1))
            } else {
                _ = try? parties.leave(partyID: "p", riderID: "c")
            }
        }
        XCTAssertThrowsError(try settler.settle(request(trace))) { e in
            guard case PartySettleError.keptChanging(partyID: "p") = e else { return XCTFail("\(e)") }
        }
        XCTAssertEqual(attempts.value, PartySettler.attempts)
        XCTAssertEqual(parties.party(id: "p")?.isSettled, false)
    }

    /// Settled by another request (another replica) between computation and storing: the
    /// same key answers that settlement, another key is refused.
    func testSettledMeanwhileIsReplayedForItsKeyOnly() throws {
        for (key, replays) in [("k1", true), ("k9", false)] {
            let (parties, made, trace) = try setUp("race-\(key)")
            var settler = made
            let theirs = PartySettlement(key: key, record: .earlierAnswer(#"{"by":"the other replica"}"#))
            settler.beforeStoring = { _ in
                if let p = try? parties.kept(id: "p") { _ = try? parties.settle(partyID: "p", computedFrom: p, settlement: theirs) }
            }
            if replays {
                let result = try settler.settle(request(trace))
                XCTAssertTrue(result.replayed)
                XCTAssertEqual(result.record, theirs.record)
            } else {
                XCTAssertThrowsError(try settler.settle(request(trace))) { e in
                    guard case PartySettleError.settledUnderAnotherKey = e else { return XCTFail("\(e)") }
                }
            }
            XCTAssertEqual(try parties.kept(id: "p")?.settlement, theirs)
        }
    }

    /// The party's and the trace's own errors come back as domain errors: a party not kept,
    /// a rider the party does not list.
    func testErrorsAreDomainErrors() throws {
        let (_, settler, trace) = try setUp("errors")
        var missing = request(trace)
        missing.partyID = "nobody"
        XCTAssertThrowsError(try settler.settle(missing)) { e in
            guard case PartySettleError.party(let p) = e, p as? PartyWriteError == .notFound(id: "nobody") else { return XCTFail("\(e)") }
        }
        var unknown = request(trace)
        unknown.input.dropOffs = ["zz": .detect]
        XCTAssertThrowsError(try settler.settle(unknown)) { e in
            guard case PartySettleError.settlement(.unknownRider("zz")) = e else { return XCTFail("\(e)") }
        }
    }
}

struct NotARide: Error {
    let record: PartySettlement.Record
}

/// A count shared with a `@Sendable` hook.
final class SettleAttempts: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}

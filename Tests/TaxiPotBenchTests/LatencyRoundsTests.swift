import Foundation
import XCTest

@testable import TaxiPotBench

/// The bench's latency helper: a failed call is counted and never inside a percentile, and the
/// warm-up runs on its own inputs, never on the timed ones.
final class LatencyRoundsTests: XCTestCase {
    func testFailedCallsAreLeftOutOfThePercentiles() {
        var pass = PassLatencies()
        for micros in [900.0, 1000, 1100] { pass.add(micros, ok: true) }
        for _ in 0..<7 { pass.add(1, ok: false) }  // failures that returned early
        XCTAssertEqual(pass.percentile(50), 1000)
        XCTAssertEqual(pass.percentile(99), 1100)
        XCTAssertEqual(pass.failures, 7)
    }

    func testAPassWithNoSuccessHasNoFigure() {
        var pass = PassLatencies()
        pass.add(5, ok: false)
        XCTAssertTrue(pass.percentile(50).isNaN)
        XCTAssertEqual(pass.failures, 1)
    }

    func testLatencyRoundsTimeOnlyTheCallsThatSucceed() {
        // One item in four succeeds after 2 ms; the others fail at once. With the failures inside,
        // the p50 would be a failure's few microseconds.
        let rounds = latencyRounds(Array(0..<20), rounds: 2) { i -> Bool in
            guard i % 4 == 0 else { return false }
            usleep(2000)
            return true
        }
        XCTAssertEqual(rounds.failures, 2 * 15)
        XCTAssertEqual(rounds.p50.count, 2)
        for p50 in rounds.p50 { XCTAssertGreaterThanOrEqual(p50, 2000) }
    }

    func testTheWarmUpRunsOnItsOwnInputsBeforeTheTimedOnes() {
        var seen: [String] = []
        _ = latencyRounds(["a", "b"], rounds: 1, warmup: ["w1", "w2"]) { item -> Bool in
            seen.append(item)
            return true
        }
        XCTAssertEqual(seen, ["w1", "w2", "a", "b"])
    }

    func testEachRoundOfClusterViewportsIsItsOwnBlock() {
        let blocks = ClustersBench.roundBlocks(Array(0..<10), rounds: 5, blocks: 5)
        XCTAssertEqual(blocks.map { Array($0) }, [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]])
        XCTAssertEqual(Set(blocks.flatMap { $0 }).count, 10, "no viewport is timed twice")
    }
}

import XCTest
@testable import HTTPServer

/// `ThreadUsage`: what tells a slow inline handler from one preempted on a busy machine.
final class ThreadUsageTests: XCTestCase {
    func testCPUTimeGrowsWithWorkAndASleepIsAVoluntarySwitch() {
        let start = ThreadUsage.now()
        let end = DispatchTime.now().uptimeNanoseconds + 30_000_000
        var x = 0
        while DispatchTime.now().uptimeNanoseconds < end { x &+= 1 }
        XCTAssertGreaterThan(x, 0)
        let spun = ThreadUsage.now()
        // 30 ms of spinning: at least 10 ms of CPU even on a crowded machine.
        XCTAssertGreaterThan(spun.cpuNanos - start.cpuNanos, 10_000_000)
        usleep(5_000)
        let slept = ThreadUsage.now()
        XCTAssertGreaterThan(slept.voluntarySwitches, spun.voluntarySwitches)
        // A sleep costs (almost) no CPU.
        XCTAssertLessThan(slept.cpuNanos - spun.cpuNanos, 4_000_000)
    }

    func testOnlyCPUOrBlockingOverTheBudgetCounts() {
        let start = ThreadUsage(cpuNanos: 1_000_000_000, voluntarySwitches: 7)
        let ms: UInt64 = 1_000_000
        // Preempted: 5 ms of wall time, 0.2 ms of CPU, no voluntary switch.
        XCTAssertFalse(ThreadUsage(cpuNanos: start.cpuNanos + ms / 5, voluntarySwitches: 7)
            .isOverBudget(since: start, wallNanos: 5 * ms, budgetSeconds: 0.001))
        // Blocked: 5 ms of wall time with a voluntary switch.
        XCTAssertTrue(ThreadUsage(cpuNanos: start.cpuNanos + ms / 5, voluntarySwitches: 8)
            .isOverBudget(since: start, wallNanos: 5 * ms, budgetSeconds: 0.001))
        // Busy: 2 ms of CPU.
        XCTAssertTrue(ThreadUsage(cpuNanos: start.cpuNanos + 2 * ms, voluntarySwitches: 7)
            .isOverBudget(since: start, wallNanos: 2 * ms, budgetSeconds: 0.001))
        // Within the budget, even with a short wait.
        XCTAssertFalse(ThreadUsage(cpuNanos: start.cpuNanos + ms / 2, voluntarySwitches: 8)
            .isOverBudget(since: start, wallNanos: ms / 2, budgetSeconds: 0.001))
    }
}

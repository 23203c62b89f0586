import Foundation
@testable import HTTPServer
import XCTest

/// The worker pool lets go of what a finished job captured (a table request's body and answer
/// are megabytes): before issue 32 the queue kept its last 1,024 jobs, so a burst of tables held
/// about 12 MB each after they were answered.
final class WorkerPoolTests: XCTestCase {
    final class Payload: @unchecked Sendable {
        let bytes = [UInt8](repeating: 1, count: 1 << 20)
    }

    func testAFinishedJobsCapturesAreFreed() {
        let pool = WorkerPool(threads: 1, queueCapacity: 8)
        defer { pool.shutdown() }
        weak var watched: Payload?
        let done = DispatchSemaphore(value: 0)
        do {
            let payload = Payload()
            watched = payload
            XCTAssertTrue(pool.submit {
                XCTAssertEqual(payload.bytes.count, 1 << 20)
                return { done.signal() }
            })
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        // The worker drops its references right after the hand-back; give it a moment.
        let deadline = Date().addingTimeInterval(5)
        while watched != nil && Date() < deadline { usleep(1000) }
        XCTAssertNil(watched, "the pool still holds a finished job's captures")
    }
}

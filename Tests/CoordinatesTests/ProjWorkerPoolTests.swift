@testable import Coordinates
import Dispatch
import Foundation
import XCTest

/// PROJ workers are made on demand, except for short calls, which wait for a busy one.
final class ProjWorkerPoolTests: XCTestCase {
    func testShortCallsShareTheWorkersThereAre() throws {
        let t = try CoordinateTransformer(from: "WGS84", to: "UTMK")
        let pool = t.pool
        XCTAssertEqual(pool.workerCount, 1, "the transformer's first worker")
        // Many threads at once, each holding the worker a while: still one worker.
        let answers = LockedList()
        DispatchQueue.concurrentPerform(iterations: 8) { k in
            for i in 0..<20 {
                var x = 126.9 + Double(k) * 0.01, y = 37.5 + Double(i) * 0.01
                _ = try? pool.withSharedWorker { worker in
                    usleep(200)
                    worker.transformWithPROJ(x: &x, y: &y, stride: 1, count: 1)
                }
                answers.append(x, y)
            }
        }
        XCTAssertEqual(pool.workerCount, 1)
        XCTAssertEqual(pool.idleCount, 1)
        XCTAssertEqual(answers.count, 160)
        XCTAssertTrue(answers.allInUTMKRange, "every call converted its point")
        // A call that may not wait makes another worker when the first is busy.
        try pool.withWorker { _ in
            _ = try? pool.withWorker { _ in }
        }
        XCTAssertEqual(pool.workerCount, 2)
        XCTAssertEqual(pool.idleCount, 2)
    }

    func testRoundingTiesUseOneWorker() throws {
        // Plain lines through the CSV fast path on all cores: near-tie points go back to PROJ,
        // in the shared worker.
        let t = try CoordinateTransformer(from: "WGS84", to: "UTMK")
        let (xs, ys) = SeoulPoints.random(count: 200_000, seed: 3)
        var text = ""
        for i in 0..<xs.count { text += "\(xs[i]),\(ys[i])\n" }
        let input = Array(text.utf8)
        var options = CSVTransformOptions()
        options.blockBytes = 256 << 10
        var lines = 0
        let summary = try CSVCoordinateTransform(transformer: t, options: options).run(
            read: memoryReader(input),
            write: { lines += $0.count(where: { $0 == 10 }) },
            report: { XCTFail($0) })
        XCTAssertEqual(summary.converted, 200_000)
        XCTAssertEqual(lines, 200_000)
        XCTAssertEqual(t.pool.workerCount, 1, "no worker made for a few points")
        // The run had ties to settle: points printed within the guard band of a rounding boundary.
        let ties = RoundingTies(transformer: t, decimals: 3)
        var px = xs, py = ys
        try t.transform(xs: &px, ys: &py)
        func near(_ v: Double) -> Bool {
            let p = abs(v * ties.scale)
            return abs(p - p.rounded(.down) - 0.5) < ties.band
        }
        XCTAssertGreaterThan(zip(px, py).filter { near($0.0) || near($0.1) }.count, 10)
    }
}

/// Converted points gathered from many threads.
private final class LockedList: @unchecked Sendable {
    private let lock = NSLock()
    private var points: [(Double, Double)] = []

    func append(_ x: Double, _ y: Double) {
        lock.lock()
        points.append((x, y))
        lock.unlock()
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return points.count
    }

    /// UTM-K eastings and northings of central Korea.
    var allInUTMKRange: Bool {
        lock.lock()
        defer { lock.unlock() }
        return points.allSatisfy { $0.0 > 900_000 && $0.0 < 1_000_000 && $0.1 > 1_900_000 && $0.1 < 2_000_000 }
    }
}

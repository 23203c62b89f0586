import Pooling
import XCTest

/// `StopOrder.best` against every permutation, on random asymmetric duration matrices.
final class StopOrderTests: XCTestCase {
    func testExactOrderEqualsEveryPermutation() {
        var rng = SystemRandomNumberGenerator()
        for k in 0...6 {
            for _ in 0..<20 {
                let n = k + 2
                var cost = [[Double?]](repeating: [Double?](repeating: nil, count: n), count: n)
                for i in 0..<n { for j in 0..<n where i != j { cost[i][j] = Bool.random(using: &rng) && k > 2 && Int.random(in: 0..<10, using: &rng) == 0 ? nil : Double(Int.random(in: 10_000...900_000, using: &rng)) / 1000 } }  // whole ms, as routes carry
                var best = Double.infinity
                func visit(_ prefix: [Int], _ rest: [Int]) {
                    if rest.isEmpty {
                        var t = 0.0, prev = 0
                        for s in prefix + [n - 1] { t += cost[prev][s] ?? .infinity; prev = s }
                        best = min(best, t)
                        return
                    }
                    for (i, s) in rest.enumerated() { var r = rest; r.remove(at: i); visit(prefix + [s], r) }
                }
                visit([], Array(1...max(1, k)).filter { _ in k > 0 })
                let got = StopOrder.best(cost)
                if best.isFinite {
                    guard let got else { return XCTFail("k=\(k): no order found, best \(best)") }
                    XCTAssertEqual(got.total, best, accuracy: 1e-9, "k=\(k)")
                    XCTAssertEqual(got.order.sorted(), Array(0..<k).map { $0 + 1 })
                    var t = 0.0, prev = 0
                    for s in got.order + [n - 1] { t += cost[prev][s]!; prev = s }
                    XCTAssertEqual(t, got.total, accuracy: 1e-9)
                } else {
                    XCTAssertNil(got, "k=\(k)")
                }
            }
        }
    }

    /// Orders of equal time: the first in lexicographic order of the drop-off indices (rider
    /// order), whatever order the search meets them in, and sums compared in whole milliseconds
    /// (0.1 + 0.2 and 0.3 are one time).
    func testEqualTimeOrdersBreakTiesByRiderOrder() {
        // Origin 0, drop-offs 1 and 2, destination 3: 0→1→2→3 and 0→2→1→3 both take 300 s.
        var cost: [[Double?]] = [[nil, 100, 100, nil], [nil, nil, 100, 100], [nil, 100, nil, 100], [nil, nil, nil, nil]]
        XCTAssertEqual(StopOrder.best(cost)?.order, [1, 2])
        XCTAssertEqual(StopOrder.best(cost)?.total, 300)
        // Float sums of one time in different orders: 0.1 + 0.2 (≠ 0.3 in binary) against 0.3.
        cost = [[nil, 0.1, 0.3, nil], [nil, nil, 0.2, 0.0], [nil, 0.0, nil, 0.0], [nil, nil, nil, nil]]
        XCTAssertEqual(StopOrder.best(cost)?.order, [1, 2])
        cost = [[nil, 0.3, 0.1, nil], [nil, nil, 0.0, 0.0], [nil, 0.2, nil, 0.0], [nil, nil, nil, nil]]
        XCTAssertEqual(StopOrder.best(cost)?.order, [1, 2])
        // Four drop-offs, every order of equal time: 1, 2, 3, 4.
        let flat: [[Double?]] = (0..<6).map { i in (0..<6).map { j in i == j || j == 0 || i == 5 ? nil : 60 } }
        XCTAssertEqual(StopOrder.best(flat)?.order, [1, 2, 3, 4])
        // A strictly shorter order still wins over the first one.
        cost = [[nil, 100, 100, nil], [nil, nil, 100, 100], [nil, 99.999, nil, 100], [nil, nil, nil, nil]]
        XCTAssertEqual(StopOrder.best(cost)?.order, [2, 1])
    }
}

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
                for i in 0..<n { for j in 0..<n where i != j { cost[i][j] = Bool.random(using: &rng) && k > 2 && Int.random(in: 0..<10, using: &rng) == 0 ? nil : Double.random(in: 10...900, using: &rng) } }
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
}

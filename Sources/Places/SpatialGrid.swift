import Foundation
import Geo

/// Points bucketed into cells of fixed degrees, for "everything within r metres" queries.
package struct SpatialGrid: Sendable {
    /// Cell size in degrees of latitude (longitude cells are the same number of degrees).
    static let cellDegrees = 0.005
    let cells: [Int64: [Int32]]

    package init(points: [Coordinate]) {
        var cells: [Int64: [Int32]] = [:]
        for (i, p) in points.enumerated() where p.isValid {
            cells[SpatialGrid.cellKey(p), default: []].append(Int32(i))
        }
        self.cells = cells
    }

    static func cellIndex(_ v: Double) -> Int64 { Int64((v / cellDegrees).rounded(.down)) }
    static func cellKey(_ p: Coordinate) -> Int64 { cellKey(cellIndex(p.lon), cellIndex(p.lat)) }
    static func cellKey(_ x: Int64, _ y: Int64) -> Int64 { (x &* 1_000_003) &+ y }

    /// Indices of the points within `radius` metres of `center` (unordered), with distances.
    package func within(_ radius: Double, of center: Coordinate, points: [Coordinate]) -> [(index: Int, distance: Double)] {
        guard center.isValid, radius > 0 else { return [] }
        let dLat = radius / 111_195.0
        let dLon = dLat / max(0.01, cos(center.lat * .pi / 180))
        let x0 = SpatialGrid.cellIndex(center.lon - dLon), x1 = SpatialGrid.cellIndex(center.lon + dLon)
        let y0 = SpatialGrid.cellIndex(center.lat - dLat), y1 = SpatialGrid.cellIndex(center.lat + dLat)
        guard (x1 - x0 + 1) * (y1 - y0 + 1) <= 10_000 else { return [] }
        var out: [(Int, Double)] = []
        for x in x0...x1 {
            for y in y0...y1 {
                guard let members = cells[SpatialGrid.cellKey(x, y)] else { continue }
                for i in members {
                    let d = center.distance(to: points[Int(i)])
                    if d <= radius { out.append((Int(i), d)) }
                }
            }
        }
        return out
    }
}

/// A few reusable scratch buffers for searches running at the same time on several threads.
final class ScratchPool: @unchecked Sendable {
    /// Per-search working memory: the best match per place and the places touched.
    final class Scratch {
        var best: [Float]
        var touched: [Int32] = []
        /// Per key: the search epoch that last visited it (to visit each key once per pass).
        var keyEpoch: [UInt32]
        var epoch: UInt32 = 0

        init(placeCount: Int, keyCount: Int) {
            best = Array(repeating: 0, count: placeCount)
            keyEpoch = Array(repeating: 0, count: keyCount)
            touched.reserveCapacity(4096)
        }

        /// Records `score` for place `p` when it beats what the place has.
        @inline(__always)
        func consider(_ p: Int32, _ score: Float) {
            let i = Int(p)
            let old = best[i]
            if old == 0 { touched.append(p) }
            if score > old { best[i] = score }
        }

        /// A new epoch: every key counts as unvisited.
        func nextEpoch() {
            epoch &+= 1
            if epoch == 0 {
                for i in keyEpoch.indices { keyEpoch[i] = 0 }
                epoch = 1
            }
        }

        func reset() {
            for p in touched { best[Int(p)] = 0 }
            touched.removeAll(keepingCapacity: true)
        }
    }

    let placeCount: Int
    let keyCount: Int
    private var free: [Scratch] = []
    private let lock = NSLock()

    init(placeCount: Int, keyCount: Int) {
        self.placeCount = placeCount
        self.keyCount = keyCount
    }

    func take() -> Scratch {
        lock.lock()
        let s = free.popLast()
        lock.unlock()
        return s ?? Scratch(placeCount: placeCount, keyCount: keyCount)
    }

    func give(_ s: Scratch) {
        s.reset()
        lock.lock()
        if free.count < 64 { free.append(s) }
        lock.unlock()
    }
}

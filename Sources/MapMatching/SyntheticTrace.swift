import Foundation
import Geo
import Routing

/// Traces made from a known route, for tests and the bench: the route driven at its own segment
/// durations, sampled every `intervalSeconds`, each fix moved by Gaussian noise of σ metres,
/// optionally with stretches left out (tunnels).
package enum SyntheticTrace {
    /// Fixes along `route`, starting at `start` (Unix seconds). `gaps`: (after this share of the
    /// drive, for these seconds) with no fix.
    package static func make(_ route: RouteResult, intervalSeconds: Double, noiseMeters: Double, start: Double, seed: UInt64,
                             gaps: [(at: Double, seconds: Double)] = []) -> [TraceFix] {
        guard intervalSeconds > 0, intervalSeconds.isFinite, !route.segments.isEmpty else { return [] }
        var rng = SplitMix64(seed: seed)
        func gaussian() -> Double {
            let u1 = max(Double(rng.next() >> 11) / Double(1 << 53), 1e-12), u2 = Double(rng.next() >> 11) / Double(1 << 53)
            return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
        }
        let total = route.segments.reduce(0) { $0 + $1.durationSeconds }
        var fixes: [TraceFix] = []
        // Where along the geometry (metres from its start) each point lies.
        var along = [0.0]
        for i in route.geometry.indices.dropFirst() { along.append(along[i - 1] + route.geometry[i - 1].distance(to: route.geometry[i])) }
        let geometryLength = along.last ?? 0
        var g = 0
        func position(_ meters: Double) -> Coordinate {
            while g < along.count - 2 && along[g + 1] < meters { g += 1 }
            guard g < along.count - 1, along[g + 1] > along[g] else { return route.geometry[min(g, route.geometry.count - 1)] }
            let f = min(1, max(0, (meters - along[g]) / (along[g + 1] - along[g])))
            let a = route.geometry[g], b = route.geometry[g + 1]
            return Coordinate(lon: a.lon + (b.lon - a.lon) * f, lat: a.lat + (b.lat - a.lat) * f)
        }
        let scale = route.distanceMeters > 0 ? geometryLength / route.distanceMeters : 0
        var t = 0.0, segmentStart = 0.0, segmentMeters = 0.0
        var k = 0
        while k < route.segments.count {
            let s = route.segments[k]
            if t > segmentStart + s.durationSeconds && k < route.segments.count - 1 {
                segmentStart += s.durationSeconds
                segmentMeters += s.distanceMeters
                k += 1
                continue
            }
            let f = s.durationSeconds > 0 ? min(1, max(0, (t - segmentStart) / s.durationSeconds)) : 1
            let truth = position((segmentMeters + f * s.distanceMeters) * scale)
            let inGap = gaps.contains { t >= $0.at * total && t < $0.at * total + $0.seconds }
            let dx = gaussian() * noiseMeters, dy = gaussian() * noiseMeters
            if !inGap { fixes.append(TraceFix(truth.offset(eastMeters: dx, northMeters: dy), time: start + t, accuracyMeters: max(noiseMeters, 1))) }
            if t >= total { break }
            t = min(total, t + intervalSeconds)
        }
        return fixes
    }
}

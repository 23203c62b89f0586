import Foundation
import Geo

/// Which of a band's circuity figures an estimate uses.
public enum CircuityLevel: Sendable {
    case low, median, high

    /// The figure of `band`: p05 (low), median, p95 (high). The fare range spans p05–p95 so
    /// that it holds most routed fares (the 10th–90th percentiles alone would miss a fifth).
    func factor(_ band: CircuityTable.Band) -> Double {
        switch self {
        case .low: band.p05
        case .median: band.median
        case .high: band.p95
        }
    }
}

extension RouteEngine {
    /// Pieces each leg of an estimate is cut into along its straight line (each piece carries
    /// one segment per road class), so out-of-city tests see where the line runs.
    static let estimatePieces = 8

    /// A route estimated without the road graph, for points it cannot route: each leg is the
    /// great-circle line between its points times the circuity of its distance band (measured
    /// on this graph at import), split over road classes by the share they had in the measured
    /// routes, each class driven at the traffic profile's speed for the departure hour.
    ///
    /// The result says what it is: no snapped points (`snapDistancesMeters` empty), no street
    /// names, `settledNodes` 0, geometry the straight line; callers must label it an estimate.
    public func straightLineRoute(through points: [Coordinate], departAt: Double, level: CircuityLevel = .median) -> RouteResult {
        let hour = SeoulTime.hour(departAt)
        let classes = RoadClass.allCases
        var segments: [RouteSegment] = []
        var legs: [RouteLeg] = []
        for i in 0..<max(0, points.count - 1) {
            let a = points[i], b = points[i + 1]
            let straight = a.distance(to: b)
            let band = graph.circuity.band(forMeters: straight)
            let length = straight * level.factor(band)
            var legDistance = 0.0, legDuration = 0.0
            for k in 0..<Self.estimatePieces {
                let t0 = Double(k) / Double(Self.estimatePieces), t1 = Double(k + 1) / Double(Self.estimatePieces)
                let start = Coordinate(lon: a.lon + (b.lon - a.lon) * t0, lat: a.lat + (b.lat - a.lat) * t0)
                let end = Coordinate(lon: a.lon + (b.lon - a.lon) * t1, lat: a.lat + (b.lat - a.lat) * t1)
                for c in classes {
                    let share = Int(c.rawValue) < band.classShare.count ? band.classShare[Int(c.rawValue)] : 0
                    guard share > 0 else { continue }
                    let d = length * share / Double(Self.estimatePieces)
                    let s = d / (profile.speed(c, hour: hour) / 3.6)
                    segments.append(RouteSegment(distanceMeters: d, durationSeconds: s, roadClass: c, start: start, end: end, legIndex: i))
                    legDistance += d
                    legDuration += s
                }
            }
            legs.append(RouteLeg(distanceMeters: legDistance, durationSeconds: legDuration))
        }
        let distance = legs.reduce(0) { $0 + $1.distanceMeters }, duration = legs.reduce(0) { $0 + $1.durationSeconds }
        return RouteResult(distanceMeters: distance, durationSeconds: duration, geometry: points, legs: legs, snapped: [],
                           snapDistancesMeters: [], streetNames: [], segments: segments,
                           weight: UInt64((duration * 1000).rounded()), metric: .time, hour: hour, settledNodes: 0)
    }

    /// The circuity an estimate through `points` uses: its length over the straight line.
    public func estimateCircuity(through points: [Coordinate], level: CircuityLevel = .median) -> Double {
        var straight = 0.0, routed = 0.0
        for i in 0..<max(0, points.count - 1) {
            let d = points[i].distance(to: points[i + 1])
            straight += d
            routed += d * level.factor(graph.circuity.band(forMeters: d))
        }
        return straight > 0 ? routed / straight : level.factor(graph.circuity.band(forMeters: 0))
    }

    /// Like `coverageProblem(from:to:)` for a chain of points (origin, stops, destination):
    /// the first problem between consecutive points, or nil when every leg can be routed.
    public func coverageProblem(through points: [Coordinate], maxSnapMeters: Double = 200) -> RoutingError? {
        for i in 0..<max(0, points.count - 1) {
            if let p = coverageProblem(from: points[i], to: points[i + 1], maxSnapMeters: maxSnapMeters) { return p }
        }
        return nil
    }
}

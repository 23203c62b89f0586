import Geo
import Routing

/// Why a fix has no place on a matching.
public enum UnmatchedReason: String, Sendable {
    /// No road piece within the fix's search radius.
    case noRoadNearby = "no_road_nearby"
    /// Within max(2σ, the spacing floor) of the previous fix kept, and `tidy` asked to leave such fixes out.
    case tidied
    /// Its matching would hold this one fix only (the fixes around it could not be joined by road).
    case isolated
}

/// A fix placed on the road.
public struct MatchedFix: Sendable, Equatable {
    /// Position in the input trace.
    public let index: Int
    /// The point on the road it stands for.
    public let location: Coordinate
    /// Metres from the fix to `location`.
    public let distanceMeters: Double
    /// The matching it belongs to, and its position among that matching's waypoints (nil for a
    /// fix projected onto the route between two waypoints).
    public let matchingIndex: Int
    public let waypointIndex: Int?
}

/// One stretch of the trace matched to one continuous route.
public struct Matching: Sendable {
    /// The input indices of the fixes the route passes through, in order (≥ 2).
    public let fixIndices: [Int]
    /// The route through them, in pieces of at most `RouteEngine.maxViaPoints + 2` waypoints
    /// (consecutive pieces share their joining waypoint); legs join consecutive waypoints.
    public let pieces: [RouteResult]
    /// How well the trace agrees with the route, 0…1: the shorter over the longer of the
    /// straight-line length through the fixes and the route's length, times the share of the
    /// stretch's fixes that were placed on the road.
    public let confidence: Double

    public var distanceMeters: Double { pieces.reduce(0) { $0 + $1.distanceMeters } }
    public var durationSeconds: Double { pieces.reduce(0) { $0 + $1.durationSeconds } }
    /// One leg per pair of consecutive waypoints.
    public var legs: [RouteLeg] { pieces.flatMap(\.legs) }
    /// The whole path, joined.
    public var geometry: [Coordinate] {
        var out: [Coordinate] = []
        for p in pieces { for c in p.geometry where out.last != c { out.append(c) } }
        return out
    }
    /// Every traversed segment, `legIndex` counted over the whole matching.
    public var segments: [(leg: Int, segment: RouteSegment)] {
        var out: [(Int, RouteSegment)] = []
        var base = 0
        for p in pieces {
            for s in p.segments { out.append((base + s.legIndex, s)) }
            base += p.legs.count
        }
        return out
    }
}

/// The answer for a trace: its matchings and, per fix, where it stands (or why nowhere).
public struct MatchResult: Sendable {
    public let matchings: [Matching]
    /// One per input fix.
    public let fixes: [Result<MatchedFix, UnmatchedFix>]

    /// The fix's placement, or nil when unmatched.
    public func matched(_ i: Int) -> MatchedFix? { if case .success(let m) = fixes[i] { m } else { nil } }
}

/// An unmatched fix and why.
public struct UnmatchedFix: Error, Sendable, Equatable {
    public let index: Int
    public let reason: UnmatchedReason
}

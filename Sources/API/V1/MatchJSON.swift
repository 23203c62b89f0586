import Geo
import JSON
import MapMatching
import PartyModel

/// Taxipot's own JSON of a matched trace (the CLI's and settlement's `route`): matchings with
/// their legs and geometry (polyline6), and per fix where it stands or why it is unmatched.
public enum MatchJSON {
    static func round(_ v: Double, _ scale: Double) -> JSONValue { .number((v * scale).rounded() / scale) }

    public static func encode(_ r: MatchResult) -> JSONValue {
        route(matchings: r.matchings.map(matching), tracepoints: r.fixes.map { fix in
            switch fix {
            case .success(let m): matched(m.location, m.distanceMeters, m.matchingIndex, m.waypointIndex)
            case .failure(let u): unmatched(u.reason.rawValue)
            }
        })
    }

    /// The route of a settled ride, as `encode` writes the match it was settled from.
    static func encode(_ s: SettledRide) -> JSONValue {
        route(matchings: s.matchings.map { m in
            matching(m.distanceMeters, m.durationSeconds, m.confidence, m.fixes, m.geometry, m.legs.map { ($0.distanceMeters, $0.durationSeconds) })
        }, tracepoints: s.tracepoints.map { t in
            switch t {
            case let .matched(location, distance, matching, waypoint): matched(location, distance, matching, waypoint)
            case .unmatched(let reason): unmatched(reason)
            }
        })
    }

    public static func matching(_ m: Matching) -> JSONValue {
        matching(m.distanceMeters, m.durationSeconds, m.confidence, m.fixIndices, m.geometry, m.legs.map { ($0.distanceMeters, $0.durationSeconds) })
    }

    static func route(matchings: [JSONValue], tracepoints: [JSONValue]) -> JSONValue {
        .object([("matchings", .array(matchings)), ("tracepoints", .array(tracepoints))])
    }

    static func matching(_ distance: Double, _ duration: Double, _ confidence: Double, _ fixes: [Int], _ geometry: [Coordinate],
                         _ legs: [(distance: Double, duration: Double)]) -> JSONValue {
        .object([
            ("distance_m", round(distance, 10)), ("duration_s", round(duration, 10)),
            ("confidence", round(confidence, 1e6)), ("fixes", .array(fixes.map { .number(Double($0)) })),
            ("geometry", .string(Polyline.encode(geometry, precision: 6))),
            ("legs", .array(legs.map { .object([("distance_m", round($0.distance, 10)), ("duration_s", round($0.duration, 10))]) })),
        ])
    }

    static func matched(_ location: Coordinate, _ distance: Double, _ matching: Int, _ waypoint: Int?) -> JSONValue {
        .object([("location", .array([round(location.lon, 1e6), round(location.lat, 1e6)])),
                 ("distance_m", round(distance, 10)), ("matching", .number(Double(matching))),
                 ("waypoint", waypoint.map { .number(Double($0)) } ?? .null)])
    }

    static func unmatched(_ reason: String) -> JSONValue { .object([("unmatched", .string(reason))]) }
}

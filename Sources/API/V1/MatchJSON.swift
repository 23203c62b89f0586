import Geo
import JSON
import MapMatching

/// Taxipot's own JSON of a matched trace (the CLI's and settlement's `route`): matchings with
/// their legs and geometry (polyline6), and per fix where it stands or why it is unmatched.
public enum MatchJSON {
    static func round(_ v: Double, _ scale: Double) -> JSONValue { .number((v * scale).rounded() / scale) }

    public static func encode(_ r: MatchResult) -> JSONValue {
        .object([
            ("matchings", .array(r.matchings.map(matching))),
            ("tracepoints", .array(r.fixes.map { fix in
                switch fix {
                case .success(let m):
                    .object([("location", .array([round(m.location.lon, 1e6), round(m.location.lat, 1e6)])),
                             ("distance_meters", round(m.distanceMeters, 10)), ("matching", .number(Double(m.matchingIndex))),
                             ("waypoint", m.waypointIndex.map { .number(Double($0)) } ?? .null)])
                case .failure(let u): .object([("unmatched", .string(u.reason.rawValue))])
                }
            })),
        ])
    }

    public static func matching(_ m: Matching) -> JSONValue {
        .object([
            ("distance_meters", round(m.distanceMeters, 10)), ("duration_seconds", round(m.durationSeconds, 10)),
            ("confidence", round(m.confidence, 1e6)), ("fixes", .array(m.fixIndices.map { .number(Double($0)) })),
            ("geometry", .string(Polyline.encode(m.geometry, precision: 6))),
            ("legs", .array(m.legs.map { .object([("distance_meters", round($0.distanceMeters, 10)), ("duration_seconds", round($0.durationSeconds, 10))]) })),
        ])
    }
}

import Foundation
import Geo
import HTTPServer
import JSON
import Routing

/// An OSRM v5 error answer: `{"code","message"}` with OSRM's code (`InvalidQuery`,
/// `InvalidValue`, `InvalidOptions`, `NoSegment`, `NoRoute`, `TooBig`,
/// `NotImplemented`) and its HTTP status (400 for all of them, as osrm-routed answers).
struct OSRMError: AnsweredError {
    let code: String
    let message: String

    init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The codes the face answers, for the OpenAPI document.
    static let codes = ["InvalidQuery", "InvalidValue", "InvalidOptions",
                        "NoSegment", "NoRoute", "TooBig", "NotImplemented"]

    var response: HTTPResponse { .json(["code": .string(code), "message": .string(message)], status: 400) }

    /// OSRM's reading of an engine error; `index` gives a point's position in the URL's coordinates.
    static func from(_ error: RoutingError, index: (RoutePoint) -> Int) -> OSRMError {
        switch error {
        case .invalidCoordinate: OSRMError("InvalidValue", "Invalid coordinate value.")
        case .noRoute: OSRMError("NoRoute", "Impossible route between points")
        case .tooManyViaPoints(let n, let limit):
            OSRMError("TooBig", "Number of entries \(n + 2) is higher than current maximum (\(limit + 2))")
        case .invalidOption(_, let reason): OSRMError("InvalidValue", reason)
        case .outsideCoverage(let p, _, _, _, let other):
            other == nil ? OSRMError("NoSegment", "Could not find a matching segment for coordinate \(index(p))")
                : OSRMError("NoRoute", "Impossible route between points")
        }
    }
}

/// OSRM v5's answer shapes over the engine's results (route, table, nearest).
enum OSRMJSON {
    static func round(_ v: Double, _ scale: Double) -> JSONValue { .number((v * scale).rounded() / scale) }
    static func location(_ c: Coordinate) -> JSONValue { .array([round(c.lon, 1e6), round(c.lat, 1e6)]) }

    /// An opaque token where OSRM puts its hint: the snapped point in microdegrees, base64 of
    /// 8 bytes (sent back in `hints` it is accepted and ignored: points are snapped again).
    static func hint(_ c: Coordinate) -> JSONValue {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8)
        for v in [c.lon, c.lat] {
            let micro = UInt32(bitPattern: Int32((v * 1e6).rounded()))
            for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: micro >> UInt32(shift))) }
        }
        return .string(Data(bytes).base64EncodedString())
    }

    /// A waypoint: `{"hint","distance","name","location"}` (`nodes` first for the nearest
    /// service; no `hint` when `hint` is false, OSRM's `generate_hints=false`).
    static func waypoint(_ at: Coordinate, distance: Double, name: String, nodes: [Int]? = nil, hint withHint: Bool = true) -> JSONValue {
        var m: [(String, JSONValue)] = []
        m.reserveCapacity(5)
        if let nodes { m.append(("nodes", .array(nodes.map { .number(Double($0)) }))) }
        if withHint { m.append(("hint", hint(at))) }
        m += [("distance", round(distance, 1e6)), ("name", .string(name)), ("location", location(at))]
        return .object(m)
    }

    /// A geometry as asked: encoded polyline (5 or 6 digits) or a GeoJSON LineString.
    static func geometry(_ line: [Coordinate], _ format: OSRMGeometry) -> JSONValue {
        switch format {
        case .polyline: .string(Polyline.encode(line, precision: 5))
        case .polyline6: .string(Polyline.encode(line, precision: 6))
        case .geojson: ["coordinates": .array(line.map(location)), "type": "LineString"]
        }
    }

    /// A route's `annotation` for one leg: one entry per road segment of the leg.
    static func annotation(_ segments: ArraySlice<RouteSegment>, _ keys: OSRMAnnotations) -> JSONValue {
        var m: [(String, JSONValue)] = []
        if keys.contains(.duration) { m.append(("duration", .array(segments.map { round($0.durationSeconds, 10) }))) }
        if keys.contains(.distance) { m.append(("distance", .array(segments.map { round($0.distanceMeters, 10) }))) }
        if keys.contains(.weight) { m.append(("weight", .array(segments.map { round($0.durationSeconds, 10) }))) }
        if keys.contains(.speed) {
            m.append(("speed", .array(segments.map { $0.durationSeconds > 0 ? round($0.distanceMeters / $0.durationSeconds, 10) : .number(0) })))
        }
        if keys.contains(.datasources) {
            m.append(("datasources", .array(segments.map { _ in .number(0) })))
            m.append(("metadata", ["datasource_names": ["traffic_profile"]]))
        }
        return .object(m)
    }
}

/// OSRM's `geometries`.
enum OSRMGeometry: String, CaseIterable {
    case polyline, polyline6, geojson
}

/// OSRM's `overview`: the route's whole geometry simplified (default), in full, or none.
enum OSRMOverview: String, CaseIterable {
    case simplified, full
    case none = "false"
}

/// The route annotations this face gives (OSRM's `nodes` are OSM node ids, which the graph does not keep).
struct OSRMAnnotations: OptionSet {
    let rawValue: Int
    static let duration = OSRMAnnotations(rawValue: 1)
    static let distance = OSRMAnnotations(rawValue: 2)
    static let weight = OSRMAnnotations(rawValue: 4)
    static let speed = OSRMAnnotations(rawValue: 8)
    static let datasources = OSRMAnnotations(rawValue: 16)
    static let all: OSRMAnnotations = [.duration, .distance, .weight, .speed, .datasources]
    static let names: [(String, OSRMAnnotations)] = [("duration", .duration), ("distance", .distance), ("weight", .weight),
                                                     ("speed", .speed), ("datasources", .datasources)]
}

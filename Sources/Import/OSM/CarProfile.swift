import Geo
import Routing

/// The tags of an OSM way that the car profile reads.
public struct WayTags: Sendable, Equatable {
    public var highway: String?
    public var access: String?
    public var vehicle: String?
    public var motorVehicle: String?
    public var motorcar: String?
    public var oneway: String?
    public var onewayMotorcar: String?
    public var junction: String?
    public var maxspeed: String?
    public var maxspeedForward: String?
    public var maxspeedBackward: String?
    public var name: String?
    public var ref: String?
    public var service: String?
    public var area: String?
    public var impassable: String?

    public init() {}

    /// Sets the field for OSM key `key`; returns false when the profile does not read that key.
    @discardableResult
    public mutating func set(_ key: String, _ value: String) -> Bool {
        switch key {
        case "highway": highway = value
        case "access": access = value
        case "vehicle": vehicle = value
        case "motor_vehicle": motorVehicle = value
        case "motorcar": motorcar = value
        case "oneway": oneway = value
        case "oneway:motorcar", "oneway:motor_vehicle": onewayMotorcar = value
        case "junction": junction = value
        case "maxspeed": maxspeed = value
        case "maxspeed:forward": maxspeedForward = value
        case "maxspeed:backward": maxspeedBackward = value
        case "name": name = value
        case "ref": ref = value
        case "service": service = value
        case "area": area = value
        case "impassable": impassable = value
        default: return false
        }
        return true
    }
}

/// The car profile, in the spirit of OSRM's `car.lua`: which ways a car may drive, in which
/// direction, and how fast at most.
///
/// - Drivable classes: motorway … residential, living_street, service (except
///   `service=emergency_access`), the `*_link` roads and `road`.
/// - Access: the most specific of `motorcar`, `motor_vehicle`, `vehicle`, `access` decides;
///   `no`, `private`, `agricultural`, `forestry`, `emergency`, `psv`, `customers`, `delivery`
///   forbid (`destination`, `permissive`, `yes`, `designated` allow).
/// - One-way: `oneway` (or `oneway:motorcar`) `yes`/`1`/`true` forward, `-1`/`reverse` backward,
///   `no`/`false`/`0` both; implied on motorways, motorway links and roundabouts
///   (`junction=roundabout|circular`); `reversible`/`alternating` ways are left out.
/// - Speed cap: `maxspeed` (directional forms too) in km/h, "mph", "knots", or a country code
///   such as `KR:urban`; without one, the class default (Korean legal limits).
public enum CarProfile {
    /// Access values that forbid a car.
    static let forbiddenAccess: Set<String> = ["no", "private", "agricultural", "forestry", "emergency", "psv",
                                               "customers", "delivery", "bus", "hgv", "bicycle", "foot", "military"]

    /// The speed cap of a class without a `maxspeed` tag, km/h: the Korean legal limit
    /// (motorway 100; urban roads 50 under "안전속도 5030", 30 on residential streets).
    public static func defaultCapKmh(_ c: RoadClass) -> Int {
        switch c {
        case .motorway: 100
        case .trunk: 80
        case .primary: 60
        case .secondary, .tertiary, .unclassified: 50
        case .residential: 30
        case .livingStreet, .service: 20
        }
    }

    /// The rule for a way, or nil when a car may not use it.
    public static func rule(for tags: WayTags) -> WayRule? {
        guard let highway = tags.highway, let roadClass = RoadClass(osmHighway: highway) else { return nil }
        if tags.area == "yes" || tags.impassable == "yes" { return nil }
        if roadClass == .service, tags.service == "emergency_access" { return nil }
        for value in [tags.motorcar, tags.motorVehicle, tags.vehicle, tags.access] {
            guard let v = value else { continue }
            let first = v.split(separator: ";").first.map(String.init) ?? v
            if forbiddenAccess.contains(first) { return nil }
            break  // the most specific tag present decides
        }
        var forward = true, backward = true
        let onewayTag = tags.onewayMotorcar ?? tags.oneway
        switch onewayTag {
        case "yes", "1", "true": backward = false
        case "-1", "reverse": forward = false
        case "no", "false", "0": break
        case "reversible", "alternating": return nil
        default:
            let implied = highway == "motorway" || highway == "motorway_link"
                || tags.junction == "roundabout" || tags.junction == "circular"
            if implied { backward = false }
        }
        let base = tags.maxspeed.flatMap(parseMaxspeed)
        let fwd = tags.maxspeedForward.flatMap(parseMaxspeed) ?? base
        let bwd = tags.maxspeedBackward.flatMap(parseMaxspeed) ?? base
        let fallback = defaultCapKmh(roadClass)
        let name = nonEmpty(tags.name) ?? nonEmpty(tags.ref)
        return WayRule(roadClass: roadClass, forward: forward, backward: backward,
                       capForwardKmh: clampCap(fwd) ?? fallback, capBackwardKmh: clampCap(bwd) ?? fallback, name: name)
    }

    private static func nonEmpty(_ s: String?) -> String? {
        guard let s, !s.trimmingSpaces().isEmpty else { return nil }
        return String(s.trimmingSpaces())
    }

    /// A speed cap as a whole km/h between 3 and 250, or nil.
    private static func clampCap(_ v: Double?) -> Int? {
        guard let v, v.isFinite, v >= 3 else { return nil }
        return Int(min(250, v.rounded()))
    }

    /// Speeds of `maxspeed` country/zone codes (`KR:urban`, `DE:rural`, `RU:living_street`, …), km/h.
    static let zoneSpeeds: [String: Double] = [
        "urban": 50, "rural": 90, "motorway": 120, "trunk": 100, "living_street": 20, "walk": 6,
        "zone30": 30, "zone:30": 30, "zone20": 20, "zone:20": 20, "school": 30, "children": 30,
        "bicycle_road": 30, "nsl_single": 96.56, "nsl_dual": 112.65, "nsl_restricted": 48.28,
    ]

    /// Korean values where they differ from the generic table (Road Traffic Act, enforcement rule 19).
    static let koreanZoneSpeeds: [String: Double] = [
        "urban": 50, "rural": 60, "motorway": 100, "trunk": 80, "living_street": 30, "school": 30, "children": 30,
    ]

    /// Parses an OSM `maxspeed` value into km/h: `50`, `50 km/h`, `30 mph`, `10 knots`,
    /// `KR:urban`, `walk`; the first of `;`-separated values. Nil for `none`, `signals`,
    /// `variable` and anything unparseable.
    public static func parseMaxspeed(_ raw: String) -> Double? {
        var text = raw.split(separator: ";").first.map { String($0.trimmingSpaces()) } ?? ""
        text = text.lowercased()
        if text.isEmpty || text == "none" || text == "signals" || text == "variable" || text == "unknown" { return nil }
        if text == "walk" { return 6 }
        if let colon = text.firstIndex(of: ":") {
            let country = text[..<colon]
            let kind = String(text[text.index(after: colon)...])
            if country == "kr", let v = koreanZoneSpeeds[kind] { return v }
            if let v = zoneSpeeds[kind] { return v }
            if kind.hasPrefix("zone") {  // "zone:40", "zone40"
                return NumberParsing.finiteDouble(kind.dropFirst(4).drop(while: { $0 == ":" }))
            }
            return nil
        }
        var digits = Substring(text)
        var factor = 1.0
        for (suffix, f) in [("km/h", 1.0), ("kmh", 1.0), ("kph", 1.0), ("mph", 1.609344), ("knots", 1.852)] where text.hasSuffix(suffix) {
            digits = text.dropLast(suffix.count)
            factor = f
            break
        }
        guard let v = NumberParsing.finiteDouble(digits.trimmingSpaces()), v > 0, v < 400 else { return nil }
        return v * factor
    }

    /// `barrier` values a car passes (OSRM's whitelist); any other barrier blocks the node.
    static let passableBarriers: Set<String> = ["cattle_grid", "border_control", "toll_booth", "sally_port", "gate",
                                                "lift_gate", "no", "entrance", "height_restrictor", "arch", "swing_gate",
                                                "checkpoint"]

    /// True when a node with these tags stops a car: a blocking `barrier`, unless its access tags allow cars.
    public static func blocksCars(barrier: String?, access: String?, motorVehicle: String?, motorcar: String?) -> Bool {
        guard let barrier else { return false }
        let accessValue = motorcar ?? motorVehicle ?? access
        if passableBarriers.contains(barrier) {
            // A passable barrier still blocks when access forbids cars (a private gate).
            return accessValue.map { forbiddenAccess.contains($0) } ?? false
        }
        return accessValue.map { !["yes", "permissive", "designated", "destination"].contains($0) } ?? true
    }
}

/// A turn restriction's kind: `no_*` forbids the turn, `only_*` forbids every other turn.
public enum TurnRestrictionKind: Sendable, Equatable {
    case prohibitive
    case mandatory

    /// Reads a `restriction` value such as `no_left_turn` or `only_straight_on`; nil when unknown.
    public init?(osmValue: String) {
        let v = osmValue.trimmingSpaces()
        if ["no_left_turn", "no_right_turn", "no_straight_on", "no_u_turn", "no_entry", "no_exit"].contains(v) {
            self = .prohibitive
        } else if ["only_left_turn", "only_right_turn", "only_straight_on", "only_u_turn"].contains(v) {
            self = .mandatory
        } else {
            return nil
        }
    }
}

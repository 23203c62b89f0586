/// The class of a drivable road, from OSM's `highway` tag (`*_link` roads take their parent's class).
public enum RoadClass: UInt8, Sendable, CaseIterable {
    case motorway = 0, trunk, primary, secondary, tertiary, unclassified, residential, livingStreet, service

    /// The OSM `highway` value of this class.
    public var osmName: String {
        switch self {
        case .motorway: "motorway"
        case .trunk: "trunk"
        case .primary: "primary"
        case .secondary: "secondary"
        case .tertiary: "tertiary"
        case .unclassified: "unclassified"
        case .residential: "residential"
        case .livingStreet: "living_street"
        case .service: "service"
        }
    }

    /// The class for an OSM `highway` value, or nil when it is not drivable by car.
    public init?(osmHighway value: String) {
        let base = value.hasSuffix("_link") ? String(value.dropLast(5)) : value
        guard let c = RoadClass.allCases.first(where: { $0.osmName == base }) else {
            if base == "road" { self = .unclassified; return }
            return nil
        }
        self = c
    }
}

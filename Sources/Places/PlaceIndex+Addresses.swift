import Geo

/// Addresses in place search and reverse geocoding (see `AddressLocator`).
extension PlaceIndex {
    /// The category of address answers (not a place category: not filterable, never stored).
    public static let addressCategory = "address"

    /// Scores of address answers, by precision: an interpolated address ranks above every name
    /// match (a place name rarely ends in a building number); a 동-level answer above a typo
    /// reading; a road-level one below the batch geocoder's acceptance (a point somewhere on a
    /// road of kilometres is not a pickup spot).
    static func addressScore(_ p: AddressPrecision) -> Double {
        switch p {
        case .interpolated: return 2.0
        case .dong: return 1.2
        case .road: return 0.9
        }
    }

    /// The address `text` names, placed, or nil when it does not read as one.
    public func address(_ text: String) -> AddressMatch? { addresses.locate(text) }

    /// The address `text` names, placed with the roads of `calibration` numbered as it says and
    /// every other road by the rule (the DB's own calibration left aside): for held-out
    /// evaluation of a calibration.
    package func address(_ text: String, calibration: [String: RoadNumbering]) -> AddressMatch? {
        addresses.calibrated(calibration).locate(text)
    }

    /// The road an address answer was placed on (`AddressMatch.road`).
    package func addressRoad(_ index: Int) -> NamedRoad { addresses.roads[index] }

    /// How many roads the DB's calibration table renumbers.
    package var calibratedRoadCount: Int { addresses.numberings.filter { $0 != .rule }.count }

    /// The address answer of a search, when its text reads as an address and passes its filters.
    func addressHit(_ query: PlaceQuery) -> PlaceHit? {
        guard query.category == nil, let m = addresses.locate(query.text) else { return nil }
        if let rect = query.rect, !rect.contains(m.coordinate) { return nil }
        let distance = query.near.map { $0.distance(to: m.coordinate) }
        if let r = query.radiusMeters, let distance, distance > r { return nil }
        let place = Place(id: "address:\(m.text)", name: m.name, category: PlaceIndex.addressCategory, address: m.text,
                          lon: m.coordinate.lon, lat: m.coordinate.lat, importance: 0, detail: m.precision.rawValue)
        var hit = PlaceHit(place: place, distanceMeters: distance, score: PlaceIndex.addressScore(m.precision))
        hit.precision = m.precision
        return hit
    }

    /// Where the address answer goes among the ranked places: after every place named exactly
    /// as the query (a place named like an address keeps its place) and, for a road-level
    /// answer, after the places that score higher.
    func addressPosition(_ ordered: [(place: Int32, score: Float, distance: Double)], folded: String, _ hit: PlaceHit) -> Int {
        var at = 0
        while at < ordered.count {
            let c = ordered[at]
            guard SearchText.fold(places[Int(c.place)].name) == folded || (hit.precision == .road && Double(c.score) > hit.score) else { break }
            at += 1
        }
        return at
    }

    /// The road-name address estimate nearest `point` (within `radius` metres of a named road).
    public func nearestAddress(to point: Coordinate, radiusMeters radius: Double = 100) -> ReverseAddress? {
        guard point.isValid, let n = addresses.nearest(to: point, radius: radius) else { return nil }
        let district = admin.locate(point)?.sigungu.flatMap { n.road.districts.contains($0.code) ? $0 : nil }
        let sigungu = district?.name ?? n.road.districts.first.flatMap { admin.divisionsByCode[$0]?.name }
        let text = (["서울특별시"] + (sigungu.map { [$0] } ?? []) + [n.road.name, "\(n.number)"]).joined(separator: " ")
        return ReverseAddress(text: text, road: n.road.name, number: n.number, coordinate: n.at,
                              distanceMeters: n.distance, precision: .interpolated)
    }
}

/// The nearest road-name address estimate to a point: the road and the basic number
/// (기초번호) of the point's projection on it, odd on the left and even on the right.
public struct ReverseAddress: Sendable, Hashable {
    /// "서울특별시 강남구 테헤란로 153".
    public let text: String
    public let road: String
    /// The approximate building number (the basic number at that spot; a building there may
    /// carry a nearby number).
    public let number: Int
    /// The projection of the point on the road.
    public let coordinate: Coordinate
    /// Metres from the point to the road.
    public let distanceMeters: Double
    public let precision: AddressPrecision
}

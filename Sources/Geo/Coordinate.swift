import Foundation

/// A WGS84 position: `lon` is longitude (x), `lat` is latitude (y), both in degrees.
///
/// The engine always orders coordinates x = longitude, y = latitude, whatever a
/// CRS's own axis order says.
public struct Coordinate: Sendable, Hashable, CustomStringConvertible {
    public var lon: Double
    public var lat: Double

    public init(lon: Double, lat: Double) {
        self.lon = lon
        self.lat = lat
    }

    /// True when both values are finite and within ±180 / ±90.
    public var isValid: Bool {
        lon.isFinite && lat.isFinite && abs(lon) <= 180 && abs(lat) <= 90
    }

    public var description: String { "\(lon),\(lat)" }
}

/// Mean Earth radius in metres (IUGG), used for great-circle distances.
public let earthRadiusMeters = 6_371_008.8

extension Coordinate {
    /// Great-circle (haversine) distance in metres.
    public func distance(to other: Coordinate) -> Double {
        let rad = Double.pi / 180
        let dLat = (other.lat - lat) * rad
        let dLon = (other.lon - lon) * rad
        let a = sin(dLat / 2) * sin(dLat / 2)
            + cos(lat * rad) * cos(other.lat * rad) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * earthRadiusMeters * asin(min(1, sqrt(a)))
    }

    /// Bearing-free initial-point offset: the position `dx` metres east and `dy` metres north.
    public func offset(eastMeters dx: Double, northMeters dy: Double) -> Coordinate {
        let rad = Double.pi / 180
        let dLat = dy / earthRadiusMeters / rad
        let dLon = dx / (earthRadiusMeters * cos(lat * rad)) / rad
        return Coordinate(lon: lon + dLon, lat: lat + dLat)
    }
}

/// A longitude/latitude rectangle: west, south, east, north in degrees.
public struct BoundingBox: Sendable, Hashable {
    public var west: Double
    public var south: Double
    public var east: Double
    public var north: Double

    public init(west: Double, south: Double, east: Double, north: Double) {
        self.west = west
        self.south = south
        self.east = east
        self.north = north
    }

    public func contains(_ c: Coordinate) -> Bool {
        c.lon >= west && c.lon <= east && c.lat >= south && c.lat <= north
    }

    /// True when the box is finite, in range, and not inverted in latitude.
    public var isValid: Bool {
        [west, south, east, north].allSatisfy(\.isFinite)
            && abs(west) <= 180 && abs(east) <= 180 && abs(south) <= 90 && abs(north) <= 90
            && south <= north
    }
}

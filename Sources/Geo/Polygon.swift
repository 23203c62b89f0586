import Foundation

/// A polygon with holes (GeoJSON order: first ring outer, the rest holes), in lon/lat.
public struct Polygon: Sendable {
    public let rings: [[Coordinate]]
    public let bbox: BoundingBox

    public init(rings: [[Coordinate]]) {
        self.rings = rings
        var w = 180.0, s = 90.0, e = -180.0, n = -90.0
        for c in rings.first ?? [] {
            w = min(w, c.lon); e = max(e, c.lon); s = min(s, c.lat); n = max(n, c.lat)
        }
        bbox = BoundingBox(west: w, south: s, east: e, north: n)
    }

    /// Even-odd point-in-polygon over all rings.
    public func contains(_ p: Coordinate) -> Bool {
        guard bbox.contains(p) else { return false }
        var inside = false
        for ring in rings where ring.count >= 3 {
            var j = ring.count - 1
            for i in 0..<ring.count {
                let a = ring[i], b = ring[j]
                if (a.lat > p.lat) != (b.lat > p.lat) {
                    let x = (b.lon - a.lon) * (p.lat - a.lat) / (b.lat - a.lat) + a.lon
                    if p.lon < x { inside.toggle() }
                }
                j = i
            }
        }
        return inside
    }
}

extension Polygon {
    /// Distance in metres from `p` to the nearest edge of any ring (0 on an edge).
    public func distanceToEdge(_ p: Coordinate) -> Double {
        let proj = LocalProjection(referenceLatitude: p.lat)
        var best = Double.infinity
        for ring in rings where ring.count >= 2 {
            var j = ring.count - 1
            for i in 0..<ring.count {
                best = min(best, proj.projectOntoSegment(p, ring[j], ring[i]).distance)
                j = i
            }
        }
        return best
    }
}

/// Several polygons taken as one area (a GeoJSON MultiPolygon).
public struct MultiPolygon: Sendable {
    public let polygons: [Polygon]
    public let bbox: BoundingBox

    public init(polygons: [Polygon]) {
        self.polygons = polygons
        var b = BoundingBox(west: 180, south: 90, east: -180, north: -90)
        for p in polygons {
            b.west = min(b.west, p.bbox.west); b.east = max(b.east, p.bbox.east)
            b.south = min(b.south, p.bbox.south); b.north = max(b.north, p.bbox.north)
        }
        bbox = b
    }

    public func contains(_ p: Coordinate) -> Bool {
        bbox.contains(p) && polygons.contains { $0.contains(p) }
    }

    /// True when `p` is inside, or within `tolerance` metres of an edge: for simplified
    /// boundaries whose neighbours do not tile exactly and leave slivers between them.
    public func contains(_ p: Coordinate, toleranceMeters tolerance: Double) -> Bool {
        if contains(p) { return true }
        let margin = tolerance / 111_000 / max(0.1, cos(p.lat * .pi / 180))
        guard p.lon >= bbox.west - margin, p.lon <= bbox.east + margin,
              p.lat >= bbox.south - tolerance / 111_000, p.lat <= bbox.north + tolerance / 111_000 else { return false }
        return polygons.contains { $0.distanceToEdge(p) <= tolerance }
    }
}

import Geo

/// The 시도/시군구/읍면동 of a point.
public struct AdminArea: Sendable, Codable {
    public let sido: Division?
    public let sigungu: Division?
    /// The 읍면동 (법정동).
    public let emd: Division?
    /// False when the point was tested against the division polygons (Seoul); true when the
    /// nearest division was taken (elsewhere, where there are no polygons).
    public let approximate: Bool

    /// The 읍면동 when known, else the 시군구, else the 시도.
    public var deepest: Division? {
        if let emd { return emd }
        if let sigungu { return sigungu }
        return sido
    }
    /// "서울특별시 강남구 역삼동": the deepest division's full name.
    public var fullName: String { deepest?.fullName ?? "" }
    /// The deepest division's code.
    public var code: String { deepest?.code ?? "" }
}

/// Finds the divisions containing a point: polygons where we have them (Seoul), the nearest
/// 읍면동 elsewhere.
package struct AdminLocator: Sendable {
    package let divisionsByCode: [String: Division]
    /// 읍면동 outside the polygon-covered area, for the nearest search (and, in parallel
    /// arrays, their points, boxes and areas: the search reads only those).
    package let emds: [Division]
    package let emdCentroids: [Coordinate]
    package let emdInners: [Coordinate]
    package let emdBoxes: [BoundingBox]
    package let emdAreas: [Double]
    /// 시군구 by 시도 code and the first word of their name ("성남시" for 성남시 수정구).
    package let sigunguByCity: [String: [Division]]
    package let sigunguBoundaries: [Boundary]
    /// 법정동 polygons by their 구 code, and all of them.
    package let emdBoundaries: [String: [Boundary]]
    package let emdBoundaryList: [Boundary]
    /// 시도 codes whose area the polygons cover completely (Seoul, "11").
    package let polygonSidoCodes: Set<String>
    /// Largest distance to the nearest 읍면동 point for an approximate answer.
    package static let maximumApproximateDistance = 30_000.0
    /// How far outside a simplified boundary polygon a point still counts as on it: the
    /// polygons of neighbouring 구/동 do not tile exactly and leave slivers (a point by
    /// 서대문사거리 lies 0.1 m outside 종로구 and in no polygon at all).
    package static let boundaryTolerance = 50.0

    package init(divisions: [Division], boundaries: [Boundary]) {
        var byCode: [String: Division] = [:]
        for d in divisions { byCode[d.code] = d }
        divisionsByCode = byCode
        sigunguBoundaries = boundaries.filter { $0.level == "sigungu" }
        var emdB: [String: [Boundary]] = [:]
        for b in boundaries where b.level == "emd" { emdB[String(b.code.prefix(5)), default: []].append(b) }
        emdBoundaries = emdB
        emdBoundaryList = boundaries.filter { $0.level == "emd" }
        let covered = Set(sigunguBoundaries.map { String($0.code.prefix(2)) })
        polygonSidoCodes = covered
        emds = divisions.filter { $0.level == "emd" && !covered.contains(String($0.code.prefix(2))) }
        emdCentroids = emds.map(\.centroid)
        emdInners = emds.map(\.inner)
        emdBoxes = emds.map(\.bbox)
        emdAreas = emds.map(\.areaKm2)
        var byCity: [String: [Division]] = [:]
        for d in divisions where d.level == "sigungu" {
            let city = d.name.split(separator: " ").first.map(String.init) ?? d.name
            byCity[String(d.code.prefix(2)) + city, default: []].append(d)
        }
        sigunguByCity = byCity
    }

    /// The divisions at `point`, or nil when it is in no polygon and no 읍면동 point is within
    /// 30 km (at sea, abroad).
    ///
    /// The 법정동 polygons are tested first: they are finer than the 구 polygons (which are
    /// simplified to 30–150 vertices and miss slivers of their own 구). A point in a 구 polygon
    /// but in no 법정동 polygon gets the nearest 동 of that 구. A point in no polygon but within
    /// 50 m of one (a sliver between simplified neighbours) gets that one, marked approximate.
    package func locate(_ point: Coordinate) -> AdminArea? {
        guard point.isValid else { return nil }
        if let hit = emdBoundaryList.first(where: { $0.area.contains(point) }) {
            return AdminArea(sido: divisionsByCode[String(hit.code.prefix(2))], sigungu: divisionsByCode[String(hit.code.prefix(5))],
                             emd: divisionsByCode[hit.code], approximate: false)
        }
        for b in sigunguBoundaries where b.area.contains(point) {
            let emd = (emdBoundaries[b.code] ?? []).compactMap { divisionsByCode[$0.code] }
                .min { $0.inner.distance(to: point) < $1.inner.distance(to: point) }
            return AdminArea(sido: divisionsByCode[String(b.code.prefix(2))], sigungu: divisionsByCode[b.code],
                             emd: emd, approximate: false)
        }
        // In a sliver between simplified polygons: the 동 (else the 구) within the tolerance.
        if let hit = emdBoundaryList.first(where: { $0.area.contains(point, toleranceMeters: Self.boundaryTolerance) }) {
            return AdminArea(sido: divisionsByCode[String(hit.code.prefix(2))], sigungu: divisionsByCode[String(hit.code.prefix(5))],
                             emd: divisionsByCode[hit.code], approximate: true)
        }
        if let b = sigunguBoundaries.first(where: { $0.area.contains(point, toleranceMeters: Self.boundaryTolerance) }) {
            let emd = (emdBoundaries[b.code] ?? []).compactMap { divisionsByCode[$0.code] }
                .min { $0.inner.distance(to: point) < $1.inner.distance(to: point) }
            return AdminArea(sido: divisionsByCode[String(b.code.prefix(2))], sigungu: divisionsByCode[b.code],
                             emd: emd, approximate: true)
        }
        guard let nearest = nearestEmd(point) else { return nil }
        return AdminArea(sido: divisionsByCode[String(nearest.code.prefix(2))],
                         sigungu: divisionsByCode[String(nearest.code.prefix(5))],
                         emd: nearest, approximate: true)
    }

    /// The 읍면동 most likely to hold the point: among those whose bounding box holds it (all,
    /// when none does), the one whose centroid or inner point is nearest relative to its size
    /// (distance / √area). On 638 tourist sites outside Seoul this picks the 읍면동 of the site's
    /// lot address 82% of the time (nearest inner point alone: 68%).
    package func nearestEmd(_ point: Coordinate) -> Division? {
        let proj = LocalProjection(referenceLatitude: point.lat)
        let (px, py) = proj.project(point)
        func distance(_ c: Coordinate) -> Double {
            let (x, y) = proj.project(c)
            return ((x - px) * (x - px) + (y - py) * (y - py)).squareRoot()
        }
        var nearest = Double.infinity
        var inBox: [Int] = []
        for i in emdCentroids.indices {
            nearest = min(nearest, distance(emdCentroids[i]), distance(emdInners[i]))
            if emdBoxes[i].contains(point) { inBox.append(i) }
        }
        guard !inBox.isEmpty || nearest <= AdminLocator.maximumApproximateDistance else { return nil }
        var bestIndex = -1
        var bestScore = Double.infinity
        for i in inBox.isEmpty ? Array(emdCentroids.indices) : inBox {
            let score = min(distance(emdCentroids[i]), distance(emdInners[i])) / (emdAreas[i] + 0.01).squareRoot()
            if score < bestScore { bestScore = score; bestIndex = i }
        }
        return bestIndex >= 0 ? emds[bestIndex] : nil
    }

    /// True when `point` is inside the polygons of 시도 `code` (only for polygon-covered 시도):
    /// the union of its 구 polygons and its 법정동 polygons.
    package func isInsidePolygons(sidoCode: String, _ point: Coordinate) -> Bool {
        sigunguBoundaries.contains { $0.code.hasPrefix(sidoCode) && $0.area.contains(point) }
            || emdBoundaryList.contains { $0.code.hasPrefix(sidoCode) && $0.area.contains(point) }
            || sigunguBoundaries.contains { $0.code.hasPrefix(sidoCode) && $0.area.contains(point, toleranceMeters: Self.boundaryTolerance) }
    }
}

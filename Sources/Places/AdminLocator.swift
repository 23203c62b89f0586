import Geo

/// The 시도/시군구/읍면동 of a point.
public struct AdminArea: Sendable {
    public let sido: Division?
    public let sigungu: Division?
    /// The 읍면동 (법정동).
    public let emd: Division?
    /// False when the point was tested against the division polygons (Seoul); true when the
    /// nearest division was taken (elsewhere, where there are no polygons).
    public let approximate: Bool

    /// "서울특별시 강남구 역삼동": the deepest division's full name.
    public var fullName: String { (emd ?? sigungu ?? sido)?.fullName ?? "" }
    /// The deepest division's code.
    public var code: String { (emd ?? sigungu ?? sido)?.code ?? "" }
}

/// Finds the divisions containing a point: polygons where we have them (Seoul), the nearest
/// 읍면동 elsewhere.
struct AdminLocator: Sendable {
    let divisionsByCode: [String: Division]
    /// 읍면동 outside the polygon-covered area, for the nearest search.
    let emds: [Division]
    let sigunguBoundaries: [Boundary]
    /// 법정동 polygons by their 구 code, and all of them.
    let emdBoundaries: [String: [Boundary]]
    let emdBoundaryList: [Boundary]
    /// 시도 codes whose area the polygons cover completely (Seoul, "11").
    let polygonSidoCodes: Set<String>
    /// Largest distance to the nearest 읍면동 point for an approximate answer.
    static let maximumApproximateDistance = 30_000.0

    init(divisions: [Division], boundaries: [Boundary]) {
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
    }

    /// The divisions at `point`, or nil when it is in no polygon and no 읍면동 point is within
    /// 30 km (at sea, abroad).
    ///
    /// The 법정동 polygons are tested first: they are finer than the 구 polygons (which are
    /// simplified to 30–150 vertices and miss slivers of their own 구). A point in a 구 polygon
    /// but in no 법정동 polygon gets the nearest 동 of that 구.
    func locate(_ point: Coordinate) -> AdminArea? {
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
        guard let nearest = nearestEmd(point) else { return nil }
        return AdminArea(sido: divisionsByCode[String(nearest.code.prefix(2))],
                         sigungu: divisionsByCode[String(nearest.code.prefix(5))],
                         emd: nearest, approximate: true)
    }

    /// The nearest 읍면동 (by its inner point), preferring those whose bounding box holds the point.
    func nearestEmd(_ point: Coordinate) -> Division? {
        let proj = LocalProjection(referenceLatitude: point.lat)
        let (px, py) = proj.project(point)
        var best: Division?
        var bestD = Double.infinity
        var bestInBox: Division?
        var bestInBoxD = Double.infinity
        for d in emds {
            let (x, y) = proj.project(d.inner)
            let dd = (x - px) * (x - px) + (y - py) * (y - py)
            if dd < bestD { bestD = dd; best = d }
            if dd < bestInBoxD && d.bbox.contains(point) { bestInBoxD = dd; bestInBox = d }
        }
        if let b = bestInBox { return b }
        guard let best, bestD.squareRoot() <= AdminLocator.maximumApproximateDistance else { return nil }
        return best
    }

    /// True when `point` is inside the polygons of 시도 `code` (only for polygon-covered 시도):
    /// the union of its 구 polygons and its 법정동 polygons.
    func isInsidePolygons(sidoCode: String, _ point: Coordinate) -> Bool {
        sigunguBoundaries.contains { $0.code.hasPrefix(sidoCode) && $0.area.contains(point) }
            || emdBoundaryList.contains { $0.code.hasPrefix(sidoCode) && $0.area.contains(point) }
    }
}

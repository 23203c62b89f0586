import Geo

/// A division's outline with its name, for drawing on a map.
public struct DivisionOutline: Sendable {
    /// The 구 or 동 (법정동) code.
    public let code: String
    /// "sigungu" or "emd".
    public let level: String
    /// The division's own name ("종로구", "청운동"); "" when the place DB lacks the code.
    public let name: String
    public let area: MultiPolygon
}

extension PlaceIndex {
    /// The boundary levels known to the place DB, coarsest first.
    public static let boundaryLevels = ["sigungu", "emd"]

    /// The 구 (`level` "sigungu") or 법정동 ("emd") outlines whose bounding box meets `box`
    /// (the polygon-covered area: Seoul). An unknown level gives none.
    public func boundaries(level: String, in box: BoundingBox) -> [DivisionOutline] {
        let list: [Boundary]
        switch level {
        case "sigungu": list = admin.sigunguBoundaries
        case "emd": list = admin.emdBoundaryList
        default: return []
        }
        return list.compactMap { b in
            let bb = b.area.bbox
            guard bb.east >= box.west, bb.west <= box.east, bb.north >= box.south, bb.south <= box.north else { return nil }
            return DivisionOutline(code: b.code, level: b.level, name: admin.divisionsByCode[b.code]?.name ?? "", area: b.area)
        }
    }
}

import Geo

/// A coordinate reference system resolved from a name: what to hand PROJ to build it.
///
/// Resolution is pure (no PROJ call); whether PROJ knows an `EPSG:n` code is found out when a
/// transformer is built, which reports `CoordinateError.unknownCRS` naming the code.
public struct CRSDescriptor: Sendable, Hashable, CustomStringConvertible {
    /// How PROJ builds the CRS.
    enum Definition: Sendable, Hashable {
        /// An authority code such as `EPSG:5179`.
        case authority(String)
        /// A PROJ string with `+type=crs`.
        case projString(String)
        /// An authority CRS whose linear unit is changed to `metresPerUnit` metres
        /// (coordinates become metres ÷ `metresPerUnit`).
        case rescaled(base: String, unitName: String, metresPerUnit: Double)
    }

    /// The canonical name: `EPSG:n` for codes and codes' aliases, else the alias in capitals
    /// (`KATEC`, `WCONGNAMUL`).
    public let name: String
    let definition: Definition
    /// The area of use when PROJ has none for the definition (PROJ strings): west, south, east, north.
    let areaOfUseOverride: BoundingBox?

    public var description: String { name }
}

/// The CRS names the engine accepts: any `EPSG:n` code PROJ knows, plus the aliases Korean maps use.
///
/// Aliases are case-insensitive:
/// - `WGS84` = EPSG:4326 (x = longitude, y = latitude, degrees)
/// - `UTMK` = EPSG:5179 (Korea 2000 / Unified CS, Naver)
/// - `WTM` = EPSG:5181 (Korea 2000 / Central Belt, false northing 500,000; Kakao)
/// - `WCONGNAMUL` = EPSG:5181 in units of 0.4 m, i.e. 5181 metres × 2.5 (Kakao web-map URLs)
/// - `KATEC`, `TM128` = the Bessel transverse Mercator of old Naver local search and Opinet, with the
///   7-parameter datum shift `+towgs84=-115.80,474.99,674.11,1.16,-2.31,-1.63,6.43` (without the shift
///   positions are about 360 m off in Seoul). Into KATEC the answers are PROJ's (`cs2cs`'s, within
///   nanometres when the closed-form kernels run: `CoordinateTransformer.usesFastKernel`); out of it
///   they are the exact inverse of those for points on the WGS84 surface, within ≈6 mm of PROJ's own
///   inverse (see `CoordinateTransformer.refinesInverse`)
/// - `WEBMERCATOR` = EPSG:3857
/// - `KOREA2000-WEST`, `-CENTRAL`, `-EAST`, `-EASTSEA` = EPSG:5185…5188 (2010 belts, false northing 600,000)
public enum CRSCatalog {
    /// The KATEC / TM128 definition (docs/REFERENCE.md, "Coordinate systems").
    public static let katecProjString =
        "+proj=tmerc +lat_0=38 +lon_0=128 +k=0.9999 +x_0=400000 +y_0=600000 +ellps=bessel "
        + "+towgs84=-115.80,474.99,674.11,1.16,-2.31,-1.63,6.43 +units=m +no_defs +type=crs"

    /// KATEC's area of use: that of its datum, Korean 1985 (EPSG:4162, South Korea onshore).
    static let katecArea = BoundingBox(west: 124.53, south: 33.14, east: 131.01, north: 38.64)

    /// WCONGNAMUL units per metre of EPSG:5181.
    public static let wcongnamulScale = 2.5

    private static let aliases: [(String, CRSDescriptor)] = {
        func code(_ alias: String, _ n: Int) -> (String, CRSDescriptor) {
            (alias, CRSDescriptor(name: "EPSG:\(n)", definition: .authority("EPSG:\(n)"), areaOfUseOverride: nil))
        }
        let katec = CRSDescriptor(name: "KATEC", definition: .projString(katecProjString), areaOfUseOverride: katecArea)
        return [
            code("WGS84", 4326),
            code("UTMK", 5179),
            code("WTM", 5181),
            ("WCONGNAMUL", CRSDescriptor(name: "WCONGNAMUL",
                                         definition: .rescaled(base: "EPSG:5181", unitName: "WCONGNAMUL unit (0.4 m)",
                                                               metresPerUnit: 1 / wcongnamulScale),
                                         areaOfUseOverride: nil)),
            ("KATEC", katec),
            ("TM128", katec),
            code("WEBMERCATOR", 3857),
            code("KOREA2000-WEST", 5185),
            code("KOREA2000-CENTRAL", 5186),
            code("KOREA2000-EAST", 5187),
            code("KOREA2000-EASTSEA", 5188),
        ]
    }()

    /// The aliases, in documentation order.
    public static var aliasNames: [String] { aliases.map(\.0) }

    /// Resolves a CRS name: an alias (any case) or `EPSG:n` (any case, spaces around ignored).
    ///
    /// Throws `CoordinateError.unknownCRS` naming the input when it is neither.
    public static func resolve(_ name: String) throws(CoordinateError) -> CRSDescriptor {
        let trimmed = String(name.trimmingSpaces())
        let upper = trimmed.uppercased()
        if let hit = aliases.first(where: { $0.0 == upper }) { return hit.1 }
        if upper.hasPrefix("EPSG:") {
            let digits = upper.dropFirst(5)
            if !digits.isEmpty, digits.count <= 9, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let n = Int(digits) {
                return CRSDescriptor(name: "EPSG:\(n)", definition: .authority("EPSG:\(n)"), areaOfUseOverride: nil)
            }
        }
        throw .unknownCRS(String(trimmed.prefix(80)))
    }
}

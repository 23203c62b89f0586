import Coordinates
import Geo
import XCTest

/// Known positions in every CRS the engine names, against values PROJ's own tools print.
///
/// Provenance: the `cs2cs` values below were computed on this project's machine with Debian
/// proj-bin (PROJ "Rel. 9.1.1, December 1st, 2022", the library the engine links), e.g.
///   echo "37.566554 126.978546" | cs2cs -f "%.4f" EPSG:4326 EPSG:5179
/// (EPSG:4326 input is lat,lon and projected outputs are northing,easting in cs2cs; they are
/// reordered to x = easting, y = northing here).
final class ReferenceValueTests: XCTestCase {
    let cityHall = XYPoint(x: 126.978546, y: 37.566554)  // Seoul City Hall

    func transform(_ from: String, _ to: String, _ p: XYPoint) throws -> XYPoint {
        try CoordinateTransformer(from: from, to: to).transform(p)
    }

    func assertClose(_ a: XYPoint, _ b: XYPoint, within tolerance: Double, _ message: String = "",
                     file: StaticString = #filePath, line: UInt = #line)
    {
        XCTAssertEqual(a.x, b.x, accuracy: tolerance, "x " + message, file: file, line: line)
        XCTAssertEqual(a.y, b.y, accuracy: tolerance, "y " + message, file: file, line: line)
    }

    /// docs/REFERENCE.md, "Coordinate systems": the common 7-parameter KATEC set gives (309958.44, 552078.82) at City Hall;
    /// `cs2cs -f "%.4f" +proj=longlat +datum=WGS84 +to <KATEC string>` printed 309958.4389 552078.8189.
    func testSeoulCityHallInKATEC() throws {
        let katec = try transform("WGS84", "KATEC", cityHall)
        assertClose(katec, XYPoint(x: 309958.44, y: 552078.82), within: 0.1)
        assertClose(katec, XYPoint(x: 309958.4389, y: 552078.8189), within: 0.001)
        // TM128 is the same grid, and the way back inverts the way in (1e-8° ≈ 1 mm; see
        // InverseRefinementTests); without the datum shift the answer would be ≈360 m off.
        assertClose(try transform("tm128", "wgs84", katec), cityHall, within: 1e-8)
        assertClose(try transform("KATEC", "WGS84", XYPoint(x: 309958.4389, y: 552078.8189)), cityHall, within: 1e-8)
        XCTAssertGreaterThan(abs(katec.x - 309776.29) + abs(katec.y - 552391.12), 300)
    }

    /// The false origin of the 2010 Central Belt (EPSG:5186): (200000, 600000) is 127°E 38°N;
    /// `echo "600000 200000" | cs2cs -f "%.10f" EPSG:5186 EPSG:4326` printed 38.0000000000 127.0000000000.
    func test5186FalseOrigin() throws {
        assertClose(try transform("KOREA2000-CENTRAL", "WGS84", XYPoint(x: 200000, y: 600000)),
                    XYPoint(x: 127, y: 38), within: 1e-10)
        assertClose(try transform("WGS84", "EPSG:5186", XYPoint(x: 127, y: 38)),
                    XYPoint(x: 200000, y: 600000), within: 1e-6)
        // The belts differ only by central meridian: 125, 127, 129, 131°E.
        for (alias, lon) in [("KOREA2000-WEST", 125.0), ("KOREA2000-EAST", 129.0), ("KOREA2000-EASTSEA", 131.0)] {
            assertClose(try transform(alias, "WGS84", XYPoint(x: 200000, y: 600000)), XYPoint(x: lon, y: 38), within: 1e-10, alias)
        }
    }

    /// UTM-K (EPSG:5179) at four places, each from
    /// `echo "LAT LON" | cs2cs -f "%.4f" EPSG:4326 EPSG:5179`.
    func testUTMKAgainstCs2cs() throws {
        let cases: [(XYPoint, XYPoint, String)] = [
            (XYPoint(x: 126.978546, y: 37.566554), XYPoint(x: 953949.4172, y: 1952037.8043), "Seoul City Hall"),
            (XYPoint(x: 129.075642, y: 35.179554), XYPoint(x: 1143471.2852, y: 1688276.9407), "Busan"),
            (XYPoint(x: 126.531188, y: 33.499621), XYPoint(x: 910009.4528, y: 1501282.1277), "Jeju"),
            (XYPoint(x: 131.866667, y: 37.241667), XYPoint(x: 1387396.8657, y: 1924810.5161), "Dokdo"),
        ]
        let t = try CoordinateTransformer(from: "WGS84", to: "UTMK")
        for (lonLat, expected, place) in cases {
            assertClose(try t.transform(lonLat), expected, within: 0.001, place)
        }
        // Inverse: `echo "1951776.2212 953870.0000" | cs2cs -f "%.9f" EPSG:5179 EPSG:4326`
        // printed 37.564192326 126.977663216.
        assertClose(try transform("EPSG:5179", "WGS84", XYPoint(x: 953870.0, y: 1951776.2212)),
                    XYPoint(x: 126.977663216, y: 37.564192326), within: 1e-9)
    }

    /// City Hall in Web Mercator, WTM (5181), the Central (5186) and East Sea (5188) belts, each from
    /// `echo "37.566554 126.978546" | cs2cs -f "%.4f" EPSG:4326 EPSG:<code>`.
    func testOtherGridsAgainstCs2cs() throws {
        assertClose(try transform("WGS84", "WEBMERCATOR", cityHall), XYPoint(x: 14135187.0824, y: 4518374.0938), within: 0.001)
        assertClose(try transform("WGS84", "WTM", cityHall), XYPoint(x: 198104.6055, y: 451891.0128), within: 0.001)
        assertClose(try transform("WGS84", "KOREA2000-CENTRAL", cityHall), XYPoint(x: 198104.6055, y: 551891.0128), within: 0.001)
        assertClose(try transform("WGS84", "KOREA2000-EASTSEA", cityHall), XYPoint(x: -155358.4701, y: 559501.1845), within: 0.001)
    }

    /// WCONGNAMUL is EPSG:5181 metres × 2.5, in both directions and at many points.
    func testWCONGNAMULIsWTMTimesTwoAndAHalf() throws {
        let toWcong = try CoordinateTransformer(from: "WGS84", to: "WCONGNAMUL")
        let toWTM = try CoordinateTransformer(from: "WGS84", to: "EPSG:5181")
        for p in KoreaGrid.points(columns: 7, rows: 7) {
            let w = try toWcong.transform(p), m = try toWTM.transform(p)
            XCTAssertEqual(w.x, m.x * 2.5, accuracy: 1e-6)
            XCTAssertEqual(w.y, m.y * 2.5, accuracy: 1e-6)
        }
        // A Kakao map URL (urlX=439042, urlY=1109728) lies in Incheon/Bupyeong (docs/REFERENCE.md, "Coordinate systems").
        let place = try transform("WCONGNAMUL", "WGS84", XYPoint(x: 439042, y: 1109728))
        assertClose(place, XYPoint(x: 126.7243, y: 37.4942), within: 0.0001)
        assertClose(try transform("WCONGNAMUL", "WTM", XYPoint(x: 439042, y: 1109728)),
                    XYPoint(x: 175616.8, y: 443891.2), within: 1e-6)
    }

    /// Every alias goes WGS84 → alias → WGS84 and alias → WGS84 → alias within 1 mm. For KATEC/TM128
    /// that takes the engine's refined inverse: PROJ alone drops the Bessel height of the 2D datum
    /// shift and misses by up to ≈6 mm (cs2cs shows the same: 124.6°E 33.2°N comes back as
    /// 124.6000000230, 33.1999999617); see InverseRefinementTests.
    func testRoundTripsWithinOneMillimetreForEveryAlias() throws {
        let grid = KoreaGrid.points(columns: 9, rows: 9)
        for alias in CRSCatalog.aliasNames {
            let tolerance = 0.001
            let forward = try CoordinateTransformer(from: "WGS84", to: alias)
            let back = try CoordinateTransformer(from: alias, to: "WGS84")
            let there = try forward.transform(grid)
            let home = try back.transform(there)
            var worst = 0.0
            for (a, b) in zip(grid, home) {
                worst = max(worst, Coordinate(lon: a.x, lat: a.y).distance(to: Coordinate(lon: b.x, lat: b.y)))
            }
            XCTAssertLessThan(worst, tolerance, "\(alias): WGS84 → \(alias) → WGS84, worst \(worst) m")
            // And from the alias's own coordinates: the grid again, within 1 mm of its units.
            guard !forward.targetIsGeographic else { continue }
            let again = try forward.transform(try back.transform(there))
            let metresPerUnit = alias == "WCONGNAMUL" ? 0.4 : 1.0
            worst = 0
            for (a, b) in zip(there, again) { worst = max(worst, hypot(a.x - b.x, a.y - b.y) * metresPerUnit) }
            XCTAssertLessThan(worst, tolerance, "\(alias): \(alias) → WGS84 → \(alias), worst \(worst) m")
        }
    }

    /// Aliases are case-insensitive and resolve to the EPSG codes named in docs/REFERENCE.md, "Coordinate systems".
    func testAliasesResolve() throws {
        let expected = ["WGS84": "EPSG:4326", "utmk": "EPSG:5179", "Wtm": "EPSG:5181", "webmercator": "EPSG:3857",
                        "korea2000-west": "EPSG:5185", "KOREA2000-Central": "EPSG:5186",
                        "KOREA2000-EAST": "EPSG:5187", "Korea2000-EastSea": "EPSG:5188",
                        "epsg:5179": "EPSG:5179", " EPSG:05179 ": "EPSG:5179", "katec": "KATEC", "TM128": "KATEC",
                        "wcongnamul": "WCONGNAMUL"]
        for (name, canonical) in expected {
            XCTAssertEqual(try CRSCatalog.resolve(name).name, canonical, name)
        }
        // Any EPSG code PROJ knows works, e.g. Korean 1985 / Modified Central Belt (5174), through
        // PROJ's Korean 1985 → WGS 84 operation: `echo "37.566554 126.978546" | cs2cs -f "%.4f"
        // EPSG:4326 EPSG:5174` printed 451585.8324 198034.9848.
        assertClose(try transform("WGS84", "EPSG:5174", cityHall), XYPoint(x: 198034.9848, y: 451585.8324), within: 0.001)
    }
}

/// A grid over South Korea (124.6–131.0°E, 33.2–38.6°N) for round-trip checks.
enum KoreaGrid {
    static func points(columns: Int, rows: Int) -> [XYPoint] {
        var out: [XYPoint] = []
        for i in 0..<columns {
            for j in 0..<rows {
                out.append(XYPoint(x: 124.6 + 6.4 * Double(i) / Double(columns - 1),
                                   y: 33.2 + 5.4 * Double(j) / Double(rows - 1)))
            }
        }
        return out
    }
}

@testable import Coordinates
import XCTest

/// PROJ is opened at run time (`ProjLibrary`), not linked: the engine's calls reach the real library.
final class ProjLibraryTests: XCTestCase {
    func testPROJIsOpenedAtRunTimeAndAnswers() throws {
        XCTAssertNoThrow(try ProjLibrary.require())
        let t = try CoordinateTransformer(from: "WGS84", to: "EPSG:5186", fastKernels: false)
        let p = try t.transform(XYPoint(x: 127, y: 38))
        XCTAssertEqual(p.x, 200_000, accuracy: 0.001)
        XCTAssertEqual(p.y, 600_000, accuracy: 0.001)
        // (/proc files report size 0: read them to the end, not by their size.)
        let maps = String(decoding: try XCTUnwrap(FileHandle(forReadingAtPath: "/proc/self/maps")).readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(maps.contains("libproj.so"), "the library mapped is Debian's libproj")
        XCTAssertTrue(t.operationDescription.contains("+proj=tmerc"), t.operationDescription)
    }
}

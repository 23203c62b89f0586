import Foundation
import TestSupport
import XCTest

/// `taxipot transform` over the text forms other tools write: whitespace-separated points (the
/// cs2cs habit), other delimiters, a chosen precision, a BOM or CP949 header.
final class TransformTextFormsTests: XCTestCase {
    let points = [(126.978546, 37.566554), (129.075642, 35.179554), (127.0276, 37.4979)]

    /// The comma output for the same points, the reference every other form is compared with.
    func commaOutput(_ extra: [String] = []) throws -> [String] {
        let text = points.map { "\($0.0),\($0.1)\n" }.joined()
        let r = try TaxipotCLI.run(["transform", "--from", "WGS84", "--to", "UTMK"] + extra, stdin: Array(text.utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdoutText.split(separator: "\n").map(String.init)
    }

    func testWhitespaceSeparatedInputAsCs2csReadsIt() throws {
        let expected = try commaOutput().map { $0.replacingOccurrences(of: ",", with: " ") }
        let text = "  \(points[0].0) \(points[0].1)\n\(points[1].0)\t\t\(points[1].1)  \r\n\(points[2].0)   \(points[2].1)\n"
        let r = try TaxipotCLI.run(["transform", "--from", "WGS84", "--to", "UTMK", "--delimiter", "space"], stdin: Array(text.utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdoutText.split(separator: "\n").map(String.init), expected)

        // A bad line names its number; the others still convert.
        let bad = try TaxipotCLI.run(["transform", "--from", "WGS84", "--to", "UTMK", "--delimiter", "space"],
                                     stdin: Array("127 37.5\n127,37.5\n".utf8))
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("stdin: line 2: expected x y, got '127,37.5'"), bad.stderr)
        let wrong = try TaxipotCLI.run(["transform", "--from", "WGS84", "--to", "UTMK", "--delimiter", "::"], stdin: [])
        XCTAssertEqual(wrong.status, 1)
        XCTAssertTrue(wrong.stderr.contains("--delimiter must be"), wrong.stderr)
    }

    func testPrecisionAndSemicolonColumns() throws {
        let two = try commaOutput(["--precision", "2"])
        let three = try commaOutput()
        XCTAssertEqual(two.count, 3)
        for (a, b) in zip(two, three) {
            let pa = a.split(separator: ",").map { Double($0)! }, pb = b.split(separator: ",").map { Double($0)! }
            XCTAssertEqual(a.split(separator: ",")[0].split(separator: ".")[1].count, 2, a)
            XCTAssertEqual(pa[0], pb[0], accuracy: 0.0051)
            XCTAssertEqual(pa[1], pb[1], accuracy: 0.0051)
        }
        let bad = try TaxipotCLI.run(["transform", "--from", "WGS84", "--to", "UTMK", "--precision", "20"], stdin: [])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("--precision"), bad.stderr)

        // A semicolon CSV with a BOM and a Korean header, columns named: converted in place.
        let text = "\u{FEFF}이름;경도;위도\n시청;\(points[0].0);\(points[0].1)\n"
        let r = try TaxipotCLI.run(["transform", "--from", "WGS84", "--to", "UTMK", "--delimiter", ";", "--x-col", "경도", "--y-col", "위도"],
                                   stdin: Array(text.utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdoutText, "이름;경도;위도\n시청;\(three[0].replacingOccurrences(of: ",", with: ";"))\n")
    }

    /// A CP949 file (Korean header, names in other columns) is told from its bytes; output is UTF-8.
    func testCP949InputIsConverted() throws {
        let three = try commaOutput()
        let utf8 = "이름,x,y\n서울시청 뷁,\(points[0].0),\(points[0].1)\n"
        let path = TestPaths.temporaryDirectory("transform-cp949").appendingPathComponent("cp949.csv").path
        try Data(try SystemIconv.encode(utf8, to: "CP949")).write(to: URL(fileURLWithPath: path))
        let r = try TaxipotCLI.run(["transform", "--from", "WGS84", "--to", "UTMK", "--x-col", "x", "--y-col", "y", path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdoutText, "이름,x,y\n서울시청 뷁,\(three[0])\n")
    }
}

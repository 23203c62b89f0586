import Coordinates
import XCTest

/// The streaming CSV conversion behind `taxipot transform`.
final class CSVTransformTests: XCTestCase {
    struct Run {
        var output: String
        var errors: [String]
        var summary: CSVTransformSummary
        var lines: [String] { output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
    }

    /// Runs the stream over in-memory text, handing it out in reads of at most `readSize` bytes.
    func run(_ text: String, from: String = "WGS84", to: String = "UTMK", x: String? = nil, y: String? = nil,
             blockBytes: Int = 2 << 20, readSize: Int = 1 << 20, maxReported: Int = 100) throws -> Run
    {
        var options = CSVTransformOptions(xColumn: x, yColumn: y)
        options.blockBytes = blockBytes
        options.maxReportedErrors = maxReported
        let stream = CSVCoordinateTransform(transformer: try CoordinateTransformer(from: from, to: to), options: options)
        var output: [UInt8] = []
        var errors: [String] = []
        let summary = try stream.run(read: memoryReader(Array(text.utf8), readSize: readSize), write: { output += $0 },
                                     report: { errors.append($0) })
        return Run(output: String(decoding: output, as: UTF8.self), errors: errors, summary: summary)
    }

    func testPlainLinesDegreesAndMetres() throws {
        let r = try run("126.978546,37.566554\n129.075642, 35.179554\r\n", to: "KATEC")
        XCTAssertEqual(r.lines, ["309958.439,552078.819", "498168.596,287269.945"])  // 3 decimals for metres
        XCTAssertEqual(r.summary, CSVTransformSummary(lines: 2, converted: 2, badLines: 0))
        let back = try run("953949.4172,1952037.8043", from: "UTMK", to: "WGS84")  // no final newline
        XCTAssertEqual(back.lines, ["126.97854600,37.56655400"])  // 8 decimals for degrees
    }

    func testBadLinesAreReportedByNumberAndKeptInPlace() throws {
        let text = "127,37\nfoo,bar\n127,91\n\n127\n181,37\n127.5,36.5\nnan,37\n"
        let r = try run(text)
        XCTAssertEqual(r.errors, ["line 2: x 'foo' is not a finite number", "line 3: latitude 91.0 is beyond ±90",
                                  "line 5: expected x,y, got '127'", "line 6: longitude 181.0 is beyond ±180",
                                  "line 8: x 'nan' is not a finite number"])
        XCTAssertEqual(r.lines.count, 8, "one output line per input line")
        XCTAssertEqual(r.lines[1], ",")
        XCTAssertEqual(r.lines[3], "")
        XCTAssertTrue(r.lines[6].hasPrefix("1"))
        XCTAssertEqual(r.summary, CSVTransformSummary(lines: 8, converted: 2, badLines: 5))
        // Reports stop at the limit, then one line counts the rest.
        let capped = try run(String(repeating: "x,y\n", count: 10), maxReported: 3)
        XCTAssertEqual(capped.errors.count, 4)
        XCTAssertEqual(capped.errors.last, "… and 7 more bad lines")
        XCTAssertEqual(capped.summary.badLines, 10)
        // A point PROJ cannot transform (EPSG:3035's antipode) is a bad line too.
        let far = try run("10,52\n-170,-52\n", to: "EPSG:3035")
        XCTAssertEqual(far.errors.count, 1)
        XCTAssertTrue(far.errors[0].hasPrefix("line 2: could not be transformed"), far.errors[0])
    }

    func testCSVColumnsAreReplacedAndOthersCarried() throws {
        let text = "\u{FEFF}id,name,Lon,lat,\"note, with comma\"\r\n"
            + "1,\"City Hall, Seoul\",126.978546,37.566554,x\r\n"
            + "2,bad,abc,37,y\n"
            + "3,\"q\",\"127.0\",38.0,\"z\"\"z\"\n"
            + "4,short\n"
        let r = try run(text, x: "lon", y: "lat")  // header names match case-insensitively
        XCTAssertEqual(r.lines, ["id,name,Lon,lat,\"note, with comma\"",
                                 "1,\"City Hall, Seoul\",953949.417,1952037.804,x",
                                 "2,bad,,,y",
                                 "3,\"q\",956101.200,2000117.928,\"z\"\"z\"",
                                 "4,short"])
        XCTAssertEqual(r.errors, ["line 3: x 'abc' is not a finite number", "line 5: has 2 fields; the y column is field 4"])
        // Columns in y, x order are written back in place.
        let swapped = try run("lat,lon\n37.566554,126.978546\n", x: "lon", y: "lat")
        XCTAssertEqual(swapped.lines, ["lat,lon", "1952037.804,953949.417"])
    }

    func testColumnOptionErrors() {
        XCTAssertThrowsError(try run("a,b\n1,2\n", x: "lon", y: "b")) { error in
            XCTAssertEqual(error as? CSVTransformError, .columnNotFound(option: "x-col", column: "lon", header: ["a", "b"]))
            XCTAssertEqual("\(error)", "--x-col: no column 'lon' in the header (a, b)")
        }
        XCTAssertThrowsError(try run("a,b\n", x: "a", y: "a")) { XCTAssertEqual($0 as? CSVTransformError, .sameColumn("a")) }
        XCTAssertThrowsError(try run("a,b\n", x: "a")) { XCTAssertEqual($0 as? CSVTransformError, .missingColumnOption("y-col")) }
        XCTAssertThrowsError(try run("", x: "a", y: "b")) { XCTAssertEqual($0 as? CSVTransformError, .missingHeader) }
    }

    /// Many small blocks and short reads: every line lands in order with the right line number,
    /// and equals the transformer's own answer.
    func testBlocksAndPartsKeepOrderAndLineNumbers() throws {
        let (xs, ys) = SeoulPoints.random(count: 30_000, seed: 5)
        var text = "lon,lat,i\n"
        for i in 0..<xs.count {
            text += i % 7_919 == 0 ? "oops,\(ys[i]),\(i)\n" : "\(xs[i]),\(ys[i]),\(i)\n"
        }
        let r = try run(text, x: "lon", y: "lat", blockBytes: 150_000, readSize: 4_093)
        let bad = Swift.stride(from: 0, to: xs.count, by: 7_919).map { "line \($0 + 2): x 'oops' is not a finite number" }
        XCTAssertEqual(r.errors, bad)
        XCTAssertEqual(r.summary, CSVTransformSummary(lines: 30_001, converted: 30_000 - bad.count, badLines: bad.count))
        let lines = r.lines
        XCTAssertEqual(lines.count, 30_001)
        let t = try CoordinateTransformer(from: "WGS84", to: "UTMK")
        for i in Swift.stride(from: 1, to: xs.count, by: 997) where i % 7_919 != 0 {
            let p = try t.transform(XYPoint(x: xs[i], y: ys[i]))
            XCTAssertEqual(lines[i + 1], String(format: "%.3f,%.3f,%d", p.x, p.y, i))
        }
    }

    func testOverlongLineIsAnError() {
        var options = CSVTransformOptions()
        options.blockBytes = 4096
        options.maxLineBytes = 8192
        let stream = CSVCoordinateTransform(transformer: try! CoordinateTransformer(from: "WGS84", to: "UTMK"), options: options)
        let input = Array(("127,37\n" + String(repeating: "9", count: 10_000) + "\n").utf8)
        XCTAssertThrowsError(try stream.run(read: memoryReader(input), write: { _ in }, report: { _ in })) { error in
            XCTAssertEqual(error as? CSVTransformError, .lineTooLong(line: 2, limit: 8192))
        }
    }

    /// An overlong line after many blocks of lines (and a header) is named by its own line number:
    /// the reader does not count lines, the stream does from the blocks before it.
    func testOverlongLineAfterManyBlocksIsNamedByItsNumber() {
        var options = CSVTransformOptions(xColumn: "lon", yColumn: "lat")
        options.blockBytes = 4096
        options.maxLineBytes = 8192
        let stream = CSVCoordinateTransform(transformer: try! CoordinateTransformer(from: "WGS84", to: "UTMK"), options: options)
        var text = "id,lon,lat\r\n"
        for i in 0..<3000 { text += "\(i),127.\(i % 97),37.\(i % 89)\r\n" }
        text += "x," + String(repeating: "1", count: 9000) + ",37\n127,37\n"
        let input = Array(text.utf8)
        var written = 0
        XCTAssertThrowsError(try stream.run(read: memoryReader(input, readSize: 1000), write: { written += $0.count }, report: { _ in })) { error in
            XCTAssertEqual(error as? CSVTransformError, .lineTooLong(line: 3002, limit: 8192))
        }
        XCTAssertGreaterThan(written, 3000 * 20, "the lines before it were written")
    }
}

import Foundation
import TestSupport
import XCTest
@testable import CSV

/// Telling UTF-8 from CP949 by the bytes, the delimiter, and the per-line fast scanner.
final class TextEncodingTests: XCTestCase {
    let korean = "출발지 경도,출발지 위도,도착지,인원,메모\n126.97,37.55,광화문,2,\"오전 회의, 본사\"\n126.98,37.57,명동역,1,똠방각하 뷁\n"

    /// All records of `bytes` after detection, with the encoding chosen.
    func read(_ bytes: [UInt8], chunkSize: Int = 1 << 16, delimiter: UInt8 = 0x2C) throws -> ([[String]], InputEncoding) {
        let (source, encoding) = try InputEncoding.detect(in: MemorySource(bytes, chunkSize: chunkSize))
        let reader = CSVReader(source: source, replacementMarksInvalid: encoding != .utf8, delimiter: delimiter)
        var rows: [[String]] = []
        while let r = try reader.next() { rows.append(r.fields) }
        return (rows, encoding)
    }

    func testUTF8WithAndWithoutByteOrderMark() throws {
        let expected = try read(Array(korean.utf8)).0
        XCTAssertEqual(expected[0][0], "출발지 경도")
        XCTAssertEqual(expected[1][4], "오전 회의, 본사")
        for bytes in [Array(korean.utf8), [0xEF, 0xBB, 0xBF] + Array(korean.utf8)] {
            let (rows, encoding) = try read(bytes, chunkSize: 5)
            XCTAssertEqual(encoding, .utf8)
            XCTAssertEqual(rows, expected)
        }
    }

    func testCP949IsToldFromTheBytes() throws {
        let cp949 = try SystemIconv.encode(korean, to: "CP949")
        XCTAssertNil(String(validating: cp949, as: UTF8.self))
        for size in [3, 7, 1 << 16] {
            let (rows, encoding) = try read(cp949, chunkSize: size)
            XCTAssertEqual(encoding, .cp949, "chunk size \(size)")
            XCTAssertEqual(rows, try read(Array(korean.utf8)).0)
        }
        // EUC-KR (the CP949 subset) too.
        let euc = try SystemIconv.encode("이름,주소\n서울역,서울 중구\n", to: "EUC-KR")
        XCTAssertEqual(try read(euc).1, .cp949)
        XCTAssertEqual(try read(euc).0[1], ["서울역", "서울 중구"])
    }

    /// Korean UTF-8 with one damaged byte stays UTF-8 (only that row is bad); bytes that are
    /// neither are an error naming the line, the column and --encoding cp949.
    func testDamagedUTF8StaysUTF8AndDoubtIsAnError() throws {
        var damaged = Array(korean.utf8)
        damaged.insert(0xFF, at: damaged.count - 3)
        XCTAssertEqual(try read(damaged).1, .utf8)

        let latin1 = Array("name,city\nJos".utf8) + [0xE9] + Array(",Caf".utf8) + [0xE9, 0xFF] + [0x0A]
        XCTAssertThrowsError(try read(latin1)) { error in
            XCTAssertEqual(error as? CSVError, .undetectableEncoding(line: 2, column: 1))
            XCTAssertTrue("\(error)".contains("line 2, column 1"), "\(error)")
            XCTAssertTrue("\(error)".contains("--encoding cp949"), "\(error)")
        }
        let at = InputEncoding.position(of: 23, in: Array("a,\"b,\nc\",d\ne,f,g,h,i,j,k".utf8))
        XCTAssertEqual([at.line, at.column], [3, 7], "physical lines; commas inside quotes are no separators")
    }

    func testEncodingOption() throws {
        XCTAssertNil(try InputEncoding.option(nil))
        XCTAssertNil(try InputEncoding.option("AUTO"))
        XCTAssertEqual(try InputEncoding.option("euc-kr"), .cp949)
        XCTAssertThrowsError(try InputEncoding.option("latin1")) { error in
            XCTAssertEqual("\(error)", "option --encoding must be auto, utf-8 or cp949 (also euc-kr), got 'latin1'")
        }
    }

    func testDelimiters() throws {
        let text = "a;\"b;c\";d\n1;\"2\n3\";4\n"
        XCTAssertEqual(try read(Array(text.utf8), chunkSize: 2, delimiter: 0x3B).0, [["a", "b;c", "d"], ["1", "2\n3", "4"]])
        XCTAssertEqual(CSVLine.Separator(option: "tab", allowWhitespace: false), .byte(0x09))
        XCTAssertEqual(CSVLine.Separator(option: ";", allowWhitespace: false), .byte(0x3B))
        XCTAssertNil(CSVLine.Separator(option: "space", allowWhitespace: false))
        XCTAssertEqual(CSVLine.Separator(option: "space", allowWhitespace: true), .whitespace)
        XCTAssertNil(CSVLine.Separator(option: "::", allowWhitespace: true))
    }

    /// The per-line scanner: RFC 4180 quotes on one line, or runs of whitespace (cs2cs input).
    func testLineScanner() {
        func fields(_ line: String, _ separator: CSVLine.Separator) -> [String]? {
            let bytes = Array(line.utf8)
            return bytes.withUnsafeBufferPointer { b -> [String]? in
                var ranges: [Range<Int>] = []
                guard CSVLine.fieldRanges(b, separator: separator, into: &ranges) else { return nil }
                return ranges.map { String(decoding: b[CSVLine.unquoted(b, $0)], as: UTF8.self) }
            }
        }
        XCTAssertEqual(fields("1,\"a,b\", 3 ", .comma), ["1", "a,b", "3"])
        XCTAssertEqual(fields("1,,3", .comma), ["1", "", "3"])
        XCTAssertNil(fields("1,\"open", .comma))
        XCTAssertEqual(fields("  127.0\t 37.5  ", .whitespace), ["127.0", "37.5"])
        XCTAssertEqual(fields("x|y", .byte(0x7C)), ["x", "y"])
        XCTAssertEqual(CSVLine.headerNames(Array("\u{FEFF}id,\"say \"\"hi\"\"\", lon ".utf8)), ["id", "say \"hi\"", "lon"])
    }

    /// The place import's table: through the same reader (CP949, BOM, quoted line breaks).
    func testTableReadsLikeTheReader() throws {
        let text = "\u{FEFF}name, lat ,lon\r\n\"서울역\r\n본관\",37.55,126.97\r\n\r\n명동,37.56,126.98\r\n"
        let t = try CSVTable(bytes: Array(text.utf8), path: "t.csv")
        XCTAssertEqual(t.header, ["name", "lat", "lon"])
        XCTAssertEqual(t.rows.map(\.line), [2, 5])
        XCTAssertEqual(t.rows[0][0], "서울역\r\n본관")
        let cp = try CSVTable(bytes: try SystemIconv.encode("이름,위도\n서울역,37.55\n", to: "CP949"), path: "k.csv")
        XCTAssertEqual(cp.header, ["이름", "위도"])
        XCTAssertThrowsError(try CSVTable(bytes: Array("a,b\n\"open,1\n".utf8), path: "q.csv")) { error in
            XCTAssertTrue("\(error)".hasPrefix("q.csv: line 2: a quoted field"), "\(error)")
        }
    }
}

import XCTest
@testable import CSV

/// RFC 4180 reading and writing: the corner cases, at every chunk boundary.
final class CSVReaderTests: XCTestCase {
    /// All records of `text`, read in chunks of `chunkSize` bytes.
    func records(_ text: String, chunkSize: Int = 1 << 16) throws -> [CSVRecord] {
        try records(Array(text.utf8), chunkSize: chunkSize)
    }

    func records(_ bytes: [UInt8], chunkSize: Int = 1 << 16, maxRecordBytes: Int = 1 << 20) throws -> [CSVRecord] {
        let reader = CSVReader(source: MemorySource(bytes, chunkSize: chunkSize), maxRecordBytes: maxRecordBytes)
        var out: [CSVRecord] = []
        while let r = try reader.next() { out.append(r) }
        return out
    }

    func testPlainFieldsAndLineNumbers() throws {
        let r = try records("a,b,c\n1,2,3\n4,5,6\n")
        XCTAssertEqual(r.map(\.fields), [["a", "b", "c"], ["1", "2", "3"], ["4", "5", "6"]])
        XCTAssertEqual(r.map(\.line), [1, 2, 3])
    }

    func testQuotedFieldsWithCommasQuotesAndNewlines() throws {
        let text = "id,note\n1,\"a, b\"\n2,\"say \"\"hi\"\"\"\n3,\"two\nlines\"\n4,\"crlf\r\ninside\"\n5,after\n"
        let r = try records(text)
        XCTAssertEqual(r.map(\.fields), [["id", "note"], ["1", "a, b"], ["2", "say \"hi\""], ["3", "two\nlines"],
                                         ["4", "crlf\r\ninside"], ["5", "after"]])
        // Records start on physical lines; the embedded line breaks count.
        XCTAssertEqual(r.map(\.line), [1, 2, 3, 4, 6, 8])
    }

    func testCRLFAndLoneCRLineEnds() throws {
        let crlf = try records("a,b\r\n1,2\r\n3,4\r\n")
        XCTAssertEqual(crlf.map(\.fields), [["a", "b"], ["1", "2"], ["3", "4"]])
        XCTAssertEqual(crlf.map(\.line), [1, 2, 3])
        let cr = try records("a,b\r1,2\r3,4")
        XCTAssertEqual(cr.map(\.fields), [["a", "b"], ["1", "2"], ["3", "4"]])
        XCTAssertEqual(cr.map(\.line), [1, 2, 3])
        let reader = CSVReader(source: MemorySource("a\r\nb\r\n"))
        _ = try reader.next()
        XCTAssertTrue(reader.usesCRLF)
    }

    func testEmptyFieldsLastLineWithoutNewlineAndBlankLines() throws {
        let r = try records("a,b,c\n,,\n\"\",x,\n\n\n1,2,3")
        XCTAssertEqual(r.map(\.fields), [["a", "b", "c"], ["", "", ""], ["", "x", ""], ["1", "2", "3"]])
        XCTAssertEqual(r.map(\.line), [1, 2, 3, 6])
        XCTAssertEqual(try records("").count, 0)
        XCTAssertEqual(try records("\n\r\n").count, 0)
    }

    func testLenientStrayQuotes() throws {
        // A quote inside an unquoted field is a character; text after a closing quote is kept.
        let r = try records("5\"5,\"ab\"c,x\n")
        XCTAssertEqual(r.map(\.fields), [["5\"5", "abc", "x"]])
    }

    func testByteOrderMarkIsSkippedEvenWhenSplitAcrossChunks() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("이름,값\n서울역,1\n".utf8)
        for size in 1...4 {
            let reader = CSVReader(source: MemorySource(bytes, chunkSize: size))
            XCTAssertEqual(try reader.next()?.fields, ["이름", "값"], "chunk size \(size)")
            XCTAssertEqual(try reader.next()?.fields, ["서울역", "1"])
            XCTAssertNil(try reader.next())
            XCTAssertTrue(reader.hadByteOrderMark)
        }
        let plain = CSVReader(source: MemorySource("a\n"))
        XCTAssertEqual(try plain.next()?.fields, ["a"])
        XCTAssertFalse(plain.hadByteOrderMark)
    }

    func testEveryChunkSizeGivesTheSameRecords() throws {
        let text = "\u{FEFF}h1,h2,h3\r\n\"q,1\",\"multi\r\nline \"\"x\"\"\",광화문\r\n\r\nplain,\"\",\"끝\"\r\nlast,row,\"a\"\"\""
        let whole = try records(text)
        XCTAssertEqual(whole.count, 4)
        XCTAssertEqual(whole[1].fields, ["q,1", "multi\r\nline \"x\"", "광화문"])
        XCTAssertEqual(whole.map(\.line), [1, 2, 5, 6])
        for size in 1...17 {
            XCTAssertEqual(try records(text, chunkSize: size), whole, "chunk size \(size)")
        }
    }

    func testUnterminatedQuoteNamesTheLineWhereItOpened() throws {
        let text = "a,b\n1,2\n3,\"never closed\n4,5\n6,7\n"
        XCTAssertThrowsError(try records(text)) { error in
            XCTAssertEqual(error as? CSVError, .unterminatedQuote(line: 3))
            XCTAssertTrue("\(error)".contains("line 3"), "\(error)")
        }
        // Bounded memory: past the record limit a runaway quote is read through without keeping
        // its bytes, and still reported as the quote it is.
        let long = "a\n\"" + String(repeating: "x,\n", count: 1000)
        XCTAssertThrowsError(try records(Array(long.utf8), maxRecordBytes: 500)) { error in
            XCTAssertEqual(error as? CSVError, .unterminatedQuote(line: 2))
        }
    }

    /// A record over the limit is one record of its own (no fields, `exceededLimit` set),
    /// quoted or not, and the records after it are read as usual, at any chunk size.
    func testOverLongRecordIsOneRecordAndReadingGoesOn() throws {
        let text = "a,b\n1,2\n" + String(repeating: "y", count: 700) + ",3\n\"" + String(repeating: "q,\n", count: 300) + "\",4\n5,6\n"
        for size in [7, 64, 4096] {
            let r = try records(Array(text.utf8), chunkSize: size, maxRecordBytes: 500)
            XCTAssertEqual(r.map(\.line), [1, 2, 3, 4, 305], "chunk size \(size)")
            XCTAssertEqual(r.map(\.exceededLimit), [nil, nil, 500, 500, nil])
            XCTAssertEqual(r[2].fields, [])
            XCTAssertEqual(r[4].fields, ["5", "6"])
        }
    }

    func testInvalidUTF8FlagsTheRecordOnly() throws {
        let bytes = Array("a,b\n".utf8) + [0x31, 0x2C, 0xFF, 0x0A] + Array("2,ok\n".utf8)
        let r = try records(bytes)
        XCTAssertEqual(r.count, 3)
        XCTAssertEqual(r.map(\.hasInvalidText), [false, true, false])
        XCTAssertEqual(r[1].firstInvalidField, 1)
        XCTAssertEqual(r[1].fields, ["1", "\u{FFFD}"])
    }

    func testWriterQuotesOnlyWhenNeeded() {
        let w = CSVWriter()
        XCTAssertEqual(w.format(["plain", "서울역", "1.5", ""]), "plain,서울역,1.5,\n")
        XCTAssertEqual(w.format(["a,b", "say \"hi\"", "two\nlines", "cr\r"]),
                       "\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\r\"\n")
        XCTAssertEqual(CSVWriter(crlf: true).format(["x"]), "x\r\n")
    }

    func testWriterThenReaderRoundTripsRandomFields() throws {
        var rng = SystemRandomNumberGenerator()
        let alphabet: [String] = ["a", "Z", "0", ",", "\"", "\n", "\r", "\r\n", " ", "한", "글", "🚕", "x"]
        var expected: [[String]] = []
        var text: [UInt8] = []
        let writer = CSVWriter(crlf: true)
        for _ in 0..<300 {
            let fieldCount = Int.random(in: 1...5, using: &rng)
            var fields: [String] = []
            for _ in 0..<fieldCount {
                let len = Int.random(in: 0...6, using: &rng)
                fields.append((0..<len).map { _ in alphabet.randomElement(using: &rng)! }.joined())
            }
            // A record of one empty field is a blank line, which readers skip.
            if fields == [""] { fields = ["x"] }
            expected.append(fields)
            writer.appendRecord(fields, to: &text)
        }
        for size in [1, 3, 64, 1 << 16] {
            XCTAssertEqual(try records(text, chunkSize: size).map(\.fields), expected, "chunk size \(size)")
        }
    }
}

import Foundation
import TestSupport
import XCTest

/// Analysts' real files through `taxipot batch`: encodings told from the bytes, Korean headers,
/// column options, the places taken for place text, JSON Lines, and resuming a cut run.
final class AnalystFilesTests: XCTestCase {
    let depart = "2024-05-01T09:00:00+09:00"

    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = TestPaths.temporaryDirectory("batch-analyst").appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A Korean Excel export: CP949 bytes and Korean headers, no --encoding, no column option.
    func testCP949FileWithKoreanHeadersIsReadWithoutOptions() throws {
        let data = try SeoulDataset.directory()
        let text = "번호,출발지 경도,출발지 위도,도착지 경도,도착지 위도,인원,출발시각,메모\n"
            + "1,126.9707,37.5547,126.9769,37.5759,2,2024-05-01T22:30:00+09:00,\"오전 회의, 본사\"\n"
            + "2,126.9832,37.5702,126.9850,37.5637,3,,뷁\n"
        let cp949 = try SystemIconv.encode(text, to: "CP949")
        XCTAssertNil(String(validating: cp949, as: UTF8.self))
        let path = try write(cp949, "korean-excel.csv")
        let r = try TaxipotCLI.run(["batch", path, "--data", data, "--depart-at", depart, "--progress", "none"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(Array(r.stdout.prefix(3)), [0xEF, 0xBB, 0xBF], "UTF-8 output with a BOM, as for --encoding cp949")
        let rows = try parseCSV(String(decoding: r.stdout.dropFirst(3), as: UTF8.self))
        XCTAssertEqual(rows[0].prefix(8), ["번호", "출발지 경도", "출발지 위도", "도착지 경도", "도착지 위도", "인원", "출발시각", "메모"])
        XCTAssertEqual(rows[1][7], "오전 회의, 본사")
        // 인원 is riders: the per-person share divides the fare; 출발시각 22:30 is a night fare.
        let fare1 = Int(rows[1][10])!, share1 = Int(rows[1][11])!, night1 = Int(rows[1][12])!
        XCTAssertEqual(share1, (fare1 + 1) / 2)
        XCTAssertGreaterThan(night1, 0, "22:30 departure from 출발시각")
        let fare2 = Int(rows[2][10])!, share2 = Int(rows[2][11])!
        XCTAssertEqual(share2, (fare2 + 2) / 3, "인원 3")
        XCTAssertEqual(Int(rows[2][12]), 0, "no 출발시각: --depart-at 09:00, no night surcharge")
        // The same file with --encoding cp949 gives the same bytes.
        let named = try TaxipotCLI.run(["batch", path, "--encoding", "cp949", "--data", data, "--depart-at", depart, "--progress", "none"])
        XCTAssertEqual(named.stdout, r.stdout)
    }

    /// What pandas and Korean Excel write (issue 37): riders `2.0` (an integer column holding a NaN
    /// is written as floats), Excel's Korean date-time forms and Unix seconds are read; a failed
    /// row's code and message come apart in error_code and error_message.
    func testPandasNumbersKoreanExcelDatesAndErrorColumns() throws {
        let data = try SeoulDataset.directory()
        let trip = "126.9707,37.5547,126.9769,37.5759"
        let forms = ["2026-12-03 오후 11:30:00", "2026. 12. 3. 23:30", "2026/12/03 23:30", "2026-12-03 11:30:00 PM",
                     "1796308200", "2026-12-03T23:30:00+09:00"]
        var text = "origin_lon,origin_lat,dest_lon,dest_lat,riders,depart_at\n"
        for f in forms { text += "\(trip),2.0,\(f)\n" }
        text += "\(trip),2.5,2026-12-03T23:30\n\(trip),2,2026-12-03 오후 13:30:00\n"
        let path = try write(Array(text.utf8), "pandas.csv")
        let r = try TaxipotCLI.run(["batch", path, "--data", data, "--progress", "none"])
        XCTAssertEqual(r.status, 2, r.stderr)
        let rows = try parseCSV(r.stdoutText)
        let header = rows[0]
        XCTAssertEqual(Array(header.suffix(3)), ["error_code", "error_message", "error"])
        let col = { (name: String) in header.firstIndex(of: name)! }
        let isoRow = rows[forms.count]
        XCTAssertEqual(isoRow[col("error")], "", isoRow.joined(separator: ","))
        for (i, form) in forms.enumerated() {
            let row = rows[i + 1]
            XCTAssertEqual(row[col("error_code")], "", "\(form): \(row[col("error")])")
            // Every form is 23:30 Seoul time on 3 December 2026 (1796308200 is that instant): the same night fare and shares of 2.
            XCTAssertEqual(row[col("fare_krw")], isoRow[col("fare_krw")], form)
            XCTAssertEqual(row[col("night_krw")], isoRow[col("night_krw")], form)
            XCTAssertGreaterThan(Int(row[col("night_krw")]) ?? 0, 0, form)
            XCTAssertEqual(Int(row[col("per_person_krw")]), (Int(row[col("fare_krw")])! + 1) / 2, "riders 2.0 is 2: \(form)")
        }
        let half = rows[forms.count + 1], badHour = rows[forms.count + 2]
        XCTAssertEqual(half[col("error_code")], "bad_riders")
        XCTAssertEqual(half[col("error_message")], "riders '2.5' is not a whole number from 1 to 10")
        XCTAssertEqual(half[col("error")], "bad_riders: riders '2.5' is not a whole number from 1 to 10")
        XCTAssertEqual(badHour[col("error_code")], "bad_date", "오후 13:30 is no time")
    }

    /// Bytes that are neither UTF-8 nor CP949: exit 1 naming the line, the column and --encoding cp949.
    func testUndecidableEncodingNamesLineColumnAndOption() throws {
        var bytes = Array("origin_lon,origin_lat,dest_lon,dest_lat,note\n126.97,37.55,126.98,37.57,ok\n".utf8)
        bytes += Array("126.97,37.55,126.98,37.57,".utf8) + [0xFF, 0xFE, 0x80, 0x0A]
        let path = try write(bytes, "latin.csv")
        let r = try TaxipotCLI.run(["batch", path, "--data", try SeoulDataset.directory(), "--progress", "none"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("line 3, column 5"), r.stderr)
        XCTAssertTrue(r.stderr.contains("--encoding cp949"), r.stderr)
        XCTAssertTrue(r.stdout.isEmpty)
    }

    /// A Korean Excel export with one row pasted in as UTF-8: refused naming that row's line
    /// and column, not line 1 (which is valid CP949).
    func testCP949FileWithOneUTF8RowNamesThatRow() throws {
        let text = "번호,출발지 경도,출발지 위도,도착지 경도,도착지 위도,인원,출발시각,메모\n"
            + "1,126.9707,37.5547,126.9769,37.5759,2,,오전 회의\n"
            + "2,126.9832,37.5702,126.9850,37.5637,3,,본사\n"
        var bytes = try SystemIconv.encode(text, to: "CP949")
        bytes += Array("3,126.9780,37.5665,126.9769,37.5759,1,,회의실\n".utf8)
        bytes += try SystemIconv.encode("4,126.9707,37.5547,126.9832,37.5702,1,,명동\n", to: "CP949")
        let path = try write(bytes, "cp949-one-utf8-row.csv")
        let r = try TaxipotCLI.run(["batch", path, "--data", try SeoulDataset.directory(), "--progress", "none"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("line 4, column 8: this line is not CP949"), r.stderr)
        XCTAssertFalse(r.stderr.contains("line 1,"), r.stderr)
        XCTAssertTrue(r.stdout.isEmpty)
    }

    /// A UTF-8 byte-order mark before a CP949 body: the encoding problem, with its line, and
    /// not "missing required columns".
    func testByteOrderMarkBeforeCP949IsAnEncodingError() throws {
        let text = "번호,출발지 경도,출발지 위도,도착지 경도,도착지 위도,메모\n1,126.9707,37.5547,126.9769,37.5759,오전 회의\n"
        let path = try write([0xEF, 0xBB, 0xBF] + (try SystemIconv.encode(text, to: "CP949")), "bom-cp949.csv")
        let r = try TaxipotCLI.run(["batch", path, "--data", try SeoulDataset.directory(), "--progress", "none"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("line 1, column 1: the file starts with a UTF-8 byte-order mark, but its text is not UTF-8"), r.stderr)
        XCTAssertFalse(r.stderr.contains("missing required column"), r.stderr)
        // An ASCII header and a CP949 row after the mark: that row's line is named.
        let rows = try SystemIconv.encode("id,origin_lon,origin_lat,dest_lon,dest_lat,memo\n1,126.9707,37.5547,126.9769,37.5759,ok\n"
            + "2,126.9707,37.5547,126.9769,37.5759,오전 회의\n", to: "CP949")
        let second = try write([0xEF, 0xBB, 0xBF] + rows, "bom-cp949-row.csv")
        let r2 = try TaxipotCLI.run(["batch", second, "--data", try SeoulDataset.directory(), "--progress", "none"])
        XCTAssertEqual(r2.status, 1, r2.stderr)
        XCTAssertTrue(r2.stderr.contains("line 3, column 6: the file starts with a UTF-8 byte-order mark"), r2.stderr)
        // With --encoding utf-8 the header is read with replacement characters: the encoding is
        // still what is reported.
        let forced = try TaxipotCLI.run(["batch", path, "--encoding", "utf-8", "--data", try SeoulDataset.directory(), "--progress", "none"])
        XCTAssertEqual(forced.status, 1, forced.stderr)
        XCTAssertTrue(forced.stderr.contains("line 1, column 1: the header holds bytes that are not text"), forced.stderr)
        XCTAssertFalse(forced.stderr.contains("missing required column"), forced.stderr)
    }

    /// Columns named by option, a semicolon-separated file, JSON Lines out.
    func testColumnOptionsDelimiterAndJSONLines() throws {
        let data = try SeoulDataset.directory()
        let text = "trip;from_x;from_y;to_x;to_y\nA;126.9707;37.5547;126.9769;37.5759\nB;x;37.5702;126.9850;37.5637\n"
        let path = try write(Array(text.utf8), "semicolon.csv")
        let r = try TaxipotCLI.run(["batch", path, "--data", data, "--depart-at", depart, "--progress", "none", "--delimiter", ";",
                                    "--origin-lon-col", "from_x", "--origin-lat-col", "FROM_Y", "--dest-lon-col", "to_x",
                                    "--dest-lat-col", "to_y", "--format", "jsonl"])
        XCTAssertEqual(r.status, 2, r.stderr)
        let lines = r.stdoutText.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, "one object per row, no header line")
        let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as! [String: Any]
        XCTAssertEqual(first["trip"] as? String, "A")
        XCTAssertEqual(first["from_x"] as? String, "126.9707", "input fields stay text")
        XCTAssertGreaterThan((first["fare_krw"] as? NSNumber)?.intValue ?? 0, 4000, "results are numbers")
        XCTAssertTrue(first["error"] is NSNull)
        let second = try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as! [String: Any]
        XCTAssertTrue(second["fare_krw"] is NSNull)
        XCTAssertEqual(second["error"] as? String, "not_a_number: origin_lon 'x' is not a number")
        XCTAssertEqual(second["error_code"] as? String, "not_a_number")
        XCTAssertEqual(second["error_message"] as? String, "origin_lon 'x' is not a number")
        XCTAssertTrue(first["error_code"] is NSNull && first["error_message"] is NSNull)

        // A column option naming no header column, a bad --format, a bad --delimiter: exit 1, the option named.
        let missing = try TaxipotCLI.run(["batch", path, "--data", data, "--delimiter", ";", "--origin-lon-col", "lon"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("option --origin-lon-col: the header has no column 'lon'"), missing.stderr)
        let format = try TaxipotCLI.run(["batch", path, "--data", data, "--format", "xml"])
        XCTAssertEqual(format.status, 1)
        XCTAssertTrue(format.stderr.contains("--format must be csv or jsonl"), format.stderr)
        let delimiter = try TaxipotCLI.run(["batch", path, "--data", data, "--delimiter", "::"])
        XCTAssertEqual(delimiter.status, 1)
        XCTAssertTrue(delimiter.stderr.contains("--delimiter"), delimiter.stderr)
    }

    /// Place text: the place taken is written out (by default; --no-place-columns leaves it out); a weak match is refused per row.
    func testPlaceColumnsShowThePlaceTakenAndWeakMatchesAreRefused() throws {
        let data = try SeoulDataset.directory()
        let text = "출발지,도착지\n서울역,광화문\n서울역,서울특별시청\n\"126.9832,37.5702\",명동역\n"
        let path = try write(Array(text.utf8), "places.csv")
        // The place columns are written by default for place text (--place-columns is accepted too).
        let r = try TaxipotCLI.run(["batch", path, "--data", data, "--depart-at", depart, "--progress", "none"])
        XCTAssertEqual(r.status, 2, r.stderr)
        let flagged = try TaxipotCLI.run(["batch", path, "--data", data, "--depart-at", depart, "--progress", "none", "--place-columns"])
        XCTAssertEqual(flagged.stdout, r.stdout)
        // --no-place-columns leaves them out; the rest of each row is the same.
        let without = try TaxipotCLI.run(["batch", path, "--data", data, "--depart-at", depart, "--progress", "none", "--no-place-columns"])
        XCTAssertEqual(without.status, 2, without.stderr)
        let bare = try parseCSV(without.stdoutText)
        XCTAssertEqual(bare[0], ["출발지", "도착지", "distance_m", "duration_s", "fare_krw", "per_person_krw", "night_krw", "schedule",
                                 "error_code", "error_message", "error"])
        for (plain, full) in zip(bare, try parseCSV(r.stdoutText)) {
            XCTAssertEqual(plain, Array(full.prefix(8)) + full.suffix(3))
        }
        let rows = try parseCSV(r.stdoutText)
        XCTAssertEqual(rows[0], ["출발지", "도착지", "distance_m", "duration_s", "fare_krw", "per_person_krw", "night_krw", "schedule",
                                 "origin_place", "origin_place_lon", "origin_place_lat", "dest_place", "dest_place_lon", "dest_place_lat",
                                 "error_code", "error_message", "error"])
        XCTAssertTrue(rows[1][8].hasPrefix("서울역"), rows[1][8])
        XCTAssertEqual(Double(rows[1][9])!, 126.97, accuracy: 0.01)
        XCTAssertEqual(Double(rows[1][10])!, 37.555, accuracy: 0.01)
        XCTAssertTrue(rows[1][11].hasPrefix("광화문"), rows[1][11])
        XCTAssertEqual(rows[1].last, "")
        // A weak match (the search's best guess for 서울특별시청 is another place) is an error, not a guess.
        XCTAssertTrue(rows[2].last!.hasPrefix("unknown_place: destination '서울특별시청' matches no place well enough"), rows[2].last!)
        XCTAssertEqual(rows[2][4], "")
        XCTAssertEqual(rows[2][11], "")
        // A "lon,lat" text is no geocoding: its place columns are empty.
        XCTAssertEqual(rows[3].last, "", rows[3].last!)
        XCTAssertEqual(rows[3][8], "")
        XCTAssertTrue(rows[3][11].hasPrefix("명동"), rows[3][11])
    }

    /// A run cut part-way (its output truncated inside a quoted multi-line field) resumed with
    /// --resume ends byte for byte as one uninterrupted run (every cut: ResumeTests).
    func testResumedRunEqualsAnUninterruptedOne() throws {
        let data = try SeoulDataset.directory()
        var text = "\u{FEFF}id,origin_lon,origin_lat,dest_lon,dest_lat,note\r\n"
        let ends = [(126.9707, 37.5547), (126.9769, 37.5759), (126.9832, 37.5702), (126.9850, 37.5637), (126.9780, 37.5665)]
        for i in 0..<30 {
            let a = ends[i % ends.count], b = ends[(i * 3 + 1) % ends.count]
            let note = i % 7 == 0 ? "\"line one\r\nline two, \"\"quoted\"\"\"" : "n\(i)"
            let lon = i % 11 == 0 ? "x" : String(a.0)
            text += "\(i),\(lon),\(a.1),\(b.0),\(b.1),\(note)\r\n"
        }
        let input = try write(Array(text.utf8), "resume-in.csv")
        let dir = TestPaths.temporaryDirectory("batch-resume")
        let whole = dir.appendingPathComponent("whole").path, cut = dir.appendingPathComponent("cut").path
        let args = [input, "--data", data, "--depart-at", depart, "--progress", "none", "--workers", "2"]
        let full = try TaxipotCLI.run(["batch"] + args + ["-o", whole])
        XCTAssertEqual(full.status, 2, full.stderr)
        let expected = try Data(contentsOf: URL(fileURLWithPath: whole))
        let inQuotes = try XCTUnwrap(expected.range(of: Data("line one".utf8), options: .backwards)?.upperBound)
        try expected.prefix(inQuotes + 3).write(to: URL(fileURLWithPath: cut))
        let resumed = try TaxipotCLI.run(["batch"] + args + ["-o", cut, "--resume"])
        XCTAssertEqual(resumed.status, 2, "failed rows before the cut still count: \(resumed.stderr)")
        XCTAssertTrue(resumed.stderr.contains("resuming after the 28 rows already in"), resumed.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: cut)), expected, "the resumed output differs")

        // --resume needs -o; a file from other options is refused, naming the option.
        let stdout = try TaxipotCLI.run(["batch", input, "--data", data, "--resume"])
        XCTAssertEqual(stdout.status, 1)
        XCTAssertTrue(stdout.stderr.contains("--resume needs the output file"), stdout.stderr)
        let other = TestPaths.temporaryDirectory("batch-resume-other").appendingPathComponent("out.csv").path
        try Data("a,b,c\n1,2,3\n".utf8).write(to: URL(fileURLWithPath: other))
        let mismatch = try TaxipotCLI.run(["batch", input, "--data", data, "--progress", "none", "-o", other, "--resume"])
        XCTAssertEqual(mismatch.status, 1)
        XCTAssertTrue(mismatch.stderr.contains("option --resume"), mismatch.stderr)
        XCTAssertEqual(try String(contentsOfFile: other, encoding: .utf8), "a,b,c\n1,2,3\n", "the other file is left alone")
    }
}

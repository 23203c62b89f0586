import Foundation
import TaxiPot
import TestSupport
import XCTest

/// `taxipot batch` as users run it: files and pipes, exit codes, messages.
final class BatchCLITests: XCTestCase {
    func testMissingColumnsExitOneNamingThemBeforeAnyWork() throws {
        let dir = TestPaths.temporaryDirectory("batch-cli")
        let input = dir.appendingPathComponent("in.csv").path
        let output = dir.appendingPathComponent("out.csv").path
        try Data("id,origin_lon,origin_lat,note\n1,126.98,37.57,x\n".utf8).write(to: URL(fileURLWithPath: input))
        // A data folder that does not exist: the header check comes first, so it is never read.
        let r = try TaxipotCLI.run(["batch", input, "-o", output, "--data", dir.appendingPathComponent("nowhere").path])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("missing required column: dest_lon and dest_lat (or destination)"), r.stderr)
        XCTAssertTrue(r.stderr.contains(input), "the message names the file: \(r.stderr)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output), "no output is written")

        let unreadable = try TaxipotCLI.run(["batch", dir.appendingPathComponent("absent.csv").path])
        XCTAssertEqual(unreadable.status, 1)
        XCTAssertTrue(unreadable.stderr.contains("absent.csv"), unreadable.stderr)
        let usage = try TaxipotCLI.run(["batch", "--workers", "0"])
        XCTAssertEqual(usage.status, 1)
        XCTAssertTrue(usage.stderr.contains("--workers"), usage.stderr)
    }

    func testPipeInPipeOutWithFailedRowsExitsTwo() throws {
        let data = try SeoulDataset.directory()
        let csv = "id,origin_lon,origin_lat,dest_lon,dest_lat,depart_at\r\nA,126.9829,37.5700,126.9720,37.5547,2024-05-08T09:00\r\nB,126.9829,north,126.9720,37.5547,2024-05-08T09:00\r\n"
        let r = try TaxipotCLI.run(["batch", "--data", data, "--workers", "3"], stdin: Array(csv.utf8))
        XCTAssertEqual(r.status, 2, r.stderr)
        let rows = try parseCSV(String(decoding: r.stdout, as: UTF8.self))
        XCTAssertEqual(rows.count, 3)
        XCTAssertEqual(rows[0], ["id", "origin_lon", "origin_lat", "dest_lon", "dest_lat", "depart_at"] + BatchSchema.resultColumns)
        XCTAssertEqual(rows[1][0], "A")
        XCTAssertEqual(rows[1][11], "seoul-mid-2023-02-01")
        XCTAssertEqual(rows[2].last, "not_a_number: origin_lat 'north' is not a number")
        XCTAssertTrue(String(decoding: r.stdout, as: UTF8.self).contains("\r\n"), "CRLF input gives CRLF output")
        // The summary on stderr: rows ok, failed by code.
        XCTAssertTrue(r.stderr.contains("ok:     1"), r.stderr)
        XCTAssertTrue(r.stderr.contains("not_a_number: 1 (first at line 3)"), r.stderr)
    }

    /// A record over 1 MiB is one failed row naming its line and the limit; the rows after it
    /// are estimated. Messages show at most a short escaped excerpt of what a row held: no
    /// control character of the input reaches the output or the terminal.
    func testOverLongRecordIsOneBadRowAndTheRunGoesOn() throws {
        let data = try SeoulDataset.directory()
        let dir = TestPaths.temporaryDirectory("batch-long")
        let input = dir.appendingPathComponent("in.csv").path
        let output = dir.appendingPathComponent("out.csv").path
        let trip = "126.9829,37.5700,126.9720,37.5547,2024-05-08T09:00"
        var bytes = Array("id,origin_lon,origin_lat,dest_lon,dest_lat,depart_at,note\n".utf8)
        bytes += Array("A,\(trip),short\n".utf8)
        bytes += Array("B,\(trip),".utf8) + Array(repeating: UInt8(ascii: "z"), count: 1_200_000) + [0x0A]  // no quote anywhere
        bytes += Array("C,\(trip),after the long one\n".utf8)
        // A terminal escape sequence, a bell and a NUL in a bad latitude; then many extra fields.
        bytes += Array("D,126.98,\u{1B}[31mred\u{07}\u{00}\u{1B}]0;owned\u{07},126.97,37.55,2024-05-08T09:00,x\n".utf8)
        bytes += Array("E,\(trip),x,\u{1B}[2J".utf8) + Array(repeating: UInt8(ascii: ","), count: 40) + [0x0A]
        bytes += Array("F,\(trip),last\n".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: input))
        let r = try TaxipotCLI.run(["batch", input, "-o", output, "--data", data, "--progress", "none"])
        XCTAssertEqual(r.status, 2, r.stderr)
        let text = try String(contentsOfFile: output, encoding: .utf8)
        let rows = try parseCSV(text)
        let error = try XCTUnwrap(rows[0].firstIndex(of: "error"), "an output file ends with row_check, after error")
        XCTAssertEqual(rows[0].last, "row_check")
        XCTAssertEqual(rows.map { $0.first ?? "" }, ["id", "A", "", "C", "D", "E", "F"], "one row per record, the long one included")
        XCTAssertEqual(rows[2][error], "record_too_long: the record starting on line 3 is longer than 1048576 bytes (the limit for one record); it was skipped")
        XCTAssertEqual(rows[1][error], "")
        XCTAssertEqual(rows[3][error], "", "the row after the long one is estimated")
        XCTAssertEqual(rows[6][error], "")
        let latitude = rows[4][error]
        XCTAssertTrue(latitude.hasPrefix("not_a_number: origin_lat '\\u{1b}[31mred\\u{7}\\u{0}"), latitude)
        let extra = rows[5][error]
        XCTAssertTrue(extra.hasPrefix("bad_field_count: the row has 48 fields, the header has 7; extra fields: '\\u{1b}[2J', ''"), extra)
        XCTAssertTrue(extra.hasSuffix("(41 in all)"), extra)
        // The input columns are passed through as data; the messages never carry a control byte.
        for message in rows.dropFirst().map({ $0[error] }) + [r.stderr] {
            XCTAssertFalse(message.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "a control character in: \(message)")
            XCTAssertLessThan(message.utf8.count, 1000, "a short excerpt, not the row: \(message.prefix(200))")
        }
        XCTAssertTrue(r.stderr.contains("record_too_long: 1 (first at line 3)"), r.stderr)
        XCTAssertFalse(r.stderr.contains("never closed"), r.stderr)
    }

    func testKoreanExcelExportInCP949() throws {
        let data = try SeoulDataset.directory()
        let text = "origin,destination,riders,메모\n서울역,광화문,2,\"오전 회의, 본사\"\n종각역,이태원역,1,뷁\n"
        // Encoded with the system's iconv program, as an Excel export would be.
        let cp949 = try SystemIconv.encode(text, to: "CP949")
        XCTAssertNil(String(validating: Array(cp949), as: UTF8.self), "the input is not UTF-8")
        let r = try TaxipotCLI.run(["batch", "--encoding", "cp949", "--data", data], stdin: Array(cp949))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(Array(r.stdout.prefix(3)), [0xEF, 0xBB, 0xBF], "UTF-8 output with a BOM, so Excel reads it")
        let rows = try parseCSV(String(decoding: r.stdout, as: UTF8.self))
        XCTAssertEqual(rows[0][3], "메모")
        XCTAssertEqual(rows[1][0], "서울역")
        XCTAssertEqual(rows[1][3], "오전 회의, 본사")
        XCTAssertEqual(rows[2][3], "뷁")
        XCTAssertEqual(rows[2].last, "")
        XCTAssertGreaterThan(Int(rows[2][6]) ?? 0, 4800, "종각역 → 이태원역 is priced")
    }

    /// `--no-header` / `--columns`: a filter for Spark's RDD.pipe. No header in or out, rows in
    /// input order, priced as with a header line; an empty piece is no error.
    func testHeaderlessInputIsAFilterWithTheRowsOfTheHeaderedRun() throws {
        let data = try SeoulDataset.directory()
        let rows = "A,126.9829,37.5700,126.9720,37.5547\nB,126.9829,north,126.9720,37.5547\nC,126.9780,37.5665,126.9920,37.5700\n"
        let common = ["batch", "--data", data, "--workers", "2", "--depart-at", "2024-05-08T09:00:00+09:00", "--progress", "lines"]
        let piped = try TaxipotCLI.run(common + ["--columns", "id, origin_lon,origin_lat,dest_lon,dest_lat"], stdin: Array(rows.utf8))
        XCTAssertEqual(piped.status, 2, piped.stderr)
        let got = try parseCSV(String(decoding: piped.stdout, as: UTF8.self))
        XCTAssertEqual(got.count, 3, "three rows and no header line")
        XCTAssertEqual(got.map { $0[0] }, ["A", "B", "C"], "rows in input order")
        XCTAssertEqual(got[0][10], "seoul-mid-2023-02-01", "row A is priced as with a header line")
        XCTAssertEqual(got[1].last, "not_a_number: origin_lat 'north' is not a number")
        XCTAssertGreaterThan(Int(got[2][7]) ?? 0, 4800, "row C is priced")
        XCTAssertFalse(String(decoding: piped.stdout, as: UTF8.self).contains("rows"), "no progress or summary on stdout")
        XCTAssertTrue(piped.stderr.contains("ok:     2"), piped.stderr)

        // --no-header: the documented order origin_lon, origin_lat, dest_lon, dest_lat; the same results.
        let plain = try TaxipotCLI.run(common + ["--no-header"], stdin: Array("126.9780,37.5665,126.9920,37.5700\n".utf8))
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(try parseCSV(String(decoding: plain.stdout, as: UTF8.self)), [Array(got[2].dropFirst())])

        let empty = try TaxipotCLI.run(common + ["--no-header"], stdin: [])
        XCTAssertEqual(empty.status, 0, empty.stderr)
        XCTAssertTrue(empty.stdout.isEmpty)

        // Columns that cannot work are refused before any work, naming the option.
        let missing = try TaxipotCLI.run(["batch", "--columns", "id,origin_lon", "--data", "/nowhere"], stdin: [])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("option --columns: missing required columns: origin_lat (or origin)"), missing.stderr)
        let blank = try TaxipotCLI.run(["batch", "--columns", "id,,origin_lon"], stdin: [])
        XCTAssertEqual(blank.status, 1)
        XCTAssertTrue(blank.stderr.contains("option --columns: name 2 of 'id,,origin_lon' is empty"), blank.stderr)
    }
}

/// `taxipot batch --estimate` over rows inside and outside the served roads.
final class BatchEstimateTests: XCTestCase {
    func testMixedCoveredAndUncoveredRowsAreAllAnsweredInOrder() throws {
        let data = try SeoulDataset.directory()
        let csv = """
            id,origin_lon,origin_lat,dest_lon,dest_lat,depart_at
            covered,126.9829,37.5700,126.9720,37.5547,2024-05-08T09:00
            gangnam-hongdae,127.0276,37.4979,126.9237,37.5572,2024-05-08T09:00
            jamsil-from-cityhall,126.9779,37.5663,127.1002,37.5133,2024-05-08T09:00
            bad,126.98,north,126.97,37.55,2024-05-08T09:00
            covered-2,126.9945,37.5345,127.0016,37.5709,2024-05-08T09:00

            """
        let r = try TaxipotCLI.run(["batch", "--data", data, "--workers", "2", "--estimate"], stdin: Array(csv.utf8))
        XCTAssertEqual(r.status, 2, r.stderr)  // the bad row
        let rows = try parseCSV(String(decoding: r.stdout, as: UTF8.self))
        let header = rows[0]
        XCTAssertEqual(Array(header.suffix(6)), ["estimated", "fare_low_krw", "fare_high_krw", "error_code", "error_message", "error"])
        let col = { (name: String) in header.firstIndex(of: name)! }
        XCTAssertEqual(rows.dropFirst().map { $0[0] }, ["covered", "gangnam-hongdae", "jamsil-from-cityhall", "bad", "covered-2"])
        for row in rows.dropFirst() {
            XCTAssertEqual(row.count, header.count)
            // Every row is answered or flagged.
            XCTAssertTrue(!row[col("fare_krw")].isEmpty || !row[col("error")].isEmpty, "\(row)")
        }
        for i in [1, 5] {
            XCTAssertEqual(rows[i][col("estimated")], "false")
            XCTAssertEqual(rows[i][col("fare_low_krw")], "")
            XCTAssertEqual(rows[i][col("error")], "")
        }
        for i in [2, 3] {
            XCTAssertEqual(rows[i][col("estimated")], "true", "\(rows[i])")
            let fare = Int(rows[i][col("fare_krw")])!, low = Int(rows[i][col("fare_low_krw")])!, high = Int(rows[i][col("fare_high_krw")])!
            XCTAssertTrue(low <= fare && fare <= high, "\(rows[i])")
        }
        XCTAssertTrue(rows[4][col("error")].hasPrefix("not_a_number"))

        // Without --estimate the uncovered rows are flagged outside_coverage, in place.
        let plain = try TaxipotCLI.run(["batch", "--data", data, "--workers", "2"], stdin: Array(csv.utf8))
        let plainRows = try parseCSV(String(decoding: plain.stdout, as: UTF8.self))
        XCTAssertEqual(plainRows[0].last, "error")
        XCTAssertFalse(plainRows[0].contains("estimated"))
        XCTAssertTrue(plainRows[2].last?.hasPrefix("outside_coverage:") ?? false, "\(plainRows[2])")
        XCTAssertTrue(plainRows[3].last?.hasPrefix("outside_coverage:") ?? false, "\(plainRows[3])")
        XCTAssertTrue(plain.stderr.contains("outside_coverage: 2"), plain.stderr)
    }

    /// --estimate stops where `POST /v1/quote` does: Seoul → Busan is estimated, Seoul → New
    /// York (or the South Pole, or 1e-320,-0.0) is a row error of its own, never "ok".
    func testRowsBeyondTheEstimateRangeFailAlone() throws {
        let csv = """
            id,origin_lon,origin_lat,dest_lon,dest_lat,depart_at
            busan,126.9829,37.5700,129.0414,35.1151,2024-05-08T09:00
            new-york,126.9829,37.5700,-74,40.7,2024-05-08T09:00
            pole,126.9829,37.5700,180,-90,2024-05-08T09:00
            subnormal,126.9829,37.5700,1e-320,-0.0,2024-05-08T09:00

            """
        let r = try TaxipotCLI.run(["batch", "--data", try SeoulDataset.directory(), "--workers", "2", "--estimate", "--progress", "none"],
                                   stdin: Array(csv.utf8))
        XCTAssertEqual(r.status, 2, r.stderr)
        let rows = try parseCSV(String(decoding: r.stdout, as: UTF8.self))
        let col = { (name: String) in rows[0].firstIndex(of: name)! }
        XCTAssertEqual(rows[1][col("estimated")], "true", "\(rows[1])")
        XCTAssertEqual(rows[1][col("error")], "")
        for row in rows[2...4] {
            XCTAssertTrue(row[col("error")].hasPrefix("outside_estimate_range: destination ("), "\(row)")
            XCTAssertEqual(row[col("fare_krw")], "", "\(row)")
        }
        XCTAssertTrue(r.stderr.contains("outside_estimate_range: 3"), r.stderr)
    }
}

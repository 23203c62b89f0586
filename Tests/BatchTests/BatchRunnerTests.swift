import CSV
import Foundation
import XCTest
import Geo
import TestSupport
@testable import Batch

/// The runner's mechanics: columns, row errors, order, exit codes.
final class BatchRunnerTests: XCTestCase {
    let header = "trip_id,origin_lon,origin_lat,dest_lon,dest_lat,depart_at,riders,note"

    func testOutputRepeatsInputColumnsThenResultColumns() throws {
        let text = #"""
        \#(header)
        a1,126.9707,37.5547,126.9769,37.5759,2024-05-01T22:30:00+09:00,3,"memo, with comma"
        a2,126.9832,37.5702,126.9850,37.5637,,,"quote ""x"""

        """#
        let (rows, summary) = try runBatch(text)
        XCTAssertEqual(rows[0], header.split(separator: ",").map(String.init) + BatchSchema.resultColumns)
        XCTAssertEqual(rows.count, 3)
        XCTAssertEqual(Array(rows[1][0..<8]), ["a1", "126.9707", "37.5547", "126.9769", "37.5759", "2024-05-01T22:30:00+09:00", "3", "memo, with comma"])
        XCTAssertEqual(rows[2][7], "quote \"x\"")
        // distance_m: the straight line, rounded; riders and depart_at reach the estimator.
        let d = Coordinate(lon: 126.9707, lat: 37.5547).distance(to: Coordinate(lon: 126.9769, lat: 37.5759))
        XCTAssertEqual(rows[1][8], String(Int(d.rounded())))
        XCTAssertEqual(rows[1][10], "3")                                   // fare_krw = riders
        XCTAssertEqual(rows[1][12], String(Int(SeoulTime.parse("2024-05-01T22:30:00+09:00")!)))
        XCTAssertEqual(rows[1][13], "mid/equal")                           // defaults
        XCTAssertEqual(rows[1][14], "")                                    // no error
        XCTAssertEqual(rows[2][10], "1")                                   // riders default 1
        XCTAssertEqual(rows[2][12], "1700000000")                          // default departure
        XCTAssertEqual(summary.rowsOK, 2)
        XCTAssertEqual(summary.exitCode, 0)
    }

    func testOutputMirrorsByteOrderMarkAndCRLF() throws {
        let text = "\u{FEFF}origin_lon,origin_lat,dest_lon,dest_lat\r\n126.97,37.55,126.98,37.57\r\n"
        let runner = try BatchRunner(source: MemorySource(text), options: BatchOptions(workers: 1, defaultDepartAt: 0))
        let sink = MemorySink()
        _ = try runner.run(estimator: MechanicsEstimator(), sink: sink)
        XCTAssertEqual(Array(sink.bytes.prefix(3)), [0xEF, 0xBB, 0xBF])
        XCTAssertTrue(sink.text.hasSuffix(",mid/equal,,,\r\n"), sink.text)
        XCTAssertEqual(sink.text.components(separatedBy: "\r\n").count, 3)
    }

    func testEveryKindOfBadRowGetsItsOwnCode() throws {
        let text = #"""
        \#(header)
        ok,126.97,37.55,126.98,37.57,,,
        empty,126.97,,126.98,37.57,,,
        nan,abc,37.55,126.98,37.57,,,
        range,37.55,126.97,126.98,37.57,,,
        range2,126.97,37.55,226.98,37.57,,,
        date,126.97,37.55,126.98,37.57,2024-02-30T10:00,,
        riders,126.97,37.55,126.98,37.57,,0,
        riders2,126.97,37.55,126.98,37.57,,two,
        short,126.97,37.55
        long,126.97,37.55,126.98,37.57,,,,surplus
        ok2,126.97,37.55,126.98,37.57,2024-05-01 09:00,10,
        """#
        let (rows, summary) = try runBatch(text)
        XCTAssertEqual(rows.count, 12)
        var codes: [String: String] = [:]
        for row in rows.dropFirst() {
            XCTAssertEqual(row.count, 8 + BatchSchema.resultColumns.count, "\(row)")
            let error = row.last!
            codes[row[0]] = error.split(separator: ":").first.map(String.init) ?? ""
            if !error.isEmpty {
                XCTAssertEqual(Array(row[8..<14]), Array(repeating: "", count: 6), "result columns of a failed row are empty")
            }
        }
        XCTAssertEqual(codes, ["ok": "", "ok2": "", "empty": "empty_field", "nan": "not_a_number", "range": "out_of_range",
                               "range2": "out_of_range", "date": "bad_date", "riders": "bad_riders", "riders2": "bad_riders",
                               "short": "bad_field_count", "long": "bad_field_count"])
        // Messages name the field and the value.
        let byID = Dictionary(uniqueKeysWithValues: rows.dropFirst().map { ($0[0], $0.last!) })
        XCTAssertEqual(byID["empty"], "empty_field: origin_lat is empty")
        XCTAssertEqual(byID["nan"], "not_a_number: origin_lon 'abc' is not a number")
        XCTAssertEqual(byID["range"], "out_of_range: origin_lat 126.97 is outside -90…90 (are origin_lon and origin_lat swapped?)")
        XCTAssertEqual(byID["range2"], "out_of_range: dest_lon 226.98 is outside -180…180")
        XCTAssertTrue(byID["date"]!.contains("'2024-02-30T10:00'"))
        XCTAssertEqual(byID["short"], "bad_field_count: the row has 3 fields, the header has 8")
        XCTAssertEqual(byID["long"], "bad_field_count: the row has 9 fields, the header has 8; extra fields: 'surplus'")
        // The short row keeps what it had.
        XCTAssertEqual(rows[9][0..<3], ["short", "126.97", "37.55"])
        XCTAssertEqual(summary.rowsOK, 2)
        XCTAssertEqual(summary.rowsFailed, 9)
        XCTAssertEqual(summary.failures[.outOfRange], FailureCount(count: 2, firstLine: 5))
        XCTAssertEqual(summary.failures[.badFieldCount], FailureCount(count: 2, firstLine: 10))
        XCTAssertEqual(summary.exitCode, 2)
        XCTAssertTrue(summary.report.contains("bad_riders: 2 (first at line 8)"), summary.report)
    }

    func testPlaceTextAndCoordinateColumns() throws {
        let schema = try BatchSchema(header: ["Origin", " destination ", "origin_lon", "origin_lat", "depart_at"])
        XCTAssertTrue(schema.usesPlaceText)
        let parser = RowParser(schema: schema, defaultDepartAt: 0)
        func trip(_ fields: [String]) -> Result<TripRequest, RowError> { parser.parse(CSVRecord(fields: fields, line: 2)) }
        // Coordinates win when filled in; the text otherwise; "lon,lat" text is a coordinate.
        let a = try trip(["서울역", "광화문", "126.97", "37.55", ""]).get()
        XCTAssertEqual(a.origin, .coordinate(Coordinate(lon: 126.97, lat: 37.55)))
        XCTAssertEqual(a.destination, .place("광화문"))
        let b = try trip(["서울역", "126.98,37.57", "", "", ""]).get()
        XCTAssertEqual(b.origin, .place("서울역"))
        XCTAssertEqual(b.destination, .coordinate(Coordinate(lon: 126.98, lat: 37.57)))
        XCTAssertEqual(trip(["", "광화문", "", "", ""]).failureCode, .emptyField)
        XCTAssertEqual(trip(["", "", "126.97", "37.55", ""]).failureCode, .emptyField)
        XCTAssertEqual(trip(["종각역", "광화문", "x", "37.55", ""]).failureCode, .notANumber)
    }

    func testMissingColumnsFailBeforeAnyWork() throws {
        func error(_ text: String) -> String {
            do {
                _ = try BatchRunner(source: MemorySource(text))
                return "no error"
            } catch { return "\(error)" }
        }
        XCTAssertEqual(error("id,origin_lon,origin_lat,note\n1,2,3,4\n"),
                       "missing required column: dest_lon and dest_lat (or destination) (the header has 'id', 'origin_lon', 'origin_lat', 'note')")
        XCTAssertTrue(error("origin_lat,destination\n").hasPrefix("missing required column: origin_lon (or origin)"))
        XCTAssertTrue(error("id\n").hasPrefix("missing required columns: origin_lon and origin_lat (or origin); dest_lon and dest_lat (or destination)"))
        XCTAssertEqual(error(""), "the input is empty: it has no header row")
        XCTAssertTrue(error("origin,destination,origin\n").contains("more than once: origin"))
        XCTAssertTrue(error("origin,destination,origin_lon\n").contains("origin_lat"))
        XCTAssertEqual(error("origin,destination\n"), "no error")
    }

    func testOrderIsInputOrderUnderManyWorkers() throws {
        var text = "seq,origin_lon,origin_lat,dest_lon,dest_lat\n"
        let n = 3000
        for i in 0..<n {
            text += "\(i),\(126.95 + Double(i % 50) * 0.001),37.55,126.99,\(37.53 + Double(i % 60) * 0.001)\n"
        }
        let options = BatchOptions(workers: 16, chunkRows: 5, defaultDepartAt: 0)
        // Rows sleep up to 2 ms each, so chunks finish out of order.
        let (rows, summary) = try runBatch(text, estimator: MechanicsEstimator(maxDelay: 0.002), options: options)
        XCTAssertEqual(rows.count, n + 1)
        // Each row in place, carrying the result computed from its own line.
        let misplaced = (0..<n).filter { (i: Int) -> Bool in
            let row: [String] = rows[i + 1]
            return row[0] != String(i) || row[8] != String(i + 2)
        }
        XCTAssertEqual(misplaced.count, 0, "first misplaced row: \(misplaced.first.map { rows[$0 + 1] } ?? [])")
        XCTAssertEqual(summary.rowsOK, n)
        XCTAssertGreaterThan(summary.peakChunksInFlight, 1, "work was spread over several chunks at once")
    }

    func testUnreadableRestOfInputStopsWithRowsBeforeWritten() throws {
        let text = "origin_lon,origin_lat,dest_lon,dest_lat,note\n126.97,37.55,126.98,37.57,a\n126.97,37.55,126.98,37.57,\"open\n126.97,37.55,126.98,37.57,c\n"
        let runner = try BatchRunner(source: MemorySource(text), options: BatchOptions(workers: 2, defaultDepartAt: 0))
        let sink = MemorySink()
        let summary = try runner.run(estimator: MechanicsEstimator(), sink: sink)
        XCTAssertEqual(try parseCSV(sink.text).count, 2)
        XCTAssertEqual(summary.exitCode, 1)
        XCTAssertTrue(summary.inputError?.contains("line 3") ?? false, "\(summary.inputError ?? "nil")")
        XCTAssertTrue(summary.report.contains("stopped: line 3"), summary.report)
    }

    func testOutputFailureStopsTheRun() throws {
        /// A sink that fails after its first writes, like a full disk.
        final class FailingSink: ByteSink {
            var writes = 0
            func write(_ bytes: [UInt8]) throws {
                writes += 1
                if writes > 3 { throw ByteStreamError("disk full") }
            }
            func flush() throws {}
        }
        var text = "origin_lon,origin_lat,dest_lon,dest_lat\n"
        for _ in 0..<20_000 { text += "126.97,37.55,126.98,37.57\n" }
        let runner = try BatchRunner(source: MemorySource(text, chunkSize: 512), options: BatchOptions(workers: 3, chunkRows: 16, defaultDepartAt: 0))
        let sink = FailingSink()
        XCTAssertThrowsError(try runner.run(estimator: MechanicsEstimator(), sink: sink)) { error in
            XCTAssertEqual("\(error)", "disk full")
        }
        XCTAssertEqual(sink.writes, 4, "no write after the failure")
    }

    func testProgressCallbacksReachTheLastRow() throws {
        var text = "origin_lon,origin_lat,dest_lon,dest_lat\n"
        for _ in 0..<500 { text += "126.97,37.55,126.98,37.57\n" }
        let runner = try BatchRunner(source: MemorySource(text, chunkSize: 1000), options: BatchOptions(workers: 2, chunkRows: 10, defaultDepartAt: 0))
        var snapshots: [BatchProgressSnapshot] = []
        _ = try runner.run(estimator: MechanicsEstimator(maxDelay: 0.0004), sink: MemorySink(), progressInterval: 0.01) { snapshots.append($0) }
        XCTAssertGreaterThan(snapshots.count, 1)
        XCTAssertEqual(snapshots.last?.final, true)
        XCTAssertEqual(snapshots.last?.rows, 500)
        XCTAssertEqual(snapshots.last?.fractionDone, 1)
        XCTAssertEqual(snapshots.map(\.rows), snapshots.map(\.rows).sorted(), "rows only grow")
    }

    func testProgressDisplayText() throws {
        let s = BatchProgressSnapshot(rows: 450_000, rowsFailed: 12, elapsed: 20, inputBytesDone: 45, inputBytesTotal: 100, final: false)
        XCTAssertEqual(s.etaSeconds!, 20 * 55 / 45, accuracy: 1e-9)
        XCTAssertEqual(BatchProgressDisplay.statusText(s), "450,000 rows (12 failed), 22,500 rows/s, 45%, ETA 0:24")
        XCTAssertTrue(BatchProgressDisplay.barLine(s).hasPrefix("[##########.............."), BatchProgressDisplay.barLine(s))
        let piped = BatchProgressSnapshot(rows: 10, rowsFailed: 0, elapsed: 2, inputBytesDone: 5, inputBytesTotal: nil, final: false)
        XCTAssertEqual(BatchProgressDisplay.statusText(piped), "10 rows, 5 rows/s")

        // Plain lines come every `interval` seconds of the run, not on every update.
        let path = TestPaths.temporaryDirectory("batch-progress").appendingPathComponent("progress.txt").path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let display = BatchProgressDisplay(style: .lines(interval: 5), fileDescriptor: fd)
        for t in [0.0, 1, 4.9, 5.5, 6, 10.4, 10.6] {
            display.show(BatchProgressSnapshot(rows: Int(t * 10), rowsFailed: 0, elapsed: t, inputBytesDone: 0, inputBytesTotal: nil, final: false))
        }
        close(fd)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines, ["batch: 0 rows, 0 rows/s", "batch: 55 rows, 10 rows/s", "batch: 106 rows, 10 rows/s"])
    }
}

extension Result where Failure == RowError {
    var failureCode: RowErrorCode? {
        if case .failure(let e) = self { return e.code }
        return nil
    }
}

import CSV
import Foundation
import XCTest
@testable import Batch

/// `--resume` mechanics: whatever byte an interrupted run stopped at, scanning its output and
/// running again from there gives the uninterrupted run's bytes.
final class ResumeTests: XCTestCase {
    /// A file with a BOM, CRLF, quoted fields spanning lines, doubled quotes and failing rows.
    let input: String = {
        var text = "\u{FEFF}id,origin_lon,origin_lat,dest_lon,dest_lat,note\r\n"
        for i in 0..<25 {
            let note = i % 7 == 0 ? "\"line one\r\nline two, \"\"quoted\"\"\"" : "n\(i)"
            let lon = i % 11 == 0 ? "x" : String(126.9 + Double(i) / 1000)
            text += "\(i),\(lon),37.55,126.98,37.57,\(note)\r\n"
        }
        return text
    }()

    func output(_ format: BatchOutputFormat, resumeAfter rows: Int? = nil) throws -> [UInt8] {
        var options = BatchOptions(workers: 2, chunkRows: 3, defaultDepartAt: 1_700_000_000)
        options.format = format
        options.resumeAfterRows = rows
        let runner = try BatchRunner(source: MemorySource(input, chunkSize: 17), options: options)
        let sink = MemorySink()
        _ = try runner.run(estimator: MechanicsEstimator(), sink: sink)
        return sink.bytes
    }

    func testEveryCutResumesToTheSameBytes() throws {
        for format in BatchOutputFormat.allCases {
            let whole = try output(format)
            var checked = 0
            var tails: [Int: [UInt8]] = [:]  // the resumed run's output after n rows (one run per n)
            for cut in 0...whole.count {
                let prefix = Array(whole[..<cut])
                let scan = try BatchResume.scan(prefix, format: format, hasHeader: format == .csv)
                XCTAssertLessThanOrEqual(scan.keptBytes, cut)
                // Only complete rows are kept: the kept bytes are a prefix that ends a row.
                let resumed = scan.keptBytes == 0
                    ? whole
                    : Array(prefix[..<scan.keptBytes]) + (try tails[scan.rows] ?? output(format, resumeAfter: scan.rows))
                if scan.keptBytes > 0, tails[scan.rows] == nil { tails[scan.rows] = try output(format, resumeAfter: scan.rows) }
                if resumed != whole {
                    XCTFail("\(format): cut at \(cut) of \(whole.count) (kept \(scan.keptBytes), \(scan.rows) rows) resumes to other bytes")
                    break
                }
                if format == .csv, scan.keptBytes > 0 { XCTAssertEqual(scan.header?.first, "id") }
                checked += 1
            }
            XCTAssertEqual(checked, whole.count + 1)
            let all = try BatchResume.scan(whole, format: format, hasHeader: format == .csv)
            XCTAssertEqual(all.rows, 25)
            XCTAssertEqual(all.failedRows, 3, "rows 0, 11, 22 have no number")
            XCTAssertEqual(all.keptBytes, whole.count)
        }
    }
}

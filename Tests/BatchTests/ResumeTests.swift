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

    func runner(_ format: BatchOutputFormat, rowCheck: Bool = false) throws -> BatchRunner {
        var options = BatchOptions(workers: 2, chunkRows: 3, defaultDepartAt: 1_700_000_000)
        options.format = format
        options.rowCheck = rowCheck
        return try BatchRunner(source: MemorySource(input, chunkSize: 17), options: options)
    }

    func output(_ runner: BatchRunner) throws -> [UInt8] {
        let sink = MemorySink()
        _ = try runner.run(estimator: MechanicsEstimator(), sink: sink)
        return sink.bytes
    }

    func testEveryCutResumesToTheSameBytes() throws {
        for format in BatchOutputFormat.allCases {
            for rowCheck in [false, true] { try everyCutResumes(format, rowCheck: rowCheck) }
        }
    }

    func everyCutResumes(_ format: BatchOutputFormat, rowCheck: Bool) throws {
        let whole = try output(runner(format, rowCheck: rowCheck))
        var checked = 0
        var tails: [Int: [UInt8]] = [:]  // the resumed run's output after n rows (one run per n)
        for cut in 0...whole.count {
            let prefix = Array(whole[..<cut])
            let resuming = try runner(format, rowCheck: rowCheck)
            let scan = try resuming.resume(after: prefix)
            XCTAssertLessThanOrEqual(scan.keptBytes, cut)
            // Only complete rows are kept: the kept bytes are a prefix that ends a row.
            if scan.keptBytes > 0, tails[scan.rows] == nil { tails[scan.rows] = try output(resuming) }
            let resumed = scan.keptBytes == 0 ? whole : Array(prefix[..<scan.keptBytes]) + tails[scan.rows]!
            if resumed != whole {
                XCTFail("\(format), row_check \(rowCheck): cut at \(cut) of \(whole.count) (kept \(scan.keptBytes), \(scan.rows) rows) resumes to other bytes")
                break
            }
            checked += 1
        }
        XCTAssertEqual(checked, whole.count + 1)
        let all = try runner(format, rowCheck: rowCheck).resume(after: whole)
        XCTAssertEqual(all.rows, 25)
        XCTAssertEqual(all.failedRows, 3, "rows 0, 11, 22 have no number")
        XCTAssertEqual(all.keptBytes, whole.count)
    }
}

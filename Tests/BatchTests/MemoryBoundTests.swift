import CSV
import Foundation
import XCTest
import TestSupport
@testable import Batch

/// A large file streams through with a fixed number of rows held, however slow a single row is.
final class MemoryBoundTests: XCTestCase {
    func testHundredThousandRowsKeepBufferedRowsBounded() throws {
        let n = 100_000
        let dir = TestPaths.temporaryDirectory("batch-memory")
        let inPath = dir.appendingPathComponent("in.csv").path
        let outPath = dir.appendingPathComponent("out.csv").path
        do {
            let sink = try FileDescriptorSink(path: inPath)
            try sink.write(Array("id,origin_lon,origin_lat,dest_lon,dest_lat,comment\n".utf8))
            var block: [UInt8] = []
            for i in 0..<n {
                let lon = 126.95 + Double(i % 500) * 0.0001
                let lat = 37.53 + Double(i % 600) * 0.0001
                block += Array("\(i),\(lon),\(lat),126.99,37.58,\"row \(i), padded \(String(repeating: "x", count: i % 40))\"\n".utf8)
                if block.count > 1 << 16 { try sink.write(block); block = [] }
            }
            try sink.write(block)
            try sink.flush()
        }
        let inputSize = try FileManager.default.attributesOfItem(atPath: inPath)[.size] as! Int
        XCTAssertGreaterThan(inputSize, 6_000_000)

        let chunkRows = 256, inFlight = 12
        let options = BatchOptions(workers: 4, chunkRows: chunkRows, maxChunksInFlight: inFlight, defaultDepartAt: 0)
        let runner = try BatchRunner(source: FileDescriptorSource(path: inPath), options: options)
        // The first data row stalls for half a second: without the bound, the other workers
        // would run ahead and the reorder buffer would collect most of the file meanwhile.
        let estimator = MechanicsEstimator(stallLine: 2, stallSeconds: 0.5)
        let summary: BatchSummary
        do {
            let out = try FileDescriptorSink(path: outPath)
            summary = try runner.run(estimator: estimator, sink: out)
        }
        XCTAssertEqual(summary.rowsOK, n)
        XCTAssertEqual(summary.exitCode, 0)
        XCTAssertEqual(summary.peakChunksInFlight, inFlight, "the stall filled the pipeline up to its bound")
        XCTAssertLessThanOrEqual(summary.peakBufferedRows, inFlight * chunkRows)
        XCTAssertGreaterThanOrEqual(summary.peakBufferedRows, (inFlight - 1) * chunkRows)
        XCTAssertLessThan(summary.peakBufferedBytes, inFlight * chunkRows * 200)
        XCTAssertLessThan(summary.peakBufferedRows * 20, n, "held rows are a small fixed share of the input")

        // The output is complete and in input order; read it back as a stream.
        let reader = CSVReader(source: try FileDescriptorSource(path: outPath))
        XCTAssertEqual(try reader.next()?.fields.last, "error")
        var expected = 0
        while let r = try reader.next() {
            guard r.fields.first == String(expected), r.fields.last == "" else {
                XCTFail("row \(expected) out of order or failed: \(r.fields)")
                break
            }
            expected += 1
        }
        XCTAssertEqual(expected, n)
    }
}

import CSV
import Foundation
import XCTest
import TestSupport
@testable import Batch

/// CP949 input (Korean Excel exports) converted to UTF-8 as a stream.
final class EncodingTests: XCTestCase {
    let koreanCSV = "id,origin,destination,메모\n1,서울역,광화문,\"회의, 오전\"\n2,종각역,명동,똠방각하 뷁\n3,\"시청\",\"남대문시장\",끝\n"


    func testCP949ConvertsAtEveryChunkBoundary() throws {
        let bytes = try SystemIconv.encode(koreanCSV, to: "CP949")
        // Two bytes per Hangul syllable in CP949 (including 똠 and 뷁, outside EUC-KR's 2,350).
        XCTAssertLessThan(bytes.count, koreanCSV.utf8.count)
        XCTAssertNil(String(validating: bytes, as: UTF8.self), "the CP949 file must not be valid UTF-8")
        for size in 1...9 {
            let source = try InputEncoding.cp949.decoding(MemorySource(bytes, chunkSize: size))
            var out: [UInt8] = []
            while let c = try source.nextChunk() { out += c }
            XCTAssertEqual(String(decoding: out, as: UTF8.self), koreanCSV, "chunk size \(size)")
        }
    }

    func testCP949FileThroughTheRunner() throws {
        let text = "origin_lon,origin_lat,dest_lon,dest_lat,메모\n126.9707,37.5547,126.9769,37.5759,\"서울역, 광화문\"\n126.9832,37.5702,126.9850,37.5637,종각역→명동 뷁\n"
        let bytes = try SystemIconv.encode(text, to: "CP949")
        let dir = TestPaths.temporaryDirectory("batch-cp949")
        let path = dir.appendingPathComponent("in.csv").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let source = try InputEncoding.cp949.decoding(FileDescriptorSource(path: path, chunkSize: 7))
        let runner = try BatchRunner(source: source, options: BatchOptions(workers: 2, defaultDepartAt: 0), convertedEncoding: true)
        let sink = MemorySink()
        let summary = try runner.run(estimator: MechanicsEstimator(), sink: sink)
        let rows = try parseCSV(sink.text)
        XCTAssertEqual(rows[0], ["origin_lon", "origin_lat", "dest_lon", "dest_lat", "메모"] + BatchSchema.resultColumns)
        XCTAssertEqual(rows[1][4], "서울역, 광화문")
        XCTAssertEqual(rows[2][4], "종각역→명동 뷁")
        XCTAssertEqual(summary.rowsOK, 2)
        XCTAssertEqual(summary.exitCode, 0)
    }

    func testInvalidCP949BytesFailOnlyTheirRow() throws {
        var bytes = try SystemIconv.encode("origin_lon,origin_lat,dest_lon,dest_lat,note\n126.97,37.55,126.98,37.57,서울\n", to: "CP949")
        // 0xFF is no CP949 byte; 0x81 followed by a comma is a lead byte without its trail.
        bytes += Array("126.97,37.55,126.98,37.57,bad".utf8) + [0xFF] + Array("\n126.97,37.55,126.98,37.57,lead".utf8) + [0x81]
        bytes += Array(",\n126.97,37.55,126.98,37.57,ok\n".utf8)
        let source = try InputEncoding.cp949.decoding(MemorySource(bytes, chunkSize: 5))
        let runner = try BatchRunner(source: source, options: BatchOptions(workers: 2, defaultDepartAt: 0), convertedEncoding: true)
        let sink = MemorySink()
        let summary = try runner.run(estimator: MechanicsEstimator(), sink: sink)
        let rows = try parseCSV(sink.text)
        XCTAssertEqual(rows.count, 5)
        let errors = rows.dropFirst().map { $0.last! }
        XCTAssertEqual(errors[0], "")
        XCTAssertEqual(errors[1], "bad_encoding: column 'note' holds bytes that are not valid text in the input encoding (written as \u{FFFD})")
        // The lone lead byte does not swallow the comma after it: the field ends there.
        XCTAssertEqual(rows[3][4], "lead\u{FFFD}")
        XCTAssertTrue(errors[2].hasPrefix("bad_encoding: "), errors[2])
        XCTAssertEqual(errors[3], "")
        XCTAssertEqual(summary.rowsOK, 2)
        XCTAssertEqual(summary.rowsFailed, 2)
        XCTAssertEqual(summary.exitCode, 2)
    }

    func testEncodingNames() {
        XCTAssertEqual(InputEncoding(name: "UTF-8"), .utf8)
        XCTAssertEqual(InputEncoding(name: "cp949"), .cp949)
        XCTAssertEqual(InputEncoding(name: "EUC-KR"), .cp949)
        XCTAssertNil(InputEncoding(name: "latin1"))
    }
}

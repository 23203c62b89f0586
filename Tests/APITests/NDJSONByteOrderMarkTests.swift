@testable import API
import XCTest

/// Issue 43: `POST /v1/quotes` with an NDJSON body saved with a UTF-8 byte-order mark answered
/// its first line `bad_json`.
final class NDJSONByteOrderMarkTests: XCTestCase {
    let lines = #"{"origin_lon":126.9784,"origin_lat":37.5665,"dest_lon":127.0276,"dest_lat":37.4979}"# + "\n"
        + #"{"origin_lon":126.9707,"origin_lat":37.5547,"dest_lon":126.9784,"dest_lat":37.5665,"riders":2}"# + "\n"

    func testALeadingByteOrderMarkIsSkipped() {
        let plain = NDJSONTrips(Array(lines.utf8))
        let marked = NDJSONTrips([0xEF, 0xBB, 0xBF] + Array(lines.utf8))
        XCTAssertTrue(plain.broken.isEmpty)
        XCTAssertTrue(marked.broken.isEmpty, "\(marked.broken)")
        XCTAssertEqual(marked.csv, plain.csv)
    }

    func testAByteOrderMarkElsewhereIsStillNotJSON() {
        let later = NDJSONTrips(Array(lines.utf8) + [0xEF, 0xBB, 0xBF] + Array(lines.utf8))
        XCTAssertEqual(later.broken[2]?.code, "bad_json")
        XCTAssertEqual(later.broken.count, 1)
    }
}

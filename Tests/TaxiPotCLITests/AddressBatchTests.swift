import Foundation
import TestSupport
import XCTest

/// Addresses as the batch tool's place text (issue 36): an interpolated address is a place to
/// price from; a road-level answer (somewhere on a road of kilometres) is refused.
final class AddressBatchTests: XCTestCase {
    func testRoadAddressesArePlacesAndRoadLevelAnswersAreRefused() throws {
        let data = try SeoulDataset.directory()
        let text = "출발지,도착지\n서울 중구 세종대로 110,서울역\n테헤란로 99999999999,서울역\n"
        let path = TestPaths.temporaryDirectory("batch-address").appendingPathComponent("addresses.csv").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let r = try TaxipotCLI.run(["batch", path, "--data", data, "--depart-at", "2024-05-01T09:00:00+09:00", "--progress", "none"])
        let rows = try parseCSV(r.stdoutText)
        XCTAssertTrue(rows[1][8].hasPrefix("세종대로 110"), rows[1][8])
        XCTAssertEqual(Double(rows[1][9])!, 126.978, accuracy: 0.003)
        XCTAssertEqual(Double(rows[1][10])!, 37.566, accuracy: 0.003)
        XCTAssertEqual(rows[1].last, "", rows[1].last!)
        XCTAssertGreaterThan(Int(rows[1][4]) ?? 0, 0)
        XCTAssertTrue(rows[2].last!.hasPrefix("unknown_place: origin '테헤란로 99999999999' matches no place well enough"), rows[2].last!)
    }
}

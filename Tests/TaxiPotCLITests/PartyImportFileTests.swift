import Foundation
import Geo
@testable import PartyStores
import TestSupport
import XCTest

/// `taxipot parties import` over the files analysts really have.
final class PartyImportFileTests: XCTestCase {
    /// Excel's "CSV UTF-8": a byte-order mark, CRLF line ends, a Korean title with a comma and doubled
    /// quotes inside quotes; the header is recognised after the BOM.
    func testExcelCSVUTF8WithByteOrderMark() throws {
        let dir = TestPaths.temporaryDirectory("parties-excel").path
        let depart = SeoulTime.format(Date().timeIntervalSince1970 + 86_400)
        let text = "\u{FEFF}id,origin_lon,origin_lat,dest_lon,dest_lat,depart_at,seats_total,seats_taken,title\r\n"
            + "excel-1,126.9707,37.5547,126.9769,37.5759,\(depart),4,1,\"강남 가요, 같이\"\r\n"
            + "excel-2,126.9832,37.5702,126.9850,37.5637,\(depart),3,0,\"따옴표 \"\"인용\"\"\"\r\n"
            + "excel-3,x,37.5702,126.9850,37.5637,\(depart),3,0,\r\n"
        let path = (dir as NSString).appendingPathComponent("excel.csv")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let r = try TaxipotCLI.run(["parties", "import", path, "--state-dir", dir])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("\(path):4: origin_lon must be a number, got 'x'"), r.stderr)
        XCTAssertTrue(r.stderr.contains("stored 2 parties"), r.stderr)
        let store = try SQLitePartyDatabase(path: (dir as NSString).appendingPathComponent("parties.db"))
        let parties = try store.load().parties.sorted { $0.id < $1.id }
        _ = try store.close(backup: false)
        XCTAssertEqual(parties.map(\.id), ["excel-1", "excel-2"], "the BOM is not part of the first id or the header")
        XCTAssertEqual(parties[0].title, "강남 가요, 같이")
        XCTAssertEqual(parties[1].title, "따옴표 \"인용\"")
        XCTAssertEqual(parties[0].origin, Coordinate(lon: 126.9707, lat: 37.5547))
    }

    /// A CP949 file (Korean Excel's plain "CSV") is told from its bytes; a tab-separated one by --delimiter.
    func testCP949AndTabSeparatedFiles() throws {
        let dir = TestPaths.temporaryDirectory("parties-cp949").path
        let depart = SeoulTime.format(Date().timeIntervalSince1970 + 86_400)
        let utf8 = "id,origin_lon,origin_lat,dest_lon,dest_lat,depart_at,seats_total,seats_taken,title\n"
            + "cp-1,126.9707,37.5547,126.9769,37.5759,\(depart),4,1,종각역 같이 가요 뷁\n"
        let cp949 = try SystemIconv.encode(utf8, to: "CP949")
        XCTAssertNil(String(validating: cp949, as: UTF8.self))
        let path = (dir as NSString).appendingPathComponent("cp949.csv")
        try Data(cp949).write(to: URL(fileURLWithPath: path))
        let r = try TaxipotCLI.run(["parties", "import", path, "--state-dir", dir])
        XCTAssertEqual(r.status, 0, r.stderr)

        let tsv = (dir as NSString).appendingPathComponent("tabs.tsv")
        try Data("tab-1\t126.9707\t37.5547\t126.9769\t37.5759\t\(depart)\t4\t1\t탭\n".utf8).write(to: URL(fileURLWithPath: tsv))
        let t = try TaxipotCLI.run(["parties", "import", tsv, "--state-dir", dir, "--delimiter", "tab"])
        XCTAssertEqual(t.status, 0, t.stderr)
        let bad = try TaxipotCLI.run(["parties", "import", tsv, "--state-dir", dir, "--encoding", "latin1"])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("--encoding must be auto, utf-8 or cp949"), bad.stderr)

        let store = try SQLitePartyDatabase(path: (dir as NSString).appendingPathComponent("parties.db"))
        let parties = try store.load().parties.sorted { $0.id < $1.id }
        _ = try store.close(backup: false)
        XCTAssertEqual(parties.map(\.id), ["cp-1", "tab-1"])
        XCTAssertEqual(parties[0].title, "종각역 같이 가요 뷁")
        XCTAssertEqual(parties[1].title, "탭")
    }
}

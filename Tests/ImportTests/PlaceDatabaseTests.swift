import Foundation
import Geo
import Import
import Places
import TestSupport
import XCTest

final class PlaceDatabaseTests: XCTestCase {
    func testEverySourceIsImported() throws {
        let built = try PlacesFixture.get(), report = try built.report
        let c = report.placesByCategory
        XCTAssertEqual(c[PlaceCategory.sido], 17)
        XCTAssertEqual(c[PlaceCategory.sigungu], 253)
        XCTAssertEqual(c[PlaceCategory.emd], 5_026)
        XCTAssertGreaterThan(c[PlaceCategory.ri] ?? 0, 15_000)
        XCTAssertGreaterThan(c[PlaceCategory.station] ?? 0, 800)
        XCTAssertGreaterThan(c[PlaceCategory.busStop] ?? 0, 9_000)
        XCTAssertGreaterThan(c[PlaceCategory.tourist] ?? 0, 800)
        XCTAssertGreaterThan(c[PlaceCategory.food] ?? 0, 300)
        XCTAssertEqual(built.index.count, report.placeCount)
        // Both sides of the road: bus stops of the same name within 50 m are one place.
        XCTAssertGreaterThan(report.mergedDuplicates, 3_000)
        // The source's wrong coordinates are caught, naming the file.
        XCTAssertTrue(report.warnings.contains { $0.contains("urban_rail_stations.csv") && $0.contains("송정") })
    }

    func testStationsAreMergedAcrossLinesAndSources() throws {
        let index = try PlacesFixture.index()
        let seoulStations = index.places.filter { $0.name == "서울역" && $0.category == PlaceCategory.station && $0.address.hasPrefix("서울") }
        XCTAssertFalse(seoulStations.isEmpty)
        let main = try XCTUnwrap(seoulStations.max { $0.detail.count < $1.detail.count })
        for line in ["1호선", "4호선", "공항철도", "경의중앙선"] { XCTAssertTrue(main.detail.contains(line), main.detail) }
        XCTAssertEqual(main.englishName, "Seoul Station")
        let gangnam = try XCTUnwrap(index.places.first { $0.name == "강남역" && $0.category == PlaceCategory.station })
        XCTAssertTrue(gangnam.detail.contains("2호선") && gangnam.detail.contains("신분당선"), gangnam.detail)
        // Line 9 is only in the Seoul master; its English name comes from OSM.
        let yeouido = try XCTUnwrap(index.places.first { $0.name == "여의도역" && $0.category == PlaceCategory.station })
        XCTAssertTrue(yeouido.detail.contains("5호선") && yeouido.detail.contains("9호선"), yeouido.detail)
        // Three different 시청역 (Seoul, Daejeon, Busan) stay apart.
        XCTAssertGreaterThanOrEqual(index.places.filter { $0.name == "시청역" && $0.category == PlaceCategory.station }.count, 3)
    }

    func testNoSameNameDuplicatesWithin50m() throws {
        let index = try PlacesFixture.index()
        var byName: [String: [Place]] = [:]
        for p in index.places where !PlaceCategory.divisions.contains(p.category) {
            byName[SearchText.fold(SearchText.splitParentheses(p.name).base), default: []].append(p)
        }
        var duplicates: [String] = []
        for (name, group) in byName where group.count > 1 {
            for i in group.indices { for j in (i + 1)..<group.count where group[i].coordinate.distance(to: group[j].coordinate) <= 50 {
                duplicates.append(name)
            } }
        }
        XCTAssertEqual(duplicates, [])
    }

    func testImportanceAndAddresses() throws {
        let index = try PlacesFixture.index()
        func importance(_ category: String) -> Double {
            let xs = index.places.filter { $0.category == category }.map(\.importance)
            return xs.reduce(0, +) / Double(max(1, xs.count))
        }
        XCTAssertGreaterThan(importance(PlaceCategory.station), importance(PlaceCategory.busStop))
        XCTAssertGreaterThan(importance(PlaceCategory.sigungu), importance(PlaceCategory.busStop))
        XCTAssertGreaterThan(importance(PlaceCategory.emd), importance(PlaceCategory.busStop))
        XCTAssertGreaterThan(importance(PlaceCategory.sido), importance(PlaceCategory.station))
        for p in index.places {
            XCTAssertFalse(p.address.isEmpty, "\(p.id) \(p.name) has no address")
            XCTAssertTrue(index.knownCategories.contains(p.category), p.category)
            XCTAssertTrue(p.coordinate.isValid, p.id)
        }
        let yeoksam = try XCTUnwrap(index.place(id: "div:11680101"))
        XCTAssertEqual(yeoksam.name, "역삼동")
        XCTAssertEqual(yeoksam.address, "서울특별시 강남구 역삼동")
        XCTAssertEqual(yeoksam.romanizedName, "Yeoksamdong")
        // A bus stop's address is the 동 its position lies in.
        let stop = try XCTUnwrap(index.places.first { $0.category == PlaceCategory.busStop && $0.name == "홍대입구역" })
        XCTAssertTrue(stop.address.hasPrefix("서울특별시 마포구"), stop.address)
        // The source writes 수원시장안구; we write 수원시 장안구.
        XCTAssertEqual(index.place(id: "div:41111")?.name, "수원시 장안구")
        // It writes 서울시노원구 for 노원구 (also 성북구, 도봉구): Seoul's 구 have no city in between.
        XCTAssertEqual(index.place(id: "div:11350")?.name, "노원구")
        XCTAssertEqual(index.place(id: "div:11350102")?.address, "서울특별시 노원구 월계동")
    }

    func testUserCSVImport() throws {
        let built = try PlacesFixture.get()
        let dir = TestPaths.temporaryDirectory("places-user")
        let db = dir.appendingPathComponent("places.db").path
        try FileManager.default.copyItem(atPath: built.databasePath, toPath: db)
        let csv = dir.appendingPathComponent("my places.csv").path
        try #"""
            title,y,x,memo
            우리집 앞,37.5563,126.9236,"home, sweet home"
            ,37.5,127.0,no name
            회사 정문,not a number,127.0,bad latitude
            "Taxipot HQ ""main""",37.4979,127.0276,quoted
            먼바다,37.5,181,bad longitude

            """#.write(toFile: csv, atomically: true, encoding: .utf8)
        let options = PlaceDatabaseBuilder.UserCSVOptions(csvPath: csv, nameColumn: "title", latColumn: "y", lonColumn: "x",
                                                          category: "favorite")
        let report = try PlaceDatabaseBuilder.importUserCSV(options, into: db)
        XCTAssertEqual(report.imported, 2)
        XCTAssertEqual(report.failures.count, 3)
        XCTAssertTrue(report.failures.contains { $0.contains(":3:") && $0.contains("title") }, report.failures.description)
        XCTAssertTrue(report.failures.contains { $0.contains(":4:") && $0.contains("'y'") }, report.failures.description)
        XCTAssertTrue(report.failures.contains { $0.contains(":6:") && $0.contains("'x'") }, report.failures.description)
        // Importing again replaces rather than duplicates.
        _ = try PlaceDatabaseBuilder.importUserCSV(options, into: db)

        let index = try PlaceIndex.open(path: db)
        XCTAssertEqual(index.count, built.index.count + 2)
        XCTAssertTrue(index.knownCategories.contains("favorite"))
        let home = try XCTUnwrap(index.search(PlaceQuery(text: "우리집 앞", limit: 1)).places.first?.place)
        XCTAssertEqual(home.category, "favorite")
        XCTAssertTrue(home.address.hasPrefix("서울특별시 마포구"), home.address)
        XCTAssertEqual(try index.search(PlaceQuery(text: "taxipot hq", category: "favorite", limit: 1)).places.first?.place.name,
                       "Taxipot HQ \"main\"")

        // Bad options are errors naming the problem.
        var bad = options
        bad.latColumn = "lat"
        XCTAssertThrowsError(try PlaceDatabaseBuilder.importUserCSV(bad, into: db)) { e in
            XCTAssertTrue("\(e)".contains("'lat'"), "\(e)")
        }
        bad = options
        bad.category = "Bad Category!"
        XCTAssertThrowsError(try PlaceDatabaseBuilder.importUserCSV(bad, into: db))
        XCTAssertThrowsError(try PlaceDatabaseBuilder.importUserCSV(options, into: dir.appendingPathComponent("none.db").path))
    }

    /// The place DB carries a checksum like the graph file's: any single flipped bit is
    /// refused with a message naming the file and saying to run `make data`.
    func testSingleBitFlipsAreRefused() throws {
        let built = try PlacesFixture.get()
        let original = try Array(Data(contentsOf: URL(fileURLWithPath: built.databasePath)))
        let dir = TestPaths.temporaryDirectory("places-flips")
        let path = dir.appendingPathComponent("places.db").path
        try Data(original).write(to: URL(fileURLWithPath: path))
        XCTAssertNoThrow(try PlaceIndex.open(path: path), "an intact copy opens")
        let n = original.count
        // Header magic, page size, the checksum fields themselves, schema page, data pages, the last byte.
        let offsets = [0, 17, 61, 70, 100, 4096 + 7, n / 3, n / 2 + 1234, 2 * n / 3 + 99, n - 1]
        for (i, offset) in offsets.enumerated() {
            var bytes = original
            bytes[offset] ^= UInt8(1 << (i % 8))
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            XCTAssertThrowsError(try PlaceIndex.open(path: path), "bit \(i % 8) of byte \(offset) flipped, yet the DB opened") { e in
                XCTAssertTrue("\(e)".contains(path), "\(e)")
                XCTAssertTrue("\(e)".contains("make data"), "\(e)")
            }
        }
        // A DB without a checksum (an older build) is refused the same way.
        var unsealed = original
        for o in 60..<64 { unsealed[o] = 0 }
        for o in 68..<72 { unsealed[o] = 0 }
        try Data(unsealed).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try PlaceIndex.open(path: path)) { e in XCTAssertTrue("\(e)".contains("no checksum"), "\(e)") }
    }

    func testOpeningSomethingElseFails() throws {
        let dir = TestPaths.temporaryDirectory("places-bad")
        let path = dir.appendingPathComponent("not.db").path
        try "hello".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try PlaceIndex.open(path: path))
        XCTAssertThrowsError(try PlaceIndex.open(path: dir.appendingPathComponent("missing.db").path))
        XCTAssertThrowsError(try PlaceDatabaseBuilder.build(dataDirectory: dir.path, outputPath: dir.appendingPathComponent("x.db").path)) { e in
            XCTAssertTrue("\(e)".contains("kr_legal_divisions_centroids.csv"), "\(e)")
        }
    }
}

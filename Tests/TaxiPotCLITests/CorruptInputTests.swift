import XCTest
import Foundation
import TestSupport

/// Corrupt or truncated prepared files and sources: `taxipot` must refuse them with a
/// message naming the file and a non-zero exit, never crash or start serving.
final class CorruptInputTests: XCTestCase {
    struct Outcome { let status: Int32; let stderr: String; let timedOut: Bool }

    /// Runs the CLI with a deadline; a process still running at the deadline is killed.
    func runCLI(_ args: [String], seconds: Double = 20) throws -> Outcome {
        let r = try TaxipotCLI.run(args, timeoutSeconds: seconds)
        return Outcome(status: r.status, stderr: r.stderr, timedOut: r.timedOut)
    }

    /// A copy of the shared test dataset (sources and prepared files), ready to be damaged.
    func makeDataset() throws -> URL {
        guard FileManager.default.isExecutableFile(atPath: TaxipotCLI.binary) else {
            XCTFail("\(TaxipotCLI.MissingBinary())")
            throw TaxipotCLI.MissingBinary()
        }
        let built = try TestDataset.built.get()
        let dir = TestPaths.temporaryDirectory("corrupt")
        let fm = FileManager.default
        for item in ["dataset.json", "fares", "traffic"] {
            try fm.copyItem(at: TestPaths.dataDir.appendingPathComponent(item), to: dir.appendingPathComponent(item))
        }
        try fm.createDirectory(at: dir.appendingPathComponent("build"), withIntermediateDirectories: true)
        try fm.copyItem(atPath: built.graphPath, toPath: dir.appendingPathComponent("build/seoul.graph").path)
        try fm.copyItem(atPath: built.placesPath, toPath: dir.appendingPathComponent("build/places.db").path)
        return dir
    }

    func assertServeRefuses(_ data: URL, naming file: String, line: UInt = #line) throws {
        let r = try runCLI(["serve", "--port", "0", "--data", data.path, "--state-dir", data.appendingPathComponent("var").path])
        XCTAssertFalse(r.timedOut, "serve started on a corrupt \(file) instead of refusing it", line: line)
        XCTAssertEqual(r.status, 1, r.stderr, line: line)
        XCTAssertTrue(r.stderr.contains(file), "the message does not name \(file): \(r.stderr)", line: line)
        XCTAssertFalse(r.stderr.contains("Fatal error"), r.stderr, line: line)
    }

    func testTruncatedAndCorruptGraphAreRefused() throws {
        let data = try makeDataset()
        let graph = data.appendingPathComponent("build/seoul.graph")
        let bytes = try Data(contentsOf: graph)
        try bytes.prefix(bytes.count / 2).write(to: graph)
        try assertServeRefuses(data, naming: "seoul.graph")
        var flipped = bytes
        flipped[bytes.count / 2] ^= 0xFF
        try flipped.write(to: graph)
        try assertServeRefuses(data, naming: "seoul.graph")
        try Data("not a graph".utf8).write(to: graph)
        try assertServeRefuses(data, naming: "seoul.graph")
    }

    func testCorruptFareScheduleIsRefused() throws {
        let data = try makeDataset()
        let schedule = data.appendingPathComponent("fares/seoul-mid-2023-02-01.json")
        let text = try String(contentsOf: schedule, encoding: .utf8)
        try String(text.prefix(text.count / 2)).write(to: schedule, atomically: true, encoding: .utf8)
        try assertServeRefuses(data, naming: "seoul-mid-2023-02-01.json")
    }

    func testCorruptTrafficProfileIsRefused() throws {
        let data = try makeDataset()
        let profile = data.appendingPathComponent("traffic/profile.csv")
        try "class,hour,speed_kmh,slow_share\nprimary,8,fast,0.4\n".write(to: profile, atomically: true, encoding: .utf8)
        try assertServeRefuses(data, naming: "profile.csv")
    }

    func testMissingDatasetDescriptionIsRefused() throws {
        let data = try makeDataset()
        try FileManager.default.removeItem(at: data.appendingPathComponent("dataset.json"))
        try assertServeRefuses(data, naming: "dataset.json")
    }

    func testTruncatedAndCorruptPlaceDatabaseAreRefused() throws {
        let data = try makeDataset()
        let db = data.appendingPathComponent("build/places.db")
        let bytes = try Data(contentsOf: db)
        try bytes.prefix(bytes.count / 3).write(to: db)
        try assertServeRefuses(data, naming: "places.db")
        try Data(repeating: 0x41, count: 100_000).write(to: db)
        try assertServeRefuses(data, naming: "places.db")
    }

    func testCorruptOSMFilesFailTheImport() throws {
        let dir = TestPaths.temporaryDirectory("corrupt-osm")
        let source = try Data(contentsOf: TestPaths.dataDir.appendingPathComponent("osm/seoul-central.osm.pbf"))
        let cases: [(String, Data)] = [
            ("truncated.osm.pbf", source.prefix(source.count / 3)),
            ("garbage.osm.pbf", Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 7) })),
            ("broken.osm", Data("<osm version=\"0.6\"><node id=\"1\" lat=\"37.5\" lon=\"126.9\"><way id=".utf8)),
            ("empty.osm", Data()),
        ]
        for (name, bytes) in cases {
            let path = dir.appendingPathComponent(name)
            try bytes.write(to: path)
            let r = try runCLI(["import", "osm", path.path, "-o", dir.appendingPathComponent("out.graph").path], seconds: 60)
            XCTAssertFalse(r.timedOut, name)
            XCTAssertNotEqual(r.status, 0, "\(name) imported without error")
            XCTAssertTrue(r.stderr.contains(name), "the message does not name \(name): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("Fatal error"), r.stderr)
        }
    }
}

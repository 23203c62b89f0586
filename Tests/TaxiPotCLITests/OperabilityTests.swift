import Foundation
import TaxiPotServer
@testable import HTTPServer
import TestSupport
import XCTest

/// What an operator relies on: `--version`, `help COMMAND`, settings from the environment with
/// flags winning, and the build and process series in `/metrics`.
final class OperabilityTests: XCTestCase {
    func testVersionAndHelpCommand() throws {
        let v = try TaxipotCLI.run(["--version"])
        XCTAssertEqual(v.status, 0)
        XCTAssertEqual(v.stdoutText, "taxipot \(TaxiPotVersion.string)\n")
        let help = try TaxipotCLI.run(["help", "serve"])
        XCTAssertEqual(help.status, 0)
        XCTAssertEqual(help.stdoutText, try TaxipotCLI.run(["serve", "--help"]).stdoutText)
        XCTAssertTrue(help.stdoutText.contains("TAXIPOT_STATE_DIR"))
        XCTAssertTrue(try TaxipotCLI.run(["help", "import", "places"]).stdoutText.contains("Usage: taxipot import places"))
        let unknown = try TaxipotCLI.run(["help", "fly"])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.contains("unknown command 'fly'"), unknown.stderr)
    }

    /// Runs `taxipot args` with extra environment variables; returns exit status and stderr.
    func run(_ args: [String], env extra: [String: String]) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: TaxipotCLI.binary)
        p.arguments = args
        var env = ProcessInfo.processInfo.environment
        for (k, v) in extra { env[k] = v }
        p.environment = env
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let data = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func testEnvironmentSettingsAreCheckedAndFlagsWin() throws {
        let (status, err) = try run(["serve"], env: ["TAXIPOT_PORT": "eighty"])
        XCTAssertEqual(status, 1)
        XCTAssertTrue(err.contains("environment variable TAXIPOT_PORT must be a whole number"), err)
        let (s2, e2) = try run(["serve"], env: ["TAXIPOT_LOG_FORMAT": "xml"])
        XCTAssertEqual(s2, 1)
        XCTAssertTrue(e2.contains("TAXIPOT_LOG_FORMAT") && e2.contains("text or json"), e2)
        // The flag wins: a bad variable is never read when the flag is given (the bad flag is what fails).
        let (s3, e3) = try run(["serve", "--port", "70000"], env: ["TAXIPOT_PORT": "eighty"])
        XCTAssertEqual(s3, 1)
        XCTAssertTrue(e3.contains("option --port"), e3)
        let (s4, e4) = try run(["serve", "--cors-origin", "example.com"], env: [:])
        XCTAssertEqual(s4, 1)
        XCTAssertTrue(e4.contains("--cors-origin"), e4)
        // TAXIPOT_DATA is read: a folder without dataset.json is named in the error.
        let empty = TestPaths.temporaryDirectory("env-data").path
        let (s5, e5) = try run(["serve", "--port", "0", "--state-dir", TestPaths.temporaryDirectory("env-state").path],
                               env: ["TAXIPOT_DATA": empty])
        XCTAssertEqual(s5, 1)
        XCTAssertTrue(e5.contains(empty + "/dataset.json"), e5)
    }

    func testMetricsHaveBuildInfoAndProcessSeries() throws {
        let context = try TestDataset.context()
        let r = makeRouter(context: context).handle(HTTPRequest(method: "GET", path: "/metrics")).response
        XCTAssertEqual(r.status, 200)
        let text = String(decoding: r.body, as: UTF8.self)
        func value(_ name: String) -> Double? {
            text.split(separator: "\n").first { $0.hasPrefix(name + " ") || $0.hasPrefix(name + "{") }
                .flatMap { Double($0.split(separator: " ").last ?? "") }
        }
        XCTAssertTrue(text.contains("taxipot_build_info{version=\"\(TaxiPotVersion.string)\",api_version=\"\(APIVersion.api)\",dataset=\"seoul-central\""), text)
        XCTAssertEqual(value("taxipot_build_info"), 1)
        let rss = try XCTUnwrap(value("process_resident_memory_bytes"))
        XCTAssertGreaterThan(rss, 10e6, "this process holds the dataset")
        let fds = try XCTUnwrap(value("process_open_fds"))
        XCTAssertGreaterThanOrEqual(fds, 3)
        // Opening files raises the count by as many.
        let opened = (0..<5).map { _ in open("/dev/null", O_RDONLY) }
        defer { opened.forEach { close($0) } }
        XCTAssertEqual(Double(ProcessMetrics.openFileDescriptors() ?? 0), fds + 5, accuracy: 2)
        XCTAssertGreaterThan(try XCTUnwrap(value("process_cpu_seconds_total")), 0)
        for line in text.split(separator: "\n") where line.hasPrefix("# TYPE") {
            XCTAssertTrue(["counter", "gauge", "histogram"].contains(String(line.split(separator: " ").last ?? "")), String(line))
        }
    }
}

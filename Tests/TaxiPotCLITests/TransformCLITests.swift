import Foundation
import TestSupport
import Geo
import XCTest

/// `taxipot transform` writes the same bytes, messages and exit status with the closed-form kernels
/// as with PROJ alone (`TAXIPOT_COORDINATES_PROJ_ONLY=1`).
final class TransformCLITests: XCTestCase {
    func testKernelsAndPROJAloneWriteTheSameBytes() throws {
        var text = ""
        var random = SplitMix64(seed: 17)
        for i in 0..<3000 {
            let u = Double(random.next() >> 11) / Double(1 << 53)
            let v = Double(random.next() >> 11) / Double(1 << 53)
            text += String(format: "%.8f,%.8f\n", 124 + 8 * u, 33 + 6 * v)
            if i == 1500 { text += "127,91\n" }
        }
        for target in ["UTMK", "KATEC"] {
            let fast = try TaxipotCLI.run(["transform", "--from", "WGS84", "--to", target], stdin: Array(text.utf8))
            setenv("TAXIPOT_COORDINATES_PROJ_ONLY", "1", 1)
            let proj = try TaxipotCLI.run(["transform", "--from", "WGS84", "--to", target], stdin: Array(text.utf8))
            unsetenv("TAXIPOT_COORDINATES_PROJ_ONLY")
            XCTAssertEqual(fast.status, 2, fast.stderr)
            XCTAssertEqual(proj.status, 2)
            XCTAssertEqual(fast.stdout.count, proj.stdout.count)
            XCTAssertTrue(fast.stdout == proj.stdout, "WGS84 → \(target): outputs differ")
            XCTAssertEqual(fast.stderr, proj.stderr)
            XCTAssertTrue(fast.stderr.contains("stdin: line 1502: latitude 91.0 is beyond ±90"), fast.stderr)
        }
    }

    /// The executable does not load PROJ (and the 45 libraries it brings) until a command makes a
    /// transformer; the dynamic loader's own log (`LD_DEBUG=libs`) lists what a process loads.
    func testPROJIsLoadedOnlyByCommandsThatConvert() throws {
        setenv("LD_DEBUG", "libs", 1)
        let version = try TaxipotCLI.run(["version"])
        let transform = try TaxipotCLI.run(["transform", "--from", "WGS84", "--to", "UTMK"], stdin: Array("127,37\n".utf8))
        unsetenv("LD_DEBUG")
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(version.stderr.contains("calling init"), "the loader's log is there")
        XCTAssertFalse(version.stderr.contains("libproj"), "taxipot version loads no PROJ")
        XCTAssertFalse(version.stderr.contains("libcurl"))
        XCTAssertEqual(transform.status, 0)
        XCTAssertEqual(transform.stdoutText, "955511.809,1889174.174\n")
        XCTAssertTrue(transform.stderr.contains("libproj.so"), "taxipot transform opens PROJ")
    }

    /// A bad CRS is reported as the usage error it is (naming the option), before a missing
    /// file; a missing file is named.
    func testBadCRSIsReportedWhateverTheInput() throws {
        let missing = try TaxipotCLI.run(["transform", "--from", "WGS84", "--to", "NOPE", "/nonexistent/points.csv"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("--to: unknown CRS 'NOPE'"), missing.stderr)
        let fromBad = try TaxipotCLI.run(["transform", "--from", "EPSG:99999999", "--to", "UTMK", "/nonexistent/points.csv"])
        XCTAssertEqual(fromBad.status, 1)
        XCTAssertTrue(fromBad.stderr.contains("--from: unknown CRS 'EPSG:99999999'"), fromBad.stderr)
        XCTAssertEqual(fromBad.stdout, [])
        let noFile = try TaxipotCLI.run(["transform", "--from", "WGS84", "--to", "UTMK", "/nonexistent/points.csv"])
        XCTAssertEqual(noFile.status, 1)
        XCTAssertTrue(noFile.stderr.contains("cannot open /nonexistent/points.csv"), noFile.stderr)
    }
}

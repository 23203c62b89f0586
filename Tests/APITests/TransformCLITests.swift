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
}

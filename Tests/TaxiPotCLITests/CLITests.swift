import XCTest
import Foundation
import TestSupport

/// The `taxipot` executable's common contract: help for every command, exit codes, messages
/// that name the argument at fault.
final class CLITests: XCTestCase {
    func run(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        let r = try TaxipotCLI.run(args)
        return (r.status, r.stdoutText, r.stderr)
    }

    /// The command names `taxipot --help` lists.
    func commandNames() throws -> [String] {
        let r = try run(["--help"])
        XCTAssertEqual(r.status, 0)
        let lines = r.out.split(separator: "\n").drop(while: { !$0.hasPrefix("Commands:") }).dropFirst()
        return lines.compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    func testEveryCommandHasHelp() throws {
        let names = try commandNames()
        for expected in ["serve", "import", "version"] { XCTAssertTrue(names.contains(expected), "\(expected) missing from --help") }
        XCTAssertGreaterThanOrEqual(names.count, 8, "commands listed: \(names)")
        for name in names {
            let r = try run([name, "--help"])
            XCTAssertEqual(r.status, 0, "\(name) --help: \(r.err)")
            XCTAssertTrue(r.out.contains("Usage: taxipot \(name)"), "\(name) --help does not start with its usage: \(r.out.prefix(200))")
        }
        for kind in ["osm", "places"] {
            let r = try run(["import", kind, "--help"])
            XCTAssertEqual(r.status, 0, "import \(kind) --help: \(r.err)")
            XCTAssertTrue(r.out.contains("Usage: taxipot import \(kind)"), r.out)
        }
    }

    func testUnknownCommandAndOptionExitOneNamingThem() throws {
        let a = try run(["fly"])
        XCTAssertEqual(a.status, 1)
        XCTAssertTrue(a.err.contains("unknown command 'fly'"), a.err)
        let b = try run(["serve", "--prot", "8080"])
        XCTAssertEqual(b.status, 1)
        XCTAssertTrue(b.err.contains("--prot"), b.err)
        let c = try run(["serve", "--port", "99999"])
        XCTAssertEqual(c.status, 1)
        XCTAssertTrue(c.err.contains("--port"), c.err)
        let d = try run([])
        XCTAssertEqual(d.status, 1)
    }
}

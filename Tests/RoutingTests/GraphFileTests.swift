import Foundation
import Geo
@testable import Routing
import TestSupport
import XCTest

/// The prepared graph file refuses anything it cannot trust, with a message naming the file.
final class GraphFileTests: XCTestCase {
    func copyOfSeoulGraph() throws -> (String, [UInt8]) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try SeoulFixture.graphPath())))
        let path = TestPaths.temporaryDirectory("graphfile").appendingPathComponent("copy.graph").path
        return (path, bytes)
    }

    func assertRefused(_ bytes: [UInt8], at path: String, mentioning words: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try RoadGraph.load(path: path), file: file, line: line) { error in
            let message = "\(error)"
            XCTAssertTrue(message.hasPrefix(path), "message should name the file: \(message)", file: file, line: line)
            for w in words { XCTAssertTrue(message.contains(w), "'\(message)' should mention '\(w)'", file: file, line: line) }
        }
    }

    func testIntactCopyLoads() throws {
        let (path, bytes) = try copyOfSeoulGraph()
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(try RoadGraph.load(path: path).nodeCount, try SeoulFixture.engine().graph.nodeCount)
    }

    func testCorruptFileIsRefused() throws {
        let (path, bytes) = try copyOfSeoulGraph()
        for offset in [40, bytes.count / 3, bytes.count / 2, bytes.count - 3] {
            var b = bytes
            b[offset] ^= 0x5A
            try assertRefused(b, at: path, mentioning: ["corrupt"])
        }
    }

    func testTruncatedFileIsRefused() throws {
        let (path, bytes) = try copyOfSeoulGraph()
        try assertRefused(Array(bytes.prefix(bytes.count - 1000)), at: path, mentioning: ["truncated"])
        try assertRefused(Array(bytes.prefix(30)), at: path, mentioning: ["too short"])
        try assertRefused([], at: path, mentioning: ["too short"])
    }

    func testOlderFormatVersionIsRefused() throws {
        let (path, bytes) = try copyOfSeoulGraph()
        var b = bytes
        let current = UInt32(b[8]) | UInt32(b[9]) << 8
        b[8] = UInt8(current - 1)
        try assertRefused(b, at: path, mentioning: ["version \(current - 1)", "taxipot import osm"])
    }

    func testOtherFilesAreRefused() throws {
        let (path, _) = try copyOfSeoulGraph()
        try assertRefused(Array(String(repeating: "<osm version=\"0.6\"></osm>\n", count: 10).utf8), at: path, mentioning: ["not a Taxipot graph file"])
        XCTAssertThrowsError(try RoadGraph.load(path: path + ".missing")) { error in
            XCTAssertTrue("\(error)".contains(".missing"))
        }
    }

    func testValidChecksumDoesNotExcuseBadIndices() throws {
        // A crafted file whose checksum matches but where an edge points outside the graph.
        let (path, bytes) = try copyOfSeoulGraph()
        var b = bytes
        let sections = Int(UInt32(b[48]) | UInt32(b[49]) << 8)
        var patched = false
        for i in 0..<sections {
            let o = 64 + 24 * i
            if b[o] == UInt8(GraphFile.Section.head.rawValue) {
                let offset = (0..<8).reduce(0) { $0 | Int(b[o + 8 + $1]) << (8 * $1) }
                for k in 0..<4 { b[offset + k] = 0xFF }
                patched = true
            }
        }
        XCTAssertTrue(patched)
        var checksum = Checksum()
        b.withUnsafeBytes { checksum.add(UnsafeRawBufferPointer(rebasing: $0[32...])) }
        withUnsafeBytes(of: checksum.value.littleEndian) { for k in 0..<8 { b[24 + k] = $0[k] } }
        try assertRefused(b, at: path, mentioning: ["inconsistent graph", "edge 0"])
    }

    func testChecksumDoesNotDependOnHowBytesAreFed() {
        let data = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        var whole = Checksum()
        data.withUnsafeBytes { whole.add($0) }
        for cuts in [[1], [7, 8, 9], [3, 100, 555, 999], [32, 64, 65]] {
            var pieces = Checksum()
            var start = 0
            data.withUnsafeBytes { raw in
                for c in cuts + [data.count] {
                    pieces.add(UnsafeRawBufferPointer(rebasing: raw[start..<c]))
                    start = c
                }
            }
            XCTAssertEqual(pieces.value, whole.value, "cuts \(cuts)")
        }
        var changed = data
        changed[500] ^= 1
        var other = Checksum()
        changed.withUnsafeBytes { other.add($0) }
        XCTAssertNotEqual(other.value, whole.value)
    }
}

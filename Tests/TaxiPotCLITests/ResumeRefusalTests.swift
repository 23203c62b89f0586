import Foundation
import TestSupport
import XCTest

/// `taxipot batch --resume` over an output that is not a cut run of this input: damaged
/// bytes, rows of another input, more rows than the input, garbage in JSON Lines, mixed line
/// ends. Each is refused (exit 1) naming the output's line, and the file is left as it was.
final class ResumeRefusalTests: XCTestCase {
    let depart = "2024-05-01T09:00:00+09:00"

    /// 12 trips between known points of central Seoul, one with a quoted two-line note.
    static func inputText(rows: Int = 12) -> String {
        let ends = [(126.9707, 37.5547), (126.9769, 37.5759), (126.9832, 37.5702), (126.9850, 37.5637), (126.9780, 37.5665)]
        var text = "id,origin_lon,origin_lat,dest_lon,dest_lat,note\n"
        for i in 0..<rows {
            let a = ends[i % ends.count], b = ends[(i * 3 + 1) % ends.count]
            text += "\(i),\(a.0),\(a.1),\(b.0),\(b.1),\(i == 4 ? "\"two\nlines\"" : "n\(i)")\n"
        }
        return text
    }

    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = TestPaths.temporaryDirectory("batch-resume-refusal").appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func args(_ input: String, _ extra: [String] = []) throws -> [String] {
        [input, "--data", try SeoulDataset.directory(), "--depart-at", depart, "--progress", "none", "--workers", "2"] + extra
    }

    /// Outputs already made, by input text and options (each run loads the dataset).
    nonisolated(unsafe) static var outputs: [String: [UInt8]] = [:]

    /// The whole output of `input` (every row estimated on the real dataset).
    func whole(_ input: String, _ extra: [String] = []) throws -> [UInt8] {
        let key = try String(contentsOfFile: input, encoding: .utf8) + extra.joined(separator: " ")
        if let done = Self.outputs[key] { return done }
        let out = try write([], "whole-\(UUID().uuidString)")
        let r = try TaxipotCLI.run(["batch"] + args(input, extra) + ["-o", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        Self.outputs[key] = Array(try Data(contentsOf: URL(fileURLWithPath: out)))
        return Self.outputs[key]!
    }

    /// The byte offset where physical line `n` (1-based) of `bytes` starts.
    func lineStart(_ n: Int, _ bytes: [UInt8]) -> Int {
        var line = 1
        for (i, b) in bytes.enumerated() where b == 0x0A {
            line += 1
            if line == n { return i + 1 }
        }
        return bytes.count
    }

    /// Runs `--resume` over `damaged` and checks the refusal: exit 1, the line named, the file kept.
    func assertRefused(_ damaged: [UInt8], input: String, extra: [String] = [], line: Int, saying words: String,
                       file: StaticString = #filePath, at: UInt = #line) throws {
        let out = try write(damaged, "damaged-\(UUID().uuidString)")
        let r = try TaxipotCLI.run(["batch"] + args(input, extra) + ["-o", out, "--resume"])
        XCTAssertEqual(r.status, 1, r.stderr, file: file, line: at)
        XCTAssertTrue(r.stderr.contains("option --resume: \(out), line \(line):"), r.stderr, file: file, line: at)
        XCTAssertTrue(r.stderr.contains(words), r.stderr, file: file, line: at)
        XCTAssertFalse(r.stderr.contains("resuming after"), r.stderr, file: file, line: at)
        XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: out))), damaged, "the file is left as it was", file: file, line: at)
    }

    /// Bytes that are not UTF-8 inside a kept row (its note column).
    func testGarbageBytesInAKeptRowAreRefused() throws {
        let input = try write(Array(Self.inputText().utf8), "in.csv")
        var out = try whole(input)
        let row = lineStart(5, out)  // input row 3 ("3,…,n3,…")
        let note = try XCTUnwrap(out[row...].firstRange(of: Array(",n3,".utf8)))
        out.replaceSubrange(note.lowerBound + 1..<note.lowerBound + 3, with: [0xFF, 0xC3])
        try assertRefused(out, input: input, line: 5, saying: "not UTF-8")
    }

    /// The input was edited after the run: the kept row 7 no longer holds input row 7's columns.
    func testKeptRowsOfAnotherInputAreRefused() throws {
        let original = Self.inputText()
        let out = try whole(try write(Array(original.utf8), "before.csv"))
        let edited = original.replacingOccurrences(of: "\n7,", with: "\n70,")
        let input = try write(Array(edited.utf8), "after.csv")
        // Line 1 is the header, line 6 holds row 4's two-line note: row 7 is on line 10.
        try assertRefused(out, input: input, line: 10, saying: "not those of input row 8")
    }

    /// An output with more rows than the input (two runs' rows one after the other).
    func testAnOutputLongerThanTheInputIsRefused() throws {
        let input = try write(Array(Self.inputText().utf8), "in.csv")
        let out = try whole(input)
        let rows = out[lineStart(2, out)...]
        try assertRefused(out + rows, input: input, line: 15, saying: "more rows than the input, which ends after 12 rows")
    }

    /// A line of garbage among the JSON Lines rows.
    func testGarbageInJSONLinesIsRefused() throws {
        let input = try write(Array(Self.inputText().utf8), "in.csv")
        var out = try whole(input, ["--format", "jsonl"])
        out.insert(contentsOf: Array("{\"id\":\"5\",garbage}\n".utf8), at: lineStart(6, out))
        try assertRefused(out, input: input, extra: ["--format", "jsonl"], line: 6, saying: "damaged")
        // A row of valid JSON with a value this run does not write (a number as a string) too.
        var other = try whole(input, ["--format", "jsonl"])
        let fare = try XCTUnwrap(other.firstRange(of: Array(#""fare_krw":"#.utf8)))
        let valueEnd = try XCTUnwrap(other[fare.upperBound...].firstIndex(of: 0x2C))
        other.insert(0x22, at: valueEnd)
        other.insert(0x22, at: fare.upperBound)
        try assertRefused(other, input: input, extra: ["--format", "jsonl"], line: 1, saying: "fare_krw")
    }

    /// Issue 43: one bit flipped in a kept row's `fare_krw` (still a number) was kept. The row's
    /// `row_check` no longer matches its bytes: refused, naming the line.
    func testAFlippedBitInAResultIsRefused() throws {
        let input = try write(Array(Self.inputText().utf8), "in.csv")
        var out = try whole(input)
        let header = String(decoding: out[..<(lineStart(2, out) - 1)], as: UTF8.self).split(separator: ",")
        XCTAssertEqual(header.last, "row_check")
        let fareColumn = try XCTUnwrap(header.firstIndex(of: "fare_krw"))
        let row = lineStart(4, out)  // input row 2, no quoted field
        var at = row
        for _ in 0..<fareColumn { at = try XCTUnwrap(out[at...].firstIndex(of: 0x2C)) + 1 }
        XCTAssertTrue((0x30...0x39).contains(out[at]))
        out[at] ^= 1  // a digit stays a digit
        try assertRefused(out, input: input, line: 4, saying: "row_check")

        var lines = try whole(input, ["--format", "jsonl"])
        let fare = try XCTUnwrap(lines[lineStart(3, lines)...].firstRange(of: Array(#""fare_krw":"#.utf8)))
        lines[fare.upperBound] ^= 1
        try assertRefused(lines, input: input, extra: ["--format", "jsonl"], line: 3, saying: "row_check")
    }

    /// One row ends with CRLF in an output whose rows end with LF.
    func testMixedLineEndsAreRefused() throws {
        let input = try write(Array(Self.inputText().utf8), "in.csv")
        var out = try whole(input)
        out.insert(0x0D, at: lineStart(9, out) - 1)  // the end of line 8 (input row 6)
        try assertRefused(out, input: input, line: 8, saying: "mixed line ends")
    }

    /// A clean cut still resumes, to the bytes of one run (the counterpart of the refusals).
    func testACutOutputOfThisInputStillResumes() throws {
        let input = try write(Array(Self.inputText().utf8), "in.csv")
        let out = try whole(input)
        let path = try write(Array(out[..<(lineStart(8, out) + 5)]), "cut.csv")  // inside row 5
        let r = try TaxipotCLI.run(["batch"] + args(input) + ["-o", path, "--resume"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("resuming after the 5 rows already in"), r.stderr)
        XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: path))), out)
    }
}

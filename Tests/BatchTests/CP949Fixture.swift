import Foundation
import TestSupport
import XCTest

/// The text encoded to CP949 by the system's `iconv` program (independent of the code under test).
func systemCP949(_ text: String) throws -> [UInt8] {
    let dir = TestPaths.temporaryDirectory("batch-cp949")
    let input = dir.appendingPathComponent("utf8.csv")
    try Data(text.utf8).write(to: input)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/iconv")
    process.arguments = ["-f", "UTF-8", "-t", "CP949", input.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0)
    return Array(data)
}

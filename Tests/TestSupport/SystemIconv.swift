import Foundation

/// Text encoded by the system's `iconv` program (`/usr/bin/iconv`), independent of the code
/// under test: how the tests make CP949 and EUC-KR files, as a Korean Excel export would be.
public enum SystemIconv {
    /// Why `iconv` gave no output: its exit status and what it wrote to stderr.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// `text` in `encoding` (an iconv name: "CP949", "EUC-KR", …).
    public static func encode(_ text: String, to encoding: String) throws -> [UInt8] {
        let input = TestPaths.temporaryDirectory("iconv").appendingPathComponent("in.txt")
        try Data(text.utf8).write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/iconv")
        process.arguments = ["-f", "UTF-8", "-t", encoding, input.path]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let message = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "iconv -t \(encoding) exited with \(process.terminationStatus): \(String(decoding: message, as: UTF8.self))")
        }
        return Array(data)
    }
}

import Foundation

/// The `taxipot` binary built by `swift build` (`make test` builds it first), run as a child
/// process by the tests that check the command line's contract.
public enum TaxipotCLI {
    public static var binary: String { TestPaths.packageRoot.appendingPathComponent(".build/debug/taxipot").path }

    public struct Outcome {
        public let status: Int32
        public let stdout: [UInt8]
        public let stderr: String
        /// True when the process was still running at the deadline and was killed.
        public let timedOut: Bool
        public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    }

    public struct MissingBinary: Error, CustomStringConvertible {
        public init() {}
        public var description: String { "\(TaxipotCLI.binary) is missing: build it first (swift build, or make test)" }
    }

    /// Runs `taxipot args`, feeding `stdin` and draining stdout and stderr concurrently (so no
    /// pipe fills up); a process still running after `timeoutSeconds` is terminated.
    public static func run(_ args: [String], stdin: [UInt8] = [], timeoutSeconds: Double = 300) throws -> Outcome {
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw MissingBinary() }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        let input = Pipe(), output = Pipe(), errors = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = errors
        try p.run()
        let feeder = Thread {
            input.fileHandleForWriting.write(Data(stdin))
            try? input.fileHandleForWriting.close()
        }
        feeder.start()
        let outData = LockedData(), errData = LockedData()
        Thread { outData.set(output.fileHandleForReading.readDataToEndOfFile()) }.start()
        Thread { errData.set(errors.fileHandleForReading.readDataToEndOfFile()) }.start()
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        let timedOut = p.isRunning
        if timedOut { p.terminate() }
        p.waitUntilExit()
        while !(outData.isSet && errData.isSet) { usleep(1000) }
        return Outcome(status: p.terminationStatus, stdout: Array(outData.get()),
                       stderr: String(decoding: errData.get(), as: UTF8.self), timedOut: timedOut)
    }

    final class LockedData: @unchecked Sendable {
        private let lock = NSLock()
        private var data: Data?
        func set(_ d: Data) { lock.lock(); data = d; lock.unlock() }
        var isSet: Bool { lock.lock(); defer { lock.unlock() }; return data != nil }
        func get() -> Data { lock.lock(); defer { lock.unlock() }; return data ?? Data() }
    }
}

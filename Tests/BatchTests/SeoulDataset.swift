import Foundation
import TaxiPot
import TestSupport
import XCTest

/// The shared test dataset (TestSupport's `TestDataset`: the repository's data/ sources plus
/// a road graph and a place DB built in-process once per test run), loaded as a `Dataset`.
enum SeoulDataset {
    static let loaded: Result<(directory: String, dataset: Dataset), Error> = Result {
        let dir = try TestDataset.directory()
        return (dir, try Dataset(directory: dir))
    }

    static func dataset() throws -> Dataset { try loaded.get().dataset }
    static func directory() throws -> String { try loaded.get().directory }
    static func estimator() throws -> QuoteTripEstimator { QuoteTripEstimator(dataset: try dataset()) }

    // Known points of central Seoul (lon, lat).
    static let jonggak = Coordinate(lon: 126.9829, lat: 37.5700)        // 종각역
    static let seoulStation = Coordinate(lon: 126.9720, lat: 37.5547)   // 서울역
    static let gwanghwamun = Coordinate(lon: 126.9763, lat: 37.5710)    // 광화문역
    static let itaewon = Coordinate(lon: 126.9945, lat: 37.5345)        // 이태원역
    static let jongno5ga = Coordinate(lon: 127.0016, lat: 37.5709)      // 종로5가역
}

/// The `taxipot` binary built by `swift build`, run as a child process.
enum TaxipotCLI {
    static var binary: String { TestPaths.packageRoot.appendingPathComponent(".build/debug/taxipot").path }

    struct Outcome { let status: Int32; let stdout: [UInt8]; let stderr: String }

    /// Runs `taxipot args`, feeding `stdin`; fails the test when the binary is missing.
    static func run(_ args: [String], stdin: [UInt8] = []) throws -> Outcome {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            struct MissingBinary: Error, CustomStringConvertible { var description: String }
            throw MissingBinary(description: "\(binary) is missing: build it first (swift build, or make test)")
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        let input = Pipe(), output = Pipe(), errors = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = errors
        try p.run()
        // Feed stdin and drain stdout/stderr concurrently so no pipe fills up.
        let feeder = Thread {
            input.fileHandleForWriting.write(Data(stdin))
            try? input.fileHandleForWriting.close()
        }
        feeder.start()
        let errData = LockedData()
        let drain = Thread { errData.set(errors.fileHandleForReading.readDataToEndOfFile()) }
        drain.start()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        while !errData.isSet { usleep(1000) }
        return Outcome(status: p.terminationStatus, stdout: Array(out), stderr: String(decoding: errData.get(), as: UTF8.self))
    }

    final class LockedData: @unchecked Sendable {
        private let lock = NSLock()
        private var data: Data?
        func set(_ d: Data) { lock.lock(); data = d; lock.unlock() }
        var isSet: Bool { lock.lock(); defer { lock.unlock() }; return data != nil }
        func get() -> Data { lock.lock(); defer { lock.unlock() }; return data ?? Data() }
    }
}

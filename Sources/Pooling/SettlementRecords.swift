import Foundation

/// Settled parties, durably: one file per party (`<dir>/<party id>.settled`) holding the
/// idempotency key and the answer given. Written to a temporary file, flushed to disk, renamed
/// over and the folder flushed, so a settlement answered survives kill -9; a party with a record
/// is closed to joins.
public final class SettlementRecords: @unchecked Sendable {
    public let directory: String
    private let lock = NSLock()

    public init(directory: String) { self.directory = directory }

    private func path(_ partyID: String) -> String { (directory as NSString).appendingPathComponent("\(partyID).settled") }

    /// The record of `partyID`: its idempotency key and answer bytes, or nil when not settled.
    public func record(_ partyID: String) -> (key: String, answer: [UInt8])? {
        guard let data = FileManager.default.contents(atPath: path(partyID)), let nl = data.firstIndex(of: 0x0A) else { return nil }
        return (String(decoding: data[..<nl], as: UTF8.self), [UInt8](data[(nl + 1)...]))
    }

    public func isSettled(_ partyID: String) -> Bool { FileManager.default.fileExists(atPath: path(partyID)) }

    /// Runs `body` with the records of all parties locked (one settlement at a time, so two
    /// racing settlements of one party give one answer).
    public func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Stores the record of `partyID` durably (call inside `locked`).
    public func save(_ partyID: String, key: String, answer: [UInt8]) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let final = path(partyID), temporary = final + ".tmp"
        var bytes = Array(key.utf8)
        bytes.append(0x0A)
        bytes += answer
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary])
        }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: temporary))
        try handle.synchronize()
        try handle.close()
        guard rename(temporary, final) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: final]) }
        let dir = open(directory, O_RDONLY)
        if dir >= 0 { _ = fsync(dir); close(dir) }
    }
}

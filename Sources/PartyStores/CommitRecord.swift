import Foundation

/// The count of acknowledged transactions, kept beside the store (`parties.db.commits`), so a
/// write-ahead log lost after a crash is noticed even when its other witness, the `-shm` index
/// (`LostLogCheck`), is gone too: deleted with the log, or rebuilt and removed by another SQLite
/// program (the `sqlite3` tool) that opened the store in between.
///
/// Every write transaction of the store also counts itself in the store (the `store_meta` row
/// `commits`); once it committed, the new count is written into this file (one `pwrite` of a
/// fixed-size record into the page cache, no `fsync`: it survives `kill -9`, and after a power
/// loss it can only be behind, which costs detection, never a false alarm). At open, a store
/// that counts fewer transactions than the record lost acknowledged ones.
final class CommitRecord {
    /// The record's suffix after the store's path.
    static let suffix = ".commits"
    private static let width = 20
    let path: String
    private let fd: Int32

    /// Opens (creating it) the record of the store at `storePath`.
    init(storePath: String) throws {
        path = storePath + CommitRecord.suffix
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw PartyStoreError(message: "\(path): cannot open the store's commit record: \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(fd) }

    /// The count the record at `storePath` holds; nil when there is none or it is not a record
    /// this store wrote (then nothing can be told from it).
    static func read(storePath: String) -> Int64? {
        guard let data = FileManager.default.contents(atPath: storePath + suffix), data.count == width + 9 else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        guard text.hasPrefix("commits "), text.hasSuffix("\n") else { return nil }
        return Int64(text.dropFirst(8).dropLast())
    }

    /// Writes `count` (after a commit returned).
    func write(_ count: Int64) {
        let digits = String(count)
        let text = "commits " + String(repeating: "0", count: max(0, CommitRecord.width - digits.count)) + digits + "\n"
        _ = text.withCString { pwrite(fd, $0, strlen($0), 0) }
    }

    /// Removes the record of the store at `storePath` (recovery accepted a loss: the next open
    /// writes the store's own count).
    static func reset(storePath: String) {
        unlink(storePath + suffix)
    }
}

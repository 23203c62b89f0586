import Foundation
import Geo

/// The lock a process holds on the party store it opened: `parties.db.lock` next to the store,
/// locked with `flock` (the kernel releases it when the process ends, `kill -9` included), the
/// holder's process id and command written in it for messages.
///
/// One process uses a store at a time: `taxipot serve`, `parties import` and `parties recover`
/// each refuse a store another process holds, naming that process, instead of writing under a
/// live server (whose index would then be wrong) or moving its files away. Within one process
/// the lock is counted, so the process may open its store more than once.
final class StoreLock {
    /// The lock file's suffix after the store's path.
    static let suffix = ".lock"
    /// The locks this process holds, by the lock file's identity: their descriptor and how many
    /// holders share it.
    private final class Held: @unchecked Sendable {
        let lock = NSLock()
        var files: [FileIdentity: (fd: Int32, holders: Int)] = [:]
    }
    private static let held = Held()
    private let key: FileIdentity
    private var released = false

    /// Takes the lock of the store at `storePath`; throws `PartyStoreError` naming the holder
    /// when another process holds it.
    init(storePath: String) throws {
        let path = storePath + StoreLock.suffix
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw PartyStoreError(message: "\(path): cannot open the store's lock file: \(String(cString: strerror(errno)))")
        }
        key = FileIdentity(fd: fd)
        let held = StoreLock.held
        held.lock.lock()
        defer { held.lock.unlock() }
        if let mine = held.files[key] {
            held.files[key] = (mine.fd, mine.holders + 1)
            close(fd)
            return
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var bytes = [UInt8](repeating: 0, count: 200)
            let n = pread(fd, &bytes, bytes.count, 0)
            close(fd)
            let holder = String(decoding: bytes.prefix(max(0, n)), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw PartyStoreError(message: "\(storePath): the party store is in use by another process (\(holder.isEmpty ? "unknown" : Escaped.excerpt(holder, limit: 120)), "
                + "which holds \(path)): refusing to write under it or move its files; stop it first (a live 'taxipot serve' keeps its "
                + "parties in memory and would serve and overwrite what another process wrote)")
        }
        let text = "process \(getpid()): " + CommandLine.arguments.prefix(3).map { ($0 as NSString).lastPathComponent }.joined(separator: " ") + "\n"
        ftruncate(fd, 0)
        _ = text.withCString { pwrite(fd, $0, strlen($0), 0) }
        held.files[key] = (fd, 1)
    }

    /// Lets go of the lock (the file stays: removing it could let two processes lock two files).
    func release() {
        guard !released else { return }
        released = true
        let held = StoreLock.held
        held.lock.lock()
        defer { held.lock.unlock() }
        guard let mine = held.files[key] else { return }
        if mine.holders > 1 {
            held.files[key] = (mine.fd, mine.holders - 1)
        } else {
            held.files[key] = nil
            close(mine.fd)
        }
    }

    deinit { release() }
}

/// A file's identity (device and inode), to notice a file moved away or replaced under an open
/// store.
struct FileIdentity: Hashable {
    let device: UInt64
    let inode: UInt64

    /// The identity of the file at `path` now; nil when there is none.
    init?(path: String) {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
    }

    /// The identity of the open file `fd`.
    init(fd: Int32) {
        var st = stat()
        fstat(fd, &st)
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
    }
}

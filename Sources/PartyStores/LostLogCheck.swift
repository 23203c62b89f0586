import Foundation

/// Catches a write-ahead log cut short or deleted after a crash, which SQLite itself accepts
/// without a word (it replays what the log still holds and forgets the rest).
///
/// The witness is SQLite's own shared-memory index, `parties.db-shm`: at every commit SQLite
/// records there the log's last committed frame (`mxFrame`), the log's salts and how many
/// frames a checkpoint already copied into the store file (`nBackfill`). A writer killed with
/// `kill -9` leaves that file behind, and a clean close removes it. So when a `-shm` records
/// committed frames not yet in the store file (`mxFrame > nBackfill`) that the log no longer
/// holds (the log missing, empty, of another generation, or ending before `mxFrame`), writes
/// that were acknowledged are gone. It costs nothing per write (SQLite keeps the index
/// anyway) and reads 136 bytes plus the log once at start. See docs/DESIGN.md section 6.
///
/// It cannot see a log deleted together with its `-shm`, nor a `-shm` lost with the machine's
/// power (the index is memory, not synced): there the log on disk is intact anyway.
enum LostLogCheck {
    /// The index header fields the check reads (the `-shm` file's first 136 bytes: two copies
    /// of the 48-byte header, then the checkpoint information).
    struct IndexHeader: Equatable {
        var mxFrame: Int
        var salts: [UInt8]
        var backfilled: Int
    }

    /// nil when every committed frame the `-shm` records is in the store file or the log; else
    /// what is lost, naming the files.
    static func problem(storePath path: String) -> String? {
        let shm = path + "-shm", wal = path + "-wal"
        guard let index = indexHeader(shmPath: shm), index.mxFrame > index.backfilled else { return nil }
        let pending = index.mxFrame - index.backfilled
        let recorded = "\(shm) records the log's frames up to \(index.mxFrame) as committed (\(pending) of them not yet copied into the store file)"
        switch WALCheck.read(walPath: wal) {
        case .absent:
            return "its log \(wal) is missing, but \(recorded): the log was deleted after a crash, and with it acknowledged writes"
        case .damaged:
            return nil  // StoreCheck refuses it with its own reason
        case .sound(let salts, let lastCommit):
            guard let salts else {
                return "its log \(wal) is empty, but \(recorded): the log was truncated after a crash, losing acknowledged writes"
            }
            if salts != index.salts {
                return "its log \(wal) is not the one \(shm) records (other salts), and \(recorded): the log was replaced after a crash, losing acknowledged writes"
            }
            if lastCommit < index.mxFrame {
                return "its log \(wal) ends at committed frame \(lastCommit), but \(recorded): the log was cut short after a crash, "
                    + "losing the acknowledged writes of frames \(lastCommit + 1)–\(index.mxFrame)"
            }
            return nil
        }
    }

    /// The header of the `-shm` index as SQLite last wrote it completely (nil when absent or
    /// not a header SQLite wrote on this machine: SQLite then rebuilds it from the log).
    static func indexHeader(shmPath: String) -> IndexHeader? {
        guard let f = fopen(shmPath, "rb") else { return nil }
        defer { fclose(f) }
        var b = [UInt8](repeating: 0, count: 136)
        guard fread(&b, 1, b.count, f) == b.count else { return nil }
        func u32(_ o: Int) -> UInt32 { b.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: o, as: UInt32.self) } }  // native order
        // SQLite writes the second copy first: when both are whole, it is the newer.
        for base in [48, 0] {
            guard u32(base) == 3_007_000, b[base + 12] == 1 else { continue }  // iVersion, isInit
            var s0: UInt32 = 0, s1: UInt32 = 0
            for o in stride(from: base, to: base + 40, by: 8) {
                s0 = s0 &+ u32(o) &+ s1
                s1 = s1 &+ u32(o + 4) &+ s0
            }
            guard s0 == u32(base + 40), s1 == u32(base + 44) else { continue }
            return IndexHeader(mxFrame: Int(u32(base + 16)), salts: Array(b[(base + 32)..<(base + 40)]), backfilled: Int(u32(96)))
        }
        return nil
    }
}

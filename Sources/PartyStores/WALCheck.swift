import Foundation

/// Checks a store's write-ahead log (`parties.db-wal`) the way SQLite reads it, to catch what
/// SQLite itself would skip without a word.
///
/// SQLite replays the log's frames up to the first one whose salts or running checksum do not
/// match, and silently ignores the rest: a damaged frame in the middle drops every transaction
/// committed after it. A kill leaves whole frames (a commit is acknowledged only after its
/// frames reached the disk), so a committed frame of the current log generation that SQLite
/// would ignore means damage. Frames of an earlier generation (other salts) are leftovers of
/// a log reset and are fine.
enum WALCheck {
    /// nil when the log is sound (or absent or empty), else what is wrong.
    static func problem(walPath: String) -> String? {
        if case .damaged(_, let problem) = read(walPath: walPath) { return problem }
        return nil
    }

    /// What a log holds, as SQLite would replay it.
    enum Contents: Equatable {
        /// No log file.
        case absent
        /// A log SQLite replays: its salts (the header's bytes 16..<24, as the `-shm` index
        /// keeps them; nil for an empty or zeroed log) and the last commit frame it replays (0: none).
        case sound(salts: [UInt8]?, lastCommit: Int)
        /// A damaged log: what SQLite would still replay of it (nil: nothing, its header is
        /// damaged), and what is wrong.
        case damaged(intact: IntactPrefix?, String)
    }

    /// The part of a log damaged at a frame that SQLite replays: the transactions committed
    /// before the damage.
    struct IntactPrefix: Equatable {
        /// The log's bytes up to the last intact commit frame before the damage (its header
        /// only when there is none).
        var bytes: Int
        /// Transactions committed in those bytes.
        var transactions: Int
        /// The first frame SQLite would not replay.
        var damagedFrame: Int
        /// Transactions committed after it (lost), and the last frame holding one.
        var lostTransactions: Int
        var lastFrame: Int
    }

    /// Reads the log at `walPath` frame by frame, checking each against SQLite's checksums.
    static func read(walPath: String) -> Contents {
        guard let f = fopen(walPath, "rb") else { return .absent }
        defer { fclose(f) }
        var header = [UInt8](repeating: 0, count: 32)
        let n = fread(&header, 1, 32, f)
        if n == 0 { return .sound(salts: nil, lastCommit: 0) }
        guard n == 32 else { return .damaged(intact: nil, "its log \(walPath) is cut short inside its 32-byte header") }
        let magic = be32(header, 0)
        guard magic == 0x377F_0682 || magic == 0x377F_0683 else {
            return header.allSatisfy({ $0 == 0 }) ? .sound(salts: nil, lastCommit: 0) : .damaged(intact: nil, "its log \(walPath) does not start with SQLite's log header")
        }
        let bigEndian = magic & 1 == 1
        let pageSize = Int(be32(header, 8))
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else {
            return .damaged(intact: nil, "its log \(walPath) gives an impossible page size (\(pageSize))")
        }
        var (s0, s1) = checksum(header[0..<24], bigEndian: bigEndian, 0, 0)
        guard s0 == be32(header, 24), s1 == be32(header, 28) else {
            return .damaged(intact: nil, "its log \(walPath) has a header that fails its checksum")
        }
        let salt1 = be32(header, 16), salt2 = be32(header, 20)
        var frame = [UInt8](repeating: 0, count: 24 + pageSize)
        var index = 0
        var lastCommit = 0, transactions = 0, lost = 0, lastLost = 0
        var broken: Int?  // the first frame SQLite would not replay
        while fread(&frame, 1, frame.count, f) == frame.count {
            index += 1
            let current = be32(frame, 8) == salt1 && be32(frame, 12) == salt2
            let commit = be32(frame, 4) != 0
            if broken == nil {
                let (a, b) = checksum(frame[0..<8], bigEndian: bigEndian, s0, s1)
                let (c, d) = checksum(frame[24...], bigEndian: bigEndian, a, b)
                if current && c == be32(frame, 16) && d == be32(frame, 20) {
                    (s0, s1) = (c, d)
                    if commit { (lastCommit, transactions) = (index, transactions + 1) }
                    continue
                }
                broken = index
            }
            if current && commit { (lost, lastLost) = (lost + 1, index) }
        }
        if lost > 0, let first = broken {
            return .damaged(intact: IntactPrefix(bytes: 32 + lastCommit * frame.count, transactions: transactions, damagedFrame: first,
                                                 lostTransactions: lost, lastFrame: lastLost),
                            "its log \(walPath) is damaged at frame \(first): SQLite would silently drop the \(lost) transactions committed "
                                + "after it (up to frame \(lastLost))")
        }
        return .sound(salts: Array(header[16..<24]), lastCommit: lastCommit)
    }

    /// A big-endian UInt32 at `offset`.
    private static func be32(_ b: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(b[offset]) << 24 | UInt32(b[offset + 1]) << 16 | UInt32(b[offset + 2]) << 8 | UInt32(b[offset + 3])
    }

    /// SQLite's log checksum: pairs of 32-bit words, in the byte order the magic number says.
    private static func checksum(_ bytes: ArraySlice<UInt8>, bigEndian: Bool, _ a: UInt32, _ b: UInt32) -> (UInt32, UInt32) {
        var s0 = a, s1 = b
        var i = bytes.startIndex
        while i + 8 <= bytes.endIndex {
            let x0: UInt32, x1: UInt32
            if bigEndian {
                x0 = UInt32(bytes[i]) << 24 | UInt32(bytes[i + 1]) << 16 | UInt32(bytes[i + 2]) << 8 | UInt32(bytes[i + 3])
                x1 = UInt32(bytes[i + 4]) << 24 | UInt32(bytes[i + 5]) << 16 | UInt32(bytes[i + 6]) << 8 | UInt32(bytes[i + 7])
            } else {
                x0 = UInt32(bytes[i + 3]) << 24 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i])
                x1 = UInt32(bytes[i + 7]) << 24 | UInt32(bytes[i + 6]) << 16 | UInt32(bytes[i + 5]) << 8 | UInt32(bytes[i + 4])
            }
            s0 = s0 &+ x0 &+ s1
            s1 = s1 &+ x1 &+ s0
            i += 8
        }
        return (s0, s1)
    }
}

import Foundation
import Geo
import SQLiteKit

/// The checks a party store passes before it is served: its files, its header and SQLite's
/// own check of every page. Each refusal names the file and says how to recover.
enum StoreCheck {
    /// What lies at the store's path before opening.
    enum Files {
        /// No store and no trace of one: a new state folder.
        case absent
        /// A non-empty file to check.
        case present
    }

    /// Files next to `parties.db` that only an earlier store leaves behind.
    static let traceSuffixes = ["-wal", "-shm", "-journal", SQLitePartyDatabase.backupSuffix]

    /// Refuses a missing store with traces of an earlier one next to it, an empty file, a log
    /// without its database and a damaged log (`WALCheck`).
    static func inspectFiles(_ path: String) throws -> Files {
        var st = stat()
        guard stat(path, &st) == 0 else {
            guard errno == ENOENT else {
                throw PartyStoreError(message: "\(path): cannot read the party store: \(String(cString: strerror(errno)))")
            }
            let traces = traceSuffixes.map { path + $0 }.filter { FileManager.default.fileExists(atPath: $0) }
            guard traces.isEmpty else {
                throw damaged(path, "the store file is missing, yet \(traces.joined(separator: ", ")) of an earlier store remain "
                    + "(the state folder is not new, so starting empty would drop its parties)")
            }
            return .absent
        }
        guard st.st_mode & S_IFMT == S_IFREG else { throw PartyStoreError(message: "\(path): not a regular file") }
        guard st.st_size > 0 else {
            throw damaged(path, "the store file is empty (0 bytes), but a store is never created empty: its parties are lost "
                + "(if this folder never held parties, delete the empty file to start afresh)")
        }
        if case .damaged(let intact, let problem) = WALCheck.read(walPath: path + "-wal") { throw damaged(path, problem, logPrefix: intact != nil) }
        if let problem = LostLogCheck.problem(storePath: path) { throw lostLog(path, problem) }
        return .present
    }

    /// Checks the header, SQLite's `quick_check` and the schema of an opened store.
    static func checkContent(_ db: SQLiteDatabase, path: String) throws {
        try checkHeader(path)
        // quick_check reads every page: b-tree structure, cell bounds, free list, record
        // formats, NOT NULL; it skips only the index-matches-table comparison of
        // integrity_check, which costs a search per row (rows carry their own checksums).
        let answer: [String]
        do {
            let s = try db.prepare("PRAGMA quick_check(20)")
            var lines: [String] = []
            while try s.step() { lines.append(s.text(0)) }
            s.finalize()
            answer = lines
        } catch {
            throw damaged(path, error.message)
        }
        guard answer == ["ok"] else {
            let lines = answer.flatMap { $0.split(separator: "\n") }.map { Escaped.excerpt($0, limit: 120) }
            throw damaged(path, "SQLite's check found: " + lines.prefix(4).joined(separator: "; ") + (lines.count > 4 ? "; …" : ""))
        }
        let table = try db.scalarText("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'parties'")
        guard table == "1" else {
            throw PartyStoreError(message: "\(path): an SQLite file without a 'parties' table: not a party store "
                + "(point --state-dir at the folder holding the party store)")
        }
        let s = try db.prepare("SELECT name FROM pragma_table_info('parties') ORDER BY cid")
        var names: [String] = []
        while try s.step() { names.append(s.text(0)) }
        s.finalize()
        // After the first columns: the row checksum and the rider columns, in the order the
        // store's upgrades added them (each at most once).
        let extra = names.dropFirst(expectedColumns.count)
        if names.count >= expectedColumns.count, Set(extra).count == extra.count, extra.allSatisfy(optionalColumns.contains) {
            names.removeLast(extra.count)
        }
        guard names == expectedColumns else {
            throw damaged(path, "its 'parties' table has the columns (\(names.map { Escaped.excerpt($0) }.joined(separator: ", "))), "
                + "not (\(expectedColumns.joined(separator: ", ")))")
        }
    }

    /// Columns a store may have after `expectedColumns`: the row checksum (schema 1), the
    /// rider list and the version (schema 2), the settlement's key and answer (schema 3).
    static let optionalColumns: Set<String> = ["row_sum", "riders", "version", "settled_key", "settlement"]

    /// The columns of the parties table before the row checksum (`row_sum`).
    static let expectedColumns = ["id", "origin_lon", "origin_lat", "dest_lon", "dest_lat", "depart_at", "seats_total", "seats_taken", "title"]

    /// The 100-byte SQLite header: magic text, a valid page size, a file a whole number of pages.
    static func checkHeader(_ path: String) throws {
        guard let f = fopen(path, "rb") else {
            throw PartyStoreError(message: "\(path): cannot read the party store: \(String(cString: strerror(errno)))")
        }
        defer { fclose(f) }
        var header = [UInt8](repeating: 0, count: 100)
        let n = fread(&header, 1, 100, f)
        fseeko(f, 0, SEEK_END)
        let size = Int(ftello(f))
        guard n == 100, header[0..<16].elementsEqual(Array("SQLite format 3\0".utf8)) else {
            throw damaged(path, "not an SQLite database (its first bytes are not SQLite's header)")
        }
        let raw = Int(header[16]) << 8 | Int(header[17])
        let pageSize = raw == 1 ? 65536 : raw
        guard pageSize >= 512, pageSize & (pageSize - 1) == 0 else {
            throw damaged(path, "its header gives an impossible page size (\(raw))")
        }
        guard size % pageSize == 0 else {
            throw damaged(path, "its size (\(size) bytes) is not a whole number of \(pageSize)-byte pages: the file was cut short")
        }
    }

    /// The refusal for a damaged store: what is wrong and how to recover (`logPrefix`: only
    /// its log is damaged, after intact frames that recovery keeps).
    static func damaged(_ path: String, _ reason: String, logPrefix: Bool = false) -> PartyStoreError {
        let directory = (path as NSString).deletingLastPathComponent
        let backup = path + SQLitePartyDatabase.backupSuffix
        var recovery = "To recover, stop anything using it and run 'taxipot parties recover --state-dir \(directory.isEmpty ? "." : directory)': "
        if logPrefix {
            recovery += "it moves the damaged files aside (parties.db.damaged-*) and keeps the store file with the log's transactions "
                + "committed before the damaged frame; those after it are lost (it names how many)."
        } else if let attributes = try? FileManager.default.attributesOfItem(atPath: backup), let date = attributes[.modificationDate] as? Date {
            recovery += "it moves the damaged files aside (parties.db.damaged-*) and restores the backup copy \(backup) "
                + "saved at the last clean shutdown (\(ISO8601DateFormatter().string(from: date))); writes after it are lost."
        } else {
            recovery += "there is no backup copy (\(backup), saved at each clean shutdown), so it moves the damaged files aside "
                + "(parties.db.damaged-*) and copies every row that can still be read and verified into a new store."
        }
        return PartyStoreError(message: "\(path): the party store is damaged: \(reason). Refusing to start rather than serve "
            + "or write a damaged store. " + recovery)
    }

    /// The refusal for a store whose log lost acknowledged writes (`LostLogCheck`): what is
    /// lost and the two ways on.
    static func lostLog(_ path: String, _ reason: String) -> PartyStoreError {
        PartyStoreError(message: "\(path): the party store lost acknowledged writes: \(reason). Refusing to start rather than "
            + "serve a store without them. If you have the log (a copy or a file-system snapshot), put it back as \(path)-wal and start "
            + "again. Otherwise run 'taxipot parties recover --state-dir \(stateDirectory(of: path))' to accept the loss: it "
            + "keeps the log and its index aside (parties.db-wal.lost-*, parties.db-shm.lost-*) and opens the store with what the log still "
            + "holds; the writes of the lost frames are gone (compare with the clients' records).")
    }

    /// The state folder holding the store at `path`, as the `--state-dir` of a command.
    static func stateDirectory(of path: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        return directory.isEmpty ? "." : directory
    }

    /// Makes a rename in `path`'s folder durable.
    static func syncDirectory(of path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}

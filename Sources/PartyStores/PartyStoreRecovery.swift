import Foundation
import Geo
import PartyModel
import SQLiteKit

/// Puts a usable party store back after `SQLitePartyDatabase` refused a damaged one
/// (`taxipot parties recover`).
///
/// The damaged files move aside (`parties.db.damaged-<unix time>`, with its `-wal` and `-shm`),
/// never deleted. Then the backup copy saved at the last clean shutdown (`parties.db.bak`)
/// becomes the store, when it passes every check; with no sound backup, every row that can
/// still be read from the damaged file and matches its checksum is copied into a new store
/// (the table is scanned from both ends, so damage in the middle loses only what lies there).
public enum PartyStoreRecovery {
    /// What recovery did.
    public struct Report: Sendable {
        /// One line per step, naming the files.
        public var steps: [String] = []
        /// Parties in the recovered store.
        public var parties = 0
        /// Rows refused (damaged or invalid), one line each.
        public var refused: [String] = []
        /// False when the store was sound and nothing was done.
        public var changed = false
        /// Parties refused at load that were restored from the backup copy.
        public var restored = 0
    }

    /// Recovers the store in `stateDirectory`; `now` names the moved-aside files.
    public static func recover(stateDirectory: String, now: Date = Date()) throws -> Report {
        let path = (stateDirectory as NSString).appendingPathComponent(SQLitePartyDatabase.fileName)
        var report = Report()
        let fm = FileManager.default
        let stamp = Int(now.timeIntervalSince1970)
        // Never under a running service: it would go on serving (and writing) the files moved away.
        let lock = try StoreLock(storePath: path)
        defer { lock.release() }
        if fm.fileExists(atPath: path), let lost = LostLogCheck.problem(storePath: path) {
            try acceptLostLog(path, lost, stamp: stamp, into: &report)
        }
        if fm.fileExists(atPath: path), case .damaged(let intact?, let problem) = WALCheck.read(walPath: path + "-wal"),
           try salvageLog(path, intact, problem, stamp: stamp, into: &report)
        {
            return report
        }
        if fm.fileExists(atPath: path) {
            // A sound store is left alone, but for rows refused at load that the backup holds.
            do {
                let store = try SQLitePartyDatabase(path: path, owner: true, acceptingLostCommits: true)
                for note in store.notes where note.hasSuffix("accepting the loss") {
                    report.steps.append(note)
                    report.changed = true
                }
                let loaded: (parties: [Party], rejected: [String])
                do {
                    loaded = try store.load()
                    if !loaded.rejected.isEmpty { try restoreRefused(store, from: path + SQLitePartyDatabase.backupSuffix, stamp: stamp, into: &report) }
                } catch {
                    _ = try? store.close(backup: false)
                    throw error
                }
                try store.close(backup: false)
                report.parties = loaded.parties.count + report.restored
                if loaded.rejected.isEmpty {
                    report.steps.append("\(path): the store passes every check (\(loaded.parties.count) parties)"
                        + (report.changed ? "" : "; nothing to recover"))
                }
                return report
            } catch {
                report.steps.append("\(path): refused: \(error)")
            }
        }
        report.changed = true
        let (aside, movedMain) = try moveAside(path, stamp: stamp, into: &report)

        let backup = path + SQLitePartyDatabase.backupSuffix
        let temporary = path + ".recovering-\(getpid())"
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) }
        if fm.fileExists(atPath: backup) {
            do {
                try fm.copyItem(atPath: backup, toPath: temporary)
                let store = try SQLitePartyDatabase(path: temporary)
                let loaded = try store.load()
                try store.close(backup: false)
                try install(temporary, at: path)
                report.parties = loaded.parties.count
                report.refused = loaded.rejected
                let date = (try? fm.attributesOfItem(atPath: backup)[.modificationDate] as? Date).map { ISO8601DateFormatter().string(from: $0) } ?? "?"
                report.steps.append("restored the backup copy \(backup) (saved \(date)) as \(path): \(loaded.parties.count) parties; writes after it are lost")
                return report
            } catch {
                for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) }
                report.steps.append("\(backup): not usable (\(error)); salvaging the damaged file instead")
            }
        } else {
            report.steps.append("no backup copy (\(backup)); salvaging the damaged file")
        }

        // Salvage: every verified row readable from the damaged file, into a new store.
        var rows: [String: Party] = [:]
        if movedMain {
            let scan = salvage(aside)
            rows = scan.rows
            report.refused = scan.refused
            report.steps.append(scan.summary)
        }
        try SQLitePartyDatabase.create(at: temporary)
        let store = try SQLitePartyDatabase(path: temporary)
        try store.put(rows.values.sorted { $0.id < $1.id })
        try store.close(backup: false)
        try install(temporary, at: path)
        report.parties = rows.count
        report.steps.append("wrote the \(rows.count) salvaged parties to a new store \(path)")
        return report
    }

    /// Moves the store's files aside (`parties.db.damaged-<time>` and its `-wal`, `-shm`,
    /// `-journal`); returns the new name and whether the store file itself was there.
    private static func moveAside(_ path: String, stamp: Int, into report: inout Report) throws -> (aside: String, movedMain: Bool) {
        let aside = path + ".damaged-\(stamp)"
        var movedMain = false
        for suffix in ["", "-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: path + suffix) {
            guard rename(path + suffix, aside + suffix) == 0 else {
                throw PartyStoreError(message: "\(path + suffix): cannot move it aside to \(aside + suffix): \(String(cString: strerror(errno)))")
            }
            movedMain = movedMain || suffix.isEmpty
            report.steps.append("moved \(path + suffix) aside to \(aside + suffix)")
        }
        StoreCheck.syncDirectory(of: path)
        return (aside, movedMain)
    }

    /// A store whose log is damaged at a frame (`WALCheck`): the store file with the log's
    /// frames up to the last commit before the damage (a copy, which SQLite replays as it
    /// would have) becomes the store when it passes every check; the transactions committed
    /// after the damage are lost, and the report says how many. False, with nothing changed,
    /// when that copy is not usable.
    private static func salvageLog(_ path: String, _ intact: WALCheck.IntactPrefix, _ problem: String, stamp: Int,
                                   into report: inout Report) throws -> Bool
    {
        let temporary = path + ".recovering-\(getpid())"
        func clean() { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) } }
        clean()
        let loaded: (parties: [Party], rejected: [String])
        do {
            try FileManager.default.copyItem(atPath: path, toPath: temporary)
            if intact.transactions > 0 {
                let log = try FileHandle(forReadingFrom: URL(fileURLWithPath: path + "-wal"))
                let bytes = try log.read(upToCount: intact.bytes) ?? Data()
                try log.close()
                try bytes.write(to: URL(fileURLWithPath: temporary + "-wal"))
            }
            let store = try SQLitePartyDatabase(path: temporary)
            loaded = try store.load()
            try store.close(backup: false)
        } catch {
            clean()
            report.steps.append("\(path): \(problem); the store file with the log's intact frames is not usable either (\(error))")
            return false
        }
        report.changed = true
        report.steps.append("\(path): \(problem)")
        _ = try moveAside(path, stamp: stamp, into: &report)
        try install(temporary, at: path)
        report.parties = loaded.parties.count
        report.refused = loaded.rejected
        report.steps.append("salvaged the log: kept the store file and the \(intact.transactions) transactions committed in the log before "
            + "its damaged frame \(intact.damagedFrame) (\(loaded.parties.count) parties); lost the \(intact.lostTransactions) transactions "
            + "committed after it (frames \(intact.damagedFrame)–\(intact.lastFrame)): compare with the clients' records")
        return true
    }

    /// What `serve` logs when rows of the store in `stateDirectory` were refused at load: how
    /// to get them back, and that the backup copy is kept meanwhile.
    public static func adviceForRefusedRows(stateDirectory: String) -> String {
        let backup = (stateDirectory as NSString).appendingPathComponent(SQLitePartyDatabase.fileName) + SQLitePartyDatabase.backupSuffix
        guard let date = (try? FileManager.default.attributesOfItem(atPath: backup))?[.modificationDate] as? Date else {
            return "there is no backup copy (\(backup)) to restore the refused parties from: they stay refused (the store keeps their rows as they are)"
        }
        return "to restore the refused parties from the backup copy \(backup) (saved \(ISO8601DateFormatter().string(from: date))), stop "
            + "this service and run 'taxipot parties recover --state-dir \(stateDirectory)' (it restores each one the backup holds a good "
            + "row for; their changes after the backup are lost); until then the backup copy is kept, not overwritten at shutdown"
    }

    /// Keeps a log that lost acknowledged writes and its index aside (`-wal.lost-<time>`, a
    /// copy, `-shm.lost-<time>`, moved), so the store opens with what the log still holds.
    private static func acceptLostLog(_ path: String, _ problem: String, stamp: Int, into report: inout Report) throws {
        report.changed = true
        report.steps.append("\(path): \(problem)")
        let wal = path + "-wal", shm = path + "-shm"
        if FileManager.default.fileExists(atPath: wal) {
            do {
                try FileManager.default.copyItem(atPath: wal, toPath: wal + ".lost-\(stamp)")
            } catch {
                throw PartyStoreError(message: "\(wal): cannot keep a copy of it as \(wal).lost-\(stamp): \(error.localizedDescription)")
            }
            report.steps.append("kept a copy of \(wal) as \(wal).lost-\(stamp)")
        }
        guard rename(shm, shm + ".lost-\(stamp)") == 0 else {
            throw PartyStoreError(message: "\(shm): cannot move it aside to \(shm).lost-\(stamp): \(String(cString: strerror(errno)))")
        }
        StoreCheck.syncDirectory(of: path)
        report.steps.append("moved \(shm) aside to \(shm).lost-\(stamp); accepting the loss: the store opens with what its log still holds, "
            + "the writes of the lost frames are gone")
    }

    /// Puts back, from the backup copy, the parties whose rows `store.load()` refused, when the
    /// backup holds a row for them that passes its checksum and validation; the others stay
    /// in `report.refused`. The store is first copied aside (`parties.db.damaged-<time>`).
    private static func restoreRefused(_ store: SQLitePartyDatabase, from backup: String, stamp: Int, into report: inout Report) throws {
        let ids = store.refusedAtLoad
        let lines = ids.map { "\(store.path): party '\(Escaped.excerpt($0, limit: 80))' refused at load" }
        guard FileManager.default.fileExists(atPath: backup) else {
            report.refused = lines.map { $0 + " and cannot be restored: there is no backup copy (\(backup))" }
            report.steps.append("\(store.path): \(ids.count) damaged or invalid rows, and no backup copy (\(backup)) to restore them from: nothing restored")
            return
        }
        let copy = backupParties(backup)
        guard let good = copy.parties else {
            report.refused = lines.map { $0 + " and cannot be restored: the backup copy is not usable" }
            report.steps.append("\(backup): not usable (\(copy.problem)); the \(ids.count) refused rows of \(store.path) cannot be restored: nothing restored")
            return
        }
        let found = ids.compactMap { good[$0] }
        report.refused = zip(ids, lines).filter { good[$0.0] == nil }
            .map { $0.1 + " and cannot be restored: the backup copy \(backup) holds no good row for it" }
        guard !found.isEmpty else {
            report.steps.append("\(backup): holds no good copy of the \(ids.count) rows refused in \(store.path): nothing restored")
            return
        }
        let aside = store.path + ".damaged-\(stamp)"
        try store.copy(to: aside)
        report.steps.append("copied \(store.path) as it was aside to \(aside)")
        try store.put(found)
        report.changed = true
        report.restored = found.count
        let date = (try? FileManager.default.attributesOfItem(atPath: backup)[.modificationDate] as? Date).map { ISO8601DateFormatter().string(from: $0) } ?? "?"
        report.steps.append("restored \(found.count) of the \(ids.count) parties refused at load from the backup copy \(backup) (saved \(date)): "
            + found.prefix(20).map { "'\(Escaped.excerpt($0.id, limit: 80))'" }.joined(separator: ", ") + (found.count > 20 ? ", …" : "")
            + "; their changes after the backup are lost")
    }

    /// The parties of a backup copy whose rows pass their checksums and validation, by id (read
    /// from a checked copy, never the backup itself); nil and why when it cannot be opened.
    private static func backupParties(_ backup: String) -> (parties: [String: Party]?, problem: String) {
        let temporary = backup + ".reading-\(getpid())"
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) } }
        do {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) }
            try FileManager.default.copyItem(atPath: backup, toPath: temporary)
            let store = try SQLitePartyDatabase(path: temporary)
            let loaded = try store.load()
            try store.close(backup: false)
            return (Dictionary(loaded.parties.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }), "")
        } catch {
            return (nil, "\(error)")
        }
    }

    /// Renames a checked store into place; its commit record starts again from its own count
    /// (the loss it accepts was reported).
    private static func install(_ temporary: String, at path: String) throws {
        guard rename(temporary, path) == 0 else {
            throw PartyStoreError(message: "\(path): cannot install the recovered store: \(String(cString: strerror(errno)))")
        }
        CommitRecord.reset(storePath: path)
        for suffix in ["-wal", "-shm"] { unlink(temporary + suffix) }
        StoreCheck.syncDirectory(of: path)
    }

    /// Reads what it can of a damaged store's table, in id order from each end until SQLite
    /// stops at the damage; keeps the rows that match their checksum and pass validation.
    static func salvage(_ path: String) -> (rows: [String: Party], refused: [String], summary: String) {
        var rows: [String: Party] = [:]
        var refused: [String: String] = [:]
        var stops: [String] = []
        guard let db = try? SQLiteDatabase(path: path, readOnly: false) else {
            return ([:], [], "\(path): cannot be opened; no row salvaged")
        }
        let hasSum = (try? db.scalarText("SELECT count(*) FROM pragma_table_info('parties') WHERE name = 'row_sum'")) == "1"
        let columns = (try? SQLitePartyDatabase.rowColumns(db)) ?? "id, origin_lon, origin_lat, dest_lon, dest_lat, depart_at, seats_total, seats_taken, title, NULL, 1, NULL, NULL, NULL"
        for order in ["ASC", "DESC"] {
            do {
                let s = try db.prepare("SELECT \(columns) FROM parties ORDER BY id \(order)")
                defer { s.finalize() }
                while try s.step() {
                    guard let p = SQLitePartyDatabase.party(s) else {
                        refused[s.text(0)] = "\(path): party '\(Escaped.excerpt(s.text(0), limit: 80))' not salvaged: its riders column is not a rider list"
                        continue
                    }
                    if hasSum && (s.isNull(11) || s.int(11) != SQLitePartyDatabase.rowSum(p)) {
                        refused[p.id] = "\(path): party '\(Escaped.excerpt(p.id, limit: 80))' not salvaged: its row does not match its checksum"
                        continue
                    }
                    do {
                        try p.validate()
                        rows[p.id] = p
                    } catch {
                        refused[p.id] = "\(path): party '\(Escaped.excerpt(p.id, limit: 80))' not salvaged: \(error.description)"
                    }
                }
            } catch {
                stops.append("the \(order == "ASC" ? "forward" : "backward") scan stopped at \(error.message)")
            }
        }
        try? db.close()
        let summary = "\(path): salvaged \(rows.count) parties that match their checksums"
            + (refused.isEmpty ? "" : ", refused \(refused.count) rows") + (stops.isEmpty ? "" : " (" + stops.joined(separator: "; ") + ")")
        return (rows, refused.values.sorted(), summary)
    }
}

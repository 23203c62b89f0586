import Foundation
import Geo
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
    }

    /// Recovers the store in `stateDirectory`; `now` names the moved-aside files.
    public static func recover(stateDirectory: String, now: Date = Date()) throws -> Report {
        let path = (stateDirectory as NSString).appendingPathComponent(SQLitePartyDatabase.fileName)
        var report = Report()
        let fm = FileManager.default
        if fm.fileExists(atPath: path) {
            // A sound store is left alone.
            do {
                let store = try SQLitePartyDatabase(path: path)
                let loaded = try store.load()
                try store.close(backup: false)
                report.parties = loaded.parties.count
                report.refused = loaded.rejected
                report.steps.append("\(path): the store passes every check (\(loaded.parties.count) parties"
                    + (loaded.rejected.isEmpty ? ")" : ", \(loaded.rejected.count) damaged or invalid rows refused at load)") + "; nothing to recover")
                return report
            } catch {
                report.steps.append("\(path): refused: \(error)")
            }
        }
        report.changed = true
        let stamp = Int(now.timeIntervalSince1970)
        let aside = path + ".damaged-\(stamp)"
        var movedMain = false
        for suffix in ["", "-wal", "-shm", "-journal"] where fm.fileExists(atPath: path + suffix) {
            guard rename(path + suffix, aside + suffix) == 0 else {
                throw PartyStoreError(message: "\(path + suffix): cannot move it aside to \(aside + suffix): \(String(cString: strerror(errno)))")
            }
            movedMain = movedMain || suffix.isEmpty
            report.steps.append("moved \(path + suffix) aside to \(aside + suffix)")
        }
        StoreCheck.syncDirectory(of: path)

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

    /// Renames a checked store into place.
    private static func install(_ temporary: String, at path: String) throws {
        guard rename(temporary, path) == 0 else {
            throw PartyStoreError(message: "\(path): cannot install the recovered store: \(String(cString: strerror(errno)))")
        }
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
        let columns = (try? SQLitePartyDatabase.rowColumns(db)) ?? "id, origin_lon, origin_lat, dest_lon, dest_lat, depart_at, seats_total, seats_taken, title, NULL, 1, NULL"
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

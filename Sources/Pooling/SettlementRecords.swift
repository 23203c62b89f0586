import Foundation
import Parties
import PartyModel

/// The settlement record files of earlier builds (`<state>/settlements/<party id>.settled`: the
/// idempotency key, a newline, the answer given), moved into the party store at start.
///
/// A settlement now lives in the party's own row (`Party.settlement`), which is what closes it to
/// joins on every replica; a record's answer is kept as its text (`PartySettlement.Record.earlierAnswer`). A record left by an earlier build is imported into its party when that
/// party is live and unsettled, then renamed `<id>.settled.imported`, so a party created later
/// under the same id is never taken for the settled one; a record whose party is gone (expired
/// or deleted) is renamed the same way. A record that cannot be imported now (the store cannot
/// be reached) stays for the next start.
public enum SettlementRecords {
    /// The folder of the record files in a state folder.
    public static func directory(stateDirectory: String) -> String {
        (stateDirectory as NSString).appendingPathComponent("settlements")
    }

    /// The key and answer of the record file at `path`; nil when it is not one.
    static func read(_ path: String) -> PartySettlement? {
        guard let data = FileManager.default.contents(atPath: path), let nl = data.firstIndex(of: 0x0A) else { return nil }
        let s = PartySettlement(key: String(decoding: data[..<nl], as: UTF8.self),
                                record: .earlierAnswer(String(decoding: data[(nl + 1)...], as: UTF8.self)))
        return (try? s.validate()) == nil ? nil : s
    }

    /// Imports the record files in `directory` into `parties` (see the type); returns what it
    /// did, one line each (nothing when there is no record).
    public static func importRecords(in directory: String, into parties: PartyService) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        guard names.contains(where: { $0.hasSuffix(".settled") }) else { return [] }
        do { try parties.requireLoaded() } catch {
            return ["\(directory): settlement records of an earlier build not imported now (\(error)); kept for the next start"]
        }
        var notes: [String] = []
        var imported = 0, gone = 0
        for name in names.sorted() where name.hasSuffix(".settled") {
            let path = (directory as NSString).appendingPathComponent(name)
            let id = String(name.dropLast(".settled".count))
            guard let record = read(path) else {
                notes.append("\(path): not a settlement record (a key line, then the answer): left as it is")
                continue
            }
            let kept: Party?
            do { kept = try parties.kept(id: id) } catch {
                notes.append("\(path): not imported into party '\(id)' now (\(error)); kept for the next start")
                continue
            }
            if let party = kept {
                if !party.isSettled {
                    do {
                        _ = try parties.settle(partyID: id, computedFrom: party, settlement: record)
                    } catch {
                        notes.append("\(path): not imported into party '\(id)' now (\(error)); kept for the next start")
                        continue
                    }
                }
                imported += 1
            } else {
                gone += 1
            }
            guard rename(path, path + ".imported") == 0 else {
                notes.append("\(path): cannot rename it to \(name).imported: \(String(cString: strerror(errno)))")
                continue
            }
        }
        if imported + gone > 0 {
            notes.append("\(directory): moved \(imported) settlement records of an earlier build into the party store"
                + (gone > 0 ? " (\(gone) more of parties no longer live set aside)" : "") + "; the files are kept as *.settled.imported")
        }
        return notes
    }
}

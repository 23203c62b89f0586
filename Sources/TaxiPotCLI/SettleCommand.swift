import CSV
import Foundation
import TaxiPotServer

/// `taxipot settle`: settlements of many parties' traces in one run, one JSON line each.
struct SettleCommand: Command {
    let name = "settle"
    let summary = "settle parties' fares from GPS traces in a folder or one CSV (one JSON line per trace)"
    let help = """
        Usage: taxipot settle PATH --state DIR [--split equal|by_leg|proportional] [--data DIR]

          PATH          a folder of trace files named <party id>.csv or <party id>.gpx (CSV: lon,lat[,time][,accuracy]),
                        or one CSV with a party_id column and lon,lat[,time][,accuracy] (rows of a party in order)
          --state DIR   the server's state folder (its party store) holding the parties
          --split       the split policy (default by_leg)
          --data DIR    dataset folder (default: data)
        Prints one line per trace: {"trace","party_id","fare_total_krw","legs_krw","riders":[{rider_id,krw}]}
        or {"trace","party_id","error"}; drop-offs are detected (the stop nearest each rider's). The parties
        are read, not closed: POST /v1/parties/{id}/settle records a settlement. Exit 0 when every trace
        settled, 2 when some failed, 1 on a usage error.
        """

    func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, valued: ["state", "split", "data"])
        guard a.positionals.count == 1 else { throw UsageError("give exactly one PATH (a folder of traces or a CSV)") }
        let state = try a.required("state")
        let splitText = a.value("split") ?? "by_leg"
        guard let split = SplitPolicy(rawValue: splitText) else { throw UsageError("option --split must be equal, by_leg or proportional, got '\(splitText)'") }
        let traces = try Self.traces(a.positionals[0])
        let dataset = try Dataset(directory: a.value("data") ?? "data")
        let parties = try PartyService(stateDirectory: state)
        let settler = Settler(pricer: RidePricer(quotes: dataset.quotes))
        var failed = 0
        for t in traces {
            var line: [(String, JSONValue)] = [("trace", .string(t.name)), ("party_id", .string(t.partyID))]
            do {
                guard let party = try parties.kept(id: t.partyID) else { throw UsageError("no party '\(t.partyID)' in \(state)") }
                let fixes = try t.read()
                let s = try settler.settle(party, SettleInput(trace: fixes, split: split))
                line += [("fare_total_krw", .number(Double(s.fare.totalKrw))), ("legs_krw", .array(s.fare.legKrw.map { .number(Double($0)) })),
                         ("distance_m", .number((s.distanceMeters * 10).rounded() / 10)),
                         ("riders", .array(s.riders.map { .object([("rider_id", .string($0.id)), ("krw", .number(Double($0.settledKrw)))]) }))]
            } catch {
                failed += 1
                line.append(("error", .string("\(error)")))
            }
            print(JSONWriter.string(.object(line)))
        }
        _ = try? parties.close(backup: false)
        return failed == 0 ? 0 : 2
    }

    struct Trace {
        let name: String
        let partyID: String
        let read: () throws -> [TraceFix]
    }

    /// The traces at `path`: a folder's trace files (sorted by name) or one CSV's parties.
    static func traces(_ path: String) throws -> [Trace] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw UsageError("\(path): no such file or folder") }
        if isDirectory.boolValue {
            let names = try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(".csv") || $0.hasSuffix(".gpx") }.sorted()
            return names.map { n in
                let file = (path as NSString).appendingPathComponent(n)
                return Trace(name: n, partyID: String(n.dropLast(4))) { try TraceFile.read(path: file) }
            }
        }
        let table = try CSVTable(path: path)
        let id = try table.column("party_id")
        var order: [String] = []
        var rows: [String: [CSVTable.Row]] = [:]
        for row in table.rows {
            let p = id < row.fields.count ? row.fields[id] : ""
            if rows[p] == nil { order.append(p) }
            rows[p, default: []].append(row)
        }
        // Each party's rows as a CSV of their own, read by the trace reader (one parser for both forms).
        return order.map { p in
            Trace(name: "\((path as NSString).lastPathComponent):\(p)", partyID: p) {
                var text = table.header.joined(separator: ",") + "\n"
                for r in rows[p] ?? [] { text += r.fields.joined(separator: ",") + "\n" }
                return try TraceFile.read(bytes: Array(text.utf8), path: "\(path) (party \(p))")
            }
        }
    }
}

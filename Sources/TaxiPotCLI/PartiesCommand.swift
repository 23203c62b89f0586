import Foundation
import TaxiPot

/// `taxipot parties import FILE.csv`: bulk-load parties into the party store;
/// `taxipot parties recover`: put a usable store back after a damaged one was refused.
struct PartiesCommand: Command {
    let name = "parties"
    let summary = "manage the party store: 'parties import FILE.csv' (bulk load), 'parties recover'"
    let help = """
        Usage: taxipot parties import FILE.csv [--state-dir DIR] [--batch N] [--grace S] [--echo]
                                        [--encoding auto|utf-8|cp949] [--delimiter D]
               taxipot parties recover [--state-dir DIR]

        Loads parties from CSV into DIR/parties.db (the store 'taxipot serve' uses), creating
        or replacing them by id. Refused while another process (a running 'taxipot serve')
        holds the store: stop it first. A replaced party keeps its riders who joined (as a PUT
        without riders does) and goes on from its stored version (stored + 1); a settled
        party, or one whose stored row was refused as damaged, is never replaced (the row is
        reported and skipped). Columns, in order (a first row whose first field is 'id' is a header):
          id,origin_lon,origin_lat,dest_lon,dest_lat,depart_at,seats_total,seats_taken[,title]
        depart_at is ISO 8601 (no offset means Asia/Seoul) or Unix seconds; fields may be quoted
        (RFC 4180). UTF-8 with or without BOM (Excel's "CSV UTF-8"), or CP949 told from the bytes.
        FILE '-' reads standard input as it arrives.
          --state-dir DIR  the state folder (default: var), created if absent
          --batch N        rows per durable transaction, 1–100000 (default 1000)
          --grace S        seconds after departure a party stays listed (default 1800);
                           rows already past it are refused
          --echo           print each stored id on standard output once its transaction is durable
          --encoding E     auto (default), utf-8 or cp949 (also euc-kr)
          --delimiter D    field separator: ',' (default), ';', '|' or tab
        Bad rows are reported on standard error by line number and skipped.
        Exit: 0 all rows stored, 1 fatal (file or store), 2 some rows refused.

        'recover' is for a store that 'taxipot serve' refused as damaged (refused while a
        service holds the store). It moves the damaged files aside (DIR/parties.db.damaged-<unix
        time>, never deleted). A store whose log is damaged mid-way keeps the store file and
        the log's intact transactions before the damage (those after it are lost, and named).
        Otherwise it restores the backup copy saved at the last clean shutdown
        (DIR/parties.db.bak; writes after it are lost) when it passes every check, or else
        copies every row that can still be read and matches its checksum into a new store.
        A store whose log was cut or deleted after a crash: keeps the log and its index aside
        (parties.db-wal.lost-*, parties.db-shm.lost-*) and opens it with what the log holds.
        A sound store with rows refused at load: restores each from the backup copy when the
        backup's row passes its checksum (the store as it was is copied aside first).
        Exit: 0 recovered or sound, 1 fatal, 2 rows were refused and not restored.
        """

    func run(_ args: [String]) throws -> Int32 {
        guard let sub = args.first else { throw UsageError("missing the subcommand (import)") }
        if sub == "recover" { return try recover(Array(args.dropFirst())) }
        guard sub == "import" else { throw UsageError("unknown subcommand '\(sub)' (known: import, recover)") }
        let a = try Arguments(Array(args.dropFirst()), valued: ["state-dir", "batch", "grace", "encoding", "delimiter"], flags: ["echo"])
        guard a.positionals.count == 1 else {
            throw UsageError(a.positionals.isEmpty ? "missing the CSV file to import" : "unexpected argument '\(a.positionals[1])'")
        }
        let path = a.positionals[0]
        let batchSize = try a.int("batch", default: 1000, range: 1...100_000)
        let grace = try a.double("grace") ?? 1800
        guard grace >= 0 else { throw UsageError("option --grace must be ≥ 0 seconds") }
        let echo = a.has("echo")

        let encoding = try CSVOptions.encoding(a)
        let delimiter = try CSVOptions.delimiter(a)
        let raw: ByteSource
        do {
            raw = path == "-" ? FileDescriptorSource(fileDescriptor: 0, name: "standard input") : try FileDescriptorSource(path: path)
        } catch {
            printError("taxipot parties: \(error)")
            return 1
        }
        let store = try SQLitePartyDatabase(stateDirectory: a.value("state-dir") ?? "var")
        for note in store.notes { printError("taxipot parties: \(note)") }
        let now = Date().timeIntervalSince1970

        var batch = [Party]()
        var lines = [Int]()
        batch.reserveCapacity(batchSize)
        var stored = 0, refused = 0
        func flush() throws {
            guard !batch.isEmpty else { return }
            let kept = try store.putImported(batch)
            var skip = Set<Int>()
            for (i, reason) in kept {
                printError("\(path):\(lines[i]): \(reason)")
                skip.insert(i)
            }
            refused += skip.count
            stored += batch.count - skip.count
            if echo {
                var out = ""
                for (i, p) in batch.enumerated() where !skip.contains(i) { out += p.id + "\n" }
                FileHandle.standardOutput.write(Data(out.utf8))
            }
            batch.removeAll(keepingCapacity: true)
            lines.removeAll(keepingCapacity: true)
        }

        var first = true
        do {
            let source = try encoding.map { try $0.decoding(raw) } ?? InputEncoding.detect(in: raw).source
            let reader = CSVReader(source: source, replacementMarksInvalid: encoding == .cp949, delimiter: delimiter)
            while let record = try reader.next() {
                defer { first = false }
                if record.fields.allSatisfy({ $0.trimmingSpaces().isEmpty }) || (first && PartyCSV.isHeader(record.fields)) { continue }
                if let limit = record.exceededLimit {
                    printError("\(path):\(record.line): the row is longer than \(limit) bytes")
                    refused += 1
                    continue
                }
                switch PartyCSV.party(fields: record.fields) {
                case .success(let p):
                    guard p.departAt + grace > now else {
                        printError("\(path):\(record.line): party '\(p.id)' departed at \(SeoulTime.format(p.departAt)), past the \(Int(grace)) s grace")
                        refused += 1
                        continue
                    }
                    batch.append(p)
                    lines.append(record.line)
                    if batch.count >= batchSize { try flush() }
                case .failure(let e):
                    printError("\(path):\(record.line): \(e.description)")
                    refused += 1
                }
            }
        } catch CSVError.unterminatedQuote(let line) {
            printError("\(path):\(line): a quoted field is not closed at the end of the file")
            refused += 1
        } catch {
            // The rows before the fault are stored; the rest of the input cannot be read.
            try flush()
            try store.close()
            printError("taxipot parties: \(path): \(error); stored \(stored) parties before it")
            return 1
        }
        try flush()
        try store.close()
        printError("taxipot parties: stored \(stored) parties in \(store.path)" + (refused > 0 ? "; \(refused) rows refused" : ""))
        return refused > 0 ? 2 : 0
    }

    /// `parties recover [--state-dir DIR]`.
    private func recover(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, valued: ["state-dir"])
        guard a.positionals.isEmpty else { throw UsageError("unexpected argument '\(a.positionals[0])'") }
        let report = try PartyStoreRecovery.recover(stateDirectory: a.value("state-dir") ?? "var")
        for step in report.steps { printError("taxipot parties: \(step)") }
        for line in report.refused { printError("taxipot parties: \(line)") }
        if report.changed {
            printError("taxipot parties: recovered: \(report.parties) parties" + (report.refused.isEmpty ? "" : ", \(report.refused.count) rows refused"))
        }
        return report.refused.isEmpty ? 0 : 2
    }
}

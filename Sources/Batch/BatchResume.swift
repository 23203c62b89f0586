import CSV

/// What an interrupted run left in its output file (`taxipot batch --resume`).
///
/// The rows are written in input order, so the complete rows at the start of the output are
/// the results of the first input rows: a resumed run cuts a half-written last row, skips that
/// many input rows and appends the rest, and the file ends up byte for byte what one
/// uninterrupted run writes.
public struct BatchResume: Sendable, Equatable {
    /// Complete rows found (the header line not counted).
    public var rows: Int
    /// Of those, rows whose `error` is set (so the exit code covers them too).
    public var failedRows: Int
    /// Bytes of the file that hold the header and the complete rows; the rest is cut.
    public var keptBytes: Int
    /// The header found (CSV with a header line), to compare with the run's.
    public var header: [String]?

    /// Reads `bytes`, an output file written in `format` (`hasHeader`: a CSV header line first).
    public static func scan(_ bytes: [UInt8], format: BatchOutputFormat, hasHeader: Bool) throws -> BatchResume {
        var end = bytes.count
        while true {
            // The end of the last complete line at or before `end`.
            while end > 0, bytes[end - 1] != 0x0A { end -= 1 }
            if end == 0 { return BatchResume(rows: 0, failedRows: 0, keptBytes: 0, header: nil) }
            let prefix = Array(bytes[..<end])
            if format == .jsonl {
                var rows = 0, failed = 0
                for line in prefix.split(separator: 0x0A) {
                    rows += 1
                    if !Self.contains(line, Array(#""error":null}"#.utf8)) { failed += 1 }
                }
                return BatchResume(rows: rows, failedRows: failed, keptBytes: end, header: nil)
            }
            let reader = CSVReader(source: MemorySource(prefix), maxRecordBytes: Int.max)
            do {
                var header: [String]? = nil
                var rows = 0, failed = 0
                while let r = try reader.next() {
                    if hasHeader && header == nil {
                        header = r.fields
                        continue
                    }
                    rows += 1
                    if let last = r.fields.last, !last.isEmpty { failed += 1 }
                }
                return BatchResume(rows: rows, failedRows: failed, keptBytes: end, header: header)
            } catch {
                // The cut fell inside a quoted field spanning lines: back to the line before.
                end -= 1
            }
        }
    }

    private static func contains(_ line: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        guard line.count >= needle.count else { return false }
        return line.suffix(needle.count).elementsEqual(needle)
    }
}

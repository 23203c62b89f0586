import CSV

/// How a run writes each output row: the columns, which results are numbers, and the bytes of a
/// row's input part. The workers format rows with it, and `--resume` checks an earlier output
/// against it (`ResumeCheck`), so both agree on every byte.
struct OutputLayout: Sendable {
    let format: BatchOutputFormat
    /// The output columns: the input columns, then the results, then `error`.
    let columns: [String]
    /// How many of them are the input's.
    let inputCount: Int
    /// Per output column: a result written as a number (JSON Lines) and checked as one.
    let numeric: [Bool]
    /// JSON Lines: each key, written as `"key":`.
    let jsonKeys: [[UInt8]]
    /// The rows end with `row_check` (`BatchOptions.rowCheck`).
    let rowCheck: Bool
    /// The index of the `error` column (the last one, or the one before `row_check`).
    let errorIndex: Int

    /// The result columns that hold numbers.
    static let numericResults: Set<String> = ["distance_m", "duration_s", "fare_krw", "per_person_krw", "night_krw", "fare_low_krw",
                                              "fare_high_krw", "origin_place_lon", "origin_place_lat", "dest_place_lon", "dest_place_lat"]

    init(format: BatchOutputFormat, columns: [String], inputCount: Int) {
        self.format = format
        self.columns = columns
        self.inputCount = inputCount
        numeric = columns.enumerated().map { i, name in i >= inputCount && Self.numericResults.contains(name) }
        rowCheck = columns.count > inputCount && columns.last == BatchSchema.rowCheckColumn
        errorIndex = columns.count - (rowCheck ? 2 : 1)
        jsonKeys = columns.map { name in
            var key: [UInt8] = []
            JSONLine.appendString(name, to: &key)
            key.append(0x3A)
            return key
        }
    }

    /// The `row_check` of a row whose bytes up to the check are `row` (CSV: through the comma
    /// before it; JSON Lines: through its key): 32-bit FNV-1a as 8 lower-case hex digits. Every
    /// step of FNV-1a is a bijection of the state, so a change of any one byte (a flipped bit)
    /// always changes it; other damage goes unseen with a chance of 1 in 2^32.
    static func rowCheck(_ row: ArraySlice<UInt8>) -> [UInt8] {
        var h: UInt32 = 0x811C_9DC5
        for b in row { h = (h ^ UInt32(b)) &* 0x0100_0193 }
        let hex = Array("0123456789abcdef".utf8)
        return (0..<8).map { hex[Int((h >> (28 - 4 * UInt32($0))) & 15)] }
    }

    /// The row's input part as written: CSV, the input fields (as many as the header has; a
    /// short row padded with empty ones) each followed by a comma; JSON Lines, `{` and each
    /// input field as a string (null past the end of a short row), each followed by a comma.
    /// The results and `error` follow.
    func appendInput(_ record: CSVRecord, to out: inout [UInt8]) {
        switch format {
        case .csv:
            for i in 0..<inputCount {
                if i < record.fields.count { CSVWriter.appendField(record.fields[i], to: &out) }
                out.append(0x2C)
            }
        case .jsonl:
            out.append(0x7B)
            for i in 0..<inputCount {
                out.append(contentsOf: jsonKeys[i])
                if i < record.fields.count { JSONLine.appendString(record.fields[i], to: &out) } else { out.append(contentsOf: "null".utf8) }
                out.append(0x2C)
            }
        }
    }
}

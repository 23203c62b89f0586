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

    /// The result columns that hold numbers.
    static let numericResults: Set<String> = ["distance_m", "duration_s", "fare_krw", "per_person_krw", "night_krw", "fare_low_krw",
                                              "fare_high_krw", "origin_place_lon", "origin_place_lat", "dest_place_lon", "dest_place_lat"]

    init(format: BatchOutputFormat, columns: [String], inputCount: Int) {
        self.format = format
        self.columns = columns
        self.inputCount = inputCount
        numeric = columns.enumerated().map { i, name in i >= inputCount && Self.numericResults.contains(name) }
        jsonKeys = columns.map { name in
            var key: [UInt8] = []
            JSONLine.appendString(name, to: &key)
            key.append(0x3A)
            return key
        }
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

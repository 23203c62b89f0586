import CSV
import Geo

/// What an interrupted run left in its output file (`taxipot batch --resume`), as
/// `BatchRunner.resume(after:)` found it.
///
/// The rows are written in input order, so the complete rows at the start of the output are
/// the results of the first input rows: a resumed run cuts a half-written last row, skips that
/// many input rows and appends the rest, and the file ends up byte for byte what one
/// uninterrupted run writes. Only rows that are what this run writes for those input rows are
/// kept; anything else is refused, naming its line.
public struct BatchResume: Sendable, Equatable {
    /// Complete rows found (the header line not counted).
    public var rows: Int
    /// Of those, rows whose `error` is set (so the exit code covers them too).
    public var failedRows: Int
    /// Bytes of the file that hold the header and the complete rows; the rest is cut. 0: start
    /// over (nothing complete, not even the header).
    public var keptBytes: Int
}

/// Reads an earlier output row by row alongside the input, as `BatchRunner.resume(after:)` does.
///
/// Each row must start with the exact bytes this run writes for the input row at its place
/// (`OutputLayout.appendInput`), then hold the result columns in this run's form (CSV fields
/// quoted only where the writer quotes, JSON values of the writer's kinds; numbers where the
/// column is numeric; valid UTF-8), its `row_check` the check of its bytes when the run writes
/// one (so a result changed after it was written, even one bit, is found), and end with this
/// run's line end. The output may stop
/// anywhere inside its last row (the run was killed while writing it).
struct ResumeCheck {
    let bytes: [UInt8]
    let layout: OutputLayout
    /// The header line this run writes, nil when it writes none (JSON Lines, no header input).
    let header: (() -> [UInt8])?
    /// The line end of rows (known once the input's first line is read).
    let lineEnd: () -> [UInt8]
    let nextInput: () throws -> CSVRecord?

    /// What the scan found, and the input record read for the row the output stops inside.
    func scan() throws -> (resume: BatchResume, unfinished: CSVRecord?) {
        var pos = 0
        if let header = header?() {
            if bytes.count < header.count, header.starts(with: bytes) { return (BatchResume(rows: 0, failedRows: 0, keptBytes: 0), nil) }
            guard bytes.starts(with: header) else { throw headerMismatch(header) }
            pos = header.count
        }
        var rows = 0, failed = 0
        var line = 1 + bytes[..<pos].lazy.filter { $0 == 0x0A }.count
        while pos < bytes.count {
            guard let record = try nextInput() else {
                throw BatchError("line \(line): the output has more rows than the input, which ends after \(rows) rows: "
                    + "it is not (only) the output of this input")
            }
            var expected: [UInt8] = []
            layout.appendInput(record, to: &expected)
            let rest = bytes.count - pos
            guard bytes[pos...].starts(with: expected) else {
                if rest < expected.count, expected.starts(with: bytes[pos...]) { return (BatchResume(rows: rows, failedRows: failed, keptBytes: pos), record) }
                let firstLine = bytes[pos...].prefix { $0 != 0x0A }
                if String(validating: firstLine, as: UTF8.self) == nil {
                    throw BatchError("line \(line): the row holds bytes that are not UTF-8: the row is damaged")
                }
                throw BatchError("line \(line): the row's input columns are not those of input row \(rows + 1) (line \(record.line) of the input): "
                    + "the row is damaged, or the output of another input")
            }
            var reader = FieldReader(bytes: bytes, position: pos + expected.count, rowStart: pos)
            let outcome: FieldReader.Outcome
            switch layout.format {
            case .csv: outcome = reader.csvResults(layout, lineEnd: lineEnd())
            case .jsonl: outcome = reader.jsonResults(layout)
            }
            switch outcome {
            case .cut:
                return (BatchResume(rows: rows, failedRows: failed, keptBytes: pos), record)
            case .damaged(let why):
                throw BatchError("line \(line): \(why): the row is damaged")
            case .complete(let hasError):
                rows += 1
                if hasError { failed += 1 }
                line += bytes[pos..<reader.position].lazy.filter { $0 == 0x0A }.count
                pos = reader.position
            }
        }
        return (BatchResume(rows: rows, failedRows: failed, keptBytes: pos), nil)
    }

    /// The refusal of a file whose first line is not this run's header.
    private func headerMismatch(_ header: [UInt8]) -> BatchError {
        let end = bytes.firstIndex(of: 0x0A).map { $0 + 1 } ?? bytes.count
        let reader = CSVReader(source: MemorySource(Array(bytes[..<end])), maxRecordBytes: 1 << 20)
        let found = ((try? reader.next()) ?? nil)?.fields ?? []
        if found == layout.columns {
            return BatchError("line 1: the header has this run's columns, written with another line end or byte-order mark: "
                + "it is not the output of this input with these options")
        }
        if layout.rowCheck, found == Array(layout.columns.dropLast()) {
            return BatchError("line 1: the header has no '\(BatchSchema.rowCheckColumn)' (written to standard output, or by an older version): "
                + "its rows cannot be verified; run it again")
        }
        return BatchError("line 1: the header is \(found.prefix(12).map { RowParser.excerpt($0) }.joined(separator: ",")), "
            + "not this run's \(layout.columns.prefix(12).joined(separator: ",")): is it the output of this input with these options?")
    }
}

/// Reads the result columns of one output row, in the writer's exact form.
struct FieldReader {
    let bytes: [UInt8]
    var position: Int
    /// Where the row starts (what its `row_check` covers from).
    let rowStart: Int

    enum Outcome {
        /// The row is whole; `hasError`: its `error` is set.
        case complete(hasError: Bool)
        /// The bytes end inside the row.
        case cut
        /// The row is not what a run writes: why.
        case damaged(String)
    }

    /// A step that ends the row early.
    private struct Stop: Error { let outcome: Outcome }

    private func byte(_ i: Int) throws -> UInt8 {
        guard i < bytes.count else { throw Stop(outcome: .cut) }
        return bytes[i]
    }

    /// Expects `literal` at the position and steps over it.
    private mutating func expect(_ literal: [UInt8], _ what: @autoclosure () -> String) throws {
        for (k, b) in literal.enumerated() where try byte(position + k) != b { throw Stop(outcome: .damaged(what())) }
        position += literal.count
    }

    /// The text of bytes `from..<to`, or a refusal when they are not UTF-8.
    private func text(_ from: Int, _ to: Int, column: String) throws -> String {
        guard let s = String(validating: bytes[from..<to], as: UTF8.self) else {
            throw Stop(outcome: .damaged("column '\(column)' holds bytes that are not UTF-8"))
        }
        return s
    }

    /// Checks a row's `row_check` (`value`), which covers the bytes from `rowStart` to `end`.
    private func verify(rowCheck value: String, coveringTo end: Int) throws {
        guard Array(value.utf8) == OutputLayout.rowCheck(bytes[rowStart..<end]) else {
            throw Stop(outcome: .damaged("column 'row_check' is not the check of the row's bytes: the row was changed after it was written"))
        }
    }

    /// Checks a result's value against its column.
    private static func check(_ value: String, column: String, numeric: Bool) throws {
        if numeric, !value.isEmpty, NumberParsing.finiteDouble(value) == nil {
            throw Stop(outcome: .damaged("column '\(column)' holds '\(RowParser.excerpt(value))', not a number"))
        }
    }

    /// CSV: the result fields and `error`, comma-separated, then `lineEnd`.
    mutating func csvResults(_ layout: OutputLayout, lineEnd: [UInt8]) -> Outcome {
        do {
            var error = ""
            for k in layout.inputCount..<layout.columns.count {
                let column = layout.columns[k]
                let start = position
                var value: String
                if try byte(position) == 0x22 {
                    var raw: [UInt8] = []
                    var i = position + 1
                    while true {
                        let b = try byte(i)
                        if b == 0x22 {
                            if try byte(i + 1) == 0x22 { raw.append(0x22); i += 2; continue }
                            break
                        }
                        raw.append(b)
                        i += 1
                    }
                    guard let s = String(validating: raw, as: UTF8.self) else {
                        throw Stop(outcome: .damaged("column '\(column)' holds bytes that are not UTF-8"))
                    }
                    value = s
                    position = i + 1
                } else {
                    var i = position
                    while case let b = try byte(i), b != 0x2C, b != 0x0D, b != 0x0A { i += 1 }
                    value = try text(position, i, column: column)
                    position = i
                }
                var canonical: [UInt8] = []
                CSVWriter.appendField(value, to: &canonical)
                guard bytes[start..<position].elementsEqual(canonical) else {
                    return .damaged("column '\(column)' is not written as this tool writes it (quotes)")
                }
                try Self.check(value, column: column, numeric: layout.numeric[k])
                if k == layout.errorIndex { error = value }
                if layout.rowCheck, k == layout.columns.count - 1 { try verify(rowCheck: value, coveringTo: start) }
                if k < layout.columns.count - 1 {
                    try expect([0x2C], "the row has \(k + 1) fields, the header \(layout.columns.count)")
                }
            }
            if try byte(position) == 0x2C { return .damaged("the row has more fields than the header's \(layout.columns.count)") }
            let ends = lineEnd == [0x0A] ? "LF" : "CRLF"
            try expect(lineEnd, "the row does not end with this output's line end (\(ends)): mixed line ends")
            return .complete(hasError: !error.isEmpty)
        } catch let stop as Stop {
            return stop.outcome
        } catch {
            return .damaged("\(error)")
        }
    }

    /// JSON Lines: `"key":value` for each result and `error`, comma-separated, then `}` and LF.
    /// Values as the writer writes them: null, true, false, a number, or a string with the
    /// writer's escapes.
    mutating func jsonResults(_ layout: OutputLayout) -> Outcome {
        do {
            var hasError = false
            for k in layout.inputCount..<layout.columns.count {
                let column = layout.columns[k]
                try expect(layout.jsonKeys[k], "the key '\(RowParser.excerpt(column))' is missing where this run writes it")
                let valueStart = position
                let isString = try byte(position) == 0x22
                let value: String?
                switch try byte(position) {
                case 0x22: value = try jsonString(column: column)
                case 0x6E: try expect(Array("null".utf8), "column '\(column)' holds no JSON value"); value = nil
                case 0x74: try expect(Array("true".utf8), "column '\(column)' holds no JSON value"); value = "true"
                case 0x66: try expect(Array("false".utf8), "column '\(column)' holds no JSON value"); value = "false"
                default:
                    var i = position
                    while case let b = try byte(i), (0x30...0x39).contains(b) || b == 0x2B || b == 0x2D || b == 0x2E || b == 0x65 || b == 0x45 { i += 1 }
                    guard i > position, layout.numeric[k] else { return .damaged("column '\(column)' holds no JSON value of this output") }
                    value = try text(position, i, column: column)
                    try Self.check(value!, column: column, numeric: true)
                    position = i
                }
                if layout.numeric[k], isString { return .damaged("column '\(column)' holds a string, not a number") }
                if k == layout.errorIndex { hasError = value != nil }
                if layout.rowCheck, k == layout.columns.count - 1 {
                    guard isString, let value else { return .damaged("column 'row_check' holds no check") }
                    try verify(rowCheck: value, coveringTo: valueStart)
                }
                if k < layout.columns.count - 1 {
                    try expect([0x2C], "the object has fewer keys than this output's \(layout.columns.count)")
                }
            }
            try expect([0x7D], "the object has more keys than this output's \(layout.columns.count)")
            try expect([0x0A], "the line does not end right after its object (JSON Lines rows end with LF)")
            return .complete(hasError: hasError)
        } catch let stop as Stop {
            return stop.outcome
        } catch {
            return .damaged("\(error)")
        }
    }

    /// A JSON string with the writer's escapes (`\"`, `\\`, `\n`, `\r`, `\t`, `\u00XX`).
    private mutating func jsonString(column: String) throws -> String {
        var raw: [UInt8] = []
        var i = position + 1
        let hex = Array("0123456789abcdef".utf8)
        while true {
            let b = try byte(i)
            if b == 0x22 { break }
            if b < 0x20 { throw Stop(outcome: .damaged("column '\(column)' holds a control character")) }
            if b != 0x5C { raw.append(b); i += 1; continue }
            switch try byte(i + 1) {
            case 0x22: raw.append(0x22)
            case 0x5C: raw.append(0x5C)
            case 0x6E: raw.append(0x0A)
            case 0x72: raw.append(0x0D)
            case 0x74: raw.append(0x09)
            case 0x75:
                let digits = try (2...5).map { try byte(i + $0) }
                guard digits[0] == 0x30, digits[1] == 0x30, let h = hex.firstIndex(of: digits[2]), h < 2,
                      let l = hex.firstIndex(of: digits[3]) else {
                    throw Stop(outcome: .damaged("column '\(column)' holds an escape this tool does not write"))
                }
                raw.append(UInt8(h * 16 + l))
                i += 4
            default: throw Stop(outcome: .damaged("column '\(column)' holds an escape this tool does not write"))
            }
            i += 2
        }
        guard let s = String(validating: raw, as: UTF8.self) else {
            throw Stop(outcome: .damaged("column '\(column)' holds bytes that are not UTF-8"))
        }
        var canonical: [UInt8] = []
        JSONLine.appendString(s, to: &canonical)
        guard bytes[position...i].elementsEqual(canonical) else {
            throw Stop(outcome: .damaged("column '\(column)' is not written as this tool writes it (escapes)"))
        }
        position = i + 1
        return s
    }
}

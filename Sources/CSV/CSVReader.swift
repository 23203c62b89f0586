/// One CSV record: its fields and the physical line it starts on.
public struct CSVRecord: Sendable, Equatable {
    /// The field values, unquoted.
    public var fields: [String]
    /// The 1-based physical line of the file on which the record starts.
    public var line: Int
    /// The first field holding bytes that are not valid text in the input encoding (they
    /// were replaced by U+FFFD), or nil.
    public var firstInvalidField: Int?
    /// The record's size in the input, in UTF-8 bytes of its fields (for memory accounting).
    public var byteCount: Int
    /// Set when the record was longer than this many bytes (the reader's limit): its fields
    /// were dropped unread (`fields` is empty) and the row is an error of its own.
    public var exceededLimit: Int?

    public init(fields: [String], line: Int, firstInvalidField: Int? = nil, byteCount: Int? = nil, exceededLimit: Int? = nil) {
        self.fields = fields
        self.line = line
        self.firstInvalidField = firstInvalidField
        self.byteCount = byteCount ?? fields.reduce(0) { $0 + $1.utf8.count + 1 }
        self.exceededLimit = exceededLimit
    }

    /// True when some field held bytes that are not valid text in the input encoding.
    public var hasInvalidText: Bool { firstInvalidField != nil }
}

/// A CSV input that cannot be read on: the message names the line (and the column when known).
public enum CSVError: Error, Equatable, CustomStringConvertible, Sendable {
    /// A quoted field opened on `line` is still open at the end of the input.
    case unterminatedQuote(line: Int)
    /// The input's encoding cannot be told from its bytes: the first byte that is not UTF-8 is on
    /// `line`, field `column` (1-based); the message names the `--encoding` values to try.
    case undetectableEncoding(line: Int, column: Int)
    /// The input reads as CP949 (EUC-KR), from `cp949Line` on, except `line`, which is not CP949
    /// from field `column` (1-based) on: a row pasted in another encoding (often UTF-8).
    case mixedEncoding(line: Int, column: Int, cp949Line: Int)
    /// The input starts with a UTF-8 byte-order mark, but the text after it is not UTF-8 from
    /// `line`, field `column` on (a CP949 export with a mark put before it, for one).
    case notUTF8AfterByteOrderMark(line: Int, column: Int)
    /// The bytes are not valid in the encoding named by `--encoding` (or detected).
    case conversionFailed(String)

    /// The line the input stopped on, when the error names one.
    public var line: Int? {
        switch self {
        case .unterminatedQuote(let line), .undetectableEncoding(let line, _), .mixedEncoding(let line, _, _),
             .notUTF8AfterByteOrderMark(let line, _):
            line
        case .conversionFailed: nil
        }
    }

    public var description: String {
        switch self {
        case .unterminatedQuote(let line):
            return "line \(line): a quoted field opened on this line is never closed (unterminated quote; the input ends inside it)"
        case .undetectableEncoding(let line, let column):
            return "line \(line), column \(column): the text is neither UTF-8 nor CP949 (EUC-KR); "
                + "if it is a Korean Excel export pass --encoding cp949, if it is UTF-8 with damaged bytes pass --encoding utf-8"
        case let .mixedEncoding(line, column, cp949Line):
            return "line \(line), column \(column): this line is not CP949 (EUC-KR), the encoding of the file's other lines "
                + "(line \(cp949Line) is CP949); it may be UTF-8 pasted in: save the whole file in one encoding"
        case let .notUTF8AfterByteOrderMark(line, column):
            return "line \(line), column \(column): the file starts with a UTF-8 byte-order mark, but its text is not UTF-8 "
                + "from here on (a CP949 / EUC-KR export with a mark?): save it again as UTF-8, or as CP949 without the mark"
        case .conversionFailed(let why):
            return why
        }
    }
}

/// A streaming RFC 4180 reader over UTF-8 bytes (see `TextEncoding` for other encodings).
///
/// The field separator is a comma unless `delimiter` says otherwise (`;`, tab, `|`).
/// Handles quoted fields with embedded commas, doubled quotes and line breaks; CRLF, LF and
/// lone CR line ends; a UTF-8 byte-order mark at the start (skipped, and reported in
/// `hadByteOrderMark`). Blank lines are skipped. Memory stays bounded: the input is read in
/// chunks and one record may hold at most `maxRecordBytes`; a longer one is read through to
/// its end without keeping its bytes and returned with `exceededLimit` set (no fields), so
/// the records after it are read as usual.
///
/// Lenient where RFC 4180 is silent and common tools are too: a quote inside an unquoted
/// field is kept as a character, and text after a closing quote is appended to the field
/// (`"ab"c` reads as `abc`), as Python's `csv` module does.
public final class CSVReader {
    private let source: ByteSource
    private let replacementMarksInvalid: Bool
    /// The byte between fields (a comma by default).
    public let delimiter: UInt8
    /// The largest record accepted, in bytes.
    public let maxRecordBytes: Int

    private var chunk: [UInt8] = []
    private var position = 0
    private var atEnd = false
    private var started = false
    /// True when the input started with a UTF-8 byte-order mark.
    public private(set) var hadByteOrderMark = false
    /// True when the first record ended with CRLF (writers may mirror it).
    public private(set) var usesCRLF = false
    private var sawFirstLineEnd = false

    private enum State { case fieldStart, unquoted, quoted, quoteInQuoted }
    private var state = State.fieldStart
    private var line = 1
    private var previousWasCR = false
    private var recordLine = 1
    private var quoteLine = 1
    private var field: [UInt8] = []
    private var fields: [String] = []
    private var recordBytes = 0
    private var invalidField: Int?
    private var fieldWasQuoted = false
    /// The current record passed `maxRecordBytes`: its bytes are counted, not kept.
    private var skipping = false

    /// Reads from `source`. With `replacementMarksInvalid` (set for converted encodings, where
    /// U+FFFD only appears for bytes that could not be converted) a U+FFFD flags the record.
    public init(source: ByteSource, maxRecordBytes: Int = 1 << 20, replacementMarksInvalid: Bool = false,
                delimiter: UInt8 = 0x2C)
    {
        self.source = source
        self.delimiter = delimiter
        self.maxRecordBytes = maxRecordBytes
        self.replacementMarksInvalid = replacementMarksInvalid
        field.reserveCapacity(256)
    }

    /// Bytes consumed from the underlying input (for progress).
    public var bytesConsumed: Int64 { source.bytesConsumed }
    /// The input file's size when known (a regular file).
    public var totalInputBytes: Int64? { source.totalBytes }

    /// The next record, or nil at the end of the input.
    public func next() throws -> CSVRecord? {
        if !started { try start() }
        while true {
            if position >= chunk.count {
                if atEnd { return try finish() }
                guard let next = try source.nextChunk() else {
                    atEnd = true
                    return try finish()
                }
                chunk = next
                position = 0
            }
            if let record = try scan() { return record }
        }
    }

    /// Loads the first bytes and skips a byte-order mark.
    private func start() throws {
        started = true
        while chunk.count < 3, let more = try source.nextChunk() { chunk += more }
        if chunk.count >= 3, chunk[0] == 0xEF, chunk[1] == 0xBB, chunk[2] == 0xBF {
            hadByteOrderMark = true
            position = 3
        }
        if chunk.isEmpty { atEnd = true }
    }

    /// Scans the current chunk from `position`; returns a record when one ends in it.
    private func scan() throws -> CSVRecord? {
        let quote: UInt8 = 0x22, comma: UInt8 = delimiter, cr: UInt8 = 0x0D, lf: UInt8 = 0x0A
        return try chunk.withUnsafeBufferPointer { buf -> CSVRecord? in
            let n = buf.count
            var i = position
            defer { position = i }
            while i < n {
                let c = buf[i]
                switch state {
                case .fieldStart:
                    if c == quote {
                        state = .quoted
                        fieldWasQuoted = true
                        quoteLine = line
                        previousWasCR = false
                        i += 1
                        continue
                    }
                    if c == lf && previousWasCR && fields.isEmpty && field.isEmpty {
                        // The LF of a CRLF that ended the previous record.
                        previousWasCR = false
                        i += 1
                        continue
                    }
                    state = .unquoted
                    fallthrough
                case .unquoted:
                    // Copy the run of ordinary bytes at once.
                    var j = i
                    while j < n {
                        let b = buf[j]
                        if b == comma || b == cr || b == lf { break }
                        j += 1
                    }
                    if j > i {
                        append(buf, i, j)
                        previousWasCR = false
                        i = j
                        if i == n { break }
                    }
                    let b = buf[i]
                    i += 1
                    if b == comma {
                        endField()
                        state = .fieldStart
                        previousWasCR = false
                    } else {
                        if let r = endRecord(lineEnd: b) { return r }
                    }
                case .quoted:
                    var j = i
                    while j < n {
                        let b = buf[j]
                        if b == quote { break }
                        if b == lf {
                            if !previousWasCR { line += 1 }
                            previousWasCR = false
                        } else if b == cr {
                            line += 1
                            previousWasCR = true
                        } else {
                            previousWasCR = false
                        }
                        j += 1
                    }
                    if j > i { append(buf, i, j); i = j }
                    if i < n {  // a quote
                        previousWasCR = false
                        state = .quoteInQuoted
                        i += 1
                    }
                case .quoteInQuoted:
                    if c == quote {  // a doubled quote is one quote character
                        append(buf, i, i + 1)
                        state = .quoted
                        i += 1
                    } else if c == comma {
                        endField()
                        state = .fieldStart
                        i += 1
                    } else if c == cr || c == lf {
                        i += 1
                        if let r = endRecord(lineEnd: c) { return r }
                    } else {
                        // Text after the closing quote: kept, as common readers do.
                        state = .unquoted
                    }
                }
            }
            return nil
        }
    }

    private func append(_ buf: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) {
        recordBytes += to - from
        if skipping { return }
        if recordBytes > maxRecordBytes {
            skipping = true
            field.removeAll()
            fields.removeAll()
            return
        }
        field.append(contentsOf: UnsafeBufferPointer(start: buf.baseAddress! + from, count: to - from))
    }

    private func endField() {
        if skipping {
            field.removeAll(keepingCapacity: true)
            fieldWasQuoted = false
            return
        }
        var ascii = true
        for b in field where b >= 0x80 {
            ascii = false
            break
        }
        if ascii {
            fields.append(String(decoding: field, as: UTF8.self))
        } else if let text = String(validating: field, as: UTF8.self) {
            if replacementMarksInvalid, field.contains(0xEF), text.unicodeScalars.contains("\u{FFFD}") {
                invalidField = invalidField ?? fields.count
            }
            fields.append(text)
        } else {
            invalidField = invalidField ?? fields.count
            fields.append(String(decoding: field, as: UTF8.self))
        }
        field.removeAll(keepingCapacity: true)
        fieldWasQuoted = false
        recordBytes += 1
    }

    /// Ends the record at a CR or LF; nil for a blank line (which is skipped).
    private func endRecord(lineEnd: UInt8) -> CSVRecord? {
        let blank = fields.isEmpty && field.isEmpty && !fieldWasQuoted && !skipping
        if !blank { endField() }
        if !sawFirstLineEnd {
            sawFirstLineEnd = true
            usesCRLF = lineEnd == 0x0D
        }
        if lineEnd == 0x0D {
            line += 1
            previousWasCR = true
        } else {
            if !previousWasCR { line += 1 }
            previousWasCR = false
        }
        state = .fieldStart
        defer { resetRecord() }
        guard !blank else { return nil }
        return record()
    }

    /// The record just ended (an over-long one without its fields).
    private func record() -> CSVRecord {
        if skipping { return CSVRecord(fields: [], line: recordLine, byteCount: 64, exceededLimit: maxRecordBytes) }
        return CSVRecord(fields: fields, line: recordLine, firstInvalidField: invalidField, byteCount: recordBytes)
    }

    private func resetRecord() {
        fields.removeAll(keepingCapacity: true)
        field.removeAll(keepingCapacity: true)
        fieldWasQuoted = false
        invalidField = nil
        recordBytes = 0
        skipping = false
        recordLine = line
    }

    /// At the end of the input: the last record when it has no line end, or an error.
    private func finish() throws -> CSVRecord? {
        switch state {
        case .quoted:
            throw CSVError.unterminatedQuote(line: quoteLine)
        case .fieldStart where fields.isEmpty && field.isEmpty && !fieldWasQuoted && !skipping:
            return nil
        default:
            endField()
            state = .fieldStart
            defer { resetRecord() }
            return record()
        }
    }
}

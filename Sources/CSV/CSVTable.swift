/// A whole CSV file read into memory through `CSVReader`: for the small reference files of the
/// place import (divisions, stations, stops, POIs), where every row is needed at once.
///
/// Same rules as every CSV the tools read: RFC 4180 quoting, UTF-8 with or without a byte-order
/// mark or CP949 (detected, or named by `encoding`), CRLF line ends, a chosen `delimiter`.
public struct CSVTable: Sendable {
    /// Why a CSV file could not be used: the file and what is wrong (line and column when known).
    public struct ReadError: Error, Sendable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
        public init(message: String) { self.message = message }
    }

    /// One data row and the 1-based line of the file it starts on.
    public struct Row: Sendable {
        public let line: Int
        public let fields: [String]
        public init(line: Int, fields: [String]) {
            self.line = line
            self.fields = fields
        }
    }

    public let path: String
    /// The header names, trimmed.
    public let header: [String]
    public let rows: [Row]

    /// Reads `path`; the first row is the header. `encoding` nil detects it from the bytes.
    public init(path: String, encoding: InputEncoding? = nil, delimiter: UInt8 = 0x2C) throws(ReadError) {
        let source: FileDescriptorSource
        do {
            source = try FileDescriptorSource(path: path)
        } catch {
            throw ReadError(message: "\(path): cannot read the file (\(error))")
        }
        try self.init(source: source, path: path, encoding: encoding, delimiter: delimiter)
    }

    /// Parses CSV bytes (`path` only names them in messages).
    public init(bytes: [UInt8], path: String, encoding: InputEncoding? = nil, delimiter: UInt8 = 0x2C) throws(ReadError) {
        try self.init(source: MemorySource(bytes), path: path, encoding: encoding, delimiter: delimiter)
    }

    private init(source: ByteSource, path: String, encoding: InputEncoding?, delimiter: UInt8) throws(ReadError) {
        self.path = path
        var records: [Row] = []
        do {
            let input: ByteSource
            if let encoding {
                input = try encoding.decoding(source)
            } else {
                input = try InputEncoding.detect(in: source).source
            }
            let reader = CSVReader(source: input, maxRecordBytes: 1 << 24, delimiter: delimiter)
            while let r = try reader.next() { records.append(Row(line: r.line, fields: r.fields)) }
        } catch {
            throw ReadError(message: "\(path): \(error)")
        }
        guard !records.isEmpty else { throw ReadError(message: "\(path): the file is empty (no header row)") }
        let head = records.removeFirst()
        header = head.fields.map { String($0.trimmingBlanks()) }
        rows = records
    }

    /// The index of column `name`, or an error naming the file and the columns it has.
    public func column(_ name: String) throws(ReadError) -> Int {
        guard let i = header.firstIndex(of: name) else {
            throw ReadError(message: "\(path): no column '\(name)' (columns: \(header.joined(separator: ", ")))")
        }
        return i
    }

    /// The index of column `name` when present.
    public func optionalColumn(_ name: String) -> Int? { header.firstIndex(of: name) }
}

extension CSVTable.Row {
    /// Field `index`, trimmed; "" when the row is shorter.
    public subscript(_ index: Int) -> String {
        index < fields.count ? String(fields[index].trimmingBlanks()) : ""
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    func trimmingBlanks() -> SubSequence {
        var lo = startIndex, hi = endIndex
        while lo < hi, self[lo] == " " || self[lo] == "\t" { lo = index(after: lo) }
        while hi > lo, self[index(before: hi)] == " " || self[index(before: hi)] == "\t" { hi = index(before: hi) }
        return self[lo..<hi]
    }
}

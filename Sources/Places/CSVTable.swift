import Foundation

/// A CSV file read into memory: RFC 4180 quoting (fields with commas, quotes and line breaks),
/// a UTF-8 byte-order mark and CRLF line ends are accepted.
public struct CSVTable: Sendable {
    /// Why a CSV file could not be used: the file and what is wrong.
    public struct ReadError: Error, Sendable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// One data row and the 1-based line of the file it starts on.
    public struct Row: Sendable {
        public let line: Int
        public let fields: [String]
    }

    public let path: String
    /// The header names, trimmed.
    public let header: [String]
    public let rows: [Row]

    /// Reads `path`; the first row is the header.
    public init(path: String) throws(ReadError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ReadError(message: "\(path): cannot read the file")
        }
        try self.init(bytes: [UInt8](data), path: path)
    }

    /// Parses CSV bytes (`path` only names them in messages).
    public init(bytes: [UInt8], path: String) throws(ReadError) {
        self.path = path
        var all = CSVTable.parse(bytes)
        guard !all.isEmpty else { throw ReadError(message: "\(path): the file is empty (no header row)") }
        let head = all.removeFirst()
        header = head.fields.map { $0.trimmingCharacters(in: .whitespaces) }
        rows = all.filter { !($0.fields.count == 1 && $0.fields[0].isEmpty) }
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

    static func parse(_ bytes: [UInt8]) -> [Row] {
        var rows: [Row] = []
        var fields: [String] = []
        var field: [UInt8] = []
        var i = 0
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { i = 3 }
        var line = 1
        var rowLine = 1
        var inQuotes = false
        var sawAnything = false
        func endField() {
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
        }
        while i < bytes.count {
            let b = bytes[i]
            if inQuotes {
                if b == UInt8(ascii: "\"") {
                    if i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "\"") {
                        field.append(b)
                        i += 1
                    } else {
                        inQuotes = false
                    }
                } else {
                    if b == UInt8(ascii: "\n") { line += 1 }
                    field.append(b)
                }
            } else if b == UInt8(ascii: "\"") && field.isEmpty {
                inQuotes = true
                sawAnything = true
            } else if b == UInt8(ascii: ",") {
                endField()
                sawAnything = true
            } else if b == UInt8(ascii: "\n") || b == UInt8(ascii: "\r") {
                if b == UInt8(ascii: "\r") && i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "\n") { i += 1 }
                endField()
                rows.append(Row(line: rowLine, fields: fields))
                fields.removeAll(keepingCapacity: true)
                line += 1
                rowLine = line
                sawAnything = false
            } else {
                field.append(b)
                sawAnything = true
            }
            i += 1
        }
        if sawAnything || !field.isEmpty || !fields.isEmpty {
            endField()
            rows.append(Row(line: rowLine, fields: fields))
        }
        return rows
    }
}

extension CSVTable.Row {
    /// Field `index`, trimmed; "" when the row is shorter.
    public subscript(_ index: Int) -> String {
        index < fields.count ? fields[index].trimmingCharacters(in: .whitespaces) : ""
    }
}

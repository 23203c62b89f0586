import CLibPQ
import Foundation

/// A PostgreSQL failure: what we were doing and the server's or libpq's message.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// The SQLSTATE code when the server sent one (`40001`, `23505`, …), else empty.
    public let sqlState: String
    /// What failed, with libpq's message.
    public let message: String
    /// True when the connection was lost or could not be made: the statement's outcome is
    /// unknown or it never ran; reconnect and retry later.
    public let connectionLost: Bool
    public var description: String { message }
}

/// The rows of one statement's answer, every value as text (PostgreSQL's text format).
public struct PostgresRows: Sendable {
    /// Values by row, then column; nil is SQL NULL.
    public let rows: [[String?]]
    /// Rows a data-modifying statement touched (`INSERT`, `UPDATE`, `DELETE`), 0 for others.
    public let affected: Int
    public var count: Int { rows.count }
    public subscript(_ row: Int, _ column: Int) -> String? { rows[row][column] }
}

/// One libpq connection. Not shared between threads: open one per thread or guard it.
///
/// Statements take text parameters (`$1`, `$2`, …; nil is NULL) and answer text values, so
/// numbers round-trip exactly (PostgreSQL prints doubles in their shortest exact form).
public final class PostgresConnection {
    /// The connection string as given (`postgresql://…` or `key=value …`).
    public let conninfo: String
    private var conn: OpaquePointer?

    /// Connects to `conninfo`; throws a `PostgresError` with `connectionLost` when it cannot.
    public init(conninfo: String) throws(PostgresError) {
        self.conninfo = conninfo
        conn = PQconnectdb(conninfo)
        guard let conn, PQstatus(conn) == CONNECTION_OK else {
            let message = conn.map { String(cString: PQerrorMessage($0)) } ?? "out of memory"
            if let c = conn { PQfinish(c) }
            self.conn = nil
            // libpq quotes a malformed connection string whole in its message.
            throw PostgresError(sqlState: "", message: "cannot connect to PostgreSQL: \(ConnectionSecrets.scrubbed(PostgresConnection.trim(message), conninfo: conninfo))",
                                connectionLost: true)
        }
        // Notices (CREATE TABLE IF NOT EXISTS … skipping) are not worth a line on stderr.
        PQsetNoticeProcessor(conn, { _, _ in }, nil)
    }

    deinit { close() }

    /// Closes the connection; later statements throw.
    public func close() {
        if let conn { PQfinish(conn) }
        conn = nil
    }

    /// True while the connection is up (as far as libpq knows without asking the server).
    public var isOpen: Bool { conn.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// The socket, for `poll` while waiting for notifications; -1 when closed.
    public var socket: Int32 { conn.map { PQsocket($0) } ?? -1 }

    /// Runs one statement with text parameters and returns its rows.
    @discardableResult
    public func query(_ sql: String, _ parameters: [String?] = []) throws(PostgresError) -> PostgresRows {
        guard let conn, PQstatus(conn) == CONNECTION_OK else {
            throw PostgresError(sqlState: "", message: "the connection to PostgreSQL is closed", connectionLost: true)
        }
        // Keep every parameter's C string alive for the call.
        let cStrings: [UnsafeMutablePointer<CChar>?] = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { for p in cStrings { free(p) } }
        let result: OpaquePointer? = cStrings.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: max(1, buffer.count)) { values in
                PQexecParams(conn, sql, Int32(parameters.count), nil, parameters.isEmpty ? nil : values, nil, nil, 0)
            }
        }
        defer { PQclear(result) }
        let status = result.map { PQresultStatus($0) } ?? PGRES_FATAL_ERROR
        guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK else {
            let lost = PQstatus(conn) != CONNECTION_OK
            let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) } ?? ""
            let message = result.map { String(cString: PQresultErrorMessage($0)) } ?? String(cString: PQerrorMessage(conn))
            throw PostgresError(sqlState: state, message: ConnectionSecrets.scrubbed(PostgresConnection.trim(message.isEmpty ? String(cString: PQerrorMessage(conn)) : message),
                                                                        conninfo: conninfo),
                                connectionLost: lost)
        }
        guard let result else { return PostgresRows(rows: [], affected: 0) }
        let n = PQntuples(result), m = PQnfields(result)
        var rows: [[String?]] = []
        rows.reserveCapacity(Int(n))
        for i in 0..<n {
            var row: [String?] = []
            row.reserveCapacity(Int(m))
            for j in 0..<m {
                row.append(PQgetisnull(result, i, j) == 1 ? nil : String(cString: PQgetvalue(result, i, j)))
            }
            rows.append(row)
        }
        return PostgresRows(rows: rows, affected: Int(String(cString: PQcmdTuples(result))) ?? 0)
    }

    /// Reads what the server sent (without blocking) and returns the channels of the
    /// notifications received since the last call. Throws when the connection is lost.
    public func takeNotifications() throws(PostgresError) -> [String] {
        guard let conn, PQconsumeInput(conn) == 1 else {
            let message = conn.map { String(cString: PQerrorMessage($0)) } ?? "closed"
            throw PostgresError(sqlState: "", message: "lost the connection to PostgreSQL: \(ConnectionSecrets.scrubbed(PostgresConnection.trim(message), conninfo: conninfo))", connectionLost: true)
        }
        var channels: [String] = []
        while let n = PQnotifies(conn) {
            channels.append(String(cString: n.pointee.relname))
            PQfreemem(n)
        }
        return channels
    }

    /// Waits up to `milliseconds` for notifications and returns their channels (empty when
    /// none came in time). Notifications libpq already took in while running an earlier
    /// statement count too: the server sends those at the end of a statement, so they are in
    /// libpq's queue, not on the socket, and a wait on the socket alone would miss them (until
    /// the next one, or the time-out). Throws when the connection is lost.
    public func awaitNotifications(milliseconds: Int32) throws(PostgresError) -> [String] {
        let pending = try takeNotifications()
        guard pending.isEmpty else { return pending }
        guard waitReadable(milliseconds: milliseconds) else { return [] }
        return try takeNotifications()
    }

    /// Waits until the server sent something or `milliseconds` passed; true when readable.
    /// Only the socket: see `awaitNotifications` for notifications.
    public func waitReadable(milliseconds: Int32) -> Bool {
        var p = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        guard p.fd >= 0 else { return false }
        return poll(&p, 1, milliseconds) > 0
    }

    /// Quotes `text` as an SQL string literal.
    public static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// The connection string with every secret replaced by `***`, for messages and logs
    /// (see `ConnectionSecrets`).
    public static func redacted(_ conninfo: String) -> String {
        ConnectionSecrets.redacted(conninfo)
    }

    private static func trim(_ s: String) -> String {
        s.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "\n", with: " ")
    }
}

import CSQLite

/// An SQLite failure: the result code, SQLite's message and what we were doing.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    public let code: Int32
    public let message: String
    public var description: String { message }

    /// True when SQLite found the file damaged or not a database (SQLITE_CORRUPT, SQLITE_NOTADB).
    public var isDamage: Bool { code & 0xFF == SQLITE_CORRUPT || code & 0xFF == SQLITE_NOTADB }
}

private let SQLITE_TRANSIENT_PTR = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One SQLite connection. Not shared between threads: open one per thread or guard it.
public final class SQLiteDatabase {
    public let path: String
    let handle: OpaquePointer
    private var closed = false

    /// Opens `path`; `readOnly` opens an existing file read-only, otherwise it is created if absent.
    public init(path: String, readOnly: Bool = false) throws(SQLiteError) {
        self.path = path
        var db: OpaquePointer?
        let flags = readOnly ? SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
            : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let msg = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: "cannot open \(path): \(msg)")
        }
        handle = db
        sqlite3_busy_timeout(db, 5000)
        sqlite3_extended_result_codes(db, 1)
    }

    deinit { if !closed { sqlite3_close_v2(handle) } }

    /// Closes the connection now. Every statement of it must have been finalized first
    /// (`SQLiteStatement.finalize()`), or the close waits for them (SQLite's zombie state)
    /// and a WAL file is not removed. Using the connection afterwards is a programming error.
    public func close() throws(SQLiteError) {
        guard !closed else { return }
        let rc = sqlite3_close(handle)
        guard rc == SQLITE_OK else { throw error(rc, "close") }
        closed = true
    }

    /// Copies the whole database, as of now, into a new file at `destination` with SQLite's
    /// online backup API (a consistent snapshot even in WAL mode).
    public func backup(to destination: String) throws(SQLiteError) {
        var target: OpaquePointer?
        var rc = sqlite3_open_v2(destination, &target, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let target else {
            if let target { sqlite3_close_v2(target) }
            throw SQLiteError(code: rc, message: "cannot create \(destination)")
        }
        defer { sqlite3_close_v2(target) }
        guard let b = sqlite3_backup_init(target, "main", handle, "main") else {
            throw SQLiteError(code: sqlite3_errcode(target), message: "\(destination): cannot start a backup of \(path): \(String(cString: sqlite3_errmsg(target)))")
        }
        rc = sqlite3_backup_step(b, -1)
        let finish = sqlite3_backup_finish(b)
        guard rc == SQLITE_DONE, finish == SQLITE_OK else {
            throw SQLiteError(code: rc == SQLITE_DONE ? finish : rc,
                              message: "\(destination): backup of \(path) failed: \(String(cString: sqlite3_errstr(rc == SQLITE_DONE ? finish : rc)))")
        }
    }

    func error(_ rc: Int32, _ context: String) -> SQLiteError {
        SQLiteError(code: rc, message: "\(path): \(context): \(String(cString: sqlite3_errmsg(handle)))")
    }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws(SQLiteError) {
        var err: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &err)
        if rc != SQLITE_OK {
            let msg = err.map { String(cString: $0) } ?? "error \(rc)"
            sqlite3_free(err)
            throw SQLiteError(code: rc, message: "\(path): \(msg)")
        }
    }

    /// Compiles one statement.
    public func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw error(rc, "cannot prepare \(sql.prefix(60))") }
        return SQLiteStatement(db: self, stmt: stmt)
    }

    /// Runs `body` inside BEGIN IMMEDIATE … COMMIT, rolling back when it throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let v = try body()
            try execute("COMMIT")
            return v
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// The first column of the first row of `sql` as text ("" when none).
    public func scalarText(_ sql: String) throws(SQLiteError) -> String {
        let s = try prepare(sql)
        return try s.step() ? s.text(0) : ""
    }

    /// The SQLite library version this process links.
    public static var libraryVersion: String { String(cString: sqlite3_libversion()) }
}

/// A prepared statement; bind by 1-based index, read columns by 0-based index.
public final class SQLiteStatement {
    let db: SQLiteDatabase
    let stmt: OpaquePointer

    init(db: SQLiteDatabase, stmt: OpaquePointer) {
        self.db = db
        self.stmt = stmt
    }

    private var finalized = false

    deinit { if !finalized { sqlite3_finalize(stmt) } }

    /// Releases the statement now (before `SQLiteDatabase.close()`); it must not be used after.
    public func finalize() {
        guard !finalized else { return }
        sqlite3_finalize(stmt)
        finalized = true
    }

    public func reset() {
        sqlite3_reset(stmt)
        sqlite3_clear_bindings(stmt)
    }

    public func bind(_ index: Int32, _ v: Int64) { sqlite3_bind_int64(stmt, index, v) }
    public func bind(_ index: Int32, _ v: Int) { sqlite3_bind_int64(stmt, index, Int64(v)) }
    public func bind(_ index: Int32, _ v: Double) { sqlite3_bind_double(stmt, index, v) }
    public func bind(_ index: Int32, _ v: String) { sqlite3_bind_text(stmt, index, v, -1, SQLITE_TRANSIENT_PTR) }
    public func bindNull(_ index: Int32) { sqlite3_bind_null(stmt, index) }
    public func bind(_ index: Int32, _ v: String?) {
        if let v { bind(index, v) } else { bindNull(index) }
    }
    public func bind(_ index: Int32, blob: [UInt8]) {
        blob.withUnsafeBytes { p in
            _ = sqlite3_bind_blob(stmt, index, p.baseAddress, Int32(p.count), SQLITE_TRANSIENT_PTR)
        }
    }

    /// Advances; true when a row is ready, false when done.
    @discardableResult
    public func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(stmt)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw db.error(rc, "step")
    }

    /// Runs a statement that returns no rows and resets it.
    public func run() throws(SQLiteError) {
        defer { sqlite3_reset(stmt) }
        _ = try step()
    }

    public func int(_ col: Int32) -> Int64 { sqlite3_column_int64(stmt, col) }
    public func double(_ col: Int32) -> Double { sqlite3_column_double(stmt, col) }
    public func isNull(_ col: Int32) -> Bool { sqlite3_column_type(stmt, col) == SQLITE_NULL }
    public func text(_ col: Int32) -> String {
        guard let p = sqlite3_column_text(stmt, col) else { return "" }
        return String(cString: p)
    }
    public func optionalText(_ col: Int32) -> String? { isNull(col) ? nil : text(col) }
    /// The column's text bytes as stored (no copy), valid inside `body` only.
    public func withTextBytes<T>(_ col: Int32, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        let p = sqlite3_column_text(stmt, col)
        let n = Int(sqlite3_column_bytes(stmt, col))
        return body(UnsafeRawBufferPointer(start: p, count: p == nil ? 0 : n))
    }
    public func blob(_ col: Int32) -> [UInt8] {
        let n = Int(sqlite3_column_bytes(stmt, col))
        guard n > 0, let p = sqlite3_column_blob(stmt, col) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }
}

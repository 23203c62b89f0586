import Foundation
import SQLiteKit
import XCTest

/// The SQLite wrapper the place DB and the party store are built on: values round-trip through
/// statements, transactions commit or roll back as a whole, errors name the file, a damaged
/// file is recognised as damage, and a backup is a readable copy.
final class SQLiteDatabaseTests: XCTestCase {
    private func temporaryPath(_ name: String) -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sqlitekit-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent(name).path
    }

    func testValuesRoundTripThroughStatements() throws {
        let db = try SQLiteDatabase(path: temporaryPath("values.db"))
        try db.execute("CREATE TABLE t (i INTEGER, d REAL, s TEXT, b BLOB, n TEXT)")
        let insert = try db.prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?)")
        insert.bind(1, Int64.max)
        insert.bind(2, 37.566554)
        insert.bind(3, "광화문 'x' \"y\"")
        insert.bind(4, blob: [0, 1, 255])
        insert.bind(5, nil as String?)
        try insert.run()
        XCTAssertEqual(db.changes, 1)
        XCTAssertEqual(db.lastInsertRowID, 1)
        let select = try db.prepare("SELECT i, d, s, b, n FROM t")
        XCTAssertTrue(try select.step())
        XCTAssertEqual(select.int(0), Int64.max)
        XCTAssertEqual(select.double(1), 37.566554)
        XCTAssertEqual(select.text(2), "광화문 'x' \"y\"")
        XCTAssertEqual(select.blob(3), [0, 1, 255])
        XCTAssertTrue(select.isNull(4))
        XCTAssertNil(select.optionalText(4))
        XCTAssertFalse(try select.step())
    }

    func testTransactionsCommitOrRollBackAsAWhole() throws {
        let db = try SQLiteDatabase(path: temporaryPath("tx.db"))
        try db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY)")
        try db.transaction { try db.execute("INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)") }
        struct Stop: Error {}
        XCTAssertThrowsError(try db.transaction {
            try db.execute("INSERT INTO t VALUES (3)")
            throw Stop()
        })
        // A failing statement inside the transaction rolls back the ones before it too.
        XCTAssertThrowsError(try db.transaction { try db.execute("INSERT INTO t VALUES (4); INSERT INTO t VALUES (1)") })
        XCTAssertEqual(try db.scalarText("SELECT group_concat(k) FROM (SELECT k FROM t ORDER BY k)"), "1,2")
    }

    func testErrorsNameTheFileAndTheStatement() throws {
        let missing = temporaryPath("absent/none.db")
        XCTAssertThrowsError(try SQLiteDatabase(path: missing, readOnly: true)) { error in
            XCTAssertTrue("\(error)".contains(missing), "\(error)")
        }
        let path = temporaryPath("errors.db")
        let db = try SQLiteDatabase(path: path)
        XCTAssertThrowsError(try db.prepare("SELECT * FROM no_such_table")) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains(path) && text.contains("no_such_table"), text)
        }
        XCTAssertThrowsError(try db.execute("NOT SQL")) { error in
            XCTAssertTrue("\(error)".contains(path), "\(error)")
        }
    }

    func testAFileThatIsNotADatabaseIsDamage() throws {
        let path = temporaryPath("garbage.db")
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
        do {
            let db = try SQLiteDatabase(path: path)
            _ = try db.scalarText("SELECT count(*) FROM sqlite_master")
            XCTFail("a file of garbage was read as a database")
        } catch let e as SQLiteError {
            XCTAssertTrue(e.isDamage, "\(e) (code \(e.code))")
        }
    }

    func testBackupIsAReadableCopyAndCloseIsFinal() throws {
        let path = temporaryPath("source.db"), copy = temporaryPath("copy.db")
        let db = try SQLiteDatabase(path: path)
        try db.execute("PRAGMA journal_mode=WAL; CREATE TABLE t (s TEXT); INSERT INTO t VALUES ('a'), ('b')")
        try db.backup(to: copy)
        try db.close()
        try db.close()  // a second close does nothing
        let restored = try SQLiteDatabase(path: copy)
        XCTAssertEqual(try restored.scalarText("SELECT group_concat(s) FROM (SELECT s FROM t ORDER BY s)"), "a,b")
        XCTAssertEqual(try restored.scalarText("PRAGMA integrity_check"), "ok")
    }
}

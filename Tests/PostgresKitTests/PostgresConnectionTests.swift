import PostgresKit
import TestSupport
import XCTest

/// The libpq wrapper without a server: passwords never reach messages, and a refused
/// connection is reported as lost (the store turns that into 503 + Retry-After).
final class PostgresConnectionTests: XCTestCase {
    func testRedactedHidesPasswordsInBothForms() {
        XCTAssertEqual(PostgresConnection.redacted("postgresql://app:s3cret@db.internal:5432/taxipot"),
                       "postgresql://app:***@db.internal:5432/taxipot")
        XCTAssertEqual(PostgresConnection.redacted("postgresql://app@db.internal/taxipot"), "postgresql://app@db.internal/taxipot")
        XCTAssertEqual(PostgresConnection.redacted("host=db user=app password=s3cret dbname=taxipot"),
                       "host=db user=app password=*** dbname=taxipot")
    }

    /// Issue 43 item 11: every form libpq reads a password or SSL key pass phrase from.
    func testRedactedHidesEverySecretFormLibpqAccepts() {
        let cases: [(String, String)] = [
            ("postgresql://u@h/db?password=s3cret", "postgresql://u@h/db?password=***"),
            ("postgres://u@h:5432/db?sslmode=require&password=s3cret&connect_timeout=2",
             "postgres://u@h:5432/db?sslmode=require&password=***&connect_timeout=2"),
            ("postgresql://h/db?password=s3cret@x", "postgresql://h/db?password=***"),
            ("postgresql://u@h/db?sslpassword=s3cret", "postgresql://u@h/db?sslpassword=***"),
            ("postgresql://u@h/db?pass%77ord=s3cret", "postgresql://u@h/db?pass%77ord=***"),
            ("postgresql://u@h/db?PASSWORD=s3%63ret", "postgresql://u@h/db?PASSWORD=***"),
            ("postgresql://u:s3%40cret@h/db", "postgresql://u:***@h/db"),
            ("postgresql://u:s3@cret@h/db", "postgresql://u:***@h/db"),
            ("postgresql://u:s3cret@h/db?password=s3cret", "postgresql://u:***@h/db?password=***"),
            ("host=h password=s3cret dbname=db", "host=h password=*** dbname=db"),
            ("password = s3cret host=h", "password = *** host=h"),
            ("host=h password='s3 cret' user=u", "host=h password=*** user=u"),
            ("host=h password='s3\\' cret' user=u", "host=h password=*** user=u"),
            ("host=h password=s3\\ cret user=u", "host=h password=*** user=u"),
            ("host=h sslpassword=s3cret sslkey=/k passfile=/p", "host=h sslpassword=*** sslkey=/k passfile=/p"),
            ("host=h password='s3cret", "host=h password=***"),
            ("postgresql://u@h/db?passfile=/etc/pgpass", "postgresql://u@h/db?passfile=/etc/pgpass"),
        ]
        for (given, shown) in cases {
            let r = PostgresConnection.redacted(given)
            XCTAssertEqual(r, shown, given)
            XCTAssertFalse(r.contains("s3"), "secret left in \(r)")
        }
    }

    /// libpq quotes a malformed connection string whole in its error; the message hides its
    /// secrets in every spelling they were given in.
    func testScrubbedHidesSecretsQuotedInMessages() {
        let uri = "postgresql://u:pa%73s@[::1/db?sslpassword=k3y"
        let message = #"end of string reached when looking for matching "]" in IPv6 host address in URI: "\#(uri)" (pass, k3y)"#
        let scrubbed = ConnectionSecrets.scrubbed(message, conninfo: uri)
        for secret in ["pa%73s", "pass", "k3y"] { XCTAssertFalse(scrubbed.contains(secret), scrubbed) }
        XCTAssertTrue(scrubbed.contains("IPv6 host address"), scrubbed)
        XCTAssertFalse(ConnectionSecrets.scrubbed("bad: 's3 cret'", conninfo: "host=h password='s3 cret'").contains("s3"))
        // libpq's own message for that URI, through the connection's error.
        XCTAssertThrowsError(try PostgresConnection(conninfo: uri)) { error in
            let m = (error as? PostgresError)?.message ?? "\(error)"
            XCTAssertFalse(m.contains("pa%73s") || m.contains("k3y"), m)
        }
    }

    func testRefusedConnectionIsReportedAsLost() throws {
        // Port 1 on loopback: nothing listens there, so the connection is refused at once.
        XCTAssertThrowsError(try PostgresConnection(conninfo: "postgresql://app:s3cret@127.0.0.1:1/taxipot?connect_timeout=2")) { error in
            let e = try? XCTUnwrap(error as? PostgresError)
            XCTAssertEqual(e?.connectionLost, true)
            XCTAssertTrue(e?.message.hasPrefix("cannot connect to PostgreSQL") ?? false, e?.message ?? "")
            XCTAssertFalse(e?.message.contains("s3cret") ?? true, "the password leaked: \(e?.message ?? "")")
        }
    }

    func testLiteralDoublesQuotes() {
        XCTAssertEqual(PostgresConnection.literal("it's"), "'it''s'")
    }
}

/// The libpq wrapper against a real PostgreSQL server (the tests' own, in a temporary folder).
final class PostgresNotificationTests: XCTestCase {
    /// A notification the server sent at the end of a statement is taken in by libpq with that
    /// statement's answer: it sits in libpq's queue, the socket has nothing more to read. The
    /// store's follower reads the change log on such a connection, so waiting on the socket alone
    /// left the changes of notifications that came in during a read unread until the next
    /// notification or the half-second poll. `awaitNotifications` answers them at once.
    func testNotificationTakenInDuringAStatementIsAnsweredWithoutWaiting() throws {
        let server = try TemporaryPostgres.shared()
        let c = try PostgresConnection(conninfo: server.url())
        try c.query("LISTEN taxipot_test")
        // The session's own notification arrives with its statement's answer (deterministic: no
        // second connection whose timing could land it on the socket instead).
        try c.query("SELECT pg_notify('taxipot_test', '1')")
        XCTAssertFalse(c.waitReadable(milliseconds: 0), "the notification is already in libpq's queue, not on the socket")
        let t0 = Date()
        XCTAssertEqual(try c.awaitNotifications(milliseconds: 20_000), ["taxipot_test"])
        XCTAssertLessThan(Date().timeIntervalSince(t0), 10, "answered from libpq's queue, not after the 20 s wait")
        // Nothing left: a wait with nothing sent times out empty.
        XCTAssertEqual(try c.awaitNotifications(milliseconds: 10), [])
        // One sent by another session while this one is idle arrives on the socket.
        let other = try PostgresConnection(conninfo: server.url())
        try other.query("SELECT pg_notify('taxipot_test', '2')")
        XCTAssertEqual(try c.awaitNotifications(milliseconds: 20_000), ["taxipot_test"])
    }
}

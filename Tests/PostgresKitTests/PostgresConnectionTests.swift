import PostgresKit
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

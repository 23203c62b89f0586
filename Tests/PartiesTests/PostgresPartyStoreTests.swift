import Parties
import XCTest

/// What the PostgreSQL store does without a server (tools/pg/test-replicas checks it with one).
final class PostgresPartyStoreTests: XCTestCase {
    func testUnreachableDatabaseStopsTheStartNamingItWithoutThePassword() {
        XCTAssertThrowsError(try PostgresPartyStore(url: "postgresql://app:s3cret@127.0.0.1:1/taxipot")) { error in
            guard let e = error as? PartyStoreError else { return XCTFail("got \(error)") }
            XCTAssertTrue(e.message.hasPrefix("postgresql://app:***@127.0.0.1:1/taxipot: cannot connect"), e.message)
            XCTAssertFalse(e.message.contains("s3cret"))
        }
    }
}

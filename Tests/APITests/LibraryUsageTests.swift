import XCTest
import TaxiPot
import TestSupport

/// The README's "As a Swift library" example, run as written (over the shared test dataset).
final class LibraryUsageTests: XCTestCase {
    func testReadmeExample() throws {
        // Its own load: the README's first line is `Dataset(directory:)`, run as written.
        let data = try Dataset(directory: TestDataset.directory())
        let quote = try data.quotes.quote(QuoteRequest(origin: Coordinate(lon: 126.9829, lat: 37.5700),
                                                       destination: Coordinate(lon: 126.9720, lat: 37.5547),
                                                       riders: 2, departure: SeoulTime.now()))
        let hits = try data.places.search(PlaceQuery(text: "광화ㅁ", limit: 5))
        let katec = try CoordinateTransformer(from: "WGS84", to: "KATEC").transform(XYPoint(x: 126.978546, y: 37.566554))
        XCTAssertGreaterThan(quote.fare.totalKrw, 4_800)
        XCTAssertEqual(quote.split.count, 2)
        XCTAssertEqual(quote.split.reduce(0, +), quote.fare.totalKrw)
        XCTAssertTrue(hits.places.first?.place.name.hasPrefix("광화문") ?? false, "\(hits.places.map(\.place.name))")
        XCTAssertEqual(katec.x, 309958.44, accuracy: 0.1)
        XCTAssertEqual(katec.y, 552078.82, accuracy: 0.1)
    }
}

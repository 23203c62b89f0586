import Foundation
import TaxiPot
import XCTest

/// The shared test dataset (TestSupport's `TestDataset`: the repository's data/ sources plus
/// a road graph and a place DB built in-process once per test run), loaded as a `Dataset`.
public enum SeoulDataset {}

public extension SeoulDataset {
    static let loaded: Result<(directory: String, dataset: Dataset), Error> = Result {
        let dir = try TestDataset.directory()
        return (dir, try TestDataset.loaded.get())
    }

    static func dataset() throws -> Dataset { try loaded.get().dataset }
    static func directory() throws -> String { try loaded.get().directory }
    static func estimator() throws -> QuoteTripEstimator { QuoteTripEstimator(dataset: try dataset()) }

    // Known points of central Seoul (lon, lat).
    static let jonggak = Coordinate(lon: 126.9829, lat: 37.5700)        // 종각역
    static let seoulStation = Coordinate(lon: 126.9720, lat: 37.5547)   // 서울역
    static let gwanghwamun = Coordinate(lon: 126.9763, lat: 37.5710)    // 광화문역
    static let itaewon = Coordinate(lon: 126.9945, lat: 37.5345)        // 이태원역
    static let jongno5ga = Coordinate(lon: 127.0016, lat: 37.5709)      // 종로5가역
}

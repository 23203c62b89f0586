import Foundation
import Geo
import Import
import Places
import XCTest

/// The shared test dataset's place DB (prepared by `make test`) and its index (the shared
/// dataset's); `report`: the builder's report of building it again from data/ (once per run).
public enum PlacesFixture {}

public extension PlacesFixture {
    struct Built: @unchecked Sendable {
        public let databasePath: String
        public let index: PlaceIndex
        public var report: PlaceDatabaseBuilder.BuildReport { get throws { try TestDataset.built.get().placesReport } }
    }

    static let built: Result<Built, Error> = Result {
        let dataset = try TestDataset.built.get()
        return Built(databasePath: dataset.placesPath, index: try TestDataset.loaded.get().places)
    }

    static func get() throws -> Built { try built.get() }
    static func index() throws -> PlaceIndex { try built.get().index }

    /// The top result of a query.
    static func top(_ text: String, near: Coordinate? = nil, category: String? = nil) throws -> Place? {
        try index().search(PlaceQuery(text: text, near: near, category: category, limit: 1)).places.first?.place
    }
}

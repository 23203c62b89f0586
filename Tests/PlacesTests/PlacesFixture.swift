import Foundation
import Geo
import Import
import Places
import TestSupport
import XCTest

/// The place DB built once per test process from the repository's data/ into a temporary
/// folder, and its index.
enum PlacesFixture {
    struct Built: @unchecked Sendable {
        let databasePath: String
        let report: PlaceDatabaseBuilder.BuildReport
        let index: PlaceIndex
    }

    static let built: Result<Built, Error> = Result {
        let dataset = try TestDataset.built.get()
        let index = try PlaceIndex.open(path: dataset.placesPath)
        return Built(databasePath: dataset.placesPath, report: dataset.placesReport, index: index)
    }

    static func get() throws -> Built { try built.get() }
    static func index() throws -> PlaceIndex { try built.get().index }

    /// The top result of a query.
    static func top(_ text: String, near: Coordinate? = nil, category: String? = nil) throws -> Place? {
        try index().search(PlaceQuery(text: text, near: near, category: category, limit: 1)).places.first?.place
    }
}

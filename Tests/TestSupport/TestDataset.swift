import Foundation
import Import
import TaxiPotServer

/// A complete prepared dataset for tests, built in-process once per test run (every test
/// target runs in one process, so the place DB is built once for all of them): a temporary
/// folder linking the sources of the repository's `data/`, with `build/seoul.graph` imported
/// from `Dataset.defaultOSMFiles`
/// and `build/places.db` built by the project's own importers.
public enum TestDataset {
    public struct Built: @unchecked Sendable {
        /// The dataset folder (pass it as `--data` or `ServiceConfiguration.dataDir`).
        public let directory: String
        public let graphPath: String
        public let placesPath: String
        public let importReport: ImportReport
        public let placesReport: PlaceDatabaseBuilder.BuildReport
    }

    public static let built: Result<Built, Error> = Result {
        let dir = TestPaths.temporaryDirectory("dataset")
        let fm = FileManager.default
        for item in try fm.contentsOfDirectory(atPath: TestPaths.dataDir.path) where item != "build" {
            try fm.createSymbolicLink(at: dir.appendingPathComponent(item), withDestinationURL: TestPaths.dataDir.appendingPathComponent(item))
        }
        let build = dir.appendingPathComponent("build")
        try fm.createDirectory(at: build, withIntermediateDirectories: true)
        let graph = Dataset.graphPath(dir.path), places = Dataset.placesPath(dir.path)
        let profile = try TrafficProfile.load(path: Dataset.profilePath(dir.path))
        // The embedded default: every staged Seoul extract merged, as `make data` builds it.
        let importReport = try OSMImporter.importFiles(Dataset.defaultOSMFiles.map { TestPaths.dataDir.appendingPathComponent($0).path },
                                                       to: graph, profile: profile)
        let placesReport = try PlaceDatabaseBuilder.build(dataDirectory: TestPaths.dataDir.path, outputPath: places)
        return Built(directory: dir.path, graphPath: graph, placesPath: places, importReport: importReport, placesReport: placesReport)
    }

    /// The dataset folder; throws when building it failed.
    public static func directory() throws -> String { try built.get().directory }

    /// A service context over the shared dataset with a fresh state folder.
    public static func context(metrics: ServerMetrics = ServerMetrics()) throws -> ServiceContext {
        try ServiceContext(configuration: ServiceConfiguration(dataDir: directory(), stateDir: TestPaths.temporaryDirectory("state").path),
                           metrics: metrics)
    }
}

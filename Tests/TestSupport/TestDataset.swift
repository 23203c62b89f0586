import Foundation
import Import
import TaxiPot
import TaxiPotServer

/// The complete prepared dataset the tests run on: a temporary folder linking the sources of the
/// repository's `data/`, with `build/seoul.graph` (every staged Seoul extract merged,
/// `Dataset.defaultOSMFiles`) and `build/places.db`.
///
/// The prepared files are the ones `make test` builds before the suite (`make derived
/// NETWORK=osm`: `data/build/seoul-osm.graph` and `data/build/places.db`), linked, not built
/// again; when they are absent or older than their sources (`swift test` alone on a fresh
/// clone), they are built in-process once per test run into the temporary folder. Only the
/// import tests import (they read `importReport` / `placesReport`, which import once on first
/// use).
public enum TestDataset {
    public struct Built: @unchecked Sendable {
        /// The dataset folder (pass it as `--data` or `ServiceConfiguration.dataDir`).
        public let directory: String
        public let graphPath: String
        public let placesPath: String
        /// The report of importing `Dataset.defaultOSMFiles` (imported in-process once per run
        /// when first read: only the import tests need it).
        public var importReport: ImportReport { get throws { try TestDataset.imported.get().report } }
        /// The report of building the place DB from `data/` (built in-process once per run when
        /// first read: only the place DB builder's tests need it).
        public var placesReport: PlaceDatabaseBuilder.BuildReport { get throws { try TestDataset.placesBuilt.get().report } }
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
        if let prepared = Prepared.graph {
            try fm.createSymbolicLink(atPath: graph, withDestinationPath: prepared)
        } else {
            let fresh = try imported.get()
            try fm.copyItem(atPath: fresh.path, toPath: graph)
        }
        if let prepared = Prepared.places {
            try fm.createSymbolicLink(atPath: places, withDestinationPath: prepared)
        } else {
            let fresh = try placesBuilt.get()
            try fm.copyItem(atPath: fresh.path, toPath: places)
        }
        // The real files, not the links: a test that copies a prepared file to damage its copy
        // (FileManager copies a link as a link) must never write through to `data/build`.
        func real(_ path: String) -> String { URL(fileURLWithPath: path).resolvingSymlinksInPath().path }
        return Built(directory: dir.path, graphPath: real(graph), placesPath: real(places))
    }

    /// The dataset folder; throws when building it failed.
    public static func directory() throws -> String { try built.get().directory }

    /// The shared dataset loaded once per test run: every service context that does not
    /// change the dataset serves it (each with its own state folder).
    public static let loaded: Result<Dataset, Error> = Result { try Dataset(directory: directory()) }

    /// A service context over the shared dataset (loaded once per run) with a fresh state folder.
    public static func context(metrics: ServerMetrics = ServerMetrics()) throws -> ServiceContext {
        try context(ServiceConfiguration(dataDir: directory(), stateDir: TestPaths.temporaryDirectory("state").path), metrics: metrics)
    }

    /// A service context with `configuration` (its `dataDir` the shared dataset's, `directory()`)
    /// over the dataset loaded once per run, when the configuration loads it as the shared one
    /// does (the default hierarchy memory); otherwise it loads its own.
    public static func context(_ configuration: ServiceConfiguration, metrics: ServerMetrics = ServerMetrics()) throws -> ServiceContext {
        guard configuration.dataDir == (try directory()), configuration.hierarchyCacheBytes == RouteEngine.defaultHierarchyCacheBytes else {
            return try ServiceContext(configuration: configuration, metrics: metrics)
        }
        return try ServiceContext(configuration: configuration, metrics: metrics, dataset: loaded.get())
    }

    /// `make derived NETWORK=osm`'s files in `data/build`, when present and newer than the
    /// sources the Makefile builds them from (the same rule as its targets).
    enum Prepared {
        static let graph: String? = current("build/seoul-osm.graph",
                                            sources: Dataset.defaultOSMFiles.map { TestPaths.dataDir.appendingPathComponent($0).path }
                                                + [source("Sources/Routing/GraphFile.swift")])
        static let places: String? = current("build/places.db", sources: placeSources())

        static func source(_ path: String) -> String { TestPaths.packageRoot.appendingPathComponent(path).path }

        static func placeSources() -> [String] {
            func files(_ folder: String, _ extensions: Set<String>) -> [String] {
                let dir = TestPaths.packageRoot.appendingPathComponent(folder)
                let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
                return names.filter { extensions.contains(($0 as NSString).pathExtension) }.map { dir.appendingPathComponent($0).path }
            }
            return files("data/places", ["csv", "geojson"]) + files("data/nodelink", ["csv"]) + files("Sources/Import/Places", ["swift"])
                + files("Sources/Places", ["swift"])
        }

        static func current(_ file: String, sources: [String]) -> String? {
            let path = TestPaths.dataDir.appendingPathComponent(file).path
            func modified(_ p: String) -> Date? { (try? FileManager.default.attributesOfItem(atPath: p))?[.modificationDate] as? Date }
            guard let built = modified(path) else { return nil }
            return sources.allSatisfy { (modified($0) ?? .distantFuture) <= built } ? path : nil
        }
    }

    /// The graph imported in-process from `Dataset.defaultOSMFiles`, once per run.
    static let imported: Result<(path: String, report: ImportReport), Error> = Result {
        let path = TestPaths.temporaryDirectory("graph").appendingPathComponent("seoul.graph").path
        let profile = try TrafficProfile.load(path: Dataset.profilePath(TestPaths.dataDir.path))
        let report = try OSMImporter.importFiles(Dataset.defaultOSMFiles.map { TestPaths.dataDir.appendingPathComponent($0).path },
                                                 to: path, profile: profile)
        return (path, report)
    }

    /// The place DB built in-process from `data/`, once per run.
    static let placesBuilt: Result<(path: String, report: PlaceDatabaseBuilder.BuildReport), Error> = Result {
        let path = TestPaths.temporaryDirectory("places").appendingPathComponent("places.db").path
        return (path, try PlaceDatabaseBuilder.build(dataDirectory: TestPaths.dataDir.path, outputPath: path))
    }
}

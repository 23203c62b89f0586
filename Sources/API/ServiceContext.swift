import Coordinates
import Engine
import Foundation
import HTTPServer
import JSON
import Places
import Routing

/// Where the service finds its dataset and state, and its tunable options.
public struct ServiceConfiguration: Sendable {
    /// The dataset folder (`data/` of the checkout by default): sources plus `build/` with prepared files.
    public var dataDir: String
    /// Where mutable state (the party store) lives (`var/` by default).
    public var stateDir: String

    public init(dataDir: String, stateDir: String) {
        self.dataDir = dataDir
        self.stateDir = stateDir
    }
}

/// The dataset's identity, from `dataset.json` in the data folder.
public struct DatasetInfo: Sendable {
    public let name: String
    public let version: String
    public let attribution: [String]

    /// Reads `dir/dataset.json`; the error names the file and what is wrong.
    public static func load(dataDir dir: String) throws -> DatasetInfo {
        let path = (dir as NSString).appendingPathComponent("dataset.json")
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ServiceError("\(path): cannot read the dataset description (is --data the dataset folder?)")
        }
        let json: JSONValue
        do { json = try JSONParser.parse(Array(data)) } catch { throw ServiceError("\(path): \(error)") }
        guard let name = json["name"]?.stringValue, let version = json["version"]?.stringValue else {
            throw ServiceError("\(path): needs string fields \"name\" and \"version\"")
        }
        let attribution = json["attribution"]?.arrayValue?.compactMap(\.stringValue) ?? []
        return DatasetInfo(name: name, version: version, attribution: attribution)
    }
}

/// A service start-up failure with a message naming the file or setting at fault.
public struct ServiceError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Everything the endpoints share, loaded once before the server starts.
///
/// Each capability adds the engine it serves as a stored property, loaded in `init`.
public final class ServiceContext: Sendable {
    public let configuration: ServiceConfiguration
    public let dataset: DatasetInfo
    public let metrics: ServerMetrics
    public let startedAt = Date()
    /// Coordinate transformers by (from, to) CRS, built on first use (`/v1/transform`).
    public let transformers = TransformerCache()
    /// Fare schedules and the traffic profile (`data/fares/`, `data/traffic/profile.csv`).
    public let fares: FareEstimator
    /// Routing over `DATA/build/seoul.graph`; nil when that file is absent (`/v1/route` answers 503).
    public let routeEngine: RouteEngine?
    /// Place search and reverse geocoding over `DATA/build/places.db`; nil when that file is absent (503).
    public let places: PlaceIndex?
    /// Quotes (route + fare + split); nil when the graph or the place DB is absent (503).
    public let quotes: QuoteEngine?

    public init(configuration: ServiceConfiguration, metrics: ServerMetrics = ServerMetrics()) throws {
        self.configuration = configuration
        self.metrics = metrics
        dataset = try DatasetInfo.load(dataDir: configuration.dataDir)
        fares = try FareEstimator.load(dataDir: configuration.dataDir)
        routeEngine = try loadRouteEngine(dataDir: configuration.dataDir)
        places = try loadPlaceIndex(dataDir: configuration.dataDir)
        quotes = routeEngine.flatMap { [fares, places] r in places.map { QuoteEngine(routes: r, fares: fares, regions: $0.regionLocator) } }
    }
}

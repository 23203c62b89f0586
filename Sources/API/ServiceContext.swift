import Coordinates
import Parties
import PartyStores
import Quoting
import Foundation
import FareEstimation
import HTTPServer
import JSON
import Places
import Pooling
import Routing

/// Where the service finds its dataset and state, and its tunable options.
public struct ServiceConfiguration: Sendable {
    /// The dataset folder (`data/` of the checkout by default): sources plus `build/` with prepared files.
    public var dataDir: String
    /// Where mutable state (the party store) lives (`var/` by default).
    public var stateDir: String
    /// The bearer token writes to parties need (`TAXIPOT_WRITE_TOKEN`); nil or empty: writes answer 403.
    public var writeToken: String?
    /// The party cluster grid's cell size in 256-px-tile pixels (16–512).
    public var clusterRadius: Double
    /// Memory for the route engine's customized hierarchy metrics, in bytes (see `RouteEngine.init`).
    public var hierarchyCacheBytes: Int
    /// The map page's files (`web/` of the checkout); by default `web` beside the data folder.
    public var webDir: String
    /// Leaflet's files, as Debian's libjs-leaflet installs them.
    public var leafletDir: String
    /// The PostgreSQL database of the parties, shared by replicas (a libpq connection string,
    /// `postgresql://…`); nil: the embedded SQLite store in the state folder.
    public var partyStore: String?
    /// How long after departure an unsettled party can be settled, and a settled one replayed,
    /// in seconds (`PartyServiceOptions`; 12 h and 7 days by default).
    public var settleWindow = PartyServiceOptions.defaultSettleWindow
    public var settledRetention = PartyServiceOptions.defaultSettledRetention

    /// Where Debian's libjs-leaflet puts Leaflet.
    public static let debianLeafletDir = "/usr/share/javascript/leaflet"

    /// The default page folder for a data folder: `web` beside it (`data` → `web`).
    public static func defaultWebDir(dataDir: String) -> String {
        let parent = ((dataDir as NSString).standardizingPath as NSString).deletingLastPathComponent
        return parent.isEmpty ? "web" : (parent as NSString).appendingPathComponent("web")
    }

    public init(dataDir: String, stateDir: String, writeToken: String? = nil, clusterRadius: Double = 60,
                hierarchyCacheBytes: Int = RouteEngine.defaultHierarchyCacheBytes, webDir: String? = nil,
                leafletDir: String = ServiceConfiguration.debianLeafletDir, partyStore: String? = nil)
    {
        self.partyStore = partyStore
        self.webDir = webDir ?? ServiceConfiguration.defaultWebDir(dataDir: dataDir)
        self.leafletDir = leafletDir
        self.dataDir = dataDir
        self.stateDir = stateDir
        self.writeToken = writeToken
        self.clusterRadius = clusterRadius
        self.hierarchyCacheBytes = hierarchyCacheBytes
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
/// Like OSRM's server, the service only loads prepared data: a missing or corrupt prepared
/// file stops the start with a message naming it (run `make data`).
public final class ServiceContext: Sendable {
    public let configuration: ServiceConfiguration
    /// The dataset's name and version (`dataset.json`).
    public let info: DatasetInfo
    /// The prepared dataset: road graph, place DB, traffic profile, fare schedules.
    public let data: Dataset
    public let metrics: ServerMetrics
    public let startedAt = Date()
    /// Coordinate transformers by (from, to) CRS, built on first use (`/v1/transform`).
    public let transformers = TransformerCache()
    /// Live parties and their clusters, stored in `STATE/parties.db` (created if absent), or in
    /// the PostgreSQL database `configuration.partyStore` shared with other replicas.
    public let parties: PartyService
    /// The served road network as a map layer (`/v1/roads`).
    public let roadLayer: RoadMapLayer
    /// Party quotes and offers of the live parties to riders.
    public let pooling: PoolingService

    public convenience init(configuration: ServiceConfiguration, metrics: ServerMetrics = ServerMetrics()) throws {
        try self.init(configuration: configuration, metrics: metrics, dataset: nil)
    }

    /// A context serving `dataset` when given (loaded from `configuration.dataDir` already, and
    /// shared: the tests load it once for every context), else the one it loads.
    package init(configuration: ServiceConfiguration, metrics: ServerMetrics = ServerMetrics(), dataset: Dataset?) throws {
        self.configuration = configuration
        self.metrics = metrics
        info = try DatasetInfo.load(dataDir: configuration.dataDir)
        // The party store first: a damaged one stops the start before the dataset loads.
        let storage: any PartyStore = try configuration.partyStore.map { try PostgresPartyStore(url: $0) }
            ?? SQLitePartyStore(stateDirectory: configuration.stateDir)
        parties = try PartyService(storage: storage, options: PartyServiceOptions(radius: configuration.clusterRadius, settleWindow: configuration.settleWindow,
                                                                                 settledRetention: configuration.settledRetention))
        if let dataset { data = dataset } else {
            do { data = try Dataset(directory: configuration.dataDir, hierarchyCacheBytes: configuration.hierarchyCacheBytes) } catch {
                throw ServiceError(error.description)
            }
        }
        roadLayer = RoadMapLayer(graph: data.graph)
        pooling = PoolingService(quotes: data.quotes, parties: parties)
    }

    /// Routing over `DATA/build/seoul.graph`.
    public var routeEngine: RouteEngine { data.routes }
    /// Place search and reverse geocoding over `DATA/build/places.db`.
    public var places: PlaceIndex { data.places }
    /// Fare schedules and the traffic profile (`data/fares/`, `data/traffic/profile.csv`).
    public var fares: FareEstimator { data.fares }
    /// Quotes: route + fare + split.
    public var quotes: RideQuoter { data.quotes }
}

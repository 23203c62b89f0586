// swift-tools-version:6.0
import PackageDescription

/// Taxipot engine: the geospatial core of a Korean taxi-pooling service.
///
/// Modules by concept (see README.md, "Architecture"):
/// - Geo, JSON, SQLiteKit, PostgresKit, CSV: shared primitives.
/// - Coordinates, Places, Routing, Fares, Parties: the five capabilities (what is served). The
///   party wing is one module per room: PartyStores, PartyClusters and Parties (the service) over
///   PartyModel (the values).
/// - Import: the import stage (`taxipot import`): OSM files and the node-link network read into
///   one source-neutral input (Import/OSM, Import/NodeLink), prepared into the road graph
///   (Import/Prepare: junction graph, turn restrictions, preparer, landmarks, hierarchy builder),
///   and the place sources to the place database. Only the CLI links it (and readosm).
/// - FareEstimation: fares for a distance or along a route's road classes (traffic profile's
///   slow share, trip segments, the estimator) and the request errors of fares and quotes.
/// - Engine: the loaded dataset and quotes (route + fare + split).
/// - Pooling: riders in parties priced and matched (party quotes, matching riders to parties).
/// - HTTPServer (transport), API (endpoints), Batch (CSV fare estimates).
/// - TaxiPot: the engine library product (capabilities, Engine, Batch); TaxiPotServer: the second
///   product, the HTTP service (HTTPServer, API, JSON) re-exporting TaxiPot.
/// - TaxiPotCLI: the `taxipot` executable; TaxiPotBench: `taxipot-bench`; SyntheticCity: synthetic
///   OSM cities for `taxipot synth-osm` and the tests.
let cSystem = "Sources/CSystem"

let package = Package(
    name: "TaxiPot",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "TaxiPot", targets: ["TaxiPot"]),
        .library(name: "TaxiPotServer", targets: ["TaxiPotServer"]),
        .executable(name: "taxipot", targets: ["TaxiPotCLI"]),
        .executable(name: "taxipot-bench", targets: ["TaxiPotBench"]),
    ],
    targets: [
        // C libraries from Debian (tools/install-deps installs them).
        // PROJ: headers only (no pkg-config link flags); Coordinates opens libproj at run time.
        .systemLibrary(name: "CProj", path: "\(cSystem)/CProj",
                       providers: [.apt(["libproj-dev", "proj-data"])]),
        .systemLibrary(name: "CSQLite", path: "\(cSystem)/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", path: "\(cSystem)/CMicroHTTPD", pkgConfig: "libmicrohttpd",
                       providers: [.apt(["libmicrohttpd-dev"])]),
        // libdeflate: gzip of HTTP answers when the client asks, whole-buffer, about twice zlib's
        // speed at level 1 (docs/DESIGN.md section 4); zlib reads gzip back (Gzip.decompress).
        // Foundation on Linux has neither.
        .systemLibrary(name: "CLibDeflate", path: "\(cSystem)/CLibDeflate", pkgConfig: "libdeflate",
                       providers: [.apt(["libdeflate-dev"])]),
        .systemLibrary(name: "CZlib", path: "\(cSystem)/CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"])]),
        // libpq: the PostgreSQL party store of replicas (`serve --party-store postgresql://…`).
        .systemLibrary(name: "CLibPQ", path: "\(cSystem)/CLibPQ", pkgConfig: "libpq",
                       providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CReadOSM", path: "\(cSystem)/CReadOSM", pkgConfig: "readosm",
                       providers: [.apt(["libreadosm-dev"])]),
        // shapelib: the official form of the Korean node-link network (MOCT_LINK.shp, MOCT_NODE.shp,
        // TURNINFO.dbf) for `taxipot import nodelink`.
        .systemLibrary(name: "CShapelib", path: "\(cSystem)/CShapelib", pkgConfig: "shapelib",
                       providers: [.apt(["libshp-dev"])]),

        // Shared primitives.
        .target(name: "Geo"),
        .target(name: "JSON"),
        .target(name: "SQLiteKit", dependencies: ["CSQLite"]),
        .target(name: "PostgresKit", dependencies: ["CLibPQ"]),
        // CSV reading and writing for every command that takes a file (batch, imports, transform).
        .target(name: "CSV"),

        // Capabilities.
        .target(name: "Coordinates", dependencies: ["CProj", "CSV", "Geo"]),
        .target(name: "Places", dependencies: ["CSV", "Geo", "JSON", "SQLiteKit"]),
        .target(name: "Routing", dependencies: ["Geo"]),
        .target(name: "Fares", dependencies: ["Geo", "JSON"]),
        // The party wing, one module per room (the walls the compiler keeps): the values, the
        // durable stores, the in-memory cluster index (no storage) and the service over both.
        .target(name: "PartyModel", dependencies: ["Geo"]),
        .target(name: "PartyStores", dependencies: ["Geo", "PartyModel", "SQLiteKit", "PostgresKit"]),
        .target(name: "PartyClusters", dependencies: ["Geo", "PartyModel"]),
        .target(name: "Parties", dependencies: ["CSV", "Geo", "PartyModel", "PartyStores", "PartyClusters"]),
        // Fare estimation: the meter's trips from the traffic profile (speeds and slow share by
        // road class and hour, which Routing also drives by), the estimator and its errors.
        // Its own module because it needs both Fares and Routing, two capabilities that must
        // not depend on each other.
        .target(name: "FareEstimation", dependencies: ["Geo", "Routing", "Fares"]),
        // Map matching: GPS traces snapped to the driven route (an HMM over Routing's roads).
        .target(name: "MapMatching", dependencies: ["CSV", "Geo", "Routing"]),

        // The import stage: raw sources to the files the capabilities serve (graph, place DB).
        .target(name: "Import", dependencies: ["CSV", "Geo", "SQLiteKit", "Places", "Routing", "CReadOSM", "CShapelib"]),

        // Composition and faces.
        .target(name: "Quoting", dependencies: ["Geo", "Routing", "Fares", "FareEstimation", "Places"]),
        .target(name: "Pooling", dependencies: ["Geo", "Routing", "Fares", "FareEstimation", "PartyModel", "PartyStores", "PartyClusters", "Parties", "Quoting", "MapMatching"]),
        .target(name: "Batch", dependencies: ["CSV", "Geo", "Quoting", "Fares", "FareEstimation", "Places", "Routing"]),
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "CLibDeflate", "CZlib", "JSON"]),
        .target(name: "API", dependencies: ["HTTPServer", "JSON", "Geo", "Quoting", "Coordinates", "Batch", "CSV",
                                            "Places", "Routing", "Fares", "FareEstimation", "PartyModel", "PartyStores", "PartyClusters", "Parties", "Pooling", "MapMatching"]),
        // The two library products: the engine, and the HTTP service on top of it.
        .target(name: "TaxiPot", dependencies: ["CSV", "Geo", "Coordinates", "Places", "Routing", "Fares", "FareEstimation", "PartyModel", "PartyStores", "PartyClusters", "Parties",
                                                "Quoting", "Pooling", "Batch", "MapMatching"]),
        .target(name: "TaxiPotServer", dependencies: ["TaxiPot", "JSON", "HTTPServer", "API"]),
        // Tools: the synthetic city generator (CLI and tests, not the engine).
        .target(name: "SyntheticCity", dependencies: ["Geo"]),
        .executableTarget(name: "TaxiPotCLI", dependencies: ["TaxiPot", "TaxiPotServer", "Import", "SyntheticCity"]),
        // The bench's probes use `package` members of Coordinates, Routing and PartyClusters (no public SPI).
        .executableTarget(name: "TaxiPotBench", dependencies: ["TaxiPot", "JSON", "Coordinates", "Routing", "PartyModel", "PartyStores", "PartyClusters", "Parties"]),

        // Tests: one target per module with logic, each declaring exactly the modules it imports.
        .testTarget(name: "GeoTests", dependencies: ["Geo"]),
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(name: "SQLiteKitTests", dependencies: ["SQLiteKit"]),
        .testTarget(name: "PostgresKitTests", dependencies: ["PostgresKit", "TestSupport"]),
        .testTarget(name: "CSVTests", dependencies: ["CSV", "TestSupport"]),
        .testTarget(name: "CoordinatesTests", dependencies: ["Coordinates", "CSV", "Geo"]),
        .testTarget(name: "PlacesTests", dependencies: ["Places", "Geo", "SQLiteKit", "TestSupport"]),
        .testTarget(name: "RoutingTests", dependencies: ["Routing", "Import", "Geo", "SyntheticCity", "TestSupport"]),
        // The import stage: OSM and node-link networks to the graph (one or several files, the
        // node-link export), the synthetic city, and the place database builder.
        .testTarget(name: "ImportTests", dependencies: ["Import", "Routing", "Places", "Coordinates", "Geo", "SyntheticCity", "TestSupport"]),
        .testTarget(name: "MapMatchingTests", dependencies: ["MapMatching", "Routing", "Geo", "TestSupport"]),
        .testTarget(name: "FaresTests", dependencies: ["Fares", "FareEstimation", "Quoting", "Geo", "Routing", "TestSupport"]),
        .testTarget(name: "PartiesTests", dependencies: ["Parties", "PartyModel", "PartyStores", "PartyClusters", "Geo", "SQLiteKit", "PostgresKit", "TestSupport"]),
        .testTarget(name: "FareEstimationTests", dependencies: ["FareEstimation", "Fares", "Geo", "TestSupport"]),
        .testTarget(name: "QuotingTests", dependencies: ["Quoting", "Import", "Fares", "FareEstimation", "Geo", "Places", "Routing", "TestSupport"]),
        .testTarget(name: "PoolingTests", dependencies: ["Pooling", "MapMatching", "TaxiPot", "TaxiPotServer", "TestSupport"]),
        .testTarget(name: "BatchTests", dependencies: ["Batch", "CSV", "Geo", "TaxiPot", "TestSupport"]),
        // The HTTP server itself over real sockets (framing, limits, hardening, conventions, streaming,
        // threads); some of it through the service's router.
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "API", "JSON", "Geo", "Parties", "TaxiPotServer", "TestSupport"]),
        // The bench's own helpers (its latency percentiles leave failed calls out).
        .testTarget(name: "TaxiPotBenchTests", dependencies: ["TaxiPotBench"]),
        .testTarget(name: "APITests", dependencies: ["API", "Import", "Quoting", "Fares", "FareEstimation", "Geo", "HTTPServer", "JSON", "MapMatching", "Parties", "PartyModel", "PartyStores", "PartyClusters",
                                                     "Places", "Pooling", "Routing", "SQLiteKit", "TaxiPot", "TaxiPotServer",
                                                     "TestSupport"]),
        // The `taxipot` executable's commands run as child processes (batch, table, transform,
        // match-trace, settle, parties import, serve's start and stop, help, exit codes).
        .testTarget(name: "TaxiPotCLITests", dependencies: ["TaxiPot", "TaxiPotServer", "HTTPServer", "MapMatching", "Parties", "SQLiteKit",
                                                            "Geo", "TestSupport"]),
        // Helpers shared by several test targets.
        .target(name: "TestSupport", dependencies: ["TaxiPot", "TaxiPotServer", "Import", "CSV", "Geo", "Places", "Routing"],
                path: "Tests/TestSupport"),
    ]
)

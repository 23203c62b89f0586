// swift-tools-version:6.0
import PackageDescription

/// Taxipot engine: the geospatial core of a Korean taxi-pooling service.
///
/// Modules by concept (see README.md, "Architecture"):
/// - Geo, JSON, SQLiteKit: shared primitives.
/// - Coordinates, Places, Routing, Fares, Parties: the five capabilities.
/// - Engine: the loaded dataset and quotes (route + fare + split).
/// - HTTPServer (transport), API (endpoints), Batch (CSV fare estimates).
/// - TaxiPot: the library product re-exporting all of the above.
/// - TaxiPotCLI: the `taxipot` executable; TaxiPotBench: `taxipot-bench`.
let cSystem = "Sources/CSystem"

let package = Package(
    name: "TaxiPot",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "TaxiPot", targets: ["TaxiPot"]),
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
        // zlib: gzip of HTTP answers when the client asks (Foundation on Linux has no deflate).
        .systemLibrary(name: "CZlib", path: "\(cSystem)/CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CReadOSM", path: "\(cSystem)/CReadOSM", pkgConfig: "readosm",
                       providers: [.apt(["libreadosm-dev"])]),

        // Shared primitives.
        .target(name: "Geo"),
        .target(name: "JSON"),
        .target(name: "SQLiteKit", dependencies: ["CSQLite"]),

        // Capabilities.
        .target(name: "Coordinates", dependencies: ["CProj", "Geo"]),
        .target(name: "Places", dependencies: ["Geo", "JSON", "SQLiteKit"]),
        .target(name: "Routing", dependencies: ["Geo", "CReadOSM"]),
        .target(name: "Fares", dependencies: ["Geo", "JSON"]),
        .target(name: "Parties", dependencies: ["Geo", "SQLiteKit"]),

        // Composition and faces.
        .target(name: "Engine", dependencies: ["Geo", "Routing", "Fares", "Places", "Coordinates"]),
        .target(name: "Batch", dependencies: ["Geo", "Engine"]),
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "CZlib", "JSON"]),
        .target(name: "API", dependencies: ["HTTPServer", "JSON", "Geo", "Engine", "Coordinates",
                                            "Places", "Routing", "Fares", "Parties"]),
        .target(name: "TaxiPot", dependencies: ["Geo", "JSON", "Coordinates", "Places", "Routing",
                                                "Fares", "Parties", "Engine", "Batch", "HTTPServer", "API"]),
        .executableTarget(name: "TaxiPotCLI", dependencies: ["TaxiPot"]),
        .executableTarget(name: "TaxiPotBench", dependencies: ["TaxiPot"]),

        // Tests, one target per module they exercise.
        .testTarget(name: "GeoTests", dependencies: ["Geo", "JSON"]),
        .testTarget(name: "CoordinatesTests", dependencies: ["Coordinates"]),
        .testTarget(name: "PlacesTests", dependencies: ["Places", "TestSupport"]),
        .testTarget(name: "RoutingTests", dependencies: ["Routing", "TestSupport"]),
        .testTarget(name: "FaresTests", dependencies: ["Fares", "Engine", "TestSupport"]),
        .testTarget(name: "PartiesTests", dependencies: ["Parties", "TestSupport"]),
        .testTarget(name: "BatchTests", dependencies: ["Batch", "TestSupport"]),
        .testTarget(name: "APITests", dependencies: ["API", "TaxiPot", "TestSupport"]),
        .target(name: "TestSupport", dependencies: ["TaxiPot"], path: "Tests/TestSupport"),
    ]
)

/// The TaxiPot library: one import for a Swift backend.
///
/// Re-exports every module of the engine so that `import TaxiPot` gives coordinates,
/// places, routing, fares, parties, quotes, batch estimates and the HTTP service.
@_exported import Geo
@_exported import JSON
@_exported import Coordinates
@_exported import Places
@_exported import Routing
@_exported import Fares
@_exported import Parties
@_exported import Engine
@_exported import Batch
@_exported import HTTPServer
@_exported import API

/// The engine's version.
public enum TaxiPotVersion {
    public static let string = APIVersion.engine
}

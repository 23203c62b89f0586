/// The TaxiPot library: one import for a Swift program that uses the engine.
///
/// Re-exports the engine's modules, so that `import TaxiPot` gives coordinates, places,
/// routing, fares, parties, quotes and batch estimates. The HTTP service (transport, endpoints,
/// JSON) is the second product, `TaxiPotServer`, which re-exports this one.
@_exported import CSV
@_exported import Geo
@_exported import Coordinates
@_exported import Places
@_exported import Routing
@_exported import Fares
@_exported import FareEstimation
@_exported import PartyModel
@_exported import PartyStores
@_exported import PartyClusters
@_exported import Parties
@_exported import Quoting
@_exported import Pooling
@_exported import Batch

@_exported import MapMatching

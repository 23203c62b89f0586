import FareEstimation
import Fares
import Foundation
import Geo
import Places
import Routing

/// Why a dataset folder could not be loaded: the file at fault and what to do.
public struct DatasetError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "\(path): \(reason)" }
}

/// A prepared data folder, loaded: the road graph, the place DB (and its region locator),
/// the traffic profile and the fare schedules, composed into quote and fare engines.
///
/// Layout (`--data DIR`, default `data/`): `DIR/build/seoul.graph` and `DIR/build/places.db`
/// (built by `make data`), `DIR/traffic/profile.csv`, `DIR/fares/*.json`.
public final class Dataset: Sendable {
    public let directory: String
    public let graph: RoadGraph
    public let places: PlaceIndex
    public let profile: TrafficProfile
    public let schedules: FareScheduleBook
    public let routes: RouteEngine
    public let fares: FareEstimator
    public let quotes: RideQuoter

    /// The files of a dataset folder.
    /// The OSM extracts the embedded road graph is built from, relative to the data folder (the
    /// Makefile's `OSM` default lists the same files): central Seoul, Yeouido, Dongjak/Heukseok
    /// and Songpa/Jamsil, merged into one graph of several served areas.
    public static let defaultOSMFiles = ["osm/seoul-central.osm.pbf", "osm/extracts/yeouido.osm.pbf",
                                         "osm/extracts/dongjak_heukseok.osm.gz", "osm/extracts/songpa_jamsil.osm.gz"]

    public static func graphPath(_ dir: String) -> String { (dir as NSString).appendingPathComponent("build/seoul.graph") }
    public static func placesPath(_ dir: String) -> String { (dir as NSString).appendingPathComponent("build/places.db") }
    public static func profilePath(_ dir: String) -> String { (dir as NSString).appendingPathComponent("traffic/profile.csv") }
    public static func faresPath(_ dir: String) -> String { (dir as NSString).appendingPathComponent("fares") }

    /// Loads every part of `directory`; a missing or broken file is an error naming it (and
    /// saying to run `make data` for the built files). The route engine keeps at most
    /// `hierarchyCacheBytes` of customized hierarchy metrics (see `RouteEngine.init`).
    public init(directory: String, hierarchyCacheBytes: Int = RouteEngine.defaultHierarchyCacheBytes) throws(DatasetError) {
        let fm = FileManager.default
        for (path, built) in [(Self.graphPath(directory), true), (Self.placesPath(directory), true),
                              (Self.profilePath(directory), false), (Self.faresPath(directory), false)]
        where !fm.fileExists(atPath: path) {
            throw DatasetError(path: path, reason: built ? "missing: run 'make data' to build it (or pass --data DIR)"
                : "missing: the dataset folder is incomplete (pass --data DIR, the folder holding fares/ and traffic/)")
        }
        self.directory = directory
        do { profile = try TrafficProfile.load(path: Self.profilePath(directory)) } catch {
            throw DatasetError(path: Self.profilePath(directory), reason: "\(error)")
        }
        do { schedules = try FareScheduleBook.load(directory: Self.faresPath(directory)) } catch {
            throw DatasetError(path: error.file, reason: error.field.map { "field '\($0)': \(error.message)" } ?? error.message)
        }
        do { graph = try RoadGraph.load(path: Self.graphPath(directory)) } catch {
            throw DatasetError(path: error.path, reason: "\(error.reason) (rebuild it with 'make data')")
        }
        do { places = try PlaceIndex.open(path: Self.placesPath(directory)) } catch {
            throw DatasetError(path: Self.placesPath(directory), reason: "\(error) (rebuild it with 'make data')")
        }
        routes = RouteEngine(graph: graph, profile: profile, hierarchyCacheBytes: hierarchyCacheBytes)
        fares = FareEstimator(book: schedules, profile: profile)
        quotes = RideQuoter(routes: routes, fares: fares, regions: places.regionLocator)
    }
}

extension RegionLocator: RegionLookup {
    /// The fare region id at a point (`region(at:)?.id`).
    public func regionID(at point: Coordinate) -> String? { region(at: point)?.id }
}

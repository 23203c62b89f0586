import Foundation
import HTTPServer

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

/// Everything the endpoints share, loaded once before the server starts.
///
/// Each capability adds the engine it serves as a stored property, loaded in `init`.
public final class ServiceContext: Sendable {
    public let configuration: ServiceConfiguration
    public let startedAt = Date()

    public init(configuration: ServiceConfiguration) throws {
        self.configuration = configuration
    }
}

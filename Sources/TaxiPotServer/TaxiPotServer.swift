/// The Taxipot HTTP service as a library: one import for a program that serves the API.
///
/// Re-exports the engine (`TaxiPot`) and the server pieces it does not carry: the
/// libmicrohttpd transport (`HTTPServer`: `HTTPServer`, `HTTPServerOptions`, `Router`,
/// `ServerMetrics`, `HTTPError`), the endpoints (`API`: `ServiceContext`, `makeRouter`, the JSON
/// shapes of the answers) and the JSON primitives (`JSON`).
///
/// ```swift
/// import TaxiPotServer
///
/// let metrics = ServerMetrics()
/// let context = try ServiceContext(configuration: ServiceConfiguration(dataDir: "data", stateDir: "var"),
///                                  metrics: metrics)
/// let server = HTTPServer(router: makeRouter(context: context), options: HTTPServerOptions(), metrics: metrics)
/// try server.start(host: "127.0.0.1", port: 8080)
/// ```
@_exported import TaxiPot
@_exported import JSON
@_exported import HTTPServer
@_exported import API

/// The engine's version.
public enum TaxiPotVersion {
    public static let string = APIVersion.engine
}

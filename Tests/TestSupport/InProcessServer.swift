import Foundation
import TaxiPotServer

/// What `taxipot serve` runs (the router over a service context, the HTTP server with the default
/// options and no access log) started in the test process on a free loopback port, over the
/// shared dataset (`TestDataset.context`, loaded once per run): for socket tests that never
/// kill the server, which a `ServerProcess` would make load the whole dataset again.
public final class InProcessServer: @unchecked Sendable {
    public let context: ServiceContext
    public let server: HTTPServer
    public var port: Int { server.port }

    /// Serves a fresh or existing `state` folder (created as `serve` creates it) with `token` as the write token.
    public init(state: String, token: String) throws {
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let metrics = ServerMetrics()
        context = try TestDataset.context(ServiceConfiguration(dataDir: TestDataset.directory(), stateDir: state, writeToken: token),
                                          metrics: metrics)
        var options = HTTPServerOptions()
        options.accessLog = false
        server = HTTPServer(router: makeRouter(context: context), options: options, metrics: metrics)
        try server.start(host: "127.0.0.1", port: 0)
    }

    /// Stops as SIGTERM stops `serve`: in-flight requests finish, then the party store is closed.
    public func stop() {
        server.stop(graceSeconds: 10)
        _ = try? context.parties.close()
    }
}

import Foundation
import TaxiPotServer

/// `taxipot serve`: the HTTP service over a prepared dataset.
struct ServeCommand: Command {
    let name = "serve"
    let summary = "serve the HTTP API over a prepared dataset"
    let help = """
        Usage: taxipot serve [--host H] [--port P] [--data DIR] [--state-dir DIR]
                             [--workers N] [--queue N] [--connections N] [--per-client N] [--timeout S]
                             [--header-timeout S] [--no-access-log]
                             [--no-inline] [--io-spin-us N] [--cluster-radius PX] [--hierarchy-cache-mb N]
                             [--settle-window-hours H] [--settled-retention-days D]
                             [--web DIR] [--leaflet DIR] [--party-store postgresql://…]
                             [--cors-origin ORIGIN|*] [--log-format text|json] [--gzip-min-bytes N]
                             [--table-cell-budget N] [--max-url-kb N]

        Serves the HTTP API (GET /openapi.json lists every endpoint).
          --host H          address to bind (default 127.0.0.1)
          --port P          port (default 8080; 0 picks a free one and prints it)
          --data DIR        the dataset folder (default: data); prepared files in DIR/build (make data)
          --state-dir DIR   where mutable state lives (default: var), created if absent
          --workers N       handler threads (default: the number of cores)
          --queue N         requests waiting for a worker before 503 (default 512)
          --connections N   open connections at most (default 16384, lowered to what the open-file
                            limit allows; the server raises its soft limit to the hard one); past
                            it a new connection is answered 503 with Retry-After and closed
          --per-client N    open connections at most from one client address (default 256; 0: no cap)
          --timeout S       idle connection timeout in seconds (default 15)
          --header-timeout S  seconds a request's headers may take after its request line, however
                            slowly bytes trickle in; then 408 and close (default 10)
          --no-access-log   no per-request line on stderr
          --log-format F    access log lines: text (default) or json (one object a line: time
                            in RFC 3339, request_id, method, path pattern, status, duration_ms, bytes)
          --cors-origin O   let browser pages on origin O (https://host[:port]) or any origin (*)
                            read answers; preflight OPTIONS is answered 204 (default: no CORS)
          --gzip-min-bytes N  gzip answers of at least N bytes to clients that accept it
                            (default 1024; 0: never)
          --table-cell-budget N  bulk work admitted and not yet answered, at most, in table
                            cells (sources x destinations; a /match/v1 or settle trace fix
                            counts 12, a POST /v1/quotes row 25; default 4000000: four
                            1,000 x 1,000 tables); past it such a request is answered 503 with
                            Retry-After. Bulk work runs on its own threads at a lower priority,
                            so other requests never wait behind it
          --max-url-kb N    longest request target accepted, in KiB (default 8, at most 1024;
                            414 beyond it): OSRM clients send long GPS traces to /match/v1 as
                            GET URLs (a 30-minute 1 Hz trace takes about 60 KiB). Header
                            lines keep their own limit, 64 KiB in all (431 beyond it), whatever
                            N is; a connection buffers at most N KiB + 128 KiB while a head arrives
          --no-inline       run every handler on a worker; by default light read-only endpoints
                            (route, places, fare, clusters, …) run on the I/O thread when no
                            request waits, which saves two thread hand-offs per request
          --io-spin-us N    microseconds the I/O thread keeps polling after an event before it
                            sleeps, 0–10000 (default 100): a request arriving meanwhile skips the
                            thread's wake-up (about 25 µs on a VM); costs at most that much CPU
                            after the last request of a burst
          --cluster-radius PX  party cluster cell size in 256-px-tile pixels, 16–512 (default 60)
          --settle-window-hours H     an unsettled party can be settled until H hours after departure, 1–168 (default 12)
          --settled-retention-days D  a settled party stays readable and replayable D days after departure, 1–365 (default 7)
          --hierarchy-cache-mb N  memory for the routing hierarchy's per-hour weights, 1–65536 MB
                            (default 512): each distinct traffic hour needs 12 bytes per hierarchy
                            arc (0.4 MB on central Seoul, 153 MB on a 3M-node city); the least
                            recently used hour is dropped beyond it and computed again when needed
          --web DIR         the map page's files served at / and /map (default: web beside
                            the data folder, the repository's web/ when --data is data/)
          --leaflet DIR     Leaflet's files (default /usr/share/javascript/leaflet, from
                            Debian's libjs-leaflet); when missing, / answers 503, the API works
          --party-store URL  keep the parties in this PostgreSQL database (a libpq connection
                            string, postgresql://user@host:port/db) instead of DIR/parties.db:
                            replicas started with the same URL serve the same parties, each
                            following the others' writes within milliseconds; the schema is
                            created or migrated at start. While the database is unreachable,
                            writes answer 503 with Retry-After, reads serve the last state and
                            /health says degraded; a replica started while it is away serves
                            everything but parties (503 with Retry-After) until it answers
        Every option with a value can also come from the environment as TAXIPOT_ and its name in
        capitals with _ for - (TAXIPOT_HOST, TAXIPOT_PORT, TAXIPOT_DATA, TAXIPOT_STATE_DIR,
        TAXIPOT_CORS_ORIGIN, TAXIPOT_LOG_FORMAT, …); a flag wins over its variable.
        Writes to parties need TAXIPOT_WRITE_TOKEN set in the environment.
        The party store (DIR/parties.db) is checked at start: a damaged one is refused with a
        message saying how to recover ('taxipot parties recover'), and so is a store whose log
        (parties.db-wal) was cut or deleted after a crash; rows refused at load are listed on
        stderr with how to restore them, and the backup copy is then kept as it was.
        A missing store is created only in a new state folder.
        SIGTERM or SIGINT finishes in-flight requests, closes the party store (its log merged,
        a backup copy saved as DIR/parties.db.bak), then exits 0.
        """

    func run(_ args: [String]) throws -> Int32 {
        let valued = ["host", "port", "data", "state-dir", "workers", "queue", "connections", "per-client", "timeout", "header-timeout",
                      "cluster-radius", "settle-window-hours", "settled-retention-days", "io-spin-us", "hierarchy-cache-mb", "web", "leaflet", "cors-origin", "log-format", "gzip-min-bytes",
                      "party-store", "table-cell-budget", "max-url-kb"]
        var a = try Arguments(args, valued: Set(valued), flags: ["no-access-log", "no-inline"])
        a.fillFromEnvironment(valued)
        guard a.positionals.isEmpty else { throw UsageError("unexpected argument '\(a.positionals[0])'") }
        let host = a.value("host") ?? "127.0.0.1"
        let port = try a.int("port", default: 8080, range: 0...65535)
        var options = HTTPServerOptions()
        options.workerThreads = try a.int("workers", default: options.workerThreads, range: 1...256)
        options.queueCapacity = try a.int("queue", default: options.queueCapacity, range: 1...100_000)
        options.connectionLimit = try a.int("connections", default: options.connectionLimit, range: 1...1_000_000)
        options.connectionsPerClient = try a.int("per-client", default: options.connectionsPerClient, range: 0...1_000_000)
        options.connectionTimeoutSeconds = try a.int("timeout", default: options.connectionTimeoutSeconds, range: 1...3600)
        options.headerTimeoutSeconds = try a.int("header-timeout", default: options.headerTimeoutSeconds, range: 1...3600)
        options.accessLog = !a.has("no-access-log")
        options.inlineLightHandlers = !a.has("no-inline")
        options.ioSpinMicroseconds = try a.int("io-spin-us", default: options.ioSpinMicroseconds, range: 0...10_000)
        options.gzipMinBytes = try a.int("gzip-min-bytes", default: options.gzipMinBytes, range: 0...(1 << 30))
        options.bulkBudget = try a.int("table-cell-budget", default: options.bulkBudget, range: 1...1_000_000_000)
        options.maxURLBytes = try a.int("max-url-kb", default: options.maxURLBytes >> 10, range: 1...1024) << 10
        if let origin = a.value("cors-origin") {
            guard let policy = CORSPolicy(origin: origin) else {
                throw UsageError("\(a.label("cors-origin")) must be * or an origin such as https://map.example.com (scheme://host[:port], no path), got '\(origin)'")
            }
            options.cors = policy
        }
        if let format = a.value("log-format") {
            guard let f = AccessLogFormat(rawValue: format) else {
                throw UsageError("\(a.label("log-format")) must be text or json, got '\(format)'")
            }
            options.logFormat = f
        }

        let stateDir = a.value("state-dir") ?? "var"
        try FileManager.default.createDirectory(atPath: stateDir, withIntermediateDirectories: true)
        var configuration = ServiceConfiguration(dataDir: a.value("data") ?? "data", stateDir: stateDir,
                                                 writeToken: ProcessInfo.processInfo.environment["TAXIPOT_WRITE_TOKEN"],
                                                 clusterRadius: Double(try a.int("cluster-radius", default: 60, range: 16...512)),
                                                 hierarchyCacheBytes: try a.int("hierarchy-cache-mb", default: RouteEngine.defaultHierarchyCacheBytes >> 20,
                                                                                range: 1...65536) << 20,
                                                 webDir: a.value("web"),
                                                 leafletDir: a.value("leaflet") ?? ServiceConfiguration.debianLeafletDir,
                                                 partyStore: try partyStoreURL(a.value("party-store"), label: a.label("party-store")))
        configuration.settleWindow = Double(try a.int("settle-window-hours", default: 12, range: 1...168)) * 3600
        configuration.settledRetention = Double(try a.int("settled-retention-days", default: 7, range: 1...365)) * 86_400

        // Block the stop signals before any thread starts, so only sigwait below sees them.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        signal(SIGPIPE, SIG_IGN)

        let metrics = ServerMetrics()
        let context = try ServiceContext(configuration: configuration, metrics: metrics)
        for note in context.parties.storeNotes { printError("taxipot: \(note)") }
        for refusal in context.parties.rejectedOnLoad { printError("taxipot: \(refusal)") }
        if !context.parties.rejectedOnLoad.isEmpty {
            printError("taxipot: \(context.parties.rejectedOnLoad.count) stored parties refused at load (listed above); serving the other \(context.parties.count); "
                + "writes to the refused ones answer 409 party_quarantined until they are restored")
            if !context.parties.isShared { printError("taxipot: " + PartyStoreRecovery.adviceForRefusedRows(stateDirectory: stateDir)) }
        }
        // Settlements of an earlier build (record files in the state folder) move into the party store.
        for note in SettlementRecords.importRecords(in: SettlementRecords.directory(stateDirectory: stateDir), into: context.parties) {
            printError("taxipot: \(note)")
        }
        let server = HTTPServer(router: makeRouter(context: context), options: options, metrics: metrics)
        try server.start(host: host, port: port)
        printError("taxipot: serving \(context.info.name) \(context.info.version) on http://\(host):\(server.port) "
            + "(\(options.workerThreads) workers, at most \(server.effectiveConnectionLimit) connections; GET /openapi.json lists the API)")

        var received: Int32 = 0
        sigwait(&signals, &received)
        printError("taxipot: signal \(received): finishing in-flight requests")
        server.stop(graceSeconds: 10)
        do {
            for line in try context.parties.close() { printError("taxipot: \(line)") }
        } catch {
            printError("taxipot: closing the party store: \(error)")
            return 1
        }
        printError("taxipot: stopped")
        return 0
    }
}

/// The `--party-store` value: a PostgreSQL connection URL (postgresql:// or postgres://); nil
/// when the option is absent (the embedded SQLite store).
private func partyStoreURL(_ value: String?, label: String) throws -> String? {
    guard let value else { return nil }
    guard value.hasPrefix("postgresql://") || value.hasPrefix("postgres://") else {
        // Only the value's first word: the rest may hold a password (`host=… password=…`).
        let shown = value.prefix { $0 != " " && $0 != "=" && $0 != ":" }.prefix(40)
        throw UsageError("\(label) must be a PostgreSQL URL (postgresql://user@host:port/database), got a value starting '\(shown)'")
    }
    return value
}

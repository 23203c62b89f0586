import Foundation

/// A throw-away PostgreSQL server for tests against a real database (as tools/pg/pglib.py does
/// for the replica checks): Debian's `initdb` and `pg_ctl` in a temporary folder, on a free
/// loopback port, trust authentication, run as `nobody` when the tests run as root (PostgreSQL
/// refuses root). Missing server binaries throw: a test fails loudly, it never skips.
/// `stop()` removes everything.
public final class TemporaryPostgres: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// One server for the whole test process, started on first use and stopped at exit (each
    /// test takes its own database): initdb costs seconds, a database milliseconds.
    public static func shared() throws -> TemporaryPostgres {
        try sharedServer.get()
    }

    private static let sharedServer: Result<TemporaryPostgres, Error> = {
        let r = Result { try TemporaryPostgres() }
        if case .success = r { atexit { if case .success(let s) = TemporaryPostgres.sharedServer { s.stop() } } }
        return r
    }()

    public let port: Int
    let folder: URL
    let bin: String
    let asRoot = geteuid() == 0

    /// initdb and start (about a second).
    public init() throws {
        bin = try TemporaryPostgres.serverBinaries()
        folder = TestPaths.temporaryDirectory("taxipot-pg")
        port = try ServerProcess.freePort()
        if asRoot { chmod(folder.path, 0o777) }
        let data = folder.appendingPathComponent("data").path
        try run("initdb", "-D", data, "-U", "taxipot", "--auth=trust", "-E", "UTF8", "--no-instructions")
        let conf = "\nlisten_addresses = '127.0.0.1'\nport = \(port)\nunix_socket_directories = '\(folder.path)'\n"
            + "max_connections = 30\nshared_buffers = 16MB\nfsync = on\nsynchronous_commit = on\n"
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: data + "/postgresql.conf"))
        handle.seekToEndOfFile()
        handle.write(conf.data(using: .utf8)!)
        handle.closeFile()
        try run("pg_ctl", "-D", data, "-l", folder.appendingPathComponent("log").path, "-w", "-t", "30", "start")
    }

    /// The connection URL of database `database` (created by `createDatabase`; `postgres` exists).
    public func url(_ database: String = "postgres") -> String {
        "postgresql://taxipot@127.0.0.1:\(port)/\(database)"
    }

    /// Creates an empty database named `name` plus a number of its own and returns its URL.
    public func createDatabase(_ name: String) throws -> String {
        let unique = "\(name)_\(UInt32.random(in: 0...UInt32.max))"
        try psql("CREATE DATABASE \(unique)")
        return url(unique)
    }

    /// Runs `sql` with psql on `database`; returns its unaligned output lines.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws -> [String] {
        let out = try execute(bin + "/psql", [url(database), "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql], asNobody: false)
        return out.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    /// Stops the server at once (an outage), keeping its data for `resume()`.
    public func pause() throws {
        try run("pg_ctl", "-D", folder.appendingPathComponent("data").path, "-m", "immediate", "-w", "stop")
    }

    /// Starts the server `pause()` stopped, on the same port with the same data.
    public func resume() throws {
        try run("pg_ctl", "-D", folder.appendingPathComponent("data").path, "-l", folder.appendingPathComponent("log").path, "-w", "-t", "30", "start")
    }

    /// Stops the server at once and removes its folder.
    public func stop() {
        _ = try? run("pg_ctl", "-D", folder.appendingPathComponent("data").path, "-m", "immediate", "-w", "stop")
        try? FileManager.default.removeItem(at: folder)
    }

    /// The newest PostgreSQL server binaries Debian installed (`/usr/lib/postgresql/N/bin`).
    static func serverBinaries() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted(by: >)
        for v in versions where FileManager.default.isExecutableFile(atPath: "\(root)/\(v)/bin/initdb") {
            return "\(root)/\(v)/bin"
        }
        throw Failure(description: "PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql/*/bin: "
            + "install Debian's 'postgresql' (tools/install-deps does)")
    }

    @discardableResult
    private func run(_ tool: String, _ arguments: String...) throws -> String {
        try execute(bin + "/" + tool, arguments, asNobody: asRoot)
    }

    /// Runs `path` with `arguments` (as `nobody` through runuser when asked), its output to a
    /// file in the folder (not a pipe: the server pg_ctl starts outlives it), and waits for it.
    private func execute(_ path: String, _ arguments: [String], asNobody: Bool) throws -> String {
        // The caller's folder may be closed to `nobody`: the child starts in the temporary folder
        // (coreutils' env changes the child's folder alone; this process's own never changes).
        let tool = asNobody ? ["/usr/sbin/runuser", "-u", "nobody", "--", path] + arguments : [path] + arguments
        let argv = ["/usr/bin/env", "--chdir=" + folder.path] + tool
        let output = folder.appendingPathComponent("tool-\(UUID().uuidString).out").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, &cArgs, environ)
        guard spawned == 0 else { throw Failure(description: "cannot start \(argv[0]): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        unlink(output)
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        guard code == 0 else {
            throw Failure(description: "\((path as NSString).lastPathComponent) failed (\(code)): \(text.suffix(2000))")
        }
        return text
    }
}

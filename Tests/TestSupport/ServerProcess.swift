import Foundation

/// The real `taxipot serve` binary run as a child process on a free loopback port, for tests
/// that kill it (-9) and start it again on the same state folder.
public final class ServerProcess: @unchecked Sendable {
    public let process: Process
    public let port: Int

    struct DidNotStart: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts `taxipot serve` over `data` and `state` with `token` as the write token, and waits
    /// (up to 300 s, as `TaxipotCLI.run` waits for a command: a debug build loading the dataset on
    /// a busy machine took over 60 s) until `/health` answers.
    public init(data: String, state: String, token: String) throws {
        port = try ServerProcess.freePort()
        process = Process()
        process.executableURL = URL(fileURLWithPath: TaxipotCLI.binary)
        process.arguments = ["serve", "--port", String(port), "--data", data, "--state-dir", state, "--no-access-log"]
        var env = ProcessInfo.processInfo.environment
        env["TAXIPOT_WRITE_TOKEN"] = token
        process.environment = env
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(300)
        while Date() < deadline {
            if let c = try? RawHTTPClient(port: port, timeoutSeconds: 2), (try? c.request("GET", "/health"))?.status == 200 { return }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        process.terminate()
        throw DidNotStart(description: "taxipot serve did not answer /health within 300 s")
    }

    /// kill -9, then waits for the process to end.
    public func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM, then waits.
    public func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// A loopback port nobody listens on now.
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return Int(UInt16(bigEndian: addr.sin_port))
    }
}

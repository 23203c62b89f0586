import CMicroHTTPD
import Foundation

/// A client's network address (IPv4 or IPv6), the key of the per-client connection count.
struct ClientAddress: Hashable {
    let high: UInt64
    let low: UInt64

    /// The address of `storage`, or nil for a family other than IPv4 and IPv6.
    init?(_ storage: sockaddr_storage) {
        var s = storage
        switch Int32(s.ss_family) {
        case AF_INET:
            let a = withUnsafePointer(to: &s) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr } }
            (high, low) = (0, UInt64(UInt32(bigEndian: a)))
        case AF_INET6:
            let bytes = withUnsafePointer(to: &s) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin6_addr) { Array($0) } }
            }
            // An IPv4-mapped address counts as the IPv4 one.
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
                (high, low) = (0, bytes[12..<16].reduce(0) { $0 << 8 | UInt64($1) })
            } else {
                high = bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
                low = bytes[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
            }
        default:
            return nil
        }
    }
}

/// One open client connection as the server tracks it (I/O thread only): whose it is, and
/// how far its current request has come, for the deadline on request heads.
final class ConnectionRecord {
    let client: ClientAddress?
    /// Index in `Admission.records` (swap-removed).
    var index = 0
    /// When the connection became ready for a request: accepted, or its last answer sent.
    var readySince: UInt64
    /// When the current request's line was complete (0: not yet).
    var requestLineAt: UInt64 = 0
    /// True from a complete request head until its answer is sent: no head deadline then.
    var inRequest = false
    /// The deadline already closed it (it stays listed until libmicrohttpd reports the close).
    var expired = false
    let connection: OpaquePointer

    init(connection: OpaquePointer, client: ClientAddress?, now: UInt64) {
        self.connection = connection
        self.client = client
        self.readySince = now
    }
}

/// Who gets a connection, and for how long a request head may take (I/O thread only).
///
/// The server accepts connections itself and hands them to libmicrohttpd, so every connection
/// gets an answer: past the connection limit, or past the per-client cap, a new connection is
/// answered 503 with `Retry-After` and closed at once (libmicrohttpd would close it unanswered,
/// or stop accepting and leave it waiting in the backlog). A request whose line is not complete
/// within the idle timeout of the connection becoming ready, or whose head is not complete
/// within `headerTimeoutSeconds` of its line, is closed (408 when its line had come) even if
/// bytes keep trickling in, which libmicrohttpd's idle timeout (restarted by every byte) allows.
final class Admission {
    let connectionLimit: Int
    let perClientLimit: Int
    let headerTimeoutNanos: UInt64
    let idleTimeoutNanos: UInt64
    private(set) var records: [ConnectionRecord] = []
    private var perClient: [ClientAddress: Int] = [:]
    /// The client of the connection being handed to libmicrohttpd (its start notification reads it).
    var pendingClient: ClientAddress?
    /// Sockets answered 503 at accept, closed once the client has read (or after `lingerNanos`).
    private var lingering: [(fd: Int32, until: UInt64)] = []
    private let lingerLimit: Int
    private static let lingerNanos: UInt64 = 2_000_000_000

    /// A complete HTTP/1.1 answer with a JSON body and `Connection: close`, written straight to
    /// a socket libmicrohttpd does not (or no longer) answer on.
    static func rawAnswer(status: Int, reason: String, extraHeaders: String = "", body: [UInt8]) -> [UInt8] {
        Array(("HTTP/1.1 \(status) \(reason)\r\nContent-Type: application/json\r\n\(extraHeaders)"
            + "Connection: close\r\nContent-Length: \(body.count)\r\n\r\n").utf8) + body
    }

    static let overloadAnswer = rawAnswer(status: 503, reason: "Service Unavailable", extraHeaders: "Retry-After: 1\r\n",
        body: Array(#"{"error":{"code":"overloaded","message":"the server is at its connection limit; retry shortly"}}"#.utf8))

    static let timeoutAnswer = rawAnswer(status: 408, reason: "Request Timeout",
        body: Array(#"{"error":{"code":"request_timeout","message":"the request head was not complete in time"}}"#.utf8))

    init(connectionLimit: Int, perClientLimit: Int, headerTimeoutSeconds: Int, idleTimeoutSeconds: Int, lingerLimit: Int) {
        self.connectionLimit = connectionLimit
        self.perClientLimit = perClientLimit
        self.headerTimeoutNanos = UInt64(max(1, headerTimeoutSeconds)) * 1_000_000_000
        self.idleTimeoutNanos = UInt64(max(1, idleTimeoutSeconds)) * 1_000_000_000
        self.lingerLimit = lingerLimit
    }

    var openConnections: Int { records.count }

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Whether a new connection from `client` may be served (else it is answered 503).
    func admits(_ client: ClientAddress?) -> Bool {
        guard records.count < connectionLimit else { return false }
        guard perClientLimit > 0, let client else { return true }
        return perClient[client, default: 0] < perClientLimit
    }

    /// libmicrohttpd started `connection` (inside `MHD_add_connection`).
    func opened(_ connection: OpaquePointer) -> ConnectionRecord {
        let r = ConnectionRecord(connection: connection, client: pendingClient, now: Self.now())
        r.index = records.count
        records.append(r)
        if let c = r.client { perClient[c, default: 0] += 1 }
        return r
    }

    /// libmicrohttpd closed the connection of `r`.
    func closed(_ r: ConnectionRecord) {
        let last = records.removeLast()
        if last !== r {
            records[r.index] = last
            last.index = r.index
        }
        if let c = r.client {
            let n = perClient[c, default: 1] - 1
            perClient[c] = n > 0 ? n : nil
        }
    }

    /// Answers `fd` 503 and closes it (after the client has had time to read the answer).
    func refuse(_ fd: Int32) {
        _ = Self.overloadAnswer.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        shutdown(fd, Int32(SHUT_WR))
        drain(fd)
        // Closing while the request is unread would send a reset, which can destroy the answer
        // in the client's buffer before it reads it: keep the socket until the client closes.
        if lingering.count < lingerLimit {
            lingering.append((fd, Self.now() &+ Self.lingerNanos))
        } else {
            close(fd)
        }
    }

    /// Reads and drops what `fd` holds; true at end of stream (or an error).
    @discardableResult
    private func drain(_ fd: Int32) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4096) { buf in
            while true {
                let n = recv(fd, buf.baseAddress, buf.count, Int32(MSG_DONTWAIT))
                if n > 0 { continue }
                return n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            }
        }
    }

    /// Closes lingering sockets whose client is done, and connections past their head
    /// deadline; returns how many of those were answered 408.
    func tick() -> Int {
        var timedOut = 0
        let now = Self.now()
        if !lingering.isEmpty {
            lingering.removeAll { entry in
                guard drain(entry.fd) || now >= entry.until else { return false }
                close(entry.fd)
                return true
            }
        }
        for r in records where !r.inRequest && !r.expired {
            let late: Bool
            if r.requestLineAt != 0 {
                late = now >= r.requestLineAt &+ headerTimeoutNanos
            } else {
                // A quiet connection is libmicrohttpd's to time out (a second earlier); this
                // catches one whose request line trickles in.
                late = now >= r.readySince &+ max(idleTimeoutNanos, headerTimeoutNanos) &+ 1_000_000_000
            }
            guard late else { continue }
            let fd = taxipot_mhd_connection_fd(r.connection)
            guard fd >= 0 else { continue }
            r.expired = true
            if r.requestLineAt != 0 {
                _ = Self.timeoutAnswer.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                timedOut += 1
            }
            // libmicrohttpd sees the end of the stream and closes the connection itself.
            shutdown(fd, Int32(SHUT_RDWR))
        }
        return timedOut
    }

    /// Closes every lingering socket (the server is stopping).
    func closeLingering() {
        for entry in lingering { close(entry.fd) }
        lingering.removeAll()
    }
}

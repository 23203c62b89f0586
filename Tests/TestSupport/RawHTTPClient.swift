import Foundation

/// A minimal HTTP/1.1 client over a raw socket, for tests that must send exactly the bytes
/// they mean (oversized URLs, broken encodings) and read status, headers and body.
public final class RawHTTPClient {
    public struct Response {
        public let status: Int
        public let headers: [String: String]
        public let body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public struct ClientError: Error, CustomStringConvertible {
        public let description: String
    }

    private var fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:`port`, from `source` (another loopback address such as
    /// 127.0.0.2 stands for another client) or the default.
    public init(port: Int, timeoutSeconds: Int = 10, source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClientError(description: "socket failed") }
        var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                Glibc.close(fd)
                throw ClientError(description: "cannot bind to \(source)")
            }
        }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            Glibc.close(fd)
            throw ClientError(description: "connect to port \(port) failed")
        }
    }

    deinit { close() }

    /// Closes the connection (also done when the client goes away).
    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// Sends raw bytes.
    public func send(_ bytes: [UInt8]) throws {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw ClientError(description: "send failed") }
            off += n
        }
    }

    /// Sends a request and reads its response.
    public func request(_ method: String, _ target: String, headers: [String: String] = [:], body: [UInt8] = []) throws -> Response {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try send(Array(head.utf8) + body)
        return try readResponse(method: method)
    }

    /// True when the server closes the connection (EOF) within `seconds` with no answer
    /// bytes; false when it is still open then (or sent data).
    public func waitForClose(seconds: Int) -> Bool {
        var tv = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, 0)
        return n == 0 || (n < 0 && errno == ECONNRESET)
    }

    /// Everything the server sends until it closes the connection or `seconds` pass, and
    /// whether it closed.
    public func readUntilClose(seconds: Double) -> (bytes: [UInt8], closed: Bool) {
        var out = buffer
        buffer = []
        let deadline = Date().addingTimeInterval(seconds)
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return (out, false) }
            var tv = timeval(tv_sec: Int(left), tv_usec: Int((left - Double(Int(left))) * 1e6))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { out += chunk[0..<n]; continue }
            if n == 0 || errno == ECONNRESET { return (out, true) }
            if errno == EINTR { continue }
            return (out, false)
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { throw ClientError(description: n == 0 ? "connection closed" : "receive timed out or failed") }
        buffer.append(contentsOf: chunk[0..<n])
    }

    /// Reads one response (Content-Length or chunked body).
    public func readResponse(method: String = "GET") throws -> Response {
        let sep: [UInt8] = [13, 10, 13, 10]
        var end: Int?
        while end == nil {
            if buffer.count >= 4 {
                for i in 0...(buffer.count - 4) where Array(buffer[i..<i + 4]) == sep { end = i; break }
            }
            if end == nil { try fill() }
        }
        let headText = String(decoding: buffer[0..<end!], as: UTF8.self)
        buffer.removeFirst(end! + 4)
        let lines = headText.components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw ClientError(description: "bad status line \(lines[0])") }
        var headers: [String: String] = [:]
        for l in lines.dropFirst() {
            guard let c = l.firstIndex(of: ":") else { continue }
            headers[l[..<c].lowercased()] = l[l.index(after: c)...].trimmingCharacters(in: .whitespaces)
        }
        var body: [UInt8] = []
        if method == "HEAD" || status == 204 || status == 304 {
        } else if let len = headers["content-length"].flatMap({ Int($0) }) {
            while buffer.count < len { try fill() }
            body = Array(buffer[0..<len])
            buffer.removeFirst(len)
        } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
            while true {
                var lineEnd: Int?
                while lineEnd == nil {
                    if buffer.count >= 2 { for i in 0..<(buffer.count - 1) where buffer[i] == 13 && buffer[i + 1] == 10 { lineEnd = i; break } }
                    if lineEnd == nil { try fill() }
                }
                let size = Int(String(decoding: buffer[0..<lineEnd!], as: UTF8.self).split(separator: ";")[0], radix: 16) ?? 0
                buffer.removeFirst(lineEnd! + 2)
                while buffer.count < size + 2 { try fill() }
                body += buffer[0..<size]
                buffer.removeFirst(size + 2)
                if size == 0 { break }
            }
        }
        return Response(status: status, headers: headers, body: body)
    }
}

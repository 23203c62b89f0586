import CMicroHTTPD
import Foundation

/// A response body written while it is sent (HTTP/1.1 chunked transfer coding), for answers
/// whose parts are computed one after another: the client reads the first rows while the last
/// are computed, and at most `capacity` bytes wait in memory whatever the answer's length.
///
/// The handler returns `HTTPResponse.streaming(…)` at once; the server sends the head, then runs
/// `produce` on the worker that ran the handler. `write` blocks while `capacity` bytes wait
/// unsent and throws `BodyStream.Gone` once the client has gone (the producer stops there).
/// libmicrohttpd pulls the bytes through a content-reader callback on its I/O thread; with none
/// ready it suspends the connection, and the next `write` resumes it.
public final class BodyStream: @unchecked Sendable {
    /// Thrown by `write` once nobody will read the body (the client closed or the send failed).
    public struct Gone: Error {}

    public typealias Producer = @Sendable (BodyStream) throws -> Void

    let produce: Producer
    let capacity: Int
    private let condition = NSCondition()
    private var buffer: [UInt8] = []
    private var sent = 0  // bytes of `buffer` already handed to libmicrohttpd
    private var finished = false
    /// The producer failed: once the bytes already written are sent, the body ends without its
    /// last chunk (the connection is closed), so no client takes it for a complete answer.
    private var failed = false
    private var gone = false
    /// Set while libmicrohttpd waits for bytes with the connection suspended.
    private var waiting = false
    /// Resumes the suspended connection (set by the server when it queues the response).
    private var resume: (() -> Void)?
    /// The most bytes that waited unsent at once (for tests of the bound).
    public private(set) var peakBufferedBytes = 0
    /// Body bytes handed to libmicrohttpd over the whole answer.
    private var bodyBytes = 0
    /// Called once when the response is done with, with `bodyBytes` (the access log's line).
    private var onClose: ((Int) -> Void)?

    init(capacity: Int, _ produce: @escaping Producer) {
        self.capacity = max(1, capacity)
        self.produce = produce
    }

    /// Appends `bytes` to the body; blocks while `capacity` bytes wait unsent.
    public func write(_ bytes: [UInt8]) throws(Gone) {
        guard !bytes.isEmpty else { return }
        condition.lock()
        while !gone && buffer.count - sent >= capacity { condition.wait() }
        if gone {
            condition.unlock()
            throw Gone()
        }
        if sent > 0 && sent * 2 >= buffer.count {
            buffer.removeFirst(sent)
            sent = 0
        }
        buffer += bytes
        peakBufferedBytes = max(peakBufferedBytes, buffer.count - sent)
        let wake = takeWaiting()
        condition.unlock()
        wake?()
    }

    /// Runs the producer to its end (the server calls it once the head is queued); an error it
    /// throws ends the body where it stands (the rows already sent stay sent) as a broken
    /// transfer: the connection closes without the chunked body's last chunk, which HTTP
    /// clients report as an incomplete answer (curl: exit 18; Python: `IncompleteRead`).
    func run() {
        var broke = false
        do { try produce(self) } catch is Gone {} catch { broke = true }
        condition.lock()
        finished = true
        failed = broke
        let wake = takeWaiting()
        condition.unlock()
        wake?()
    }

    /// The whole body in memory: runs the producer on the calling thread with no bound (for
    /// callers without a socket, such as tests calling the router directly).
    public func collect() -> [UInt8] {
        let sink = BodyStream(capacity: Int.max) { _ in }
        do { try produce(sink) } catch {}
        return sink.buffer
    }

    /// Called by the server on its I/O thread when it queues the response.
    func attach(resume: @escaping () -> Void) {
        condition.lock()
        self.resume = resume
        condition.unlock()
    }

    /// The resume to call after unlocking, when libmicrohttpd was waiting (lock held).
    private func takeWaiting() -> (() -> Void)? {
        guard waiting else { return nil }
        waiting = false
        return resume
    }

    /// libmicrohttpd's content reader: up to `max` bytes into `out`; 0 with the connection
    /// suspended when none is ready; the end of the stream once the producer has finished.
    func read(into out: UnsafeMutablePointer<CChar>, max: Int, suspend: () -> Void) -> Int {
        condition.lock()
        defer { condition.unlock() }
        let ready = buffer.count - sent
        if ready == 0 {
            if failed { return MHDContentReader.endWithError }
            if finished || gone { return MHDContentReader.endOfStream }
            waiting = true
            suspend()
            return 0
        }
        let n = min(ready, max)
        buffer.withUnsafeBytes { raw in
            UnsafeMutableRawPointer(out).copyMemory(from: raw.baseAddress! + sent, byteCount: n)
        }
        sent += n
        bodyBytes += n
        condition.broadcast()
        return n
    }

    /// The response is done with (sent, or the connection closed): the producer stops at its next write.
    func close() {
        condition.lock()
        gone = true
        buffer = []
        sent = 0
        condition.broadcast()
        let closed = onClose, bytes = bodyBytes
        onClose = nil
        condition.unlock()
        closed?(bytes)
    }

    /// Runs `body` once the response is done with (sent, or the connection closed), with the
    /// body bytes sent: a streamed answer's access-log line is written then, not at its head.
    func whenClosed(_ body: @escaping (Int) -> Void) {
        condition.lock()
        onClose = body
        condition.unlock()
    }
}

/// libmicrohttpd's content-reader return values.
enum MHDContentReader {
    static let endOfStream = -1  // MHD_CONTENT_READER_END_OF_STREAM
    static let endWithError = -2  // MHD_CONTENT_READER_END_WITH_ERROR
    static let unknownSize = UInt64.max  // MHD_SIZE_UNKNOWN
}

extension HTTPResponse {
    /// A response whose body `produce` writes while it is sent (chunked), at most `capacity`
    /// bytes waiting unsent. Served from a `.heavy` route (the producer runs on its worker).
    public static func streaming(status: Int = 200, headers: [(String, String)] = [], capacity: Int = 256 << 10,
                                 _ produce: @escaping BodyStream.Producer) -> HTTPResponse {
        var r = HTTPResponse(status: status, headers: headers)
        r.stream = BodyStream(capacity: capacity, produce)
        return r
    }

    /// The body: `body`, or a stream's whole output (collected in memory).
    public var collectedBody: [UInt8] { stream?.collect() ?? body }
}

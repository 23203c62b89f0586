import CMicroHTTPD
import Foundation
import JSON

/// Limits and sizes of the HTTP server.
public struct HTTPServerOptions: Sendable {
    /// Threads running handlers (default: the number of cores).
    public var workerThreads = ProcessInfo.processInfo.activeProcessorCount
    /// Complete requests allowed to wait for a worker; beyond it the answer is 503.
    public var queueCapacity = 512
    /// Open connections at most; a connection past it is answered 503 (with `Retry-After`) and
    /// closed. The server lowers it to what the open-file limit allows (`start` raises that limit
    /// to its hard maximum first, less `OpenFileLimit.reservedForFiles` and room for the 503s).
    public var connectionLimit = 16_384
    /// Open connections at most from one client address (0: no cap); past it, 503 and close.
    public var connectionsPerClient = 256
    /// Seconds a connection may stay idle before it is closed.
    public var connectionTimeoutSeconds = 15
    /// Seconds a request's head (its header lines) may take after its request line; past it
    /// the connection is answered 408 and closed, even while bytes keep trickling in. A request
    /// line must likewise come within the idle timeout of the connection being ready.
    public var headerTimeoutSeconds = 10
    /// Largest request body accepted (413 beyond it).
    public var maxBodyBytes = 1 << 20
    /// Longest request target accepted (414 beyond it).
    public var maxURLBytes = 8 << 10
    /// Most bytes of header lines accepted in one request head (431 beyond it), whatever
    /// `maxURLBytes` is: raising the target's limit does not raise this one.
    public var maxHeaderBytes = 64 << 10
    /// The most a connection buffers (libmicrohttpd's memory pool: the head while it arrives,
    /// then the answer's head): room for a target and header lines each at their limit and 64 KiB
    /// more (at least 128 KiB), so an over-long one gets our JSON 414 or 431; a head past it gets
    /// libmicrohttpd's own 414 or 431.
    public var connectionMemoryLimit: Int { max(128 << 10, maxURLBytes + maxHeaderBytes + (64 << 10)) }
    /// Write one access-log line per request on stderr.
    public var accessLog = true
    /// Run `.light` handlers on the I/O thread when at most `workerThreads` connections are open
    /// and the workers are idle: then no request can be waiting for the I/O thread, and two
    /// thread hand-offs (a large share of a fast request's round trip) are saved. With more
    /// connections every request goes to the workers, which keeps the throughput of all cores.
    public var inlineLightHandlers = true
    /// A `.light` handler that takes longer than this on the I/O thread (on the CPU, or waiting
    /// for something; not while preempted by another process) goes to the workers for
    /// its route's next `inlinePenaltyRequests` requests, so a slow case cannot stall I/O for long.
    public var inlineBudgetSeconds = 0.001
    /// See `inlineBudgetSeconds`.
    public var inlinePenaltyRequests = 1000
    /// The largest share of the I/O thread's recent time (about the last 5 ms) spent in inline
    /// handlers while more than one connection is open; beyond it requests go to the workers,
    /// so under load every core runs handlers and I/O is never starved.
    public var inlineMaxShare = 0.5
    /// Microseconds the I/O thread keeps polling after an event before it sleeps (see
    /// `EventLoop`): a request arriving meanwhile skips the thread's wake-up. 0: never spin.
    public var ioSpinMicroseconds = 100
    /// CORS for browser pages on other origins (`--cors-origin`); nil: no CORS headers.
    public var cors: CORSPolicy? = nil
    /// Answers of a text type with at least this many body bytes are gzip-compressed for clients
    /// that send `Accept-Encoding: gzip`; 0: never compress.
    public var gzipMinBytes = 1024
    /// The access log's line format (see `accessLog`).
    public var logFormat: AccessLogFormat = .text
    /// The most bulk work (`HandlerCost.bulk`, in its routes' units: table cells) admitted and
    /// not yet answered; past it a bulk request is answered 503 with `Retry-After`. The default
    /// is four full 1,000 × 1,000 tables: one running, the rest waiting about a second each.
    public var bulkBudget = 4_000_000
    /// Threads running bulk work, apart from the workers (default: half the cores, at least one;
    /// a table already spreads its searches over every core).
    public var bulkThreads = max(1, ProcessInfo.processInfo.activeProcessorCount / 2)
    /// Bulk requests admitted and waiting for a bulk thread at most (503 beyond it).
    public var bulkQueueCapacity = 256
    /// The nice value of the bulk threads (0–19): the scheduler gives light and heavy requests
    /// the cores first while bulk work runs.
    public var bulkNice: Int32 = 10
    /// Allocations of at least this many bytes get their own memory mapping, returned to the
    /// system when freed (glibc `M_MMAP_THRESHOLD`, set for the whole process at `start`);
    /// 0 leaves the allocator alone. See `AllocatorSettings`.
    public var mmapThresholdBytes = 256 << 10

    public init() {}
}

/// Why the server could not start.
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    public let description: String
}

/// An HTTP/1.1 server on libmicrohttpd: one polling thread for I/O (epoll, keep-alive), a
/// pool of worker threads sized to the cores running the router, and a bounded queue
/// between them (503 with `Retry-After` when it is full).
///
/// Connections wait suspended while their request is in the queue or being handled, so a
/// slow handler never blocks I/O for others.
public final class HTTPServer: @unchecked Sendable {
    public let router: Router
    public let options: HTTPServerOptions
    public let metrics: ServerMetrics
    /// Request ids, CORS, ETag, gzip and OPTIONS, applied to every answer.
    private let conventions: HTTPConventions
    private var daemon: OpaquePointer?
    private var pool: WorkerPool?
    /// Runs the second part of bulk requests (see `HandlerCost.bulk`).
    private var bulkPool: WorkerPool?
    private var bulkBudget: BulkBudget!
    private var loop: EventLoop?
    private var listenFD: Int32 = -1
    /// Connection limits and head deadlines (I/O thread only once started).
    private var admission: Admission!
    private let logLock = NSLock()
    /// What libmicrohttpd's log callback calls back (lives as long as the server).
    private let loggerContext: UnsafeMutablePointer<taxipot_mhd_logger_context> = .allocate(capacity: 1)
    /// Route pattern → requests left to send to the workers after a slow inline run (I/O thread only).
    private var inlinePenalty: [String: Int] = [:]
    /// Open client connections (I/O thread only: libmicrohttpd's connection callback runs there).
    private var openConnections: Int { admission.openConnections }
    /// How busy the I/O thread has recently been with inline handlers (I/O thread only).
    private var inlineLoad = DecayingLoad(timeConstantNanos: 5_000_000)
    /// True when called on one of a server's worker threads, false on its I/O thread (where
    /// `.light` handlers may run) or elsewhere.
    public static var isWorkerThread: Bool { WorkerPool.isWorkerThread }

    /// The port the server listens on (useful after asking for port 0).
    public private(set) var port: Int = 0
    /// The connection limit in force once started: `options.connectionLimit`, lowered to what
    /// the open-file limit allows.
    public private(set) var effectiveConnectionLimit = 0

    /// A server for `router`; `metrics` is where it counts requests (share it with a /metrics endpoint).
    public init(router: Router, options: HTTPServerOptions = HTTPServerOptions(), metrics: ServerMetrics = ServerMetrics()) {
        self.router = router
        self.options = options
        self.metrics = metrics
        conventions = HTTPConventions(cors: options.cors, gzipMinBytes: options.gzipMinBytes)
    }

    deinit {
        stop()
        loggerContext.deallocate()
    }

    /// Binds `host:port` (port 0 picks a free one) and starts serving.
    public func start(host: String, port: Int) throws(HTTPServerError) {
        let fd = try ListenSocket.open(host: host, port: port)
        listenFD = fd
        self.port = ListenSocket.port(fd)
        pool = WorkerPool(threads: max(1, options.workerThreads), queueCapacity: options.queueCapacity)
        let nice = max(0, min(19, options.bulkNice))
        bulkPool = WorkerPool(threads: max(1, options.bulkThreads), queueCapacity: max(1, options.bulkQueueCapacity),
                              onStart: { _ = taxipot_set_thread_nice(nice) })
        bulkBudget = BulkBudget(limit: options.bulkBudget)
        AllocatorSettings.useMappingsFrom(options.mmapThresholdBytes)
        // Every connection costs a descriptor, and so does every 503 still being read.
        let files = OpenFileLimit.raise()
        let lingerLimit = max(16, min(1024, files / 16))
        effectiveConnectionLimit = max(1, min(options.connectionLimit, files - OpenFileLimit.reservedForFiles - lingerLimit))
        admission = Admission(connectionLimit: effectiveConnectionLimit, perClientLimit: max(0, options.connectionsPerClient),
                              headerTimeoutSeconds: options.headerTimeoutSeconds, idleTimeoutSeconds: options.connectionTimeoutSeconds,
                              lingerLimit: lingerLimit)

        let me = Unmanaged.passUnretained(self).toOpaque()
        let uriLog: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = { _, uri, connection in
            let record = connection.flatMap { taxipot_mhd_socket_context($0) }.map { Unmanaged<ConnectionRecord>.fromOpaque($0).takeUnretainedValue() }
            record?.requestLineAt = Admission.now()
            let state = RequestState(rawTarget: uri.map { String(cString: $0) } ?? "/", targetBytes: uri.map { strlen($0) } ?? 0, record: record)
            return Unmanaged.passRetained(state).toOpaque()
        }
        let completed: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?, MHD_RequestTerminationCode) -> Void = { _, _, conCls, _ in
            guard let conCls, let p = conCls.pointee else { return }
            let state = Unmanaged<RequestState>.fromOpaque(p).takeRetainedValue()
            if let record = state.record {
                record.inRequest = false
                record.requestLineAt = 0
                record.readySince = Admission.now()
            }
            conCls.pointee = nil
        }
        let notify: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?, MHD_ConnectionNotificationCode) -> Void = { cls, connection, context, code in
            guard let cls, let connection, let context else { return }
            let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
            if code.rawValue == 0 {  // MHD_CONNECTION_NOTIFY_STARTED
                context.pointee = Unmanaged.passRetained(server.admission.opened(connection)).toOpaque()
            } else if let p = context.pointee {  // MHD_CONNECTION_NOTIFY_CLOSED
                server.admission.closed(Unmanaged<ConnectionRecord>.fromOpaque(p).takeRetainedValue())
                context.pointee = nil
            }
        }
        var items: [MHD_OptionItem] = [
            // libmicrohttpd never refuses a connection itself: `acceptConnections` does, with a 503.
            MHD_OptionItem(option: MHD_OPTION.CONNECTION_LIMIT, value: effectiveConnectionLimit + 64, ptr_value: nil),
            MHD_OptionItem(option: MHD_OPTION.CONNECTION_TIMEOUT, value: options.connectionTimeoutSeconds, ptr_value: nil),
            // Room for a request line well past maxURLBytes and header lines past maxHeaderBytes, so
            // an over-long one gets our JSON 414 or 431 (`connectionMemoryLimit`).
            MHD_OptionItem(option: MHD_OPTION.CONNECTION_MEMORY_LIMIT, value: options.connectionMemoryLimit, ptr_value: nil),
            MHD_OptionItem(option: MHD_OPTION.URI_LOG_CALLBACK, value: unsafeBitCast(uriLog, to: Int.self), ptr_value: me),
            MHD_OptionItem(option: MHD_OPTION.NOTIFY_COMPLETED, value: unsafeBitCast(completed, to: Int.self), ptr_value: me),
            MHD_OptionItem(option: MHD_OPTION.NOTIFY_CONNECTION, value: unsafeBitCast(notify, to: Int.self), ptr_value: me),
            MHD_OptionItem(option: MHD_OPTION.END, value: 0, ptr_value: nil),
        ]
        // libmicrohttpd's events run on our own I/O thread (`EventLoop`), not an internal one.
        // The I/O thread accepts connections itself (`acceptConnections`): no listening socket here.
        let flags = MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue | MHD_USE_NO_LISTEN_SOCKET.rawValue
        let handler: MHD_AccessHandlerCallback = { cls, connection, url, method, version, uploadData, uploadSize, conCls in
            guard let cls, let connection, let conCls, let p = conCls.pointee else { return MHD_Result.NO }
            let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
            let state = Unmanaged<RequestState>.fromOpaque(p).takeUnretainedValue()
            return server.access(connection, state, method, url, version, uploadData, uploadSize)
        }
        // libmicrohttpd's messages still go to stderr; one of them is also the only sign of a
        // Content-Length it refuses itself (see `refuseUnreadableLengths`).
        loggerContext.pointee = taxipot_mhd_logger_context(on_length_error: { cls in
            guard let cls else { return }
            Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().refuseUnreadableLengths()
        }, cls: me)
        let d = items.withUnsafeMutableBufferPointer { buf -> OpaquePointer? in
            withVaList([Int32(MHD_OPTION.EXTERNAL_LOGGER.rawValue), OpaquePointer(taxipot_mhd_logger_function()!), OpaquePointer(loggerContext),
                        Int32(MHD_OPTION.ARRAY.rawValue), buf.baseAddress!, Int32(MHD_OPTION.END.rawValue)]) { va in
                MHD_start_daemon_va(flags, 0, nil, nil, handler, me, va)
            }
        }
        // Set before the thread starts: the handlers it runs read `loop`.
        let workers = pool
        loop = d.flatMap { d in
            EventLoop(daemon: d, listenFD: fd, spinNanos: UInt64(max(0, options.ioSpinMicroseconds)) * 1000,
                      mayLinger: { workers?.isIdle ?? true },
                      accept: { [unowned self] in self.acceptConnections(d) },
                      tick: { [unowned self] in
                          for _ in 0..<self.admission.tick() {
                              self.metrics.recordLocked(route: "unmatched", status: 408, seconds: Double(self.options.headerTimeoutSeconds))
                          }
                      })
        }
        guard let d, let loop, loop.start() else {
            self.loop = nil
            if let d { MHD_stop_daemon(d) }
            close(fd)
            pool?.shutdown()
            bulkPool?.shutdown()
            throw HTTPServerError(description: d == nil ? "libmicrohttpd could not start on \(host):\(port)"
                                                        : "could not start the I/O thread on \(host):\(port)")
        }
        daemon = d
    }

    /// Stops accepting, lets in-flight requests finish (up to `graceSeconds`), then stops.
    public func stop(graceSeconds: Double = 10) {
        guard let d = daemon else { return }
        loop?.quiesce()
        let deadline = Date().addingTimeInterval(graceSeconds)
        while (metrics.currentInFlight > 0 || (pool?.queued ?? 0) > 0) && Date() < deadline {
            usleep(2000)
        }
        usleep(20000)  // let resumed connections send their answers
        loop?.stop()
        loop = nil
        MHD_stop_daemon(d)
        admission.closeLingering()
        close(listenFD)
        listenFD = -1
        daemon = nil
        pool?.shutdown()
        pool = nil
        bulkPool?.shutdown()
        bulkPool = nil
    }

    // MARK: - Connections

    /// Takes the connections waiting on the listening socket (I/O thread): each goes to
    /// libmicrohttpd, or, past the connection limit or its client's cap, gets a 503 and is
    /// closed. False when out of descriptors (the loop retries later).
    private func acceptConnections(_ daemon: OpaquePointer) -> Bool {
        for _ in 0..<1024 {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    accept(listenFD, $0, &length)
                }
            }
            if fd < 0 {
                switch errno {
                case EINTR, ECONNABORTED: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM: return false
                default: return true  // EAGAIN: none left
                }
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            let client = ClientAddress(storage)
            guard admission.admits(client) else {
                metrics.recordLocked(route: "overload", status: 503, seconds: 0, rejectedForLoad: true)
                admission.refuse(fd)
                continue
            }
            admission.pendingClient = client
            _ = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { MHD_add_connection(daemon, fd, $0, length) }
            }  // on failure libmicrohttpd has closed the socket
            admission.pendingClient = nil
        }
        return true
    }

    /// Answers the connections whose head has a `Content-Length` libmicrohttpd cannot read
    /// (not a number, or past 2^64) with one clean JSON 400 or 413, and closes their sending
    /// side. libmicrohttpd 0.9.75 refuses such a head itself before any callback of ours, with
    /// a response whose status line and headers it writes twice; it logs first, and this runs
    /// from its log callback, before it writes: its own answer then fails to send and it closes
    /// the connection. Every connection still reading its head with such a header is answered
    /// (the one being refused is among them; the others would be refused the same way).
    private func refuseUnreadableLengths() {
        for r in admission.records where r.requestLineAt != 0 && !r.inRequest && !r.expired {
            guard MHD_lookup_connection_value(r.connection, MHD_ValueKind.HEADER_KIND, "Transfer-Encoding") == nil,
                  let value = MHD_lookup_connection_value(r.connection, MHD_ValueKind.HEADER_KIND, "Content-Length")
            else { continue }
            let text = String(cString: value)
            let digits = !text.isEmpty && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            if digits && UInt64(text) != nil { continue }
            let fd = taxipot_mhd_connection_fd(r.connection)
            guard fd >= 0 else { continue }
            r.expired = true
            let error = digits
                ? RequestHead.refusal(413, "body_too_large", "the Content-Length \(text.prefix(40)) is too large; at most \(options.maxBodyBytes) bytes are accepted")
                : RequestHead.refusal(400, "invalid_content_length", "the Content-Length must be a whole number of bytes, got '\(RequestHead.escaped(text))'")
            let answer = Admission.rawAnswer(status: error.status, reason: digits ? "Content Too Large" : "Bad Request", body: error.response.body)
            metrics.recordLocked(route: "unmatched", status: error.status, seconds: 0)
            _ = answer.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            shutdown(fd, Int32(SHUT_WR))
        }
    }

    // MARK: - Request flow

    private func access(_ connection: OpaquePointer, _ state: RequestState, _ method: UnsafePointer<CChar>?,
                        _ url: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?,
                        _ uploadData: UnsafePointer<CChar>?, _ uploadSize: UnsafeMutablePointer<Int>?) -> MHD_Result
    {
        if let response = state.response {
            return queue(connection, response)
        }
        if !state.headersSeen {
            state.headersSeen = true
            state.record?.inRequest = true
            state.method = method.map { String(cString: $0) } ?? "GET"
            state.started = DispatchTime.now().uptimeNanoseconds
            switch RequestHead.read(connection, method: method, url: url, version: version, targetBytes: state.targetBytes,
                                     maxHeaderBytes: options.maxHeaderBytes) {
            case .success(let headers):
                state.headers = headers
                state.requestID = RequestID.resolve(headers["x-request-id"])
            case .failure(let error): return reject(connection, state, error)
            }
            for b in state.rawTarget.utf8 where b <= 0x20 || b == 0x7f {
                return reject(connection, state, RequestHead.refusal(400, "malformed_request",
                    "the request target contains a space or a control character (byte \\u{\(String(b, radix: 16))})"))
            }
            if state.rawTarget.utf8.count > options.maxURLBytes {
                return reject(connection, state, HTTPError(status: 414, code: "uri_too_long",
                    message: "the request URL is \(state.rawTarget.utf8.count) bytes; at most \(options.maxURLBytes) are accepted"))
            }
            // Any length libmicrohttpd reads (up to 2^64 - 1; beyond it see `refuseUnreadableLengths`).
            if let len = state.headers["content-length"].flatMap({ UInt64($0) }), len > UInt64(options.maxBodyBytes) {
                return reject(connection, state, HTTPError(status: 413, code: "body_too_large",
                    message: "the request body is \(len) bytes; at most \(options.maxBodyBytes) are accepted"))
            }
            if state.headers["transfer-encoding"] != nil, let method {
                state.chunkFloor = UnsafeRawPointer(method).assumingMemoryBound(to: UInt8.self) + taxipot_mhd_request_head_size(connection)
            }
            return MHD_Result.YES
        }
        if state.answeredEarly { return MHD_Result.NO }  // the 413 is out: close once the body ends
        if let uploadSize, uploadSize.pointee > 0 {
            let n = uploadSize.pointee
            if !state.bodyTooLarge, let uploadData {
                let data = UnsafeRawPointer(uploadData).assumingMemoryBound(to: UInt8.self)
                if let error = checkChunk(state, data: data, count: n) {
                    uploadSize.pointee = 0
                    return answerEarly(connection, state, error)
                }
                if state.body.count + n > options.maxBodyBytes {
                    state.bodyTooLarge = true
                    state.body = []
                } else {
                    state.body.append(contentsOf: UnsafeBufferPointer(start: data, count: n))
                }
            }
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        if state.bodyTooLarge {
            return reject(connection, state, HTTPError(status: 413, code: "body_too_large",
                message: "the request body is over \(options.maxBodyBytes) bytes"))
        }
        guard !state.dispatched, let pool else { return MHD_Result.YES }
        state.dispatched = true
        metrics.begin()
        let work = prepare(state)
        // With one open connection no other request can be waiting for the I/O thread, so its
        // recent load does not matter (and handing off would only add two thread switches).
        if options.inlineLightHandlers, runsInline(work), openConnections <= options.workerThreads, pool.isIdle,
           openConnections <= 1 || inlineLoad.share(at: DispatchTime.now().uptimeNanoseconds) < options.inlineMaxShare
        {
            let t0 = DispatchTime.now().uptimeNanoseconds
            let usage0 = ThreadUsage.now()
            var (route, response) = run(work, state)
            if let stream = response.stream {  // (streams come from heavy routes; whole here)
                response.body = stream.collect()
                response.stream = nil
            }
            let t1 = DispatchTime.now().uptimeNanoseconds
            inlineLoad.add(busyNanos: t1 - t0, at: t1)
            if ThreadUsage.now().isOverBudget(since: usage0, wallNanos: t1 - t0, budgetSeconds: options.inlineBudgetSeconds) {
                inlinePenalty[route] = options.inlinePenaltyRequests
            }
            finish(state, route, response)
            return queue(connection, response)
        }
        MHD_suspend_connection(connection)
        let loop = self.loop
        // Resumed once this worker no longer counts as running: the client's next request
        // must find the pool idle, or it would leave the inline path for no reason.
        let resume = {
            MHD_resume_connection(connection)
            loop?.wake()
        }
        let accepted = pool.submit { [self] in
            if case .handle(let request, .found(let route, let params)) = work, let bulk = route.bulk {
                var req = request
                req.pathParameters = params
                guard let response = self.startBulk(route, bulk, req, state, resume) else { return nil }  // the bulk pool answers
                self.finish(state, route.pattern, response, rejectedForLoad: response.status == 503)
                state.response = response
                return resume
            }
            let (route, response) = self.run(work, state)
            self.finish(state, route, response)
            state.response = response
            if let stream = response.stream {
                // The head goes out now; the body is produced here while the I/O thread sends it.
                resume()
                stream.run()
                return nil
            }
            return resume
        }
        if !accepted {
            MHD_resume_connection(connection)
            loop?.wake()  // resumed inside MHD_run: the loop must run it once more
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - state.started) / 1e9
            metrics.end(route: "overload", status: 503, seconds: seconds, rejectedForLoad: true)
            var response = HTTPError(status: 503, code: "overloaded",
                message: "the server is at capacity; retry shortly", headers: [("Retry-After", "1")]).response
            response.headers += conventions.baseHeaders(requestID: state.requestID, origin: state.headers["origin"])
            state.response = response
            log(state, "overload", 503, seconds, response.body.count)
        }
        return MHD_Result.YES
    }

    /// For a chunked body, the 413 for a chunk whose announced size takes the body past
    /// `maxBodyBytes`, checked when its first data comes (see `ChunkSizeLine`); nil otherwise.
    /// Where the size line cannot be seen, the body is limited by its bytes as they come.
    private func checkChunk(_ state: RequestState, data: UnsafePointer<UInt8>, count: Int) -> HTTPError? {
        guard let floor = state.chunkFloor else { return nil }
        if state.chunkLeft == 0 {
            let room = UInt64(max(0, options.maxBodyBytes - state.body.count))
            switch ChunkSizeLine.before(data, floor: floor) {
            case .absent:
                state.chunkFloor = nil
                return nil
            case .size(let size) where size <= room:
                state.chunkLeft = size
            case .size(let size):
                return HTTPError(status: 413, code: "body_too_large",
                    message: "a chunk of \(size) bytes takes the request body past \(options.maxBodyBytes) bytes, the most accepted")
            case .tooLarge:
                return HTTPError(status: 413, code: "body_too_large",
                    message: "a chunk's size is past 2^64 bytes; at most \(options.maxBodyBytes) are accepted")
            }
        }
        state.chunkLeft -= min(state.chunkLeft, UInt64(count))
        return nil
    }

    /// Answers `error` while the body is still coming (libmicrohttpd takes an answer only before
    /// the body or after it): written straight to the socket, which is then shut for writing;
    /// the rest of the body is dropped and the connection closed once it ends or the client closes.
    private func answerEarly(_ connection: OpaquePointer, _ state: RequestState, _ error: HTTPError) -> MHD_Result {
        let fd = taxipot_mhd_connection_fd(connection)
        guard fd >= 0 else { return MHD_Result.NO }
        state.answeredEarly = true
        state.body = []
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - state.started) / 1e9
        metrics.recordLocked(route: "unmatched", status: error.status, seconds: seconds)
        let extra = conventions.baseHeaders(requestID: state.requestID, origin: state.headers["origin"]).map { "\($0.0): \($0.1)\r\n" }.joined()
        let body = error.response.body
        let answer = Admission.rawAnswer(status: error.status, reason: "Content Too Large", extraHeaders: extra, body: body)
        _ = answer.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        shutdown(fd, Int32(SHUT_WR))
        log(state, "unmatched", error.status, seconds, body.count)
        return MHD_Result.YES
    }

    /// Reads a bulk request with its first part (on this worker), admits it against the bulk
    /// budget and hands the rest to the bulk pool, which answers it and calls `resume`. Returns
    /// the answer when there is one now: the first part's error, or a 503 past the budget or
    /// the bulk queue; nil when the bulk pool has the request.
    private func startBulk(_ route: Route, _ bulk: BulkHandler, _ request: HTTPRequest, _ state: RequestState,
                           _ resume: @escaping () -> Void) -> HTTPResponse?
    {
        func answer(_ r: HTTPResponse) -> HTTPResponse {
            var response = r
            conventions.apply(&response, method: state.method, headers: state.headers, requestID: state.requestID, cacheable: false)
            return response
        }
        let work: BulkWork
        do {
            work = try bulk(request)
        } catch {
            return answer(Router.answer { throw error })
        }
        guard let bulkPool, let budget = bulkBudget else { return answer(Router.answer(work.run)) }
        func overloaded(_ why: String) -> HTTPResponse {
            let seconds = budget.retryAfterSeconds(for: work.cost)
            return answer(HTTPError(status: 503, code: "overloaded", message: why + "; retry in \(seconds) s",
                                    headers: [("Retry-After", String(seconds))]).response)
        }
        guard budget.admit(work.cost) else {
            return overloaded("the server is at its budget of \(budget.limit) \(work.unit) in flight (\(budget.current) now; this request needs \(work.cost))")
        }
        let accepted = bulkPool.submit { [self] in
            let t0 = DispatchTime.now().uptimeNanoseconds
            var response = Router.answer(work.run)
            conventions.apply(&response, method: state.method, headers: state.headers, requestID: state.requestID, cacheable: route.cacheable)
            finish(state, route.pattern, response)
            state.response = response
            let streamed = response.stream != nil
            if let stream = response.stream {
                // The head goes out now; the body (the work itself: bulk quotes) is produced on
                // this bulk thread, and counts against the budget until it ends.
                resume()
                stream.run()
            }
            let left = budget.release(work.cost, seconds: Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
            return {
                if !streamed { resume() }
                // The last bulk request of a burst gives the heap's free memory back.
                if left == 0 { AllocatorSettings.trim() }
            }
        }
        guard accepted else {
            budget.release(work.cost, seconds: 0)
            return overloaded("\(options.bulkQueueCapacity) bulk requests are waiting already")
        }
        return nil
    }

    /// A complete request ready for its handler: decoded and matched, or the error its target gives.
    private enum Work: Sendable {
        case handle(HTTPRequest, Router.Match)
        case answer(String, HTTPResponse)
    }

    private func prepare(_ state: RequestState) -> Work {
        let split: (path: String, query: [(name: String, value: String)])
        do {
            split = try URLDecoding.split(target: state.rawTarget)
        } catch {
            return .answer("unmatched", error.response)
        }
        let request = HTTPRequest(method: state.method, path: split.path, query: split.query, headers: state.headers, body: state.body)
        state.body = []
        let match = router.match(method: request.method, path: request.path)
        if request.method == "OPTIONS", case .methodNotAllowed(let methods) = match {
            return .answer("OPTIONS", conventions.options(methods: methods, headers: state.headers, requestID: state.requestID))
        }
        return .handle(request, match)
    }

    /// True when `work` may run on the I/O thread: an error answer, or a `.light` route not
    /// penalised for a recent slow run. Called on the I/O thread only (it owns `inlinePenalty`).
    private func runsInline(_ work: Work) -> Bool {
        switch work {
        case .answer: return true
        case .handle(_, .found(let route, _)):
            guard route.cost == .light else { return false }
            if let left = inlinePenalty[route.pattern] {
                inlinePenalty[route.pattern] = left > 1 ? left - 1 : nil
                return false
            }
            return true
        case .handle: return true  // 404 / 405
        }
    }

    /// Runs `work` and applies the HTTP conventions (request id, CORS, ETag/304, gzip) to its answer.
    private func run(_ work: Work, _ state: RequestState) -> (String, HTTPResponse) {
        switch work {
        case .answer(let route, let response):
            if route == "OPTIONS" { return (route, response) }  // conventions already applied
            var r = response
            conventions.apply(&r, method: state.method, headers: state.headers, requestID: state.requestID, cacheable: false)
            return (route, r)
        case .handle(let request, let match):
            var (route, response) = router.handle(request, match)
            var cacheable = false
            if case .found(let r, _) = match { cacheable = r.cacheable }
            conventions.apply(&response, method: state.method, headers: state.headers, requestID: state.requestID, cacheable: cacheable)
            return (route, response)
        }
    }

    private func finish(_ state: RequestState, _ route: String, _ response: HTTPResponse, rejectedForLoad: Bool = false) {
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - state.started) / 1e9
        metrics.end(route: route, status: response.status, seconds: seconds, rejectedForLoad: rejectedForLoad)
        if let stream = response.stream {
            // A streamed body: its line, once the body has ended, counts all of it (bytes and time).
            let status = response.status
            stream.whenClosed { [self] bytes in
                log(state, route, status, Double(DispatchTime.now().uptimeNanoseconds - state.started) / 1e9, bytes)
            }
        } else {
            log(state, route, response.status, seconds, response.body.count)
        }
    }

    private func reject(_ connection: OpaquePointer, _ state: RequestState, _ error: HTTPError) -> MHD_Result {
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - state.started) / 1e9
        metrics.recordLocked(route: "unmatched", status: error.status, seconds: seconds)
        var response = error.response
        response.headers += conventions.baseHeaders(requestID: state.requestID, origin: state.headers["origin"])
        log(state, "unmatched", error.status, seconds, response.body.count)
        state.response = response
        return queue(connection, response)
    }

    private func queue(_ connection: OpaquePointer, _ response: HTTPResponse) -> MHD_Result {
        let r: OpaquePointer?
        if let stream = response.stream {
            // Chunked: libmicrohttpd pulls the bytes as the producer writes them (`BodyStream`).
            let loop = self.loop
            stream.attach(resume: {
                MHD_resume_connection(connection)
                loop?.wake()
            })
            let context = Unmanaged.passRetained(StreamContext(stream: stream, connection: connection)).toOpaque()
            r = MHD_create_response_from_callback(MHDContentReader.unknownSize, 32 << 10, { cls, _, buf, max in
                guard let cls, let buf else { return MHDContentReader.endOfStream }
                let context = Unmanaged<StreamContext>.fromOpaque(cls).takeUnretainedValue()
                return context.stream.read(into: buf, max: max) { MHD_suspend_connection(context.connection) }
            }, context, { cls in
                guard let cls else { return }
                Unmanaged<StreamContext>.fromOpaque(cls).takeRetainedValue().stream.close()
            })
        } else {
            r = response.body.withUnsafeBytes { buf in
                MHD_create_response_from_buffer(buf.count, UnsafeMutableRawPointer(mutating: buf.baseAddress), MHD_ResponseMemoryMode.RESPMEM_MUST_COPY)
            }
        }
        guard let r else { return MHD_Result.NO }
        for (name, value) in response.headers { MHD_add_response_header(r, name, value) }
        let result = MHD_queue_response(connection, UInt32(response.status), r)
        MHD_destroy_response(r)
        return result
    }

    private func log(_ state: RequestState, _ route: String, _ status: Int, _ seconds: Double, _ bytes: Int) {
        guard options.accessLog else { return }
        let path = state.rawTarget.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "/"
        let line = AccessLogEntry(requestID: state.requestID, method: state.method, route: route, path: path, status: status,
                                  seconds: seconds, bytes: bytes).line(options.logFormat)
        logLock.lock()
        line.utf8CString.withUnsafeBufferPointer { p in _ = write(2, p.baseAddress, p.count - 1) }
        logLock.unlock()
    }
}

/// An exponentially decaying measure of busy time: `share` is about the fraction of the last
/// `timeConstantNanos` spent busy.
struct DecayingLoad {
    let timeConstantNanos: Double
    private var busy = 0.0  // decayed busy nanoseconds
    private var last: UInt64 = 0

    init(timeConstantNanos: Double) { self.timeConstantNanos = timeConstantNanos }

    private mutating func decay(to now: UInt64) {
        if now > last {
            busy *= exp(-Double(now - last) / timeConstantNanos)
            last = now
        }
    }

    mutating func share(at now: UInt64) -> Double {
        decay(to: now)
        return busy / timeConstantNanos
    }

    mutating func add(busyNanos: UInt64, at now: UInt64) {
        decay(to: now)
        busy += Double(busyNanos)
    }
}

/// A streamed body and its connection, the context of libmicrohttpd's content-reader callback.
final class StreamContext: @unchecked Sendable {
    let stream: BodyStream
    let connection: OpaquePointer

    init(stream: BodyStream, connection: OpaquePointer) {
        self.stream = stream
        self.connection = connection
    }
}

/// One request's state across libmicrohttpd's callbacks.
final class RequestState: @unchecked Sendable {
    let rawTarget: String
    /// The target's length in bytes as received up to its first NUL (`RequestHead` compares).
    let targetBytes: Int
    /// The connection's record (I/O thread only).
    let record: ConnectionRecord?
    var method = "GET"
    var headers: [String: String] = [:]
    var body: [UInt8] = []
    var headersSeen = false
    var bodyTooLarge = false
    /// For a chunked body: where its region of libmicrohttpd's read buffer starts (right after
    /// the head; see `ChunkSizeLine`), nil once a size line could not be seen.
    var chunkFloor: UnsafePointer<UInt8>?
    /// Bytes of the current chunk still to come (0: the next data starts a chunk).
    var chunkLeft: UInt64 = 0
    /// An answer went out before the body ended (`answerEarly`).
    var answeredEarly = false
    var dispatched = false
    var started: UInt64 = 0
    var requestID = ""
    var response: HTTPResponse?

    init(rawTarget: String, targetBytes: Int, record: ConnectionRecord?) {
        self.rawTarget = rawTarget
        self.targetBytes = targetBytes
        self.record = record
    }
}

import CMicroHTTPD
import Foundation

/// The I/O thread of an `HTTPServer`: runs libmicrohttpd's event processing (`MHD_run`) when
/// its epoll descriptor is ready, and after each event keeps polling (without sleeping) for
/// `spinNanos` before it blocks again.
///
/// Why spin: a thread that blocks in `epoll_wait` is woken by the kernel when the next request
/// arrives, and on a virtual machine that wake-up (leaving the idle state, an inter-processor
/// interrupt, the switch back) costs about 25 µs, as much as a route query. A client that sends
/// requests back to back (a backend quoting one trip after another) finds the thread still
/// polling and skips it. An idle server pays at most `spinNanos` of CPU after its last event,
/// then sleeps as before; with `spinNanos` 0 it never spins. It does not spin while
/// `mayLinger()` is false (the server says so while its workers have requests: then the
/// cores are better left to them, and their hand-backs wake the loop anyway).
///
/// The loop also owns the listening socket: when it is readable it calls `accept` (which takes
/// the new connections and hands them to libmicrohttpd, or answers them 503), and about every
/// `tickNanos` it calls `tick` (deadlines of slow requests, closing rejected sockets).
final class EventLoop: @unchecked Sendable {
    private let daemon: OpaquePointer
    private let spinNanos: UInt64
    private let mayLinger: @Sendable () -> Bool
    private let listenFD: Int32
    /// Takes the waiting connections; false when it could not (no descriptor left): the loop
    /// then leaves the listening socket alone until the next tick.
    private let accept: () -> Bool
    private let tick: () -> Void
    private static let tickNanos: UInt64 = 250_000_000
    private let epollFD: Int32
    /// A pipe `wake()` and `stop()` write to (a byte each), so the loop runs or ends.
    private let wakeFD: Int32
    private let wakeWriteFD: Int32
    private var thread: pthread_t?
    private static let wakeByte: UInt8 = 1, stopByte: UInt8 = 2, quiesceByte: UInt8 = 3

    /// The I/O thread for `daemon` (started without an internal polling thread, with epoll, and
    /// without a listening socket of its own), not running yet (see `start`). Nil when the
    /// daemon has no epoll descriptor.
    init?(daemon: OpaquePointer, listenFD: Int32, spinNanos: UInt64, mayLinger: @escaping @Sendable () -> Bool = { true },
          accept: @escaping () -> Bool, tick: @escaping () -> Void)
    {
        let fd = taxipot_mhd_epoll_fd(daemon)
        guard fd >= 0 else { return nil }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        self.daemon = daemon
        self.listenFD = listenFD
        self.accept = accept
        self.tick = tick
        self.spinNanos = spinNanos
        self.mayLinger = mayLinger
        self.epollFD = fd
        self.wakeFD = ends[0]
        self.wakeWriteFD = ends[1]
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
    }

    /// Starts the thread; false when it cannot start.
    func start() -> Bool {
        let box = Unmanaged.passRetained(self).toOpaque()
        var t = pthread_t()
        let rc = pthread_create(&t, nil, { arg in
            let loop = Unmanaged<EventLoop>.fromOpaque(arg!).takeRetainedValue()
            loop.run()
            return nil
        }, box)
        guard rc == 0 else {
            Unmanaged<EventLoop>.fromOpaque(box).release()
            return false
        }
        thread = t
        return true
    }

    /// Makes the loop run libmicrohttpd again: needed after every `MHD_resume_connection`
    /// (libmicrohttpd 0.9.75 signals only a polling thread of its own, and a resume made
    /// inside `MHD_run` takes effect in the next one). Safe from any thread; never blocks.
    func wake() {
        var b = Self.wakeByte
        _ = write(wakeWriteFD, &b, 1)  // a full pipe (EAGAIN) has a wake-up pending already
    }

    /// Stops taking new connections (open ones are served on). Safe from any thread.
    func quiesce() {
        var b = Self.quiesceByte
        while write(wakeWriteFD, &b, 1) != 1 && errno == EAGAIN { usleep(100) }
    }

    /// Ends the loop and waits for the thread (after which the daemon may be stopped).
    func stop() {
        guard let t = thread else { return }
        thread = nil
        var b = Self.stopByte
        while write(wakeWriteFD, &b, 1) != 1 && errno == EAGAIN { usleep(100) }
        pthread_join(t, nil)
    }

    deinit {
        close(wakeFD)
        close(wakeWriteFD)
    }

    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// When the spin after an event ends: now plus `spinNanos`, or now (no spin).
    private func spinDeadline() -> UInt64 {
        let t = Self.now()
        return spinNanos > 0 && mayLinger() ? t &+ spinNanos : t
    }

    /// Reads every byte waiting in the wake pipe: whether one asks to stop, and one to quiesce.
    private func drainWakePipe() -> (stop: Bool, quiesce: Bool) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { bytes in
            var stopping = false, quiescing = false
            while true {
                let got = read(wakeFD, bytes.baseAddress, bytes.count)
                guard got > 0 else { return (stopping, quiescing) }
                if bytes[0..<got].contains(Self.stopByte) { stopping = true }
                if bytes[0..<got].contains(Self.quiesceByte) { quiescing = true }
            }
        }
    }

    private func run() {
        var fds = [pollfd(fd: epollFD, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)]
        var spinUntil = spinDeadline()
        var nextTick = Self.now() &+ Self.tickNanos
        var accepting = true
        while true {
            var now = Self.now()
            if now >= nextTick {
                tick()
                nextTick = now &+ Self.tickNanos
                if listenFD >= 0 && accepting { fds[2].fd = listenFD }  // resume after a descriptor shortage
            }
            var due: UInt64 = 0
            let hasDue = MHD_get_timeout(daemon, &due) == MHD_Result.YES
            if hasDue && due == 0 {
                // Work libmicrohttpd already holds (data read but not processed, resumed
                // connections, an expired timeout).
                MHD_run(daemon)
                spinUntil = spinDeadline()
                continue
            }
            now = Self.now()
            let spinning = now < spinUntil
            let untilTick = Int32(min(Self.tickNanos, nextTick > now ? nextTick - now : 0) / 1_000_000) + 1
            let timeout: Int32 = spinning ? 0 : (hasDue ? min(Int32(min(due, 60_000)), untilTick) : untilTick)
            let n = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, 3, timeout) }
            if n < 0 {
                if errno == EINTR { continue }
                usleep(1000)  // never observed; do not spin on a persistent error
                continue
            }
            if fds[1].revents != 0 {
                let (stopping, quiescing) = drainWakePipe()
                if stopping { return }
                if quiescing {
                    accepting = false
                    fds[2].fd = -1  // poll ignores negative descriptors
                }
            }
            if fds[2].revents != 0 {
                fds[2].revents = 0
                if !accept() { fds[2].fd = -1 }  // out of descriptors: retried at the next tick
            }
            if n > 0 {
                MHD_run(daemon)
                spinUntil = spinDeadline()
            } else if timeout != 0 {
                MHD_run(daemon)  // a connection timeout fell due
            }
        }
    }
}

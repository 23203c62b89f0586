import CMicroHTTPD
import Foundation

/// The budget of bulk work in flight (see `HandlerCost.bulk`): the cost of every bulk request
/// admitted and not yet answered (waiting for the bulk pool or running) stays within `limit`;
/// past it a request is answered 503 with `Retry-After`. A request costing more than the whole
/// budget is admitted only when nothing else is in flight (it runs alone rather than never).
///
/// It bounds how long an admitted request can wait (the work ahead of it) and, with the bulk
/// pool's threads, the memory bulk work holds at once.
final class BulkBudget: @unchecked Sendable {
    let limit: Int
    private let lock = NSLock()
    private var inFlight = 0
    /// Units finished per second of bulk work, from the requests answered so far (0: none yet).
    private var unitsPerSecond = 0.0

    init(limit: Int) { self.limit = max(1, limit) }

    /// Counts `cost` in flight and returns true, or returns false when it does not fit.
    func admit(_ cost: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard inFlight == 0 || inFlight + cost <= limit else { return false }
        inFlight += cost
        return true
    }

    /// `cost` is answered after `seconds` of work; returns the units still in flight.
    @discardableResult
    func release(_ cost: Int, seconds: Double) -> Int {
        lock.lock()
        defer { lock.unlock() }
        inFlight -= cost
        if seconds > 0 && cost > 0 {
            let rate = Double(cost) / seconds
            unitsPerSecond = unitsPerSecond == 0 ? rate : 0.8 * unitsPerSecond + 0.2 * rate
        }
        return inFlight
    }

    /// Units in flight now.
    var current: Int {
        lock.lock()
        defer { lock.unlock() }
        return inFlight
    }

    /// Seconds until about `cost` units of room are free at the measured rate (1–60; 1 before
    /// any measurement).
    func retryAfterSeconds(for cost: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        guard unitsPerSecond > 0 else { return 1 }
        let excess = Double(max(1, min(inFlight, inFlight + cost - limit)))
        return max(1, min(60, Int((excess / unitsPerSecond).rounded(.up))))
    }
}

/// glibc's allocator, set for a server whose bulk requests allocate tens of megabytes at a time.
///
/// By default glibc raises its mmap threshold after such a buffer is freed (up to 32 MB), so the
/// next ones come from the heap, where freed memory mostly stays resident: a burst of tables
/// left the server at gigabytes. A fixed threshold keeps large buffers in their own mappings,
/// returned to the system when freed; `trim` gives back the free heap once bulk work is done.
enum AllocatorSettings {
    /// Allocations of at least `bytes` get their own mapping (and glibc's dynamic threshold is off).
    static func useMappingsFrom(_ bytes: Int) {
        guard bytes > 0 else { return }
        _ = mallopt(M_MMAP_THRESHOLD, Int32(clamping: bytes))
    }

    /// Returns the free memory of every heap to the system (a few ms on a large heap).
    static func trim() {
        _ = malloc_trim(0)
    }
}

import Foundation

/// The calling thread's CPU time and voluntary context switches (`getrusage(RUSAGE_THREAD)`),
/// to tell a slow handler from one the kernel preempted for another process.
struct ThreadUsage: Equatable {
    /// User plus system CPU time, nanoseconds.
    var cpuNanos: UInt64
    /// Times the thread gave up the CPU by itself (it blocked: a lock, I/O, a sleep).
    var voluntarySwitches: Int

    /// The calling thread's usage now.
    ///
    /// CPU time comes from `CLOCK_THREAD_CPUTIME_ID`, which counts up to the call. Not from
    /// `getrusage`: for a thread that has not left the CPU since the last scheduler tick it
    /// reports the time as of that tick, so a short handler on a thread that never sleeps
    /// (the polling I/O thread) would seem to take 0 or a whole tick (4 ms).
    static func now() -> ThreadUsage {
        var u = rusage()
        // RUSAGE_THREAD (1, Linux): glibc only names it under _GNU_SOURCE, which Swift's Glibc lacks.
        getrusage(__rusage_who_t(1), &u)
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        let cpu = Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
        return ThreadUsage(cpuNanos: UInt64(max(0, cpu)), voluntarySwitches: u.ru_nvcsw)
    }

    /// Whether the work since `start`, which took `wallNanos`, went over `budgetSeconds`: more
    /// CPU time than the budget, or more wall time than the budget while the thread blocked.
    /// Wall time alone does not count: a handler preempted on a busy machine is not slow.
    func isOverBudget(since start: ThreadUsage, wallNanos: UInt64, budgetSeconds: Double) -> Bool {
        let budget = UInt64(max(0, budgetSeconds) * 1e9)
        let cpu = cpuNanos >= start.cpuNanos ? cpuNanos - start.cpuNanos : 0
        if cpu > budget { return true }
        return wallNanos > budget && voluntarySwitches > start.voluntarySwitches
    }
}

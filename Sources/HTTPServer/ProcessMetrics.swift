import Foundation

/// The standard Prometheus process metrics (`process_*`), read from the kernel at scrape time.
public enum ProcessMetrics {
    /// When the process started, for `process_start_time_seconds`.
    private static let startTime = Date().timeIntervalSince1970

    /// Prometheus text: resident memory, open file descriptors, CPU seconds, start time.
    public static func prometheusText() -> String {
        var s = ""
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        s += "# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n"
        s += "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total \(cpu)\n"
        if let rss = residentBytes() {
            s += "# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
            s += "# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes \(rss)\n"
        }
        if let fds = openFileDescriptors() {
            s += "# HELP process_open_fds Number of open file descriptors.\n"
            s += "# TYPE process_open_fds gauge\nprocess_open_fds \(fds)\n"
        }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            s += "# HELP process_max_fds Maximum number of open file descriptors.\n"
            s += "# TYPE process_max_fds gauge\nprocess_max_fds \(limit.rlim_cur)\n"
        }
        s += "# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.\n"
        s += "# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds \(startTime)\n"
        return s
    }

    /// Resident set size from `/proc/self/statm` (pages × page size).
    static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Entries of `/proc/self/fd`, less the one the listing itself opens.
    static func openFileDescriptors() -> Int? {
        guard let dir = opendir("/proc/self/fd") else { return nil }
        defer { closedir(dir) }
        var n = 0
        while let e = readdir(dir) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if name != "." && name != ".." { n += 1 }
        }
        return n - 1
    }
}

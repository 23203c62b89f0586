import Foundation

/// The process's limit on open descriptors (`RLIMIT_NOFILE`), which bounds how many connections
/// the server can hold.
public enum OpenFileLimit {
    /// Raises the soft limit to the hard limit (the most an unprivileged process may ask for)
    /// and returns the soft limit in force afterwards.
    @discardableResult
    public static func raise() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: min(limit.rlim_cur, rlim_t(Int32.max)))
    }

    /// Descriptors kept out of the connection limit: files (graph, places and party stores and
    /// their journals), the listening socket, epoll, pipes, standard streams.
    public static let reservedForFiles = 128
}

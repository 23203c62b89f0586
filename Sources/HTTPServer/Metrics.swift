import Foundation

/// Request counters and latency histograms, written as Prometheus text.
///
/// Keys are the route pattern (not the raw path), so the series stay few.
public final class ServerMetrics: @unchecked Sendable {
    /// Histogram bucket upper bounds in seconds.
    public static let buckets: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5]

    private struct Histogram {
        var counts = [UInt64](repeating: 0, count: ServerMetrics.buckets.count)
        var sum = 0.0
        var count: UInt64 = 0
    }

    private let lock = NSLock()
    private var requests: [String: [Int: UInt64]] = [:]  // route → status → count
    private var latency: [String: Histogram] = [:]
    private var inFlight = 0
    private var rejected: UInt64 = 0

    public init() {}

    func begin() {
        lock.lock(); inFlight += 1; lock.unlock()
    }

    /// Records the answer to a request `begin` counted: one count, under its status (a 503 for
    /// load also counts in `taxipot_http_rejected_overload_total`).
    func end(route: String, status: Int, seconds: Double, rejectedForLoad: Bool = false) {
        lock.lock()
        defer { lock.unlock() }
        inFlight -= 1
        record(route: route, status: status, seconds: seconds, rejectedForLoad: rejectedForLoad)
    }

    /// Records a request answered without reaching a handler (413, 414, 503 …).
    func record(route: String, status: Int, seconds: Double, rejectedForLoad: Bool = false) {
        requests[route, default: [:]][status, default: 0] += 1
        var h = latency[route] ?? Histogram()
        for (i, b) in Self.buckets.enumerated() where seconds <= b { h.counts[i] += 1 }
        h.sum += seconds
        h.count += 1
        latency[route] = h
        if rejectedForLoad { rejected += 1 }
    }

    func recordLocked(route: String, status: Int, seconds: Double, rejectedForLoad: Bool = false) {
        lock.lock()
        defer { lock.unlock() }
        record(route: route, status: status, seconds: seconds, rejectedForLoad: rejectedForLoad)
    }

    /// Requests being handled right now.
    public var currentInFlight: Int {
        lock.lock(); defer { lock.unlock() }
        return inFlight
    }

    /// The Prometheus text exposition of every series.
    public func prometheusText() -> String {
        lock.lock()
        defer { lock.unlock() }
        var s = "# HELP taxipot_http_requests_total HTTP requests by route pattern and status.\n"
        s += "# TYPE taxipot_http_requests_total counter\n"
        for route in requests.keys.sorted() {
            for (status, n) in requests[route]!.sorted(by: { $0.key < $1.key }) {
                s += "taxipot_http_requests_total{route=\"\(escape(route))\",status=\"\(status)\"} \(n)\n"
            }
        }
        s += "# HELP taxipot_http_request_duration_seconds Time from a complete request to its answer.\n"
        s += "# TYPE taxipot_http_request_duration_seconds histogram\n"
        for route in latency.keys.sorted() {
            let h = latency[route]!
            let r = escape(route)
            for (i, b) in Self.buckets.enumerated() {
                s += "taxipot_http_request_duration_seconds_bucket{route=\"\(r)\",le=\"\(b)\"} \(h.counts[i])\n"
            }
            s += "taxipot_http_request_duration_seconds_bucket{route=\"\(r)\",le=\"+Inf\"} \(h.count)\n"
            s += "taxipot_http_request_duration_seconds_sum{route=\"\(r)\"} \(h.sum)\n"
            s += "taxipot_http_request_duration_seconds_count{route=\"\(r)\"} \(h.count)\n"
        }
        s += "# HELP taxipot_http_in_flight Requests being handled now.\n# TYPE taxipot_http_in_flight gauge\n"
        s += "taxipot_http_in_flight \(inFlight)\n"
        s += "# HELP taxipot_http_rejected_overload_total Requests and connections answered 503 because a queue, the table cell budget or the connection limit was full.\n"
        s += "# TYPE taxipot_http_rejected_overload_total counter\n"
        s += "taxipot_http_rejected_overload_total \(rejected)\n"
        return s
    }

    private func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}

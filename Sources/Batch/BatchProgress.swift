#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a run stands, as the progress display sees it.
public struct BatchProgressSnapshot: Sendable, Equatable {
    /// Rows written so far.
    public var rows: Int
    public var rowsFailed: Int
    /// Seconds since the run started.
    public var elapsed: Double
    /// Input bytes behind the rows written.
    public var inputBytesDone: Int64
    /// The input size when known (a regular file).
    public var inputBytesTotal: Int64?
    /// True for the last snapshot of the run.
    public var final: Bool

    public var rowsPerSecond: Double { elapsed > 0 ? Double(rows) / elapsed : 0 }

    /// The share of the input done, 0–1, when the input size is known.
    public var fractionDone: Double? {
        guard let total = inputBytesTotal, total > 0 else { return nil }
        return min(1, Double(inputBytesDone) / Double(total))
    }

    /// Seconds left, extrapolated from the share of the input done so far.
    public var etaSeconds: Double? {
        guard let f = fractionDone, f > 0.001, elapsed > 0 else { return nil }
        return elapsed * (1 - f) / f
    }
}

/// Shows progress on standard error: a live bar on a terminal, plain lines otherwise.
public final class BatchProgressDisplay {
    /// How progress is shown.
    public enum Style: Sendable, Equatable {
        /// A bar redrawn in place (for a terminal).
        case bar
        /// A line every `interval` seconds (for logs and pipes).
        case lines(interval: Double)
        /// Nothing.
        case none
    }

    public let style: Style
    private let fd: Int32
    private var lastLine = -Double.infinity
    private var drewBar = false

    /// `style` nil picks `.bar` when `fd` is a terminal, else lines every 5 seconds.
    public init(style: Style? = nil, fileDescriptor fd: Int32 = 2) {
        self.fd = fd
        self.style = style ?? (isatty(fd) == 1 ? .bar : .lines(interval: 5))
    }

    /// Shows `s` if the style calls for it now.
    public func show(_ s: BatchProgressSnapshot) {
        switch style {
        case .none:
            return
        case .bar:
            var text = "\r" + Self.barLine(s) + "\u{1B}[K"
            if s.final { text += "\n" }
            emit(text)
            drewBar = true
        case .lines(let interval):
            guard !s.final, s.elapsed - lastLine >= interval else { return }
            lastLine = s.elapsed
            emit("batch: " + Self.statusText(s) + "\n")
        }
    }

    /// `[#########...........]  45%  450,000 rows  23,400 rows/s  ETA 0:23`.
    static func barLine(_ s: BatchProgressSnapshot) -> String {
        let width = 24
        var line = ""
        if let f = s.fractionDone {
            let filled = Int((f * Double(width)).rounded(.down))
            line += "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] "
        }
        return line + statusText(s)
    }

    /// `450,000 rows (12 failed), 23,400 rows/s, 45%, ETA 0:23`.
    static func statusText(_ s: BatchProgressSnapshot) -> String {
        var parts = ["\(BatchSummary.grouped(s.rows)) rows" + (s.rowsFailed > 0 ? " (\(BatchSummary.grouped(s.rowsFailed)) failed)" : ""),
                     "\(BatchSummary.grouped(Int(s.rowsPerSecond.rounded()))) rows/s"]
        if let f = s.fractionDone { parts.append("\(Int((f * 100).rounded(.down)))%") }
        if s.final {
            parts.append("done in \(BatchSummary.duration(s.elapsed))")
        } else if let eta = s.etaSeconds {
            parts.append("ETA \(clock(eta))")
        }
        return parts.joined(separator: ", ")
    }

    /// Seconds as `m:ss` or `h:mm:ss`.
    static func clock(_ seconds: Double) -> String {
        let t = Int(seconds.rounded())
        func p2(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return t >= 3600 ? "\(t / 3600):\(p2(t % 3600 / 60)):\(p2(t % 60))" : "\(t / 60):\(p2(t % 60))"
    }

    private func emit(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { raw in
            var off = 0
            while off < raw.count {
                let n = write(fd, raw.baseAddress! + off, raw.count - off)
                if n > 0 { off += n } else if n < 0 && errno == EINTR { continue } else { return }
            }
        }
    }
}

/// How many rows failed with one error code, and the first line that did.
public struct FailureCount: Sendable, Equatable {
    public var count: Int
    public var firstLine: Int
}

/// The outcome of a batch run.
public struct BatchSummary: Sendable {
    public var workers: Int
    /// Rows estimated.
    public var rowsOK = 0
    /// Rows written with an error.
    public var rowsFailed = 0
    /// Failed rows by error code.
    public var failures: [RowErrorCode: FailureCount] = [:]
    public var elapsedSeconds = 0.0
    /// Bytes of the input file behind the rows written so far.
    public var inputBytesDone: Int64 = 0
    /// Why reading stopped before the end of the input (the rows before it were written).
    public var inputError: String?
    /// The input line `inputError` names, when it names one.
    public var inputErrorLine: Int?
    /// The most rows read but not yet written at any moment (the memory high-water mark).
    public var peakBufferedRows = 0
    /// The most input bytes read but not yet written at any moment.
    public var peakBufferedBytes = 0
    /// The most chunks read but not yet written at any moment.
    public var peakChunksInFlight = 0

    public init(workers: Int) { self.workers = workers }

    /// All rows written.
    public var rows: Int { rowsOK + rowsFailed }

    public var rowsPerSecond: Double { elapsedSeconds > 0 ? Double(rows) / elapsedSeconds : 0 }

    /// 1 when the input could not be read to the end, 2 when some rows failed, else 0.
    public var exitCode: Int32 {
        if inputError != nil { return 1 }
        return rowsFailed > 0 ? 2 : 0
    }

    mutating func add(_ out: ChunkOutput) {
        rowsOK += out.okRows
        rowsFailed += out.failures.count
        for f in out.failures {
            if var c = failures[f.code] {
                c.count += 1
                failures[f.code] = c
            } else {
                failures[f.code] = FailureCount(count: 1, firstLine: f.line)
            }
        }
        inputBytesDone = max(inputBytesDone, out.inputOffset)
    }

    /// The final report for standard error.
    public var report: String {
        var s = "batch: \(Self.grouped(rows)) rows in \(Self.duration(elapsedSeconds)) "
        s += "(\(Self.grouped(Int(rowsPerSecond.rounded()))) rows/s, \(workers) worker\(workers == 1 ? "" : "s"))\n"
        s += "  ok:     \(Self.grouped(rowsOK))\n"
        s += "  failed: \(Self.grouped(rowsFailed))\n"
        for (code, c) in failures.sorted(by: { $0.value.count != $1.value.count ? $0.value.count > $1.value.count : $0.key < $1.key }) {
            s += "    \(code.rawValue): \(Self.grouped(c.count)) (first at line \(c.firstLine))\n"
        }
        if let inputError { s += "  stopped: \(inputError)\n" }
        return s
    }

    /// `1234567` → `1,234,567`.
    static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, ch) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return n < 0 ? "-" + out : out
    }

    /// Seconds as `4.2 s`, `3 min 05 s` or `1 h 02 min`.
    static func duration(_ seconds: Double) -> String {
        if seconds < 60 { return String(format1: seconds) + " s" }
        let t = Int(seconds.rounded())
        if t < 3600 { return "\(t / 60) min \(t % 60 < 10 ? "0" : "")\(t % 60) s" }
        let m = t % 3600 / 60
        return "\(t / 3600) h \(m < 10 ? "0" : "")\(m) min"
    }
}

extension String {
    /// A number with one decimal.
    init(format1 v: Double) {
        let tenths = Int((v * 10).rounded())
        self = "\(tenths / 10).\(abs(tenths % 10))"
    }
}

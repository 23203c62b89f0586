import Foundation
import JSON
import TaxiPot

/// Monotonic nanoseconds.
func nowNanos() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Seconds that `body` takes.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let t0 = nowNanos()
    try body()
    return Double(nowNanos() - t0) / 1e9
}

/// Summary statistics of the samples of one measured figure.
struct Stats {
    let samples: [Double]
    var median: Double {
        let s = samples.sorted()
        guard !s.isEmpty else { return .nan }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
    var min: Double { samples.min() ?? .nan }
    var max: Double { samples.max() ?? .nan }
}

/// Nearest-rank percentile (`p` in 0...100) of non-empty `values`, as the Python peers compute it.
func percentile(_ values: [Double], _ p: Double) -> Double {
    let s = values.sorted()
    guard !s.isEmpty else { return .nan }
    let k = Int((p / 100 * Double(s.count - 1)).rounded())
    return s[Swift.max(0, Swift.min(s.count - 1, k))]
}

/// One measured figure of our side, in the record format the peers print (see tools/bench/benchlib.py).
struct BenchRecord {
    var key: String
    var impl: String
    var metric: String
    var unit: String
    /// "higher" or "lower".
    var better: String
    var samples: [Double]
    /// Items per run.
    var n: Int
    var conditions: String
    /// Failed items over the timed runs (errors, non-2xx answers, non-finite outputs): a target
    /// requires none (tools/bench/report.py judges a record with errors as missed).
    var errors = 0
    /// The cores the figure used, when it says (the report names a difference from the peer's).
    var cores: Int? = nil
    var extra: [(String, JSONValue)] = []

    var json: JSONValue {
        let st = Stats(samples: samples)
        var members: [(String, JSONValue)] = [
            ("key", .string(key)), ("side", "ours"), ("impl", .string(impl)), ("metric", .string(metric)),
            ("unit", .string(unit)), ("better", .string(better)), ("median", .number(st.median)),
            ("min", .number(st.min)), ("max", .number(st.max)), ("runs", JSONValue(samples.count)),
            ("n", JSONValue(n)), ("errors", JSONValue(errors)), ("conditions", .string(conditions)),
        ]
        if let cores { members.append(("cores", JSONValue(cores))) }
        members += extra
        return .object(members)
    }
}

/// Where inputs and outputs are, how hard to try, and the collected records.
final class BenchContext {
    let root: String
    let dataDir: String
    let outDir: String
    let quick: Bool
    var records: [BenchRecord] = []
    var notes: [String] = []

    init(root: String, dataDir: String, outDir: String, quick: Bool) {
        self.root = root
        self.dataDir = dataDir
        self.outDir = outDir
        self.quick = quick
    }

    var inputsDir: String { outDir + "/inputs" }
    func input(_ name: String) -> String { inputsDir + "/" + name }
    func output(_ name: String) -> String { outDir + "/" + name }

    /// Timed runs per figure (warm-ups excluded): at least 5.
    var runs: Int { 5 }

    func add(_ r: BenchRecord) {
        records.append(r)
        let st = Stats(samples: r.samples)
        log(String(format: "%@ %@: median %.4g %@ (min %.4g, max %.4g, %d runs, N=%d)",
                   r.key, r.metric, st.median, r.unit, st.min, st.max, r.samples.count, r.n))
    }

    func note(_ s: String) {
        notes.append(s)
        log("note: " + s)
    }
}

/// A line on stderr (stdout carries the JSON).
func log(_ s: String) {
    FileHandle.standardError.write(Data(("[taxipot-bench] " + s + "\n").utf8))
}

/// Errors of the harness itself (missing inputs), with the file named.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// Interleaved little-endian float64 lon,lat pairs written by tools/bench/inputs.py.
func readPairs(_ path: String) throws -> (xs: [Double], ys: [Double]) {
    guard let data = FileManager.default.contents(atPath: path) else { throw BenchError("cannot read \(path): run tools/bench/inputs.py") }
    let count = data.count / 16
    var xs = [Double](repeating: 0, count: count), ys = [Double](repeating: 0, count: count)
    data.withUnsafeBytes { raw in
        for i in 0..<count {
            xs[i] = Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 16 * i, as: UInt64.self)))
            ys[i] = Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 16 * i + 8, as: UInt64.self)))
        }
    }
    return (xs, ys)
}

/// The data rows of a simple CSV file (no quoting) written by the harness, header dropped.
func readSimpleCSV(_ path: String) throws -> [[Substring]] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw BenchError("cannot read \(path)") }
    return text.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
}

/// Route pairs from bench-out/inputs/route_pairs.csv.
func readRoutePairs(_ ctx: BenchContext) throws -> [(Coordinate, Coordinate)] {
    try readSimpleCSV(ctx.input("route_pairs.csv")).compactMap { f in
        guard f.count == 4, let a = Double(f[0]), let b = Double(f[1]), let c = Double(f[2]), let d = Double(f[3]) else { return nil }
        return (Coordinate(lon: a, lat: b), Coordinate(lon: c, lat: d))
    }
}

/// The latencies of one pass, in µs: a failed call is counted, never inside a percentile (a call
/// that fails early would pull the percentile down and flatter the figure).
struct PassLatencies {
    private(set) var succeeded: [Double] = []
    private(set) var failures = 0

    mutating func add(_ micros: Double, ok: Bool) {
        if ok { succeeded.append(micros) } else { failures += 1 }
    }

    /// Nearest-rank percentile of the successful calls; NaN when none succeeded (not measured).
    func percentile(_ p: Double) -> Double { TaxiPotBench.percentile(succeeded, p) }
}

/// Per-round p50 and p99 (µs) of the successful calls, and the failed calls over all rounds.
struct LatencyRounds {
    var p50: [Double] = []
    var p99: [Double] = []
    var failures = 0
}

/// Latency rounds over `items`: per round the p50 and p99 in µs of the calls of `body` that
/// succeeded (returned true); failed calls are counted (`failures`, over all rounds) and left out
/// of every percentile. `warmup` runs first, untimed: give it other inputs than `items` (the timed
/// set is never what the warm-up saw, so no answer kept by a warm-up is timed). `sample` gets each
/// timed call's µs, outside the timed part.
func latencyRounds<T>(_ items: [T], rounds: Int, warmup: [T] = [], sample: ((Double) -> Void)? = nil,
                      _ body: (T) -> Bool) -> LatencyRounds {
    for item in warmup { _ = body(item) }
    var out = LatencyRounds()
    for _ in 0..<rounds {
        var pass = PassLatencies()
        for item in items {
            let t0 = nowNanos()
            let ok = body(item)
            let us = Double(nowNanos() - t0) / 1000
            pass.add(us, ok: ok)
            sample?(us)
        }
        out.p50.append(pass.percentile(50))
        out.p99.append(pass.percentile(99))
        out.failures += pass.failures
    }
    return out
}

import CSV
import Foundation
import Geo

/// How a batch run is carried out.
public struct BatchOptions: Sendable {
    /// Worker threads estimating rows (the core count by default).
    public var workers: Int
    /// Rows per unit of work.
    public var chunkRows: Int
    /// Input bytes at which a chunk closes early (long rows).
    public var chunkBytes: Int
    /// Chunks read but not yet written, at most; bounds memory whatever the input size.
    public var maxChunksInFlight: Int
    /// The largest input record accepted, in bytes.
    public var maxRecordBytes: Int
    /// The departure for rows without `depart_at` (the run's start by default).
    public var defaultDepartAt: Double
    /// Write a UTF-8 byte-order mark before the output header.
    public var writeByteOrderMark: Bool?
    /// End output lines with CRLF (nil: as the input's header line does).
    public var crlf: Bool?
    /// Add the columns `estimated, fare_low_krw, fare_high_krw` before `error` (`--estimate`).
    public var estimateColumns = false
    /// Add, for each trip end read from place text, the place taken (`origin_place`,
    /// `origin_place_lon`, `origin_place_lat`, `dest_place` …) before `error` (`--place-columns`).
    public var placeColumns = false
    /// CSV (default) or JSON Lines (one object per row, no header line).
    public var format = BatchOutputFormat.csv
    /// The input's field separator (a comma by default); the output is always comma-separated.
    public var delimiter: UInt8 = 0x2C
    /// End each row with `row_check`, a checksum of the row's bytes before it
    /// (`OutputLayout.rowCheck`), so `--resume` can tell a kept row from a damaged one.
    public var rowCheck = false

    public init(workers: Int = ProcessInfo.processInfo.activeProcessorCount, chunkRows: Int = 256,
                chunkBytes: Int = 1 << 20, maxChunksInFlight: Int? = nil, maxRecordBytes: Int = 1 << 20,
                defaultDepartAt: Double = SeoulTime.now(), writeByteOrderMark: Bool? = nil, crlf: Bool? = nil)
    {
        self.workers = max(1, workers)
        self.chunkRows = max(1, chunkRows)
        self.chunkBytes = max(1, chunkBytes)
        self.maxChunksInFlight = maxChunksInFlight ?? max(4, 4 * max(1, workers))
        self.maxRecordBytes = maxRecordBytes
        self.defaultDepartAt = defaultDepartAt
        self.writeByteOrderMark = writeByteOrderMark
        self.crlf = crlf
    }
}

/// The shape of a batch output.
public enum BatchOutputFormat: String, Sendable, CaseIterable {
    /// RFC 4180 CSV with a header line: the input columns, then the result columns.
    case csv
    /// JSON Lines: one object per row, keys as the CSV header's; numbers as numbers, empty as null.
    case jsonl
}

/// Estimates fares for every row of a CSV input, in parallel, writing rows in input order.
///
/// Construction reads and checks the header (so a file missing required columns fails before
/// any work); `run` then streams: one reader thread parses rows into chunks, `workers` threads
/// estimate them, and the calling thread writes finished chunks in input order. At most
/// `maxChunksInFlight` chunks are held at any time, so memory does not grow with the input.
public final class BatchRunner {
    /// The header's column layout.
    public let schema: BatchSchema
    public let options: BatchOptions
    /// False when the input has no header line (`columns` given): the output has none either,
    /// so the outputs of consecutive pieces of one input concatenate (Spark's `RDD.pipe`); and
    /// when a resumed run continues an output that has its header (`resume(after:)`).
    public private(set) var writesHeader: Bool
    private let reader: CSVReader
    /// An input record read by `resume(after:)` for a row the earlier run had not finished:
    /// the first one `run` estimates.
    private var unfinished: CSVRecord?

    /// Reads the header from `source` (already UTF-8; see `InputEncoding.decoding`).
    /// Throws `BatchError` for an empty input, an unreadable header or missing columns.
    ///
    /// With `columns`, the input has no header line: every line is a row and `columns` names its
    /// fields in order (checked like a header). An empty input is then no error: it has no rows.
    ///
    /// `chosenColumns` maps a known column's English name to the header that holds it
    /// (`--origin-lon-col` …).
    public init(source: ByteSource, options: BatchOptions = BatchOptions(), convertedEncoding: Bool = false,
                columns: [String]? = nil, chosenColumns: [String: String] = [:]) throws
    {
        self.options = options
        reader = CSVReader(source: source, maxRecordBytes: options.maxRecordBytes,
                           replacementMarksInvalid: convertedEncoding, delimiter: options.delimiter)
        if let columns {
            writesHeader = false
            schema = try BatchSchema(header: columns, chosen: chosenColumns)
            return
        }
        writesHeader = options.format == .csv
        let header: CSVRecord
        do {
            guard let h = try reader.next() else { throw BatchError("the input is empty: it has no header row") }
            if let limit = h.exceededLimit { throw BatchError("line \(h.line): the header is longer than \(limit) bytes (the limit for one record)") }
            header = h
        } catch let e as CSVError {
            throw BatchError("cannot read the header: \(e)")
        } catch let e as ByteStreamError {
            throw BatchError(e.message)
        }
        do {
            schema = try BatchSchema(header: header.fields, chosen: chosenColumns)
        } catch let e as BatchError {
            // Columns not found in a header that is not text: the encoding is the problem to report.
            guard let i = header.firstInvalidField else { throw e }
            throw BatchError("line \(header.line), column \(i + 1): the header holds bytes that are not text in the input's encoding "
                + "(\(convertedEncoding ? "CP949" : "UTF-8")), so its columns cannot be found: pass --encoding with the file's encoding, "
                + "or save it again as UTF-8")
        }
    }

    /// The output header (CSV) or the keys of each object (JSON Lines).
    public var outputColumns: [String] {
        schema.outputColumns(withEstimates: options.estimateColumns, withPlaces: options.placeColumns)
            + (options.rowCheck ? [BatchSchema.rowCheckColumn] : [])
    }

    var layout: OutputLayout { OutputLayout(format: options.format, columns: outputColumns, inputCount: schema.inputColumns.count) }

    /// The line end of output rows: as the option says, else as the input's first line.
    private var lineEnd: [UInt8] { CSVWriter(crlf: options.crlf ?? reader.usesCRLF).lineEnd }

    /// The header line as `run` writes it (with the byte-order mark when it writes one).
    private var headerBytes: [UInt8] {
        var head: [UInt8] = (options.writeByteOrderMark ?? reader.hadByteOrderMark) ? [0xEF, 0xBB, 0xBF] : []
        CSVWriter(crlf: options.crlf ?? reader.usesCRLF).appendRecord(outputColumns, to: &head)
        return head
    }

    /// Continues an interrupted run whose output so far is `existing` (`--resume`): call before
    /// `run`, then append what `run` writes after the first `keptBytes` of the file.
    ///
    /// Every complete row of `existing` must be what this run writes for the input row at its
    /// place (its input columns those of that row, its results parsing as this run's, the same
    /// line ends), and the output no longer than the input; the input rows it holds are read
    /// here and skipped. A last row cut short is the one the run was writing: it is dropped and
    /// estimated again. Throws `BatchError` naming the output's line otherwise, and changes nothing.
    public func resume(after existing: [UInt8]) throws -> BatchResume {
        let found = try ResumeCheck(bytes: existing, layout: layout, header: writesHeader ? { self.headerBytes } : nil,
                                    lineEnd: { self.lineEnd }, nextInput: { try self.reader.next() }).scan()
        unfinished = found.unfinished
        if found.resume.keptBytes > 0 { writesHeader = false }
        return found.resume
    }

    /// Processes every row with `estimator`, writing the output CSV to `sink`.
    ///
    /// `progress`, when given, is called on the calling thread about every `progressInterval`
    /// seconds and once at the end. Returns the summary; a read error that stops the input
    /// part-way is in `summary.inputError` (the rows before it are written). Throws only when
    /// the output cannot be written.
    public func run(estimator: any TripEstimator, sink: ByteSink, progressInterval: Double = 0.25,
                    progress: ((BatchProgressSnapshot) -> Void)? = nil) throws -> BatchSummary
    {
        let start = ContinuousClock.now
        let writer = CSVWriter(crlf: options.crlf ?? reader.usesCRLF)
        if writesHeader { try sink.write(headerBytes) }

        let pipeline = ChunkPipeline(maxChunksInFlight: options.maxChunksInFlight)
        let readerThread = DispatchGroup()
        let workerThreads = DispatchGroup()
        let readJob = ReadJob(reader: reader, first: unfinished, pipeline: pipeline, options: options)
        unfinished = nil
        let rowJob = RowJob(parser: RowParser(schema: schema, defaultDepartAt: options.defaultDepartAt),
                            estimator: estimator, writer: writer, schema: schema, options: options, layout: layout)
        startThread("batch-reader", readerThread) { readJob.run() }
        for i in 0..<options.workers {
            startThread("batch-worker-\(i)", workerThreads) { rowJob.run(pipeline) }
        }

        var summary = BatchSummary(workers: options.workers)
        let totalBytes = reader.totalInputBytes
        var lastReport = ContinuousClock.now
        func snapshot(final: Bool) -> BatchProgressSnapshot {
            BatchProgressSnapshot(rows: summary.rowsOK + summary.rowsFailed, rowsFailed: summary.rowsFailed,
                                  elapsed: Self.seconds(ContinuousClock.now - start),
                                  inputBytesDone: summary.inputBytesDone, inputBytesTotal: totalBytes, final: final)
        }
        var sequence = 0
        do {
            loop: while true {
                switch pipeline.output(sequence, waitingUntil: Date(timeIntervalSinceNow: progressInterval)) {
                case .end:
                    break loop
                case .waiting:
                    break
                case .chunk(let out):
                    try sink.write(out.bytes)
                    summary.add(out)
                    pipeline.release(out)
                    sequence += 1
                }
                if let progress, Self.seconds(ContinuousClock.now - lastReport) >= progressInterval {
                    lastReport = ContinuousClock.now
                    progress(snapshot(final: false))
                }
            }
            try sink.flush()
        } catch {
            // The output failed: stop. The reader is not waited for (it may be blocked reading
            // a pipe); it stops at its next chunk.
            pipeline.cancel()
            workerThreads.wait()
            throw error
        }
        readerThread.wait()
        workerThreads.wait()
        summary.inputError = readJob.error
        summary.inputErrorLine = readJob.errorLine
        summary.elapsedSeconds = Self.seconds(ContinuousClock.now - start)
        summary.peakBufferedRows = pipeline.peakBufferedRows
        summary.peakBufferedBytes = pipeline.peakBufferedBytes
        summary.peakChunksInFlight = pipeline.peakChunksInFlight
        progress?(snapshot(final: true))
        return summary
    }

    private func startThread(_ name: String, _ group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        let thread = Thread {
            body()
            group.leave()
        }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }
}

/// The reader thread: parses records into chunks and submits them.
private final class ReadJob: @unchecked Sendable {
    let reader: CSVReader
    /// A record read before the run (`BatchRunner.resume(after:)`), estimated first.
    let first: CSVRecord?
    let pipeline: ChunkPipeline
    let options: BatchOptions
    /// Why reading stopped before the end of the input, if it did.
    private(set) var error: String?
    /// The line `error` names, when it names one.
    private(set) var errorLine: Int?

    init(reader: CSVReader, first: CSVRecord?, pipeline: ChunkPipeline, options: BatchOptions) {
        self.reader = reader
        self.first = first
        self.pipeline = pipeline
        self.options = options
    }

    func run() {
        var sequence = 0
        var records: [CSVRecord] = []
        var bytes = 0
        records.reserveCapacity(options.chunkRows)
        defer { pipeline.closeInput() }
        func submit() -> Bool {
            let chunk = RowChunk(sequence: sequence, records: records, byteCount: bytes, inputOffset: reader.bytesConsumed)
            sequence += 1
            records = []
            records.reserveCapacity(options.chunkRows)
            bytes = 0
            return pipeline.submit(chunk)
        }
        var first = self.first
        func next() throws -> CSVRecord? {
            if let f = first { first = nil; return f }
            return try reader.next()
        }
        do {
            while let record = try next() {
                records.append(record)
                bytes += record.byteCount
                if records.count >= options.chunkRows || bytes >= options.chunkBytes {
                    guard submit() else { return }
                }
            }
        } catch {
            self.error = "\(error)"
            errorLine = (error as? CSVError)?.line
        }
        if !records.isEmpty { _ = submit() }
    }
}

/// The workers' job: parse, estimate and format the rows of a chunk.
private final class RowJob: Sendable {
    let parser: RowParser
    let estimator: any TripEstimator
    let writer: CSVWriter
    let layout: OutputLayout
    let columnCount: Int
    let estimateColumns: Bool
    let placeColumns: (origin: Bool, destination: Bool)?
    /// The result columns' count (all but the error columns), empty on a failed row.
    let resultCount: Int

    init(parser: RowParser, estimator: any TripEstimator, writer: CSVWriter, schema: BatchSchema, options: BatchOptions,
         layout: OutputLayout)
    {
        self.parser = parser
        self.estimator = estimator
        self.writer = writer
        self.layout = layout
        columnCount = schema.inputColumns.count
        estimateColumns = options.estimateColumns
        placeColumns = options.placeColumns ? (schema.originPlace != nil, schema.destinationPlace != nil) : nil
        resultCount = layout.columns.count - columnCount - BatchSchema.errorColumns.count - (layout.rowCheck ? 1 : 0)
    }

    func run(_ pipeline: ChunkPipeline) {
        while let chunk = pipeline.take() {
            pipeline.complete(process(chunk))
        }
    }

    func process(_ chunk: RowChunk) -> ChunkOutput {
        var out: [UInt8] = []
        out.reserveCapacity(chunk.byteCount + chunk.records.count * 64)
        var ok = 0
        var failures: [(code: RowErrorCode, line: Int)] = []
        var results: [String] = []
        for record in chunk.records {
            let result = parser.parse(record).flatMap { estimator.estimate($0) }
            let errorFields: [String]
            results.removeAll(keepingCapacity: true)
            switch result {
            case .success(let estimate):
                ok += 1
                results += estimate.columns
                if estimateColumns { results += estimate.estimateColumns }
                if let p = placeColumns { results += estimate.placeColumns(origin: p.origin, destination: p.destination) }
                errorFields = ["", "", ""]
            case .failure(var error):
                failures.append((error.code, record.line))
                if record.fields.count > columnCount {
                    // Keep the extra fields in the message rather than lose them.
                    let extras = record.fields[columnCount...]
                    let extra = extras.prefix(5).map { "'\(RowParser.excerpt($0))'" }.joined(separator: ", ")
                    error.message += "; extra fields: \(extra)" + (extras.count > 5 ? ", … (\(extras.count) in all)" : "")
                }
                results += repeatElement("", count: resultCount)
                errorFields = [error.code.rawValue, error.message, error.description]
            }
            switch layout.format {
            case .csv: appendCSV(record, results, errorFields, to: &out)
            case .jsonl: appendJSON(record, results, errorFields, to: &out)
            }
        }
        return ChunkOutput(sequence: chunk.sequence, rows: chunk.records.count, byteCount: chunk.byteCount,
                           inputOffset: chunk.inputOffset, bytes: out, okRows: ok, failures: failures)
    }

    /// The input fields (`OutputLayout.appendInput`), the results, the error columns, the row check.
    private func appendCSV(_ record: CSVRecord, _ results: [String], _ errorFields: [String], to out: inout [UInt8]) {
        let start = out.count
        layout.appendInput(record, to: &out)
        for (i, c) in (results + errorFields).enumerated() {
            if i > 0 { out.append(0x2C) }
            CSVWriter.appendField(c, to: &out)
        }
        if layout.rowCheck {
            out.append(0x2C)
            out.append(contentsOf: OutputLayout.rowCheck(out[start...]))
        }
        out.append(contentsOf: writer.lineEnd)
    }

    /// One JSON object: input fields as strings, numeric results as numbers, empty results as null.
    private func appendJSON(_ record: CSVRecord, _ results: [String], _ errorFields: [String], to out: inout [UInt8]) {
        let start = out.count
        layout.appendInput(record, to: &out)
        var k = columnCount
        func value(_ text: String) {
            out.append(contentsOf: layout.jsonKeys[k])
            if text.isEmpty {
                out.append(contentsOf: "null".utf8)
            } else if layout.numeric[k] || text == "true" || text == "false" {
                out.append(contentsOf: text.utf8)
            } else {
                JSONLine.appendString(text, to: &out)
            }
            k += 1
        }
        for (i, c) in (results + errorFields).enumerated() {
            if i > 0 { out.append(0x2C) }
            value(c)
        }
        if layout.rowCheck {
            out.append(0x2C)
            out.append(contentsOf: layout.jsonKeys[k])
            let check = OutputLayout.rowCheck(out[start...])
            out.append(0x22)
            out.append(contentsOf: check)
            out.append(0x22)
        }
        out.append(0x7D)
        out.append(0x0A)
    }
}

/// JSON text for batch's JSON Lines output.
enum JSONLine {
    /// Appends `text` as a JSON string (quotes, backslashes and control characters escaped).
    static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(0x22)
        for b in text.utf8 {
            switch b {
            case 0x22: out.append(contentsOf: [0x5C, 0x22])
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
            case 0x0D: out.append(contentsOf: [0x5C, 0x72])
            case 0x09: out.append(contentsOf: [0x5C, 0x74])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 15)]])
            default: out.append(b)
            }
        }
        out.append(0x22)
    }
}

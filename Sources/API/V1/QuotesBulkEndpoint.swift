import Batch
import CSV
import Foundation
import Geo
import HTTPServer
import JSON

/// `POST /v1/quotes`: many trips in one request, priced by the batch engine (`BatchRunner` with
/// `QuoteTripEstimator`, as `taxipot batch`), so a service needs no subprocess. The body is CSV
/// with the batch columns (`text/csv`, a header line; Korean headers as batch reads them) or
/// NDJSON (`application/x-ndjson`, one object per line with the batch columns as members). The
/// answer is batch's JSON Lines, one object per trip in input order: the input columns, the
/// results, `error_code`, `error_message`, `error` (null on success). A broken row (a bad value,
/// a line that is not a JSON object) answers its own error and the rest go on.
///
/// The answer streams (chunked): rows go out as batch finishes them, chunk by chunk in input
/// order, so the first arrive while the last are computed and memory is bounded whatever the
/// answer's length: the body (at most 1 MiB, 413 beyond), batch's chunks in flight and
/// `streamCapacity` bytes waiting for a slow client. A header without the needed columns is
/// still a 422 before any row (it is read before the answer starts).
enum QuotesBulkEndpoint {
    static let ndjson = "application/x-ndjson"
    /// The JSON Lines media types read (the others' names for it too).
    static let lineTypes: Set<String> = [ndjson, "application/jsonl", "application/json-lines"]
    /// Answer bytes waiting for the client, at most (the batch engine waits beyond).
    static let streamCapacity = 256 << 10

    /// Work units (table cells, `HTTPServerOptions.bulkBudget`) a row costs: batch prices about
    /// 40,000 rows a second in a release build on 2 cores, a table about a million cells.
    static let cellsPerRow = 25

    /// The request read and checked (on a worker): its cost in rows, and the streamed pricing.
    static func work(_ req: HTTPRequest, _ estimator: QuoteTripEstimator) throws(HTTPError) -> BulkWork {
        let response = try answer(req, estimator)
        let rows = req.body.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } + 1
        return BulkWork(cost: rows * cellsPerRow, unit: "table cells (a quote row counts \(cellsPerRow))") { response }
    }

    static func answer(_ req: HTTPRequest, _ estimator: QuoteTripEstimator) throws(HTTPError) -> HTTPResponse {
        let contentType = req.header("Content-Type") ?? ""
        let parts = contentType.split(separator: ";")
        let type = parts.first.map { $0.trimmingSpaces().lowercased() } ?? ""
        var options = BatchOptions()
        options.format = .jsonl
        options.defaultDepartAt = SeoulTime.now()
        guard type == "text/csv" || lineTypes.contains(type) else {
            throw HTTPError(status: 415, code: "unsupported_media_type",
                            message: "the body must be text/csv (a header line, then one trip per line) or \(ndjson) (one JSON object per line), got Content-Type '\(type.prefix(60))'")
        }
        let charset = try charset(parts.dropFirst(), csv: type == "text/csv")
        // No trips, no answers (an empty CSV has no header to check either).
        if isBlank(req.body) { return HTTPResponse(status: 200, headers: [("Content-Type", ndjson)], body: []) }
        do {
            let runner: BatchRunner
            var broken: [Int: [UInt8]] = [:]
            switch type {
            case "text/csv":
                // As `taxipot batch` reads a file: the named charset, else told from the bytes.
                let input: ByteSource, encoding: InputEncoding
                do {
                    if let charset {
                        (input, encoding) = (try charset.decoding(MemorySource(req.body)), charset)
                    } else {
                        (input, encoding) = try InputEncoding.detect(in: MemorySource(req.body))
                    }
                } catch {
                    throw HTTPError.unprocessable("invalid_body", "\(error) (with this API: name the encoding as charset=utf-8 or charset=cp949 in Content-Type)")
                }
                runner = try BatchRunner(source: input, options: options, convertedEncoding: encoding != .utf8)
            default:
                let trips = NDJSONTrips(req.body)
                runner = try BatchRunner(source: MemorySource(trips.csv), options: options, columns: BatchSchema.knownColumns)
                let empty = runner.outputColumns.dropLast(BatchSchema.errorColumns.count).map { ($0, JSONValue.null) }
                broken = trips.broken.mapValues { code, message in
                    JSONWriter.bytes(.object(empty + [("error_code", .string(code)), ("error_message", .string(message)),
                                                      ("error", .string("\(code): \(message)"))]))
                }
            }
            let handOff = RunnerHandOff(runner)
            return .streaming(headers: [("Content-Type", ndjson)], capacity: streamCapacity) { [broken] stream in
                let summary = try handOff.runner.run(estimator: estimator, sink: StreamedRows(stream, broken: broken))
                guard let stopped = summary.inputError else { return }
                // The head (200) is out: the end says the input stopped, then the body breaks off.
                try stream.write(stoppedLine(stopped, line: summary.inputErrorLine, rows: summary.rows))
                throw InputStopped()
            }
        } catch let e as HTTPError {
            throw e
        } catch let e as BatchError {
            // Text the document allows, refused for what it holds (a header without the columns): 422.
            throw .unprocessable("invalid_body", e.message)
        } catch {
            throw .unprocessable("invalid_body", "\(error)")
        }
    }

    /// The body ended early (`stoppedLine` written): the stream breaks off rather than ends.
    struct InputStopped: Error {}

    /// The last line of an answer whose input could not be read to its end: the API's error
    /// shape (an object `error`, where every row's `error` is null or a string), naming the
    /// input line and counting the rows answered before it.
    static func stoppedLine(_ message: String, line: Int?, rows: Int) -> [UInt8] {
        let error: JSONValue = .object([("code", "input_stopped"), ("message", .string("the input stopped being readable: \(message); "
                                            + "the \(rows) rows before it are answered, none after")),
                                        ("line", line.map { .number(Double($0)) } ?? .null)])
        return JSONWriter.bytes(.object([("error", error), ("rows_answered", .number(Double(rows)))])) + [0x0A]
    }

    /// The encoding a `charset=` parameter names (nil: none, detect). Only UTF-8 for NDJSON.
    static func charset(_ parameters: ArraySlice<Substring>, csv: Bool) throws(HTTPError) -> InputEncoding? {
        for p in parameters {
            let pair = p.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces() }
            guard pair.count == 2, pair[0].lowercased() == "charset" else { continue }
            let name = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            guard let e = InputEncoding(name: name), csv || e == .utf8 else {
                throw HTTPError(status: 415, code: "unsupported_media_type",
                                message: "charset '\(name.prefix(40))' is not read here: \(csv ? "text/csv takes utf-8 or cp949 (euc-kr)" : "\(ndjson) is utf-8")")
            }
            return e
        }
        return nil
    }

    static func isBlank(_ bytes: [UInt8]) -> Bool {
        bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    }
}

/// A runner whose header was read by the handler, run by the worker that streams the answer
/// (one thread at a time: the handler has returned before the producer starts).
private final class RunnerHandOff: @unchecked Sendable {
    let runner: BatchRunner
    init(_ runner: BatchRunner) { self.runner = runner }
}

/// An NDJSON body as batch's input: each object becomes a CSV row of the batch columns; a line
/// that is not an object is `bad_json` (a member that is no batch column `unknown_column`),
/// kept by its index among the non-blank lines to be answered in its place. A leading UTF-8
/// byte-order mark is skipped.
struct NDJSONTrips {
    var csv: [UInt8] = []
    var broken: [Int: (code: String, message: String)] = [:]

    init(_ body: [UInt8]) {
        let columns = BatchSchema.knownColumns
        let writer = CSVWriter(crlf: false)
        var index = 0
        // A UTF-8 byte-order mark before the first line is no part of it (as batch reads a CSV).
        let text = body.starts(with: [0xEF, 0xBB, 0xBF]) ? body.dropFirst(3) : body[...]
        for (n, line) in text.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.last == 0x0D ? line.dropLast() : line
            if trimmed.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            defer { index += 1 }
            guard let value = try? JSONParser.parse(Array(trimmed)), case .object(let members) = value else {
                broken[index] = ("bad_json", "line \(n + 1) is not a JSON object")
                continue
            }
            if let unknown = members.first(where: { !columns.contains($0.0) }) {
                broken[index] = ("unknown_column", "line \(n + 1): '\(Escaped.excerpt(unknown.0, limit: 40))' is not a batch column (\(columns.joined(separator: ", ")))")
                continue
            }
            writer.appendRecord(columns.map { name in
                switch members.last(where: { $0.0 == name })?.1 {
                case .string(let s): s
                case .number(let v): v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
                case .bool(let b): String(b)
                default: ""
                }
            }, to: &csv)
        }
    }
}

/// Batch's JSON Lines into the response stream as batch writes them (a chunk of rows at a time),
/// with the answers of broken NDJSON lines (`broken`, by output index) put back in their places.
final class StreamedRows: ByteSink {
    let stream: BodyStream
    let broken: [Int: [UInt8]]
    /// The output index of the next line.
    private var next = 0

    init(_ stream: BodyStream, broken: [Int: [UInt8]]) {
        self.stream = stream
        self.broken = broken
    }

    func write(_ bytes: [UInt8]) throws {
        if broken.isEmpty { return try stream.write(bytes) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for line in bytes.split(separator: 0x0A) {
            putBroken(into: &out)
            out += line
            out.append(0x0A)
            next += 1
        }
        try stream.write(out)
    }

    /// The broken lines due before the next good one.
    private func putBroken(into out: inout [UInt8]) {
        while let line = broken[next] {
            out += line
            out.append(0x0A)
            next += 1
        }
    }

    /// Batch's end: the broken lines after the last good one.
    func flush() throws {
        var out: [UInt8] = []
        putBroken(into: &out)
        try stream.write(out)
    }
}

func registerQuotesBulkEndpoint(_ router: Router, _ context: ServiceContext) {
    let estimator = QuoteTripEstimator(dataset: context.data)
    router.addBulk("POST", "/v1/quotes", OperationDoc(
        "Many quotes at once, priced by the batch engine: a CSV (text/csv, batch's columns and header names) or NDJSON (application/x-ndjson, objects with batch's columns) body; answers batch's JSON Lines in input order, each with error_code, error_message and error (null when priced), streamed (chunked) as the rows are priced",
        requestBody: ["type": "string"],
        responses: [(200, "JSON Lines, one object per trip: the input columns, distance_m, duration_s, fare_krw, per_person_krw, night_krw, schedule, error_code, error_message, error "
                        + "(null or a string). When the CSV cannot be read on part-way (an unterminated quote, bytes not in its encoding), the rows before are answered and "
                        + "the last line is {\"error\":{\"code\":\"input_stopped\",\"message\",\"line\":N},\"rows_answered\":n} (error an object, never a row's shape), "
                        + "after which the connection closes without the chunked body's last chunk: an HTTP client reports the answer as incomplete, never as a normal end. "
                        + "A CSV body is read in the charset of Content-Type (charset=utf-8, or cp949 / euc-kr for a Korean Excel export); without one the encoding is told "
                        + "from the bytes as taxipot batch tells it"),
                    (422, "invalid_body: a CSV header without the needed columns (the message names them), or a body whose encoding cannot be told (name it with charset=)"),
                    (413, "Body over 1 MiB"), (415, "unsupported_media_type: neither text/csv nor application/x-ndjson, or a charset other than utf-8 / cp949 (utf-8 only for NDJSON)"),
                    (503, "overloaded: the bulk work in flight is at the server's budget (a row counts \(QuotesBulkEndpoint.cellsPerRow) table cells against serve --table-cell-budget); Retry-After says when to retry")],
        responseSchema: ["type": "string"], responseContentType: QuotesBulkEndpoint.ndjson,
        requestContentTypes: ["text/csv", QuotesBulkEndpoint.ndjson])) { req in
        try QuotesBulkEndpoint.work(req, estimator)
    }
}

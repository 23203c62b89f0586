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

    static func answer(_ req: HTTPRequest, _ estimator: QuoteTripEstimator) throws(HTTPError) -> HTTPResponse {
        let type = (req.header("Content-Type") ?? "").split(separator: ";").first.map { $0.trimmingSpaces().lowercased() } ?? ""
        var options = BatchOptions()
        options.format = .jsonl
        options.defaultDepartAt = SeoulTime.now()
        guard type == "text/csv" || lineTypes.contains(type) else {
            throw HTTPError(status: 415, code: "unsupported_media_type",
                            message: "the body must be text/csv (a header line, then one trip per line) or \(ndjson) (one JSON object per line), got Content-Type '\(type.prefix(60))'")
        }
        // No trips, no answers (an empty CSV has no header to check either).
        if isBlank(req.body) { return HTTPResponse(status: 200, headers: [("Content-Type", ndjson)], body: []) }
        do {
            let runner: BatchRunner
            var broken: [Int: [UInt8]] = [:]
            switch type {
            case "text/csv":
                runner = try BatchRunner(source: MemorySource(req.body), options: options)
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
                _ = try handOff.runner.run(estimator: estimator, sink: StreamedRows(stream, broken: broken))
            }
        } catch let e as BatchError {
            // Text the document allows, refused for what it holds (a header without the columns): 422.
            throw .unprocessable("invalid_body", e.message)
        } catch {
            throw .unprocessable("invalid_body", "\(error)")
        }
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
    router.add("POST", "/v1/quotes", OperationDoc(
        "Many quotes at once, priced by the batch engine: a CSV (text/csv, batch's columns and header names) or NDJSON (application/x-ndjson, objects with batch's columns) body; answers batch's JSON Lines in input order, each with error_code, error_message and error (null when priced), streamed (chunked) as the rows are priced",
        requestBody: ["type": "string"],
        responses: [(200, "JSON Lines, one object per trip: the input columns, distance_m, duration_s, fare_krw, per_person_krw, night_krw, schedule, error_code, error_message, error"),
                    (422, "invalid_body: a CSV header without the needed columns (the message names them)"),
                    (413, "Body over 1 MiB"), (415, "unsupported_media_type: neither text/csv nor application/x-ndjson")],
        responseSchema: ["type": "string"], responseContentType: QuotesBulkEndpoint.ndjson,
        requestContentTypes: ["text/csv", QuotesBulkEndpoint.ndjson])) { req in
        try QuotesBulkEndpoint.answer(req, estimator)
    }
}

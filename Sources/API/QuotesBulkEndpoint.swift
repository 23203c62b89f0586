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
/// a line that is not a JSON object) answers its own error and the rest go on; the body is at
/// most 1 MiB like every body (413 beyond), so memory stays bounded by that.
enum QuotesBulkEndpoint {
    static let ndjson = "application/x-ndjson"
    /// The JSON Lines media types read (the others' names for it too).
    static let lineTypes: Set<String> = [ndjson, "application/jsonl", "application/json-lines"]

    static func answer(_ req: HTTPRequest, _ estimator: QuoteTripEstimator) throws(HTTPError) -> HTTPResponse {
        let type = (req.header("Content-Type") ?? "").split(separator: ";").first.map { $0.trimmingSpaces().lowercased() } ?? ""
        var options = BatchOptions()
        options.format = .jsonl
        options.defaultDepartAt = SeoulTime.now()
        let sink = MemorySink()
        guard type == "text/csv" || lineTypes.contains(type) else {
            throw HTTPError(status: 415, code: "unsupported_media_type",
                            message: "the body must be text/csv (a header line, then one trip per line) or \(ndjson) (one JSON object per line), got Content-Type '\(type.prefix(60))'")
        }
        // No trips, no answers (an empty CSV has no header to check either).
        if isBlank(req.body) { return HTTPResponse(status: 200, headers: [("Content-Type", ndjson)], body: []) }
        do {
            switch type {
            case "text/csv":
                let runner = try BatchRunner(source: MemorySource(req.body), options: options)
                _ = try runner.run(estimator: estimator, sink: sink)
                return HTTPResponse(status: 200, headers: [("Content-Type", ndjson)], body: sink.bytes)
            default:
                return try lines(req.body, options, estimator)
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

    static func isBlank(_ bytes: [UInt8]) -> Bool {
        bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    }

    /// NDJSON: each object becomes a row of the batch columns; a line that is not an object
    /// answers `bad_json` (a member that is no batch column `unknown_column`) in its place, with
    /// the same keys (all null but the error).
    static func lines(_ body: [UInt8], _ options: BatchOptions, _ estimator: QuoteTripEstimator) throws -> HTTPResponse {
        let columns = BatchSchema.knownColumns
        var csv: [UInt8] = []
        var broken: [Int: (code: String, message: String)] = [:]  // index among the non-blank lines → error
        var index = 0
        let writer = CSVWriter(crlf: false)
        for (n, line) in body.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
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
        let sink = MemorySink()
        let runner = try BatchRunner(source: MemorySource(csv), options: options, columns: columns)
        _ = try runner.run(estimator: estimator, sink: sink)
        // Good rows' answers in order, broken lines' errors in their places.
        var good = sink.bytes.split(separator: 0x0A).makeIterator()
        var out: [UInt8] = []
        out.reserveCapacity(sink.bytes.count + broken.count * 300)
        for i in 0..<index {
            if let (code, message) = broken[i] {
                var members: [(String, JSONValue)] = runner.outputColumns.dropLast(BatchSchema.errorColumns.count).map { ($0, .null) }
                members += [("error_code", .string(code)), ("error_message", .string(message)), ("error", .string("\(code): \(message)"))]
                JSONWriter.write(.object(members), into: &out)
            } else if let line = good.next() {
                out += line
            }
            out.append(0x0A)
        }
        return HTTPResponse(status: 200, headers: [("Content-Type", ndjson)], body: out)
    }
}

func registerQuotesBulkEndpoint(_ router: Router, _ context: ServiceContext) {
    let estimator = QuoteTripEstimator(dataset: context.data)
    router.add("POST", "/v1/quotes", OperationDoc(
        "Many quotes at once, priced by the batch engine: a CSV (text/csv, batch's columns and header names) or NDJSON (application/x-ndjson, objects with batch's columns) body; answers batch's JSON Lines in input order, each with error_code, error_message and error (null when priced)",
        requestBody: ["type": "string"],
        responses: [(200, "JSON Lines, one object per trip: the input columns, distance_m, duration_s, fare_krw, per_person_krw, night_krw, schedule, error_code, error_message, error"),
                    (422, "invalid_body: a CSV header without the needed columns (the message names them)"),
                    (413, "Body over 1 MiB"), (415, "unsupported_media_type: neither text/csv nor application/x-ndjson")],
        responseSchema: ["type": "string"], responseContentType: QuotesBulkEndpoint.ndjson,
        requestContentTypes: ["text/csv", QuotesBulkEndpoint.ndjson])) { req in
        try QuotesBulkEndpoint.answer(req, estimator)
    }
}

import Foundation
import TaxiPot

/// `taxipot batch`: fare estimates for every row of a CSV file, streaming, in parallel, in order.
struct BatchCommand: Command {
    let name = "batch"
    let summary = "estimate route, fare and split for every row of a CSV file"
    let help = """
        Usage: taxipot batch [IN.csv] [-o OUT.csv] [--workers N] [--encoding auto|utf-8|cp949] [--data DIR]
                             [--depart-at ISO8601] [--progress auto|bar|lines|none] [--estimate]
                             [--no-header | --columns NAME,NAME,...] [--delimiter D]
                             [--format csv|jsonl] [--resume] [--no-place-columns] [--origin-lon-col NAME ...]

        Reads IN.csv (standard input when omitted or '-') and writes OUT.csv (standard output
        when omitted or '-'): the input columns unchanged, then
          distance_m, duration_s, fare_krw, per_person_krw, night_krw, schedule,
          error_code, error_message, error, and in an output file (-o) row_check (a checksum of
          the row's bytes before it, which --resume checks).
        Input columns, by header name (any case), or by the usual Korean header, or named by option:
          origin_lon, origin_lat   출발지 경도, 출발지 위도 (출발 경도 …)   --origin-lon-col, --origin-lat-col
          dest_lon, dest_lat       도착지 경도, 도착지 위도 (목적지 …)      --dest-lon-col, --dest-lat-col
                                   trip ends as WGS84 degrees, or
          origin, destination      출발지, 도착지 (목적지 …)               --origin-col, --dest-col
                                   place text (geocoded; "lon,lat" also works)
          depart_at   출발시각 (출발시간, 출발일시)  --depart-at-col   optional, ISO 8601; local
                      times are Seoul time (default: --depart-at)
          riders      인원 (인원수, 승객수)          --riders-col      optional, 1-10 (default 1)
          taxi_class  차종                          --taxi-class-col  optional, mid|deluxe (default mid)
          split       분담                          --split-col       optional, equal|by_leg|proportional
        Every other column is carried through. CSV per RFC 4180; UTF-8 with or without BOM, or
        CP949 (Korean Excel) told from the bytes.

          -o, --output FILE   where to write (default: standard output)
          --workers N         estimating threads (default: the number of cores)
          --encoding E        input encoding: auto (default: UTF-8 with or without BOM, or CP949
                              told from the bytes), utf-8, or cp949 (also euc-kr; Korean Excel)
          --delimiter D       input field separator: ',' (default), ';', '|' or tab (output: ',')
          --format F          csv (default) or jsonl: one JSON object per row, no header line
          --resume            continue an interrupted run: keep the complete rows already in -o FILE,
                              skip as many input rows, append the rest (same bytes as one run);
                              refused (exit 1, naming the line) when a kept row is not this run's
                              for the input row at its place (other input columns, damaged bytes,
                              a row_check that does not match the row, other line ends, more rows
                              than the input)
          --no-place-columns  leave out the place columns; by default, for each trip end read
                              from place text, the place taken is added:
                              origin_place, origin_place_lon, origin_place_lat, dest_place, … (before
                              error), to check the geocoding; weak matches are refused per row
                              (unknown_place naming the closest place), never taken
          --data DIR          the dataset folder (default: data); prepared files in DIR/build (make data)
          --depart-at T       departure for rows without depart_at (default: now)
          --progress P        progress on stderr: a live bar on a terminal, a line every 5 s
                              otherwise (auto, the default), or bar, lines, none
          --estimate          price rows outside the served roads by a labelled straight-line estimate
          --no-header         the input has no header line: every line is a row with the fields
                              origin_lon, origin_lat, dest_lon, dest_lat in that order; the output
                              has no header line either (a filter for Spark's RDD.pipe)
          --columns LIST      like --no-header, with the fields named by LIST (comma-separated
                              column names as above, e.g. id,origin_lon,origin_lat,dest_lon,dest_lat)

        --estimate: a row with a point outside the served roads (outside_coverage) gets a
        straight-line estimate (distance × the graph's circuity, duration from the traffic
        profile, the meter's fare) instead of an error, and the output gains the columns
        estimated (true/false), fare_low_krw and fare_high_krw before error. Estimates cover
        South Korea (124.5-132.0°E, 33.0-38.7°N) and routes up to 1,000 km: a row beyond fails
        with outside_estimate_range.

        Only result rows go to standard output, in input order; the progress and the summary go
        to standard error. Without a header line an empty input is no error (no rows, exit 0).

        A bad row never stops the run: it is written with error = "code: message" and empty
        result columns. Exit 0 when every row is fine, 2 when some failed, 1 when the input
        cannot be read, required columns are missing (named), or the data cannot be loaded.
        """

    func run(_ args: [String]) throws -> Int32 {
        let columnOptions = BatchSchema.knownColumns.map(BatchSchema.optionName)
        let a = try Arguments(args, valued: Set(["output", "workers", "encoding", "data", "depart-at", "progress", "columns",
                                             "delimiter", "format"] + columnOptions),
                              flags: ["estimate", "no-header", "resume", "place-columns", "no-place-columns"], aliases: ["-o": "output"])
        guard a.positionals.count <= 1 else { throw UsageError("unexpected argument '\(a.positionals[1])' (one input file at most)") }
        let inputPath = a.positionals.first.flatMap { $0 == "-" ? nil : $0 }
        let outputPath = a.value("output").flatMap { $0 == "-" ? nil : $0 }
        let workers = try a.int("workers", default: ProcessInfo.processInfo.activeProcessorCount, range: 1...256)
        let chosenEncoding = try CSVOptions.encoding(a)
        var chosenColumns: [String: String] = [:]
        for name in BatchSchema.knownColumns {
            if let header = a.value(BatchSchema.optionName(name)) { chosenColumns[name] = header }
        }
        let formatName = a.value("format") ?? "csv"
        guard let format = BatchOutputFormat(rawValue: formatName.lowercased()) else {
            throw UsageError("option --format must be csv or jsonl, got '\(formatName)'")
        }
        if a.has("resume"), outputPath == nil {
            throw UsageError("option --resume needs the output file (-o FILE) of the interrupted run")
        }
        var departAt = SeoulTime.now()
        if let text = a.value("depart-at") {
            guard let t = SeoulTime.parse(text) else {
                throw UsageError("option --depart-at must be an ISO 8601 date-time such as 2024-05-01T09:00:00+09:00, got '\(text)'")
            }
            departAt = t
        }
        let progressStyle: BatchProgressDisplay.Style?
        switch a.value("progress") ?? "auto" {
        case "auto": progressStyle = nil
        case "bar": progressStyle = .bar
        case "lines": progressStyle = .lines(interval: 5)
        case "none": progressStyle = BatchProgressDisplay.Style.none
        case let other: throw UsageError("option --progress must be auto, bar, lines or none, got '\(other)'")
        }
        let columns = try Self.headerlessColumns(a)
        if let inputPath, let outputPath, Self.sameFile(inputPath, outputPath) {
            throw UsageError("the output \(outputPath) is the input file; writing it would destroy the input")
        }

        // 1. The header, before any work: missing columns end the run here.
        let raw: ByteSource = try inputPath.map { try FileDescriptorSource(path: $0) }
            ?? FileDescriptorSource(fileDescriptor: 0, name: "standard input")
        let input: ByteSource, encoding: InputEncoding
        do {
            if let chosenEncoding {
                (input, encoding) = (try chosenEncoding.decoding(raw), chosenEncoding)
            } else {
                (input, encoding) = try InputEncoding.detect(in: raw)
            }
        } catch {
            throw BatchError("\(inputPath ?? "standard input"): \(error)")
        }
        var options = BatchOptions(workers: workers, defaultDepartAt: departAt, writeByteOrderMark: encoding == .cp949 ? true : nil)
        options.estimateColumns = a.has("estimate")
        options.placeColumns = !a.has("no-place-columns")  // --place-columns (the default) is kept for old scripts
        options.format = format
        // An output file (the one --resume continues) gets row_check, so a resume can verify the
        // rows it keeps; standard output (pipes, Spark) keeps the columns without it.
        options.rowCheck = outputPath != nil
        options.delimiter = try CSVOptions.delimiter(a)
        let runner: BatchRunner
        do {
            runner = try BatchRunner(source: input, options: options, convertedEncoding: encoding != .utf8, columns: columns,
                                     chosenColumns: chosenColumns)
        } catch let e as BatchError {
            if columns != nil {
                throw UsageError("option --\(a.value("columns") == nil ? "no-header" : "columns"): \(e.message)")
            }
            throw BatchError("\(inputPath ?? "standard input"): \(e.message)")
        }
        // --resume: the rows already written must be this run's for the first input rows; else
        // the file is left as it is and the run refused, naming the line.
        var resume: BatchResume? = nil
        if a.has("resume"), let outputPath, let existing = FileManager.default.contents(atPath: outputPath) {
            do {
                resume = try runner.resume(after: Array(existing))
            } catch let e as BatchError {
                throw UsageError("option --resume: \(outputPath), \(e.message); the file is left as it is "
                    + "(write to a new file, or run without --resume to start over)")
            }
        }
        for c in runner.schema.clashingColumns {
            printError("taxipot batch: note: the input already has a column '\(c)'; the output repeats that name")
        }

        // 2. The engine: road graph, places (regions and geocoding), traffic profile, fares.
        let estimator = QuoteTripEstimator(dataset: try Dataset(directory: a.value("data") ?? "data"), allowEstimate: a.has("estimate"))

        // 3. Stream.
        let kept = resume.flatMap { $0.keptBytes > 0 ? $0.keptBytes : nil }
        let sink: ByteSink = try outputPath.map { try FileDescriptorSink(path: $0, appendingAfter: kept) }
            ?? FileDescriptorSink(fileDescriptor: 1, name: "standard output")
        if let resume, kept != nil {
            printError("taxipot batch: resuming after the \(resume.rows) rows already in \(outputPath!)"
                + (resume.failedRows > 0 ? " (\(resume.failedRows) with errors)" : ""))
        }
        let display = BatchProgressDisplay(style: progressStyle)
        let summary = try runner.run(estimator: estimator, sink: sink) { display.show($0) }
        printError(summary.report.trimmingCharacters(in: .newlines))
        if let e = summary.inputError {
            printError("taxipot batch: \(inputPath ?? "standard input"): \(e)")
        }
        if summary.exitCode == 0, (resume?.failedRows ?? 0) > 0, kept != nil { return 2 }
        return summary.exitCode
    }

    /// The column order of an input without a header line under `--no-header`.
    static let defaultHeaderlessColumns = ["origin_lon", "origin_lat", "dest_lon", "dest_lat"]

    /// The columns of a header-less input (`--no-header`, `--columns`), or nil when it has a header.
    static func headerlessColumns(_ a: Arguments) throws -> [String]? {
        guard let list = a.value("columns") else {
            return a.has("no-header") ? defaultHeaderlessColumns : nil
        }
        let names = list.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        if let empty = names.firstIndex(where: \.isEmpty) {
            throw UsageError("option --columns: name \(empty + 1) of '\(list)' is empty")
        }
        return names
    }

    /// True when both paths name the same existing file.
    static func sameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }
}

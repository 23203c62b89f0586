import Foundation
import TaxiPot

/// `taxipot table`: durations, distances and solo fares from every source to every destination
/// of two CSV files, in long format, streaming block by block, on all cores.
struct TableCommand: Command {
    let name = "table"
    let summary = "durations, distances and fares from every point of one CSV file to every point of another"
    let help = """
        Usage: taxipot table --sources A.csv [--destinations B.csv] [-o OUT.csv] [--depart-at ISO8601]
                             [--max-snap-m M] [--no-fare] [--data DIR]

        Reads points (columns id, lon, lat by header name, any case and order; other columns are
        ignored; CSV per RFC 4180, UTF-8) and writes one row per source and destination:
          source_id,destination_id,duration_s,distance_m,fare_krw
        Sources in file order, each with every destination in file order. Each row is the route
        'taxipot route' (and GET /v1/route) returns for the pair at the departure time: its
        duration and distance (rounded to 0.1 s and 0.1 m), and the solo metered fare a quote
        charges for it. A pair without a road route has empty duration, distance and fare.

          --sources FILE       the sources (required)
          --destinations FILE  the destinations (default: the sources)
          -o, --output FILE    where to write (default: standard output)
          --depart-at T        departure, ISO 8601; local times are Seoul time (default: now)
          --max-snap-m M       how far a point may be from a road, metres (default 200, at most 5000)
          --no-fare            leave fare_krw empty (fares route every pair on its own: the
                               slow part of a large table)
          --data DIR           the dataset folder (default: data); prepared files in DIR/build

        Exit 0 when every row is written; 1 when a file cannot be read, a column is missing, a
        row is malformed or a point is too far from a road (the message names the file and
        line), or the data cannot be loaded.
        """

    /// A point read from a CSV file, with its id and line.
    struct Point {
        var id: String
        var coordinate: Coordinate
        var line: Int
    }

    /// Rows of cells computed (and held) at a time.
    static let cellsPerBlock = 1 << 22

    func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, valued: ["sources", "destinations", "output", "depart-at", "max-snap-m", "data"],
                              flags: ["no-fare"], aliases: ["-o": "output"])
        guard a.positionals.isEmpty else { throw UsageError("unexpected argument '\(a.positionals[0])' (give files with --sources and --destinations)") }
        let sourcesPath = try a.required("sources")
        let destinationsPath = a.value("destinations")
        var departAt = SeoulTime.now()
        if let text = a.value("depart-at") {
            guard let t = SeoulTime.parse(text) else {
                throw UsageError("option --depart-at must be an ISO 8601 date-time such as 2024-05-01T09:00:00+09:00, got '\(text)'")
            }
            departAt = t
        }
        let snap = try a.double("max-snap-m") ?? 200
        // The engine's check, made before the point files are read; the message is the CLI's.
        guard (try? RouteEngine.checkSnapLimit(snap)) != nil else {
            throw UsageError("option --max-snap-m must be above 0 and at most \(Int(RouteEngine.maxSnapLimitMeters)) metres, got \(snap)")
        }
        let outputPath = a.value("output").flatMap { $0 == "-" ? nil : $0 }
        for input in [sourcesPath, destinationsPath].compactMap({ $0 }) {
            if let outputPath, BatchCommand.sameFile(input, outputPath) {
                throw UsageError("the output \(outputPath) is the input file \(input); writing it would destroy the input")
            }
        }
        let sources = try Self.readPoints(sourcesPath)
        let destinations = try destinationsPath.map { try Self.readPoints($0) }
        let dataset = try Dataset(directory: a.value("data") ?? "data")
        try Self.checkSnapping(sources: sources, sourcesPath: sourcesPath, destinations: destinations ?? sources,
                               destinationsPath: destinationsPath ?? sourcesPath, departAt: departAt, maxSnapMeters: snap, dataset: dataset)
        let sink: ByteSink = try outputPath.map { try FileDescriptorSink(path: $0) }
            ?? FileDescriptorSink(fileDescriptor: 1, name: "standard output")
        try Self.write(sources: sources, sourcesPath: sourcesPath, destinations: destinations, destinationsPath: destinationsPath,
                       departAt: departAt, maxSnapMeters: snap, fares: !a.has("no-fare"), dataset: dataset, sink: sink)
        return 0
    }

    /// Snaps every point (one row and one column of the table) before the output is opened, so
    /// that a point far from a road stops the run with nothing written.
    static func checkSnapping(sources: [Point], sourcesPath: String, destinations targets: [Point], destinationsPath targetsPath: String,
                              departAt: Double, maxSnapMeters: Double, dataset: Dataset) throws
    {
        for (rows, columns) in [(sources, [targets[0]]), ([sources[0]], targets)] {
            do {
                _ = try dataset.routes.table(TableRequest(sources: rows.map(\.coordinate), destinations: columns.map(\.coordinate),
                                                          departAt: departAt, maxSnapMeters: maxSnapMeters))
            } catch {
                throw TableFailure(describe(error, sources: rows, sourcesPath: sourcesPath, destinations: columns, destinationsPath: targetsPath))
            }
        }
    }

    /// Computes the table block by block (sources in groups) and writes its rows as each block ends.
    static func write(sources: [Point], sourcesPath: String, destinations: [Point]?, destinationsPath: String?, departAt: Double,
                      maxSnapMeters: Double, fares: Bool, dataset: Dataset, sink: ByteSink) throws
    {
        let targets = destinations ?? sources
        let targetsPath = destinationsPath ?? sourcesPath
        let writer = CSVWriter()
        var out: [UInt8] = []
        // The header goes out with the first block's rows (nothing is written before a block succeeds).
        writer.appendRecord(["source_id", "destination_id", "duration_s", "distance_m", "fare_krw"], to: &out)
        let rowsPerBlock = max(1, min(sources.count, cellsPerBlock / max(1, targets.count)))
        var start = 0
        while start < sources.count {
            let block = Array(sources[start..<min(sources.count, start + rowsPerBlock)])
            let request = TableRequest(sources: block.map(\.coordinate), destinations: targets.map(\.coordinate),
                                       departAt: departAt, maxSnapMeters: maxSnapMeters)
            let table: RouteTable
            do {
                table = try dataset.routes.table(request)
            } catch {
                throw TableFailure(describe(error, sources: block, sourcesPath: sourcesPath, destinations: targets, destinationsPath: targetsPath))
            }
            var cellFares: [Int?]?
            if fares {
                do {
                    cellFares = try dataset.quotes.soloFares(request, table: table)
                } catch {
                    var message = error.message(naming: FareCommand.option, point: \.description)
                    if case .source(let i)? = error.field, i < block.count {
                        message = "\(sourcesPath): line \(block[i].line) (id '\(block[i].id)'): \(message)"
                    }
                    throw TableFailure(message + " (use --no-fare to leave fares out)")
                }
            }
            for i in 0..<table.sourceCount {
                for j in 0..<table.destinationCount {
                    let k = i * table.destinationCount + j
                    var fields = [block[i].id, targets[j].id, "", "", ""]
                    if let d = table.durationSeconds(source: i, destination: j), let m = table.distanceMeters(source: i, destination: j) {
                        fields[2] = format((d * 10).rounded() / 10)
                        fields[3] = format((m * 10).rounded() / 10)
                        if let f = cellFares?[k] { fields[4] = String(f) }
                    }
                    writer.appendRecord(fields, to: &out)
                }
                if out.count > 1 << 20 {
                    try sink.write(out)
                    out.removeAll(keepingCapacity: true)
                }
            }
            try sink.write(out)
            out.removeAll(keepingCapacity: true)
            start += block.count
        }
        try sink.flush()
    }

    /// A number as the JSON answers write it: no trailing ".0".
    static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }

    /// A routing error with the point named by file, line and id.
    static func describe(_ error: RoutingError, sources: [Point], sourcesPath: String, destinations: [Point], destinationsPath: String) -> String {
        func locate(_ p: RoutePoint) -> String {
            switch p {
            case .source(let i) where i < sources.count: "\(sourcesPath): line \(sources[i].line) (id '\(sources[i].id)')"
            case .tableDestination(let j) where j < destinations.count:
                "\(destinationsPath): line \(destinations[j].line) (id '\(destinations[j].id)')"
            default: p.description
            }
        }
        switch error {
        case .outsideCoverage(let p, let c, let m, _, _):
            return "\(locate(p)): no road within \(Int(m.rounded())) m of (\(c.lon),\(c.lat)); check the point or raise --max-snap-m"
        case .invalidCoordinate(let p):
            return "\(locate(p)): not a valid coordinate"
        default:
            return error.message(naming: locate, option: RouteCommand.option)
        }
    }

    /// The points of a CSV file with columns id, lon, lat; errors name the file and line.
    static func readPoints(_ path: String) throws -> [Point] {
        let reader = CSVReader(source: try FileDescriptorSource(path: path))
        guard let header = try reader.next() else { throw TableFailure("\(path): the file is empty; it needs a header with id, lon, lat") }
        let names = header.fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        var column: [String: Int] = [:]
        for wanted in ["id", "lon", "lat"] {
            guard let k = names.firstIndex(of: wanted) else {
                throw TableFailure("\(path): line \(header.line): the header has no column '\(wanted)' (it needs id, lon, lat; found \(names.joined(separator: ", ")))")
            }
            column[wanted] = k
        }
        let id = column["id"]!, lonColumn = column["lon"]!, latColumn = column["lat"]!
        var points: [Point] = []
        while let r = try reader.next() {
            func field(_ k: Int, _ name: String) throws -> String {
                guard k < r.fields.count else {
                    throw TableFailure("\(path): line \(r.line): the row has \(r.fields.count) fields; column '\(name)' is missing")
                }
                return r.fields[k].trimmingCharacters(in: .whitespaces)
            }
            let lonText = try field(lonColumn, "lon"), latText = try field(latColumn, "lat")
            guard let lon = Double(lonText), lon.isFinite, (-180...180).contains(lon) else {
                throw TableFailure("\(path): line \(r.line): lon must be a longitude from -180 to 180, got '\(lonText.prefix(40))'")
            }
            guard let lat = Double(latText), lat.isFinite, (-90...90).contains(lat) else {
                throw TableFailure("\(path): line \(r.line): lat must be a latitude from -90 to 90, got '\(latText.prefix(40))'")
            }
            points.append(Point(id: try field(id, "id"), coordinate: Coordinate(lon: lon, lat: lat), line: r.line))
        }
        guard !points.isEmpty else { throw TableFailure("\(path): no points after the header") }
        return points
    }
}

/// A table run that cannot go on: the message names the file, line and point at fault.
struct TableFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

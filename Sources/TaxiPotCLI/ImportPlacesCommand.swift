import Foundation
import Import
import TaxiPot

/// `taxipot import places`: builds the place DB from a data folder, or adds a user CSV to one.
struct ImportPlacesCommand: Command {
    let name = "places"
    let summary = "build the place DB from data/places, or add your own places from a CSV"
    let help = """
        Usage: taxipot import places --data DIR -o DB
               taxipot import places --csv FILE --name-col C --lat-col C --lon-col C [--category CAT] [--address-col C]
                                   [--encoding auto|utf-8|cp949] [--delimiter D] -o DB

        The first form builds the place DB (SQLite) from DIR/places/: legal divisions, rail
        stations, Seoul bus stops, tourist sites and OSM POIs, with same-name places within
        50 m merged. The second adds the rows of a CSV to an existing DB (category 'user'
        unless --category, a–z 0–9 _); importing the same file again replaces its rows.

        Options:
          --data DIR         the data folder (holding places/)
          --csv FILE         a CSV with a header row
          --name-col C       column with the place name
          --lat-col C        column with the latitude (WGS84 degrees)
          --lon-col C        column with the longitude (WGS84 degrees)
          --address-col C    column with an address to show (optional)
          --category CAT     category of the added places (default user)
          --encoding E       the CSV's encoding: auto (default: UTF-8 with or without BOM, or CP949
                             told from the bytes), utf-8 or cp949 (also euc-kr)
          --delimiter D      the CSV's field separator: ',' (default), ';', '|' or tab
          -o, --output DB    the place DB to write (default data/build/places.db)

        Exit: 0 done, 1 fatal, 2 a user CSV had refused rows (the others were added).
        """

    func run(_ args: [String]) throws -> Int32 {
        let normalized = args.map { $0 == "-o" ? "--output" : $0 }
        let a = try Arguments(normalized, valued: ["data", "csv", "name-col", "lat-col", "lon-col", "address-col",
                                                   "category", "output", "encoding", "delimiter"])
        guard a.positionals.isEmpty else { throw UsageError("unexpected argument '\(a.positionals[0])'") }
        let output = a.value("output") ?? "data/build/places.db"
        if let csv = a.value("csv") {
            if a.value("data") != nil { throw UsageError("give either --data (build) or --csv (add user places), not both") }
            var options = PlaceDatabaseBuilder.UserCSVOptions(
                csvPath: csv, nameColumn: try a.required("name-col"), latColumn: try a.required("lat-col"),
                lonColumn: try a.required("lon-col"), addressColumn: a.value("address-col"),
                category: a.value("category") ?? PlaceCategory.user)
            options.encoding = try CSVOptions.encoding(a)
            options.delimiter = try CSVOptions.delimiter(a)
            let report = try PlaceDatabaseBuilder.importUserCSV(options, into: output)
            for f in report.failures { printError("refused: \(f)") }
            print("added \(report.imported) places from \(csv) to \(output); refused \(report.failures.count) rows")
            return report.failures.isEmpty ? 0 : 2
        }
        guard let data = a.value("data") else {
            throw UsageError("missing --data DIR (build the place DB) or --csv FILE (add user places)")
        }
        if a.value("category") != nil || a.value("name-col") != nil {
            throw UsageError("--category and the column options go with --csv")
        }
        let started = Date()
        let report = try PlaceDatabaseBuilder.build(dataDirectory: data, outputPath: output)
        for w in report.warnings { printError("warning: \(w)") }
        let counts = report.placesByCategory.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }
        print("wrote \(report.placeCount) places to \(output) in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        print("  by category: \(counts.joined(separator: ", "))")
        print("  merged \(report.mergedDuplicates) same-name duplicates within 50 m; folded \(report.foldedOSMStations) OSM station stops; \(report.landmarkAliases) landmark names from bus stops; \(report.foldedIntersections) named road nodes folded into a junction of the same name or the place they are named after")
        return 0
    }
}

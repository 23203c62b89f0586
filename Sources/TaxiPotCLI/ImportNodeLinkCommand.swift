import Foundation
import Import
import TaxiPot

/// `taxipot import nodelink DIR -o GRAPH`: the Korean standard node-link network → prepared road graph.
struct ImportNodeLinkCommand: Command {
    let name = "nodelink"
    let summary = "road graph from the Korean standard node-link network (shapefiles, or the CSV subset)"
    let help = """
        Usage: taxipot import nodelink DIR -o GRAPH [--format shp|csv] [--data DIR] [--profile CSV] [--landmarks N]
                                       [--speeds TOPIS.csv --speed-mapping MAPPING.csv] [--quiet]

        Reads MOLIT's standard node-link network (표준노드링크) from DIR and prepares the road graph
        of its largest strongly connected part, with the turn rules of its turn table.
          shp: MOCT_NODE and MOCT_LINK (.shp, .shx, .dbf; .prj and .cpg optional) and TURNINFO.dbf
               as distributed: EPSG:5186 coordinates, CP949 text (read with shapelib).
          csv: the staged subset Seoul_node.csv (WGS84), Seoul_link.csv and TURNINFO.csv.
        The default format is shp when DIR holds MOCT_LINK.shp, else csv.
        A link is one direction of travel (one-way where no reverse link exists), of its real
        length, drawn straight between its nodes. Left out, counted and reported: links naming a
        node absent from the node file, links closed to cars (REST_VEH 1) or not in use
        (ROAD_USE 1), turn rows naming absent links. TURNINFO 002, 003, 101, 102 and 103 are
        prohibited turns; a U-turn is allowed only where 011/012 lists it or at a dead end.
          -o, --output GRAPH  the graph file to write (e.g. data/build/seoul.graph)
          --format F          shp or csv (default: told from DIR's files)
          --data DIR          dataset folder whose traffic/profile.csv gives the speeds (default: data)
          --profile CSV       the traffic profile to use instead
          --landmarks N       ALT landmarks to compute (default 16, 1-64)
          --speeds FILE       TOPIS hourly link speeds (CP949; 링크아이디, 01시…24시): read, checked
                              and their coverage reported (durations still come from the profile)
          --speed-mapping F   the TOPIS-to-standard-link mapping (서비스링크, 표준링크아이디), with --speeds
          --quiet             no progress lines on stderr
        """

    func run(_ args: [String]) throws -> Int32 {
        var rest = args
        if let i = rest.firstIndex(of: "-o") { rest[i] = "--output" }
        let a = try Arguments(rest, valued: ["output", "format", "data", "profile", "landmarks", "speeds", "speed-mapping"], flags: ["quiet"])
        guard a.positionals.count == 1, let directory = a.positionals.first else {
            throw UsageError("expected one DIR holding the node-link files, got \(a.positionals.count)")
        }
        let output = try a.required("output")
        let landmarks = try a.int("landmarks", default: 16, range: 1...64)
        let profilePath = a.value("profile") ?? ((a.value("data") ?? "data") as NSString).appendingPathComponent("traffic/profile.csv")
        let profile = try TrafficProfile.load(path: profilePath)
        let source = try nodeLinkSource(directory: directory, format: a.value("format"))
        var speeds: (file: String, mapping: String)?
        switch (a.value("speeds"), a.value("speed-mapping")) {
        case (nil, nil): break
        case let (file?, mapping?): speeds = (file, mapping)
        default: throw UsageError("--speeds and --speed-mapping go together")
        }
        let quiet = a.has("quiet")
        let start = Date()
        let report = try NodeLinkImporter.importNetwork(from: source, to: output, profile: profile, landmarks: landmarks,
                                                       speeds: speeds) { line in
            if !quiet { printError(String(format: "[%6.1f s] ", Date().timeIntervalSince(start)) + line) }
        }
        print(report.description)
        return 0
    }
}

/// The node-link files in `directory` as a source: `format` shp or csv, or nil to tell from the
/// folder (shp when it holds MOCT_LINK.shp). Shared by `import nodelink` and `export osm`.
func nodeLinkSource(directory: String, format: String?) throws -> NodeLinkImporter.Source {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder), isFolder.boolValue else {
        throw UsageError("'\(directory)' is not a folder (expected the folder of the node-link files)")
    }
    let shp = FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent("MOCT_LINK.shp"))
    switch format ?? (shp ? "shp" : "csv") {
    case "csv": return .csv(directory: directory)
    case "shp":
        let transformer = try CoordinateTransformer(from: "EPSG:5186", to: "EPSG:4326")
        return .shapefiles(directory: directory) { x, y in
            let p = try transformer.transform(XYPoint(x: x, y: y))
            return (lon: p.x, lat: p.y)
        }
    case let other: throw UsageError("--format must be shp or csv, got '\(other)'")
    }
}

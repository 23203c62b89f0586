import Foundation
import Import
import TaxiPot

/// `taxipot import osm FILE… -o GRAPH`: OSM files → one prepared road graph.
struct ImportOSMCommand: Command {
    let name = "osm"
    let summary = "road graph from OSM files (.osm XML, .osm.gz or .osm.pbf), merged"
    let help = """
        Usage: taxipot import osm FILE.osm|FILE.osm.gz|FILE.osm.pbf [FILE…] -o GRAPH [--data DIR] [--profile CSV]
                                  [--landmarks N] [--min-area-nodes N] [--quiet]

        Reads the drivable roads of one or more OpenStreetMap files with the car profile
        (classes, access, one-way, maxspeed, barriers, node-via turn restrictions) and merges
        them (a node or way with the same id in several files is one). Keeps every strongly
        connected area of at least --min-area-nodes nodes (and always the largest) as a served
        area, computes ALT landmarks, a contraction hierarchy and the circuity table (route
        length over straight line by distance band) and writes the prepared graph.
        .osm.gz files are inflated by the system's /bin/gzip into a temporary file.
          -o, --output GRAPH  the graph file to write (e.g. data/build/seoul.graph)
          --data DIR          dataset folder whose traffic/profile.csv gives the speeds (default: data)
          --profile CSV       the traffic profile to use instead
          --landmarks N       ALT landmarks to compute (default 16, 1-64)
          --min-area-nodes N  the smallest connected area kept, in graph nodes (default 25)
          --quiet             no progress lines on stderr
        """

    func run(_ args: [String]) throws -> Int32 {
        var rest = args
        if let i = rest.firstIndex(of: "-o") { rest[i] = "--output" }
        let a = try Arguments(rest, valued: ["output", "data", "profile", "landmarks", "min-area-nodes"], flags: ["quiet"])
        guard !a.positionals.isEmpty else { throw UsageError("missing the OSM file to import") }
        let output = try a.required("output")
        let landmarks = try a.int("landmarks", default: 16, range: 1...64)
        let minAreaNodes = try a.int("min-area-nodes", default: OSMImporter.defaultMinAreaNodes, range: 1...100_000_000)
        let profilePath = a.value("profile") ?? ((a.value("data") ?? "data") as NSString).appendingPathComponent("traffic/profile.csv")
        let profile = try TrafficProfile.load(path: profilePath)
        let quiet = a.has("quiet")
        let start = Date()
        let report = try OSMImporter.importFiles(a.positionals, to: output, profile: profile, landmarks: landmarks,
                                                 minAreaNodes: minAreaNodes) { line in
            if !quiet { printError(String(format: "[%6.1f s] ", Date().timeIntervalSince(start)) + line) }
        }
        print(report.description)
        return 0
    }
}

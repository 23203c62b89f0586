import Foundation
import TaxiPot

/// `taxipot import osm FILE -o GRAPH`: OSM file → prepared road graph.
struct ImportOSMCommand: Command {
    let name = "osm"
    let summary = "road graph from an OSM file (.osm XML or .osm.pbf)"
    let help = """
        Usage: taxipot import osm FILE.osm|FILE.osm.pbf -o GRAPH [--data DIR] [--profile CSV] [--landmarks N] [--quiet]

        Reads the drivable roads of an OpenStreetMap file with the car profile (classes,
        access, one-way, maxspeed, barriers, node-via turn restrictions), keeps the largest
        strongly connected component, computes ALT landmarks and writes the prepared graph.
          -o, --output GRAPH  the graph file to write (e.g. data/build/seoul.graph)
          --data DIR          dataset folder whose traffic/profile.csv gives the speeds (default: data)
          --profile CSV       the traffic profile to use instead
          --landmarks N       ALT landmarks to compute (default 16, 1-64)
          --quiet             no progress lines on stderr
        """

    func run(_ args: [String]) throws -> Int32 {
        var rest = args
        if let i = rest.firstIndex(of: "-o") { rest[i] = "--output" }
        let a = try Arguments(rest, valued: ["output", "data", "profile", "landmarks"], flags: ["quiet"])
        guard a.positionals.count == 1 else {
            throw UsageError(a.positionals.isEmpty ? "missing the OSM file to import" : "expected one OSM file, got \(a.positionals.count)")
        }
        let output = try a.required("output")
        let landmarks = try a.int("landmarks", default: 16, range: 1...64)
        let profilePath = a.value("profile") ?? ((a.value("data") ?? "data") as NSString).appendingPathComponent("traffic/profile.csv")
        let profile = try TrafficProfile.load(path: profilePath)
        let quiet = a.has("quiet")
        let start = Date()
        let report = try OSMImporter.importFile(a.positionals[0], to: output, profile: profile, landmarks: landmarks) { line in
            if !quiet { printError(String(format: "[%6.1f s] ", Date().timeIntervalSince(start)) + line) }
        }
        print(report.description)
        return 0
    }
}

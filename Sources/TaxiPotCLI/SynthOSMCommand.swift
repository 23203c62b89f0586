import Foundation
import SyntheticCity
import TaxiPot

/// `taxipot synth-osm`: a synthetic city as an OSM XML file, for scale measurements.
struct SynthOSMCommand: Command {
    let name = "synth-osm"
    let summary = "write a synthetic city (grid, arterials, ring roads, one-ways, restrictions) as OSM XML"
    let help = """
        Usage: taxipot synth-osm --nodes N [--seed S] -o FILE.osm

        Writes a synthetic city of exactly N nodes (16 to 50,000,000): a jittered street grid
        with primary/secondary/tertiary arterials, residential streets (some one-way, some
        living streets, service and unclassified roads), three trunk ring roads, a motorway
        ring with links on large grids, curved shape points, maxspeed tags in several
        notations and turn restrictions of six types. The same N and S give the same file.
          --nodes N    node count
          --seed S     random seed (default 1)
          -o, --output FILE.osm   where to write
        """

    func run(_ args: [String]) throws -> Int32 {
        var rest = args
        if let i = rest.firstIndex(of: "-o") { rest[i] = "--output" }
        let a = try Arguments(rest, valued: ["nodes", "seed", "output"])
        guard a.positionals.isEmpty else { throw UsageError("unexpected argument '\(a.positionals[0])'") }
        let nodes = try a.int("nodes", default: 0, range: 16...50_000_000)
        guard a.value("nodes") != nil else { throw UsageError("missing required option --nodes") }
        let seedText = a.value("seed") ?? "1"
        guard let seed = UInt64(seedText) else { throw UsageError("option --seed must be a whole number ≥ 0, got '\(seedText)'") }
        let output = try a.required("output")
        guard output.lowercased().hasSuffix(".osm") else { throw UsageError("option --output must name a .osm file (OSM XML), got '\(output)'") }
        let summary = try SyntheticCity.write(nodes: nodes, seed: seed, to: output)
        print("\(output): \(summary)")
        return 0
    }
}

import Foundation
import Import

/// `taxipot export osm --nodelink DIR -o FILE.osm`: the node-link network as OSM XML, for other routers.
struct ExportCommand: Command {
    let name = "export"
    let summary = "write the imported node-link network as OSM XML ('export osm'), so OSRM runs on the same roads"
    let help = """
        Usage: taxipot export osm --nodelink DIR -o FILE.osm [--format shp|csv]

        Reads MOLIT's standard node-link network from DIR exactly as 'taxipot import nodelink'
        does (the same files, the same rules of what a car may use) and writes it as OSM XML:
          - one way per kept link (way id = LINK_ID, node ids = NODE_ID), oneway=yes, with
            highway from ROAD_RANK (motorway, trunk, primary, secondary, tertiary,
            unclassified), maxspeed (MAX_SPD), lanes, name, bridge/tunnel (ROAD_TYPE);
          - every prohibited turn as a type=restriction relation (from way, via node, to way):
            TURNINFO 002/003/101/102/103 (no_left_turn, no_straight_on, no_right_turn, no_u_turn
            by the row's type or the turn's angle; 002 with except=bus) and each U-turn the
            import bans (not listed 011/012, not at a dead end) as no_u_turn.
        Links are straight between their nodes: a router that measures lengths from coordinates
        (OSRM) finds them shorter than the real LENGTH the import uses. Left-out links are
        counted and reported as by the import. osrm-extract reads the file as it is.
          --nodelink DIR      the folder of the node-link files (shapefiles, or the CSV subset)
          -o, --output FILE   the .osm file to write
          --format F          shp or csv (default: shp when DIR holds MOCT_LINK.shp, else csv)
        """

    func run(_ args: [String]) throws -> Int32 {
        guard let kind = args.first else { throw UsageError("missing what to export (one of: osm)") }
        guard kind == "osm" else { throw UsageError("unknown export kind '\(kind)' (one of: osm)") }
        var rest = Array(args.dropFirst())
        if let i = rest.firstIndex(of: "-o") { rest[i] = "--output" }
        let a = try Arguments(rest, valued: ["nodelink", "output", "format"])
        guard a.positionals.isEmpty else { throw UsageError("unexpected argument '\(a.positionals[0])'") }
        let directory = try a.required("nodelink")
        let output = try a.required("output")
        guard output.lowercased().hasSuffix(".osm") else {
            throw UsageError("option --output must name a .osm file (OSM XML), got '\(output)'")
        }
        let source = try nodeLinkSource(directory: directory, format: a.value("format"))
        print(try NodeLinkOSMExport.export(from: source, to: output).description)
        return 0
    }
}

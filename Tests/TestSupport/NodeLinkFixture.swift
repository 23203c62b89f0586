import Foundation
import Import
import Routing

/// The Korean standard node-link network of data/nodelink: its folder, the TOPIS measured speeds,
/// and the part around 강남역 prepared with them (the import tests and the hierarchy tests).
/// `package`: the measured speeds are a package type of Import.
package enum NodeLinkFixture {
    package static let csvDir = TestPaths.dataDir.appendingPathComponent("nodelink").path

    /// The whole Seoul network as the CSV reader reads it: read once per run, shared by the
    /// tests that only read it (the counts, the shapefile comparison, the measured-speed
    /// coverage, the OSM export and the 강남역 part below).
    package static let seoul = Result { () throws -> NodeLinkNetwork in try NodeLinkImporter.read(.csv(directory: csvDir)) }

    /// What `NodeLinkImporter.inspect` finds in `seoul` (the report and the kept links' lengths).
    package static let seoulInspection = Result { try NodeLinkImporter.inspect(try seoul.get()) }

    package static let measuredSpeeds = Result {
        try MeasuredSpeeds.read(speedPath: csvDir + "/topis_speed_20181023.csv", mappingPath: csvDir + "/topis_standard_link_mapping_202003.csv")
    }

    /// A part of the network around 강남역 (small enough to prepare quickly in a debug build).
    /// Prepared with the TOPIS measured speeds (durations from them, routing exact under them).
    package static let gangnam: Result<(net: NodeLinkNetwork, engine: RouteEngine, report: NodeLinkImportReport), Error> = Result {
        var net = try seoul.get()
        let inside = Set(net.nodes.filter { (37.480...37.515).contains($0.lat) && (127.010...127.060).contains($0.lon) }.map(\.id))
        net.nodes = net.nodes.filter { inside.contains($0.id) }
        net.links = net.links.filter { inside.contains($0.from) && inside.contains($0.to) }
        net.turns = net.turns.filter { inside.contains($0.node) }
        let profile = try SeoulFixture.profile
        let path = TestPaths.temporaryDirectory("nodelink-gangnam").appendingPathComponent("gangnam.graph").path
        let report = try NodeLinkImporter.prepare(net, to: path, profile: profile, speeds: try measuredSpeeds.get())
        return (net, RouteEngine(graph: try RoadGraph.load(path: path), profile: profile), report)
    }
}

import Foundation
import Routing

/// `taxipot import osm`: OSM file → prepared graph file.
public enum OSMImporter {
    /// The smallest connected area kept by default, in graph nodes: smaller strongly connected
    /// pieces are car parks, campus loops and bits cut off at an extract's edge. 25, not more: the
    /// Yeouido extract clips its one-way carriageways at the boundary, and its largest strongly
    /// connected piece is 95 nodes (the whole island core), its next ones 58, 48, 31 and 29.
    public static let defaultMinAreaNodes = 25

    /// Reads `input` (`.osm`, `.osm.gz` or `.osm.pbf`), prepares the graph with `profile`'s
    /// speeds and `landmarks` ALT landmarks, and writes it to `output`.
    public static func importFile(_ input: String, to output: String, profile: TrafficProfile, landmarks: Int = 16,
                                  minAreaNodes: Int = defaultMinAreaNodes,
                                  progress: ((String) -> Void)? = nil) throws(OSMImportError) -> ImportReport
    {
        try importFiles([input], to: output, profile: profile, landmarks: landmarks, minAreaNodes: minAreaNodes, progress: progress)
    }

    /// Reads every file of `inputs` and merges them into one graph (a node or way with the same
    /// OSM id in several files is one node or way), then as `importFile`.
    public static func importFiles(_ inputs: [String], to output: String, profile: TrafficProfile, landmarks: Int = 16,
                                   minAreaNodes: Int = defaultMinAreaNodes,
                                   progress: ((String) -> Void)? = nil) throws(OSMImportError) -> ImportReport
    {
        guard !inputs.isEmpty else { throw OSMImportError("no OSM file to import") }
        var report = ImportReport()
        report.source = inputs.map { ($0 as NSString).lastPathComponent }.joined(separator: "+")
        report.inputs = inputs.count
        report.minAreaNodes = max(1, minAreaNodes)
        let t0 = Date()
        var parts: [RoadNetworkInput] = []
        for input in inputs {
            parts.append(try OSMReader.read(path: input, progress: progress))
            if inputs.count > 1 { progress?("read \(input)") }
        }
        let input = RoadNetworkInput.merged(parts)
        parts = []
        report.sharedNodes = input.sharedNodes
        report.readSeconds = Date().timeIntervalSince(t0)
        progress?("read \(input.totalNodes) nodes, \(input.totalWays) ways, \(input.totalRelations) relations")
        let t1 = Date()
        var graph: GraphData
        do {
            graph = try GraphPreparer.prepare(input, profile: profile, landmarks: landmarks, source: inputs.joined(separator: ", "),
                                              report: &report, progress: progress)
        } catch {
            throw OSMImportError(error.description)
        }
        report.prepareSeconds = Date().timeIntervalSince(t1)
        graph.metadata = Array(report.json.utf8)
        let t2 = Date()
        do { try GraphFile.write(graph, to: output) } catch { throw OSMImportError(error.description) }
        report.writeSeconds = Date().timeIntervalSince(t2)
        report.fileBytes = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
        return report
    }
}

import Foundation

/// What an import did: counts from the source (OSM files, the node-link network) to the prepared graph.
public struct ImportReport: Sendable, CustomStringConvertible {
    public var source = ""
    public var osmNodes = 0, osmWays = 0, osmRelations = 0, drivableWays = 0
    /// Way node references to nodes absent from the file, and to nodes whose barrier stops cars.
    public var missingNodeRefs = 0, blockedNodeRefs = 0
    public var junctions = 0, restrictionCopies = 0
    public var restrictionsApplied = 0, restrictionsSkipped = 0
    /// Strongly connected components of the junction graph; those of at least `minAreaNodes`
    /// nodes (and always the largest) are kept as the served areas.
    public var components = 0
    public var minAreaNodes = 0
    /// Nodes of each kept area, largest first.
    public var areaNodes: [Int] = []
    /// Nodes found in more than one input file (kept once).
    public var sharedNodes = 0
    public var inputs = 0
    public var removedNodes = 0, removedEdges = 0
    public var nodes = 0, edges = 0, pieces = 0, landmarks = 0
    /// Edges of the contraction hierarchy (upward plus downward, shortcuts included).
    public var hierarchyEdges = 0
    public var fileBytes = 0
    public var readSeconds = 0.0, prepareSeconds = 0.0, writeSeconds = 0.0

    public var description: String {
        """
        \(source): \(osmNodes) nodes, \(osmWays) ways, \(osmRelations) relations read; \(drivableWays) drivable ways
          graph: \(nodes) nodes (\(junctions) junctions, \(restrictionCopies) restriction copies before pruning), \(edges) edges, \(pieces) road pieces
          \(areaNodes.count) connected areas of at least \(minAreaNodes) nodes kept of \(components) components (nodes: \(areaNodes.map(String.init).joined(separator: ", "))); removed \(removedNodes) nodes and \(removedEdges) edges outside them
          inputs: \(inputs) files, \(sharedNodes) nodes shared between them
          turn restrictions: \(restrictionsApplied) applied, \(restrictionsSkipped) skipped (via ways, missing members, not for cars)
          node refs skipped: \(missingNodeRefs) missing from the file, \(blockedNodeRefs) at barriers
          landmarks: \(landmarks); contraction hierarchy: \(hierarchyEdges) edges; file \(fileBytes) bytes
          time: read \(String(format: "%.2f", readSeconds)) s, prepare \(String(format: "%.2f", prepareSeconds)) s, write \(String(format: "%.2f", writeSeconds)) s
        """
    }

    /// The report as JSON text (stored in the graph file).
    var json: String {
        func esc(_ s: String) -> String {
            var o = ""
            for u in s.unicodeScalars {
                switch u {
                case "\"": o += "\\\""
                case "\\": o += "\\\\"
                case _ where u.value < 0x20: o += String(format: "\\u%04x", u.value)
                default: o.unicodeScalars.append(u)
                }
            }
            return o
        }
        let fields: [(String, Int)] = [
            ("osm_nodes", osmNodes), ("osm_ways", osmWays), ("osm_relations", osmRelations), ("drivable_ways", drivableWays),
            ("missing_node_refs", missingNodeRefs), ("blocked_node_refs", blockedNodeRefs), ("junctions", junctions),
            ("restriction_copies", restrictionCopies), ("restrictions_applied", restrictionsApplied),
            ("restrictions_skipped", restrictionsSkipped), ("components", components), ("removed_nodes", removedNodes),
            ("removed_edges", removedEdges), ("nodes", nodes), ("edges", edges), ("pieces", pieces), ("landmarks", landmarks),
            ("hierarchy_edges", hierarchyEdges), ("min_area_nodes", minAreaNodes), ("shared_nodes", sharedNodes), ("inputs", inputs),
        ]
        return "{\"source\":\"\(esc(source))\"," + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",")
            + ",\"area_nodes\":[" + areaNodes.map(String.init).joined(separator: ",") + "]}"
    }
}

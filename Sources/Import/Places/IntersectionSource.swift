import Foundation
import Geo
import Places

/// The named nodes of the node-link network (`data/nodelink/Seoul_node.csv`) as places of
/// category `intersection`: 세종로사거리, 양평동사거리, the station or building a junction is
/// named after (the node `NODE_NAME`).
///
/// Names are taken as the source writes them, less the separators the source's 10-character
/// cut leaves dangling (`올림픽대로-노들길램프(` → `올림픽대로-노들길램프`). Nodes without a name are
/// not places.
extension RoadNetworkSource {
    /// The id prefix of intersection places (`node:1000007300`).
    static let intersectionIDPrefix = "node:"

    /// The named nodes of the network in `directory` as intersection places.
    static func intersections(directory: String, warnings: inout [String]) throws -> [PlaceRecord] {
        try nodes(directory: directory, warnings: &warnings).compactMap { node in
            guard let name = intersectionName(node.name) else { return nil }
            return PlaceRecord(id: intersectionIDPrefix + node.id, name: name, category: PlaceCategory.intersection,
                               address: "", lon: node.coordinate.lon, lat: node.coordinate.lat,
                               importance: PlaceSources.defaultImportance(PlaceCategory.intersection),
                               englishName: nil, source: nodeFile)
        }
    }

    /// The intersections of `dataDirectory/nodelink`, or none when the folder is absent (the
    /// road reader warns about that).
    static func intersectionsIfPresent(dataDirectory: String, warnings: inout [String]) throws -> [PlaceRecord] {
        let dir = (dataDirectory as NSString).appendingPathComponent(directory)
        guard FileManager.default.fileExists(atPath: (dir as NSString).appendingPathComponent(nodeFile)) else { return [] }
        return try intersections(directory: dir, warnings: &warnings)
    }

    /// A `NODE_NAME` as a place name: trimmed, without dangling `(`, `_` or `-`; nil when
    /// nothing searchable is left.
    static func intersectionName(_ raw: String) -> String? {
        var name = raw.trimmingCharacters(in: .whitespaces)
        while let last = name.last, "(_-".contains(last) || last == " " { name.removeLast() }
        return SearchText.fold(name).isEmpty ? nil : name
    }
}

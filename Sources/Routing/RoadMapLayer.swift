import Foundation
import Geo

/// One road line to draw: a piece of road (one OSM way between junctions), simplified.
public struct RoadMapLine: Sendable {
    public let roadClass: RoadClass
    /// The street name ("" when the road has none).
    public let name: String
    public let points: [Coordinate]
}

/// The served road network as a map layer: which pieces of road a view shows at a zoom, with
/// their geometry simplified to about a pixel. Built once from a loaded `RoadGraph` (a pass over
/// its pieces); read-only and shareable afterwards.
///
/// Thinning follows the zoom like a road map's: only motorways and trunk roads below zoom 10,
/// each further zoom adding the next class, service roads from zoom 15.
public struct RoadMapLayer: Sendable {
    /// Zooms a view may ask for.
    public static let zoomRange = 0...22
    /// The widest view, in screen pixels of 256-px tiles at the asked zoom, on either axis: a
    /// 4K screen with margin. Wider views must zoom out (which thins the roads).
    public static let maximumViewPixels = 4096.0

    struct Entry {
        let piece: UInt32
        let west, south, east, north: Float
    }

    private let graph: RoadGraph
    /// Pieces by road class (`RoadClass.rawValue`), each with its bounding box.
    private let byClass: [[Entry]]

    public init(graph: RoadGraph) {
        self.graph = graph
        var classes = [[Entry]](repeating: [], count: RoadClass.allCases.count)
        let pieces = graph.pieceName.count
        for q in 0..<pieces {
            let e0 = Int(graph.pieceFirstEdge[q]), e1 = Int(graph.pieceFirstEdge[q + 1])
            guard e0 < e1 else { continue }
            let cls = Int(graph.comboClass[Int(graph.combo[Int(graph.pieceEdges[e0])])])
            var w = Int32.max, s = Int32.max, e = Int32.min, n = Int32.min
            for k in Int(graph.pieceFirstPoint[q])..<Int(graph.pieceFirstPoint[q + 1]) {
                w = min(w, graph.pointLon[k]); e = max(e, graph.pointLon[k])
                s = min(s, graph.pointLat[k]); n = max(n, graph.pointLat[k])
            }
            classes[cls].append(Entry(piece: UInt32(q), west: Float(Double(w) / 1e7), south: Float(Double(s) / 1e7),
                                      east: Float(Double(e) / 1e7), north: Float(Double(n) / 1e7)))
        }
        byClass = classes
    }

    /// The road classes drawn at `zoom`, most important first.
    public static func classes(atZoom zoom: Int) -> [RoadClass] {
        let count: Int
        switch zoom {
        case ..<10: count = 2  // motorway, trunk
        case 10: count = 3  // + primary
        case 11: count = 4  // + secondary
        case 12: count = 5  // + tertiary
        case 13: count = 6  // + unclassified
        case 14: count = 8  // + residential, living street
        default: count = RoadClass.allCases.count  // + service
        }
        return Array(RoadClass.allCases.prefix(count))
    }

    /// Whether a view of `box` at `zoom` is within `maximumViewPixels` on both axes.
    public static func viewFits(_ box: BoundingBox, zoom: Int) -> Bool {
        let scale = WebMercator.tileSize * pow(2, Double(zoom))
        let a = WebMercator.normalized(Coordinate(lon: box.west, lat: box.north))
        let b = WebMercator.normalized(Coordinate(lon: box.east, lat: box.south))
        return (b.x - a.x) * scale <= maximumViewPixels && (b.y - a.y) * scale <= maximumViewPixels
    }

    /// Number of pieces of road of class `c` in the layer.
    public func pieceCount(_ c: RoadClass) -> Int { byClass[Int(c.rawValue)].count }

    /// The pieces of class `roadClass` touching `box`, simplified to `toleranceMeters`
    /// (clipping is left to the map: a piece reaching into the box is given whole).
    public func lines(of roadClass: RoadClass, in box: BoundingBox, toleranceMeters: Double) -> [RoadMapLine] {
        var out: [RoadMapLine] = []
        let w = Float(box.west), s = Float(box.south), e = Float(box.east), n = Float(box.north)
        for entry in byClass[Int(roadClass.rawValue)] where entry.east >= w && entry.west <= e && entry.north >= s && entry.south <= n {
            let q = Int(entry.piece)
            var points: [Coordinate] = []
            let k0 = Int(graph.pieceFirstPoint[q]), k1 = Int(graph.pieceFirstPoint[q + 1])
            points.reserveCapacity(k1 - k0)
            for k in k0..<k1 {
                points.append(Coordinate(lon: Double(graph.pointLon[k]) / 1e7, lat: Double(graph.pointLat[k]) / 1e7))
            }
            out.append(RoadMapLine(roadClass: roadClass, name: graph.name(Int(graph.pieceName[q])),
                                   points: LineSimplification.simplify(points, toleranceMeters: toleranceMeters)))
        }
        return out
    }
}

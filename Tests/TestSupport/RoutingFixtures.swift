import Foundation
import Geo
import Import
import Routing
import XCTest

/// The central-Seoul graph, imported in-process once per test run.
public enum SeoulFixture {}

public extension SeoulFixture {
    static let profilePath = TestPaths.dataDir.appendingPathComponent("traffic/profile.csv").path
    static let loaded: Result<(path: String, engine: RouteEngine, report: ImportReport), Error> = Result {
        let profile = try TrafficProfile.load(path: profilePath)
        let path = TestPaths.temporaryDirectory("routing-seoul").appendingPathComponent("seoul.graph").path
        let report = try OSMImporter.importFile(TestPaths.dataDir.appendingPathComponent("osm/seoul-central.osm.pbf").path,
                                                to: path, profile: profile)
        return (path, RouteEngine(graph: try RoadGraph.load(path: path), profile: profile), report)
    }

    static var profile: TrafficProfile { get throws { try TrafficProfile.load(path: profilePath) } }
    static func engine() throws -> RouteEngine { try loaded.get().engine }
    static func graphPath() throws -> String { try loaded.get().path }
}

/// A hand-made OSM network laid out in metres east/north of a base point, written as OSM XML.
public struct TinyMap {
    public static let base = Coordinate(lon: 127.0, lat: 37.5)
    public var nodes: [(id: Int, x: Double, y: Double, tags: [String: String])] = []
    public var ways: [(id: Int, refs: [Int], tags: [String: String])] = []
    public var relations: [(id: Int, members: [(type: String, ref: Int, role: String)], tags: [String: String])] = []

    public init() {}

    /// The coordinate `x` metres east and `y` metres north of the base.
    public static func at(_ x: Double, _ y: Double) -> Coordinate { base.offset(eastMeters: x, northMeters: y) }

    public mutating func node(_ id: Int, _ x: Double, _ y: Double, _ tags: [String: String] = [:]) { nodes.append((id, x, y, tags)) }
    public mutating func way(_ id: Int, _ refs: [Int], _ tags: [String: String] = ["highway": "residential"]) { ways.append((id, refs, tags)) }
    public mutating func restriction(_ id: Int, _ value: String, from: Int, via: Int, to: Int) {
        relations.append((id, [("way", from, "from"), ("node", via, "via"), ("way", to, "to")],
                          ["type": "restriction", "restriction": value]))
    }

    public var xml: String {
        func attr(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "<", with: "&lt;")
        }
        func tagLines(_ t: [String: String]) -> String {
            t.keys.sorted().map { "    <tag k=\"\(attr($0))\" v=\"\(attr(t[$0]!))\"/>\n" }.joined()
        }
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<osm version=\"0.6\" generator=\"taxipot-tests\">\n"
        for n in nodes {
            let c = Self.at(n.x, n.y)
            s += "  <node id=\"\(n.id)\" lat=\"\(String(format: "%.8f", c.lat))\" lon=\"\(String(format: "%.8f", c.lon))\" version=\"1\">\n\(tagLines(n.tags))  </node>\n"
        }
        for w in ways {
            s += "  <way id=\"\(w.id)\" version=\"1\">\n" + w.refs.map { "    <nd ref=\"\($0)\"/>\n" }.joined() + tagLines(w.tags) + "  </way>\n"
        }
        for r in relations {
            s += "  <relation id=\"\(r.id)\" version=\"1\">\n"
                + r.members.map { "    <member type=\"\($0.type)\" ref=\"\($0.ref)\" role=\"\($0.role)\"/>\n" }.joined()
                + tagLines(r.tags) + "  </relation>\n"
        }
        return s + "</osm>\n"
    }

    /// Writes the map, imports it and returns an engine over it.
    public func engine(file: StaticString = #filePath, line: UInt = #line) throws -> RouteEngine {
        let dir = TestPaths.temporaryDirectory("routing-tiny")
        let osm = dir.appendingPathComponent("map.osm").path
        let graph = dir.appendingPathComponent("map.graph").path
        try xml.write(toFile: osm, atomically: true, encoding: .utf8)
        _ = try OSMImporter.importFile(osm, to: graph, profile: try SeoulFixture.profile)
        return RouteEngine(graph: try RoadGraph.load(path: graph), profile: try SeoulFixture.profile)
    }
}

/// 2025-05-01 03:00 in Seoul: free-flowing traffic.
public let night = SeoulTime.parse("2025-05-01T03:00:00+09:00")!

extension RouteEngine {
    /// Distance-metric route between two local points of a `TinyMap`.
    public func tinyRoute(_ a: (Double, Double), _ b: (Double, Double), via: [(Double, Double)] = [],
                   metric: RouteMetric = .distance) throws -> RouteResult
    {
        try route(RouteRequest(from: TinyMap.at(a.0, a.1), to: TinyMap.at(b.0, b.1), via: via.map { TinyMap.at($0.0, $0.1) },
                               departAt: night, metric: metric))
    }
}

/// Random points near road junctions (up to ±40 m away, so most snap mid-segment).
public func randomPoints(_ engine: RouteEngine, count: Int, seed: UInt64) -> [Coordinate] {
    var rng = SplitMix64(seed: seed)
    return (0..<count).map { _ in
        let c = engine.graph.coordinate(ofNode: Int(rng.next() % UInt64(engine.graph.nodeCount)))
        return c.offset(eastMeters: Double(rng.next() % 81) - 40, northMeters: Double(rng.next() % 81) - 40)
    }
}

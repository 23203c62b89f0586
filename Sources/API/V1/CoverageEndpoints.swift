import Foundation
import Geo
import HTTPServer
import JSON
import Routing

/// `GET /v1/coverage`: the served areas of the road graph as GeoJSON.
func registerCoverageEndpoints(_ router: Router, _ context: ServiceContext) {
    router.add("GET", "/v1/coverage", OperationDoc(
        "The served road areas: a GeoJSON FeatureCollection, one MultiPolygon per connected area (the union of the ~550 m grid cells its roads pass through), with its id, node count, bbox and area",
        responses: [(200, "application/geo+json FeatureCollection")], responseSchema: ResponseSchemas.coverage,
        responseExample: ResponseSchemas.coverageExample, responseContentType: HTTPResponse.geoJSONType)) { _ in
        .geoJSON(JSONWriter.bytes(CoverageJSON.featureCollection(context.routeEngine.coverage, network: CoverageJSON.network(context.routeEngine.graph))))
    }
}

/// Coverage as JSON: the GeoJSON of `/v1/coverage` and the summary of `/health`.
public enum CoverageJSON {
    static func number(_ v: Double, _ digits: Double = 1e6) -> JSONValue { .number((v * digits).rounded() / digits) }

    static func bbox(_ b: BoundingBox) -> JSONValue { [number(b.west), number(b.south), number(b.east), number(b.north)] }

    /// One Feature per area: `{"type":"Feature","properties":{"area","nodes","bbox","cells_km2","name"},"geometry":MultiPolygon}`.
    /// `{"name": "nodelink"|"osm", "description": …}`: the network the graph was imported from.
    public static func network(_ graph: RoadGraph) -> JSONValue {
        ["name": .string(graph.network), "description": .string(graph.networkDescription)]
    }

    public static func featureCollection(_ map: CoverageMap, network: JSONValue? = nil) -> JSONValue {
        let features: [JSONValue] = map.areas.map { a in
            let polygons: [JSONValue] = a.polygons.map { rings in
                .array(rings.map { ring in .array(ring.map { [number($0.lon), number($0.lat)] }) })
            }
            return [
                "type": "Feature",
                "properties": [
                    "area": JSONValue(a.id),
                    "name": .string("area \(a.id) (\(String(format: "%.3f", (a.bbox.south + a.bbox.north) / 2)), \(String(format: "%.3f", (a.bbox.west + a.bbox.east) / 2)))"),
                    "nodes": JSONValue(a.nodes),
                    "bbox": bbox(a.bbox),
                    "area_km2": number(a.cellAreaKm2, 100),
                ],
                "bbox": bbox(a.bbox),
                "geometry": ["type": "MultiPolygon", "coordinates": .array(polygons)],
            ]
        }
        var members: [(String, JSONValue)] = [("type", "FeatureCollection")]
        if let network { members.append(("network", network)) }
        return .object(members + [("features", .array(features))])
    }

    /// The `/health` summary: areas with node counts and bboxes, and the circuity bands.
    public static func healthSummary(_ graph: RoadGraph) -> JSONValue {
        let areas: [JSONValue] = (0..<graph.areaCount).map { a in
            ["area": JSONValue(a), "nodes": JSONValue(graph.areaNodeCounts[a]), "bbox": bbox(graph.areaBoundingBoxes[a])]
        }
        let bands: [JSONValue] = graph.circuity.bands.map { b in
            [
                "straight_line_km": [number(b.minMeters / 1000, 10), b.maxMeters.isFinite ? number(b.maxMeters / 1000, 10) : .null],
                "pairs": JSONValue(b.pairs),
                "p05": number(b.p05, 100), "p10": number(b.p10, 100), "median": number(b.median, 100),
                "p90": number(b.p90, 100), "p95": number(b.p95, 100),
            ]
        }
        return [
            "network": network(graph),
            "coverage": ["areas": JSONValue(graph.areaCount), "nodes": JSONValue(graph.nodeCount), "by_area": .array(areas),
                         "geojson": "/v1/coverage"],
            "circuity": ["method": "route length / straight-line length on the served graph, measured at import",
                         "bands": .array(bands)],
        ]
    }
}

import Foundation
import Geo
import HTTPServer
import JSON
import Places
import Routing

/// The base map drawn from the engine's own data: `GET /v1/roads` (the served road network,
/// thinned by zoom) and `GET /v1/boundaries` (the 구/동 outlines the place DB knows).
enum MapLayers {
    /// The most bytes one `/v1/roads` answer may hold: beyond it the least important classes
    /// shown are dropped (and the answer says `"truncated":true`).
    static let roadBytesBudget = 1_000_000
    /// Boundaries: 동 outlines from this zoom on; 구 outlines at any zoom.
    static let emdMinimumZoom = 13

    /// Decimal places of coordinates at `zoom`: about a tenth of a pixel.
    static func decimals(atZoom zoom: Int) -> Int { zoom < 11 ? 4 : zoom < 15 ? 5 : 6 }

    /// Simplification tolerance at `zoom` and latitude: one pixel.
    static func tolerance(atZoom zoom: Int, latitude: Double) -> Double {
        LineSimplification.metersPerPixel(zoom: Double(zoom), latitude: latitude)
    }

    /// Writes `v` with exactly `decimals` places, trailing zeros removed.
    static func writeFixed(_ v: Double, decimals: Int, into out: inout [UInt8]) {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        var n = Int64((v * scale).rounded())
        if n < 0 { out.append(UInt8(ascii: "-")); n = -n }
        let whole = n / Int64(scale)
        var frac = n % Int64(scale)
        JSONWriter.writeInteger(whole, into: &out)
        guard frac > 0 else { return }
        var digits = decimals
        while frac % 10 == 0 { frac /= 10; digits -= 1 }
        out.append(UInt8(ascii: "."))
        var text = [UInt8](repeating: UInt8(ascii: "0"), count: digits)
        var i = digits - 1
        while frac > 0 { text[i] = UInt8(ascii: "0") + UInt8(frac % 10); frac /= 10; i -= 1 }
        out.append(contentsOf: text)
    }

    static func writeLine(_ points: [Coordinate], decimals: Int, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (i, p) in points.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "["))
            writeFixed(p.lon, decimals: decimals, into: &out)
            out.append(UInt8(ascii: ","))
            writeFixed(p.lat, decimals: decimals, into: &out)
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "]"))
    }

    /// The road answer for `box` at `zoom`: a FeatureCollection of LineStrings with
    /// `{"class","name"?}`, plus `"zoom"`, `"classes"` (those shown) and `"truncated"`.
    static func roads(_ layer: RoadMapLayer, box: BoundingBox, zoom: Int) -> [UInt8] {
        let decimals = decimals(atZoom: zoom)
        let tolerance = tolerance(atZoom: zoom, latitude: (box.south + box.north) / 2)
        var shown: [RoadClass] = []
        var body: [UInt8] = []
        var truncated = false
        for c in RoadMapLayer.classes(atZoom: zoom) {
            var part: [UInt8] = []
            for line in layer.lines(of: c, in: box, toleranceMeters: tolerance) {
                part.append(contentsOf: #",{"type":"Feature","properties":{"class":""#.utf8)
                part.append(contentsOf: c.osmName.utf8)
                part.append(UInt8(ascii: "\""))
                if !line.name.isEmpty {
                    part.append(contentsOf: #","name":"#.utf8)
                    JSONWriter.writeString(line.name, into: &part)
                }
                part.append(contentsOf: #"},"geometry":{"type":"LineString","coordinates":"#.utf8)
                writeLine(line.points, decimals: decimals, into: &part)
                part.append(contentsOf: "}}".utf8)
            }
            if body.count + part.count + 200 > roadBytesBudget {
                truncated = true
                break
            }
            body.append(contentsOf: part)
            shown.append(c)
        }
        var out: [UInt8] = []
        out.reserveCapacity(body.count + 200)
        out.append(contentsOf: #"{"type":"FeatureCollection","zoom":"#.utf8)
        JSONWriter.writeInteger(Int64(zoom), into: &out)
        out.append(contentsOf: #","classes":"#.utf8)
        JSONWriter.write(.array(shown.map { .string($0.osmName) }), into: &out)
        out.append(contentsOf: #","truncated":"#.utf8)
        out.append(contentsOf: (truncated ? "true" : "false").utf8)
        out.append(contentsOf: #","features":["#.utf8)
        if !body.isEmpty { out.append(contentsOf: body.dropFirst()) }
        out.append(contentsOf: "]}".utf8)
        return out
    }

    /// The boundary answer: a FeatureCollection of (Multi)Polygons with `{"code","level","name"}`.
    static func boundaries(_ outlines: [DivisionOutline], zoom: Int, latitude: Double) -> [UInt8] {
        let decimals = decimals(atZoom: zoom)
        let tolerance = tolerance(atZoom: zoom, latitude: latitude)
        var out: [UInt8] = []
        out.append(contentsOf: #"{"type":"FeatureCollection","features":["#.utf8)
        for (k, o) in outlines.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"type":"Feature","properties":{"code":"#.utf8)
            JSONWriter.writeString(o.code, into: &out)
            out.append(contentsOf: #","level":"#.utf8)
            JSONWriter.writeString(o.level, into: &out)
            out.append(contentsOf: #","name":"#.utf8)
            JSONWriter.writeString(o.name, into: &out)
            out.append(contentsOf: #"},"geometry":{"type":"MultiPolygon","coordinates":["#.utf8)
            for (i, polygon) in o.area.polygons.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                out.append(UInt8(ascii: "["))
                for (j, ring) in polygon.rings.enumerated() {
                    if j > 0 { out.append(UInt8(ascii: ",")) }
                    var simple = LineSimplification.simplify(ring, toleranceMeters: tolerance)
                    if simple.count < 4 { simple = ring }
                    writeLine(simple, decimals: decimals, into: &out)
                }
                out.append(UInt8(ascii: "]"))
            }
            out.append(contentsOf: "]}}".utf8)
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }
}

/// `GET /v1/roads` and `GET /v1/boundaries`.
func registerMapEndpoints(_ router: Router, _ context: ServiceContext) {
    let zooms = RoadMapLayer.zoomRange
    let bboxParam = ParameterDoc("bbox", required: true, "the view as minLon,minLat,maxLon,maxLat (degrees, west < east)", schema: APISchemas.bboxQuery)
    let zoomParam = ParameterDoc("zoom", required: true, type: "number", "map zoom \(zooms.lowerBound)–\(zooms.upperBound) (fractions are floored)", schema: ["type": "number", "minimum": .number(Double(zooms.lowerBound)), "maximum": .number(Double(zooms.upperBound))])

    router.operation("GET", "/v1/roads", OperationDoc(
        "The served road network in a view as GeoJSON, thinned by zoom (motorway and trunk below zoom 10, one more class per zoom, all from 15) and simplified to about a pixel; at most about 1 MB",
        parameters: [bboxParam, zoomParam],
        responses: [(200, "FeatureCollection of LineStrings with {\"class\" (OSM highway value),\"name\"?}, plus \"zoom\", \"classes\" (the classes shown) and \"truncated\" (true when the least important classes were left out to stay under 1 MB)"),
                    (400, "missing_parameter, invalid_parameter (naming it)"),
                    (422, "view_too_large (the box is wider or taller than \(Int(RoadMapLayer.maximumViewPixels)) px at that zoom), or invalid_parameter: a bbox whose bounds are out of order")],
        responseSchema: ResponseSchemas.roads, responseExample: ResponseSchemas.roadsExample, responseContentType: HTTPResponse.geoJSONType
    ), cost: .light) { _, query in
        let box = try mapBBox(query)
        let zoom = try mapZoom(query)
        guard RoadMapLayer.viewFits(box, zoom: zoom) else {
            throw HTTPError.unprocessable("view_too_large", "the bbox spans more than \(Int(RoadMapLayer.maximumViewPixels)) pixels at zoom \(zoom): zoom out (a lower zoom) or ask for a smaller box")
        }
        return .geoJSON(MapLayers.roads(context.roadLayer, box: box, zoom: zoom))
    }

    router.operation("GET", "/v1/boundaries", OperationDoc(
        "The 구 and 동 (법정동) outlines the place DB knows (Seoul) that meet a box, as GeoJSON, simplified to about a pixel at the zoom",
        parameters: [bboxParam, zoomParam,
                     ParameterDoc("level", "sigungu (구), emd (동) or both (default: sigungu, plus emd from zoom \(MapLayers.emdMinimumZoom))", schema: APISchemas.oneOf(["sigungu", "emd", "both"]))],
        responses: [(200, "FeatureCollection of MultiPolygons with {\"code\",\"level\",\"name\"}"),
                    (400, "missing_parameter, invalid_parameter (naming it)"),
                    (422, "invalid_parameter: a bbox whose bounds are out of order")],
        responseSchema: ResponseSchemas.boundaries, responseExample: ResponseSchemas.boundariesExample, responseContentType: HTTPResponse.geoJSONType
    ), cost: .light) { _, query in
        let box = try mapBBox(query)
        let zoom = try mapZoom(query)
        var levels = zoom >= MapLayers.emdMinimumZoom ? PlaceIndex.boundaryLevels : ["sigungu"]
        switch try query.choice("level") {
        case nil: break
        case "both": levels = PlaceIndex.boundaryLevels
        case let level?: levels = [level]
        }
        let outlines = levels.flatMap { context.places.boundaries(level: $0, in: box) }
        return .geoJSON(MapLayers.boundaries(outlines, zoom: zoom, latitude: (box.south + box.north) / 2))
    }
}

/// `bbox` as minLon,minLat,maxLon,maxLat with west < east and south < north.
private func mapBBox(_ query: QueryReader) throws(HTTPError) -> BoundingBox {
    let box = try query.requiredBox("bbox") { text in
        .badRequest("invalid_parameter", "query parameter 'bbox' must be minLon,minLat,maxLon,maxLat in decimal degrees (longitudes within ±180, latitudes within ±90), got '\(text.prefix(80))'")
    }
    guard box.west < box.east, box.south < box.north else {
        // Numbers in range in the wrong order fit the documented pattern: 422, as the schema cannot say it.
        throw HTTPError(status: 422, code: "invalid_parameter", message: "query parameter 'bbox' needs minLon < maxLon and minLat < maxLat, got '\(box.west),\(box.south),\(box.east),\(box.north)'")
    }
    return box
}

private func mapZoom(_ query: QueryReader) throws(HTTPError) -> Int {
    let range = RoadMapLayer.zoomRange
    let z = try query.requiredNumber("zoom") { text in
        .badRequest("invalid_parameter", "query parameter 'zoom' must be a number from \(range.lowerBound) to \(range.upperBound), got '\(text.prefix(40))'")
    }
    return Int(z.rounded(.down))
}

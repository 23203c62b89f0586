import Foundation
@testable import API
import TaxiPotServer
import TestSupport
import XCTest

/// `GET /v1/roads`, `GET /v1/boundaries` and the map page's files, in-process over the
/// embedded central-Seoul dataset.
final class MapEndpointTests: XCTestCase {
    static let webDir = TestPaths.packageRoot.appendingPathComponent("web").path
    static let context: Result<ServiceContext, Error> = Result {
        let configuration = ServiceConfiguration(dataDir: try TestDataset.directory(), stateDir: TestPaths.temporaryDirectory("state").path,
                                                 webDir: webDir)
        return try TestDataset.context(configuration)
    }
    static let router: Result<Router, Error> = Result { makeRouter(context: try context.get()) }

    func get(_ path: String, _ query: [(String, String)] = [], router: Router? = nil) throws -> HTTPResponse {
        try (router ?? Self.router.get()).handle(HTTPRequest(method: "GET", path: path, query: query)).response
    }

    func json(_ r: HTTPResponse) throws -> JSONValue { try JSONParser.parse(r.body) }

    /// The graph's whole extent and its centre.
    var extent: BoundingBox { get throws { try Self.context.get().data.graph.boundingBox } }

    /// The largest view allowed at `zoom` (4096 px square) around `center`.
    func largestView(zoom: Int, center: Coordinate) -> BoundingBox {
        let scale = WebMercator.tileSize * pow(2, Double(zoom))
        let c = WebMercator.normalized(center)
        let half = (RoadMapLayer.maximumViewPixels / 2 - 1) / scale
        let nw = WebMercator.coordinate(normalizedX: c.x - half, y: c.y - half)
        let se = WebMercator.coordinate(normalizedX: c.x + half, y: c.y + half)
        return BoundingBox(west: max(-180, nw.lon), south: max(-85, se.lat), east: min(180, se.lon), north: min(85, nw.lat))
    }

    func bboxText(_ b: BoundingBox) -> String { "\(b.west),\(b.south),\(b.east),\(b.north)" }

    func testRoadsThinByZoomAndStayUnderOneMegabyte() throws {
        let box = try extent
        let center = Coordinate(lon: (box.west + box.east) / 2, lat: (box.south + box.north) / 2)
        var featuresByZoom: [Int: Int] = [:]
        for zoom in RoadMapLayer.zoomRange {
            let view = largestView(zoom: zoom, center: center)
            let r = try get("/v1/roads", [("bbox", bboxText(view)), ("zoom", String(zoom))])
            XCTAssertEqual(r.status, 200, "zoom \(zoom)")
            XCTAssertLessThanOrEqual(r.body.count, 1_000_000, "zoom \(zoom): \(r.body.count) bytes")
            let fc = try json(r)
            XCTAssertEqual(fc["type"]?.stringValue, "FeatureCollection")
            let shown = fc["classes"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let allowed = RoadMapLayer.classes(atZoom: zoom).map(\.osmName)
            XCTAssertEqual(Array(allowed.prefix(shown.count)), shown, "zoom \(zoom): the classes shown are the most important allowed")
            XCTAssertEqual(fc["truncated"]?.boolValue, shown.count < allowed.count)
            let features = fc["features"]?.arrayValue ?? []
            featuresByZoom[zoom] = features.count
            for f in features {
                let cls = try XCTUnwrap(f["properties"]?["class"]?.stringValue)
                XCTAssertTrue(shown.contains(cls), "zoom \(zoom): class \(cls) not among \(shown)")
                let coords = try XCTUnwrap(f["geometry"]?["coordinates"]?.arrayValue)
                XCTAssertGreaterThanOrEqual(coords.count, 2)
            }
        }
        // Zoomed out: motorways and trunk roads only; zoomed in: every class, so more lines.
        XCTAssertEqual(RoadMapLayer.classes(atZoom: 8).map(\.osmName), ["motorway", "trunk"])
        XCTAssertEqual(RoadMapLayer.classes(atZoom: 16).count, RoadClass.allCases.count)
        XCTAssertGreaterThan(featuresByZoom[12] ?? 0, featuresByZoom[9] ?? 0)
    }

    func testRoadsOfASmallViewAreThereAndSimplified() throws {
        // Around Seoul station at zoom 16 (every class) and 12 (to tertiary): the lines touch the box.
        let box = BoundingBox(west: 126.966, south: 37.550, east: 126.978, north: 37.560)
        let near = try json(try get("/v1/roads", [("bbox", bboxText(box)), ("zoom", "16")]))
        let far = try json(try get("/v1/roads", [("bbox", bboxText(box)), ("zoom", "12.7")]))
        XCTAssertEqual(far["zoom"]?.intValue, 12, "fractions are floored")
        let nearFeatures = near["features"]?.arrayValue ?? []
        let farFeatures = far["features"]?.arrayValue ?? []
        XCTAssertGreaterThan(nearFeatures.count, 50)
        XCTAssertGreaterThan(nearFeatures.count, farFeatures.count)
        XCTAssertTrue(nearFeatures.contains { $0["properties"]?["class"]?.stringValue == "residential" || $0["properties"]?["class"]?.stringValue == "service" })
        XCTAssertFalse(farFeatures.contains { $0["properties"]?["class"]?.stringValue == "residential" })
        for f in nearFeatures {
            let pts = f["geometry"]?["coordinates"]?.arrayValue?.compactMap { p -> Coordinate? in
                guard let x = p[0]?.doubleValue, let y = p[1]?.doubleValue else { return nil }
                return Coordinate(lon: x, lat: y)
            } ?? []
            var b = BoundingBox(west: 180, south: 90, east: -180, north: -90)
            for p in pts { b.west = min(b.west, p.lon); b.east = max(b.east, p.lon); b.south = min(b.south, p.lat); b.north = max(b.north, p.lat) }
            XCTAssertTrue(b.east >= box.west - 1e-5 && b.west <= box.east + 1e-5 && b.north >= box.south - 1e-5 && b.south <= box.north + 1e-5,
                          "a line outside the box: \(b)")
        }
        // Simplification: the same roads at a lower zoom have fewer points each.
        let points = { (fs: [JSONValue]) in fs.reduce(0) { $0 + ($1["geometry"]?["coordinates"]?.arrayValue?.count ?? 0) } }
        let z12 = try json(try get("/v1/roads", [("bbox", bboxText(box)), ("zoom", "12")]))["features"]?.arrayValue ?? []
        let z16primary = nearFeatures.filter { ["motorway", "trunk", "primary", "secondary", "tertiary"].contains($0["properties"]?["class"]?.stringValue ?? "") }
        XCTAssertEqual(z12.count, z16primary.count, "the same pieces of the major classes")
        XCTAssertLessThan(points(z12), points(z16primary))
    }

    func testRoadsBadInput() throws {
        let cases: [([(String, String)], String)] = [
            ([("zoom", "12")], "missing_parameter"),
            ([("bbox", "126.9,37.5,127.0,37.6")], "missing_parameter"),
            ([("bbox", "126.9,37.5,127.0"), ("zoom", "12")], "invalid_parameter"),
            ([("bbox", "127.0,37.5,126.9,37.6"), ("zoom", "12")], "invalid_parameter"),
            ([("bbox", "126.9,37.6,127.0,37.5"), ("zoom", "12")], "invalid_parameter"),
            ([("bbox", "126.9,37.5,127.0,95"), ("zoom", "12")], "invalid_parameter"),
            ([("bbox", "a,b,c,d"), ("zoom", "12")], "invalid_parameter"),
            ([("bbox", "126.9,37.5,127.0,37.6"), ("zoom", "23")], "invalid_parameter"),
            ([("bbox", "126.9,37.5,127.0,37.6"), ("zoom", "-1")], "invalid_parameter"),
            ([("bbox", "126.9,37.5,127.0,37.6"), ("zoom", "nan")], "invalid_parameter"),
            ([("bbox", "120,30,130,40"), ("zoom", "12")], "view_too_large"),
        ]
        // Values that each fit the documented schema but not together (bounds out of order, a view
        // too large for the zoom) are 422; the others 400.
        let unprocessable = ["127.0,37.5,126.9,37.6", "126.9,37.6,127.0,37.5", "120,30,130,40"]
        for (query, code) in cases {
            let r = try get("/v1/roads", query)
            XCTAssertEqual(r.status, unprocessable.contains(query[0].1) ? 422 : 400, "\(query)")
            XCTAssertEqual(try json(r)["error"]?["code"]?.stringValue, code, "\(query)")
        }
        let r = try get("/v1/boundaries", [("bbox", "126.9,37.5,127.0,37.6"), ("zoom", "12"), ("level", "ri")])
        XCTAssertEqual(r.status, 400)
        XCTAssertTrue(try json(r)["error"]?["message"]?.stringValue?.contains("level") ?? false)
    }

    func testBoundaries() throws {
        // Around Gyeongbokgung: 종로구 at zoom 12 (구 only), 종로구 and 세종로 at 14.
        let box = "126.970,37.570,126.985,37.585"
        let gu = try json(try get("/v1/boundaries", [("bbox", box), ("zoom", "12")]))["features"]?.arrayValue ?? []
        XCTAssertTrue(gu.allSatisfy { $0["properties"]?["level"]?.stringValue == "sigungu" })
        XCTAssertTrue(gu.contains { $0["properties"]?["name"]?.stringValue == "종로구" && $0["properties"]?["code"]?.stringValue == "11110" })
        let both = try json(try get("/v1/boundaries", [("bbox", box), ("zoom", "14")]))["features"]?.arrayValue ?? []
        XCTAssertTrue(both.contains { $0["properties"]?["level"]?.stringValue == "emd" && $0["properties"]?["name"]?.stringValue == "세종로" })
        XCTAssertEqual(both.first?["geometry"]?["type"]?.stringValue, "MultiPolygon")
        let ring = try XCTUnwrap(both.first?["geometry"]?["coordinates"]?[0]?[0]?.arrayValue)
        XCTAssertGreaterThanOrEqual(ring.count, 4)
        XCTAssertEqual(ring.first, ring.last, "rings stay closed")
        // Busan has no polygons in the data: none.
        let busan = try json(try get("/v1/boundaries", [("bbox", "129.0,35.1,129.1,35.2"), ("zoom", "14")]))["features"]?.arrayValue ?? []
        XCTAssertTrue(busan.isEmpty)
    }

    func testPageAndLeafletFiles() throws {
        for path in ["/", "/map"] {
            let r = try get(path)
            XCTAssertEqual(r.status, 200)
            XCTAssertTrue(r.headers.contains { $0.0 == "Content-Type" && $0.1.hasPrefix("text/html") })
            let html = String(decoding: r.body, as: UTF8.self)
            XCTAssertTrue(html.contains("/leaflet/leaflet.js") && html.contains("/web/app.js") && html.contains("lang=\"ko\""))
        }
        XCTAssertEqual(try get("/web/app.js").status, 200)
        XCTAssertEqual(try get("/web/style.css").status, 200)
        let leaflet = try get("/leaflet/leaflet.js")
        XCTAssertEqual(leaflet.status, 200)
        XCTAssertTrue(leaflet.headers.contains { $0.0 == "Content-Type" && $0.1.hasPrefix("text/javascript") })
        XCTAssertGreaterThan(leaflet.body.count, 50_000)
        XCTAssertEqual(try get("/leaflet/images/marker-icon.png").status, 200)
        // Only plain names of known kinds.
        for bad in ["/web/..", "/web/.hidden.js", "/web/index", "/web/nothing.js", "/leaflet/images/..%2Fleaflet.js"] {
            XCTAssertEqual(try get(bad).status, 404, bad)
        }
    }

    func testMissingPageFoldersAreClearErrorsAndTheAPIWorks() throws {
        // The service's routes with the page folders pointed at nowhere (the rest as served).
        let shared = try Self.context.get()
        var configuration = shared.configuration
        configuration.webDir = "/nonexistent/web"
        configuration.leafletDir = "/nonexistent/leaflet"
        let router = Router()
        registerSystemEndpoints(router, shared)
        registerPlacesEndpoints(router, shared)
        registerMapEndpoints(router, shared)
        registerPageEndpoints(router, configuration)
        let page = try get("/", router: router)
        XCTAssertEqual(page.status, 503)
        let error = try json(page)["error"]
        XCTAssertEqual(error?["code"]?.stringValue, "leaflet_unavailable")
        XCTAssertTrue(error?["message"]?.stringValue?.contains("libjs-leaflet") ?? false)
        XCTAssertTrue(error?["message"]?.stringValue?.contains("/nonexistent/leaflet") ?? false)
        XCTAssertEqual(try get("/health", router: router).status, 200)
        XCTAssertEqual(try get("/v1/places", [("q", "서울역")], router: router).status, 200)
        let script = try json(try get("/web/app.js", router: router))["error"]
        XCTAssertEqual(script?["code"]?.stringValue, "page_unavailable")
        XCTAssertTrue(script?["message"]?.stringValue?.contains("--web") ?? false)
        XCTAssertEqual(try get("/leaflet/leaflet.css", router: router).status, 503)
    }

    func testDefaultWebFolderIsBesideTheDataFolder() {
        XCTAssertEqual(ServiceConfiguration.defaultWebDir(dataDir: "data"), "web")
        XCTAssertEqual(ServiceConfiguration.defaultWebDir(dataDir: "data/"), "web")
        XCTAssertEqual(ServiceConfiguration.defaultWebDir(dataDir: "/srv/taxipot/data"), "/srv/taxipot/web")
    }

    func testOpenAPIListsTheMapEndpoints() throws {
        let doc = try json(try get("/openapi.json"))
        for path in ["/v1/roads", "/v1/boundaries", "/", "/map"] {
            XCTAssertNotNil(doc["paths"]?[path]?["get"], path)
        }
        let params = doc["paths"]?["/v1/roads"]?["get"]?["parameters"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
        XCTAssertEqual(params, ["bbox", "zoom"])
    }

    func testLineSimplificationKeepsEndsAndTolerance() {
        // A zigzag of 1 m teeth along 100 m: at 2 m tolerance only the ends remain; at 0.5 m all.
        let start = Coordinate(lon: 126.97, lat: 37.55)
        let line = (0...100).map { i in start.offset(eastMeters: Double(i), northMeters: i % 2 == 0 ? 0 : 1) }
        XCTAssertEqual(LineSimplification.simplify(line, toleranceMeters: 2).count, 2)
        XCTAssertEqual(LineSimplification.simplify(line, toleranceMeters: 0.5).count, line.count)
        let simple = LineSimplification.simplify(line, toleranceMeters: 2)
        XCTAssertEqual(simple.first, line.first)
        XCTAssertEqual(simple.last, line.last)
        XCTAssertEqual(LineSimplification.metersPerPixel(zoom: 0, latitude: 0), 156_543.03, accuracy: 0.1)
    }
}

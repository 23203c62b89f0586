import Foundation
import Geo
import TaxiPotServer
import TestSupport
import XCTest

/// The OpenAPI document as a contract: the API's own version, the bearer scheme on writes, and a
/// JSON Schema with an example for every error answer of every operation.
final class OpenAPIContractTests: XCTestCase {
    /// One service over the test dataset, its router and its document, shared by the tests
    /// (a service context takes seconds to open in a debug build).
    static let served: Result<(router: Router, doc: JSONValue, dataset: DatasetInfo), Error> = Result {
        let context = try TestDataset.context()
        let router = makeRouter(context: context)
        return (router, OpenAPIDocument.build(router: router, dataset: context.info), context.info)
    }
    func testDocumentTypesEveryAnswer() throws {
        let (_, doc, dataset) = try Self.served.get()
        XCTAssertEqual(doc["info"]?["version"]?.stringValue, APIVersion.api)
        XCTAssertEqual(doc["x-dataset"]?["version"]?.stringValue, dataset.version)
        XCTAssertEqual(doc["components"]?["securitySchemes"]?["bearerAuth"]?["scheme"]?.stringValue, "bearer")
        let paths = try XCTUnwrap(doc["paths"]?.objectValue)
        var operations = 0
        for (path, item) in paths {
            for (method, op) in item.objectValue ?? [] {
                operations += 1
                let responses = try XCTUnwrap(op["responses"]?.objectValue, "\(method) \(path)")
                for (status, response) in responses {
                    let code = Int(status) ?? 0
                    if code == 204 || code == 304 { continue }
                    let content = try XCTUnwrap(response["content"]?.objectValue?.first?.1, "\(method) \(path) \(status) has no body schema")
                    XCTAssertNotNil(content["schema"], "\(method) \(path) \(status)")
                    // A JSON success body is typed: its members are listed, not just "an object".
                    let media = response["content"]?.objectValue?.first?.0 ?? ""
                    // (JSON Lines is a text of many JSON values, not one JSON body.)
                    // (The map page's files are served as they are, whatever their type: a string.)
                    if code < 300, media.hasSuffix("json"), media != "application/x-ndjson", content["schema"]?["type"]?.stringValue != "string" {
                        XCTAssertNotNil(resolve(doc, content["schema"])?["properties"], "\(method) \(path) \(status): success body without members")
                    }
                    if code >= 400 {
                        // The API's {"error":{"code",…}}, or the OSRM face's {"code",…} and the Kakao face's {"errorType",…}.
                        let example = try XCTUnwrap(content["example"], "\(method) \(path) \(status) has no example")
                        XCTAssertNotNil(example["error"]?["code"]?.stringValue ?? example["code"]?.stringValue ?? example["errorType"]?.stringValue,
                                        "\(method) \(path) \(status): the example names its error")
                    }
                }
                let secured = op["security"] != nil
                XCTAssertEqual(secured, responses.contains { $0.0 == "401" }, "\(method) \(path): security where a token is needed")
            }
        }
        XCTAssertGreaterThanOrEqual(operations, 16)
        // Examples of the answers a client meets first.
        for path in ["/v1/route", "/v1/quote", "/v1/fare", "/v1/transform", "/v1/places", "/v1/reverse", "/v1/table"] {
            let op = try XCTUnwrap(paths.first { $0.0 == path }?.1.objectValue?.first?.1)
            XCTAssertNotNil(op["responses"]?["200"]?["content"]?["application/json"]?["example"], path)
        }
        // Writes name the scheme; a party body says what the server enforces.
        let put = try XCTUnwrap(doc["paths"]?["/v1/parties/{id}"]?["put"])
        XCTAssertNotNil(put["security"])
        let body = try XCTUnwrap(put["requestBody"]?["content"]?["application/json"])
        XCTAssertNotNil(body["example"])
        XCTAssertEqual(body["schema"]?["$ref"]?.stringValue, "#/components/schemas/PartyInput")
        let partyInput = try XCTUnwrap(resolve(doc, body["schema"]))
        XCTAssertEqual(partyInput["properties"]?["seats_total"]?["maximum"]?.intValue, 16)
        // seats_taken ≤ seats_total is said in prose, not spelt out as one branch per total.
        XCTAssertNil(partyInput["anyOf"])
        XCTAssertTrue(partyInput["description"]?.stringValue?.contains("seats_taken ≤ seats_total") == true)
        XCTAssertEqual(resolve(doc, put["responses"]?["200"]?["content"]?["application/json"]?["schema"])?["required"]?.arrayValue?.count, 7)
    }

    /// The schema `schema` names (following `$ref`s into `components/schemas`).
    func resolve(_ doc: JSONValue, _ schema: JSONValue?) -> JSONValue? {
        var s = schema
        while let ref = s?["$ref"]?.stringValue {
            s = doc["components"]?["schemas"]?[String(ref.split(separator: "/").last ?? "")]
        }
        return s
    }

    /// Every `$ref` in `value`.
    func references(_ value: JSONValue) -> [String] {
        switch value {
        case .object(let members): return members.flatMap { $0.0 == "$ref" ? [$0.1.stringValue ?? ""] : references($0.1) }
        case .array(let items): return items.flatMap(references)
        default: return []
        }
    }

    /// Generators name types after `components/schemas`: the concepts are there, referenced from
    /// the operations (not copied inline), every reference resolves, and each name holds a distinct schema.
    func testConceptsAreNamedComponents() throws {
        let doc = try Self.served.get().doc
        let schemas = try XCTUnwrap(doc["components"]?["schemas"]?.objectValue)
        let names = schemas.map(\.0)
        for name in ["Party", "PartyInput", "Rider", "RiderInput", "Place", "Places", "Route", "Quote", "QuoteInput", "Match", "Matches",
                     "PartyQuote", "Error", "Table", "Fare", "LonLat", "PointGeometry", "LineStringGeometry", "MultiPolygonGeometry",
                     "CoverageFeatureCollection", "CoverageFeature", "RoadFeatureCollection", "BoundaryFeatureCollection", "ClusterFeatureCollection"] {
            XCTAssertTrue(names.contains(name), "components/schemas lacks \(name)")
        }
        XCTAssertEqual(Set(names).count, names.count, "a name defined twice")
        for (i, a) in schemas.enumerated() {
            for b in schemas[(i + 1)...] { XCTAssertFalse(a.1 == b.1, "\(a.0) and \(b.0) are the same schema") }
        }
        let refs = references(doc)
        for ref in Set(refs) {
            XCTAssertTrue(ref.hasPrefix("#/components/schemas/") && names.contains(String(ref.dropFirst("#/components/schemas/".count))), "dangling \(ref)")
        }
        // Operations refer to the concepts instead of repeating them.
        let paths = try XCTUnwrap(doc["paths"])
        func answer(_ path: String, _ method: String = "get", _ media: String = "application/json") -> String? {
            paths[path]?[method]?["responses"]?["200"]?["content"]?[media]?["schema"]?["$ref"]?.stringValue
        }
        XCTAssertEqual(answer("/v1/route"), "#/components/schemas/Route")
        XCTAssertEqual(answer("/v1/quote", "post"), "#/components/schemas/Quote")
        XCTAssertEqual(answer("/v1/parties/{id}"), "#/components/schemas/Party")
        XCTAssertEqual(answer("/v1/places"), "#/components/schemas/Places")
        XCTAssertEqual(answer("/v1/coverage", "get", "application/geo+json"), "#/components/schemas/CoverageFeatureCollection")
        XCTAssertEqual(resolve(doc, schemas.first { $0.0 == "Match" }?.1)?["properties"]?["party"]?["$ref"]?.stringValue, "#/components/schemas/Party")
        // Every array says what it holds (a generator drops an answer with an untyped array).
        func untypedArrays(_ v: JSONValue, _ at: String) -> [String] {
            switch v {
            case .object(let members):
                let here = v["type"]?.stringValue == "array" && v["items"] == nil && v["prefixItems"] == nil ? [at] : []
                return here + members.filter { $0.0 != "example" }.flatMap { untypedArrays($0.1, at + "/" + $0.0) }
            case .array(let items): return items.enumerated().flatMap { untypedArrays($0.1, at + "/\($0.0)") }
            default: return []
            }
        }
        XCTAssertEqual(untypedArrays(doc, ""), [])
    }

    /// The media type each answer is documented with is the one the server sends: GeoJSON
    /// answers are `application/geo+json`.
    func testGeoJSONAnswersAreServedAsDocumented() throws {
        let (router, doc, _) = try Self.served.get()
        let queries: [String: [(String, String)]] = [
            "/v1/coverage": [], "/v1/roads": [("bbox", "126.97,37.56,126.98,37.57"), ("zoom", "15")],
            "/v1/boundaries": [("bbox", "126.95,37.54,127.0,37.58"), ("zoom", "12")],
            "/v1/clusters": [("bbox", "126.9,37.5,127.1,37.6"), ("zoom", "12")],
        ]
        for (path, query) in queries {
            let documented = doc["paths"]?[path]?["get"]?["responses"]?["200"]?["content"]?.objectValue?.map(\.0)
            XCTAssertEqual(documented, ["application/geo+json"], path)
            let r = router.handle(HTTPRequest(method: "GET", path: path, query: query.map { (name: $0.0, value: $0.1) })).response
            XCTAssertEqual(r.status, 200, path)
            XCTAssertEqual(r.headers.first { $0.0.lowercased() == "content-type" }?.1, "application/geo+json", path)
        }
    }

    /// The request example of a party is one the server takes (with a departure moved to the future).
    func testPartyExampleIsAccepted() throws {
        let service = try PartyService(stateDirectory: TestPaths.temporaryDirectory("openapi-example").path)
        let router = Router()
        registerPartiesEndpoints(router, parties: service, writeToken: "t")
        let doc = OpenAPIDocument.build(router: router, dataset: try TestDataset.context().info)
        var example = try XCTUnwrap(doc["paths"]?["/v1/parties/{id}"]?["put"]?["requestBody"]?["content"]?["application/json"]?["example"]?.objectValue)
        let future = JSONValue.string(SeoulTime.format(Date().timeIntervalSince1970 + 3600))
        example = example.map { $0.0 == "depart_at" ? ($0.0, future) : $0 }
        let r = router.handle(HTTPRequest(method: "PUT", path: "/v1/parties/example-1", headers: ["authorization": "Bearer t"],
                                          body: JSONWriter.bytes(.object(example)))).response
        XCTAssertEqual(r.status, 201, String(decoding: r.body, as: UTF8.self))
    }

    /// The document's point pattern is exactly the language the server reads points in: a text
    /// it calls valid is taken (never a 400), and one it calls invalid is refused. Checked on
    /// texts built from the pieces near the edges (13 decimals, 180 and 90 with and without
    /// decimals, leading zeros, exponents, signs, spaces).
    func testPointPatternIsWhatTheServerReads() throws {
        let doc = try Self.served.get().doc
        let from = try XCTUnwrap(doc["paths"]?["/v1/route"]?["get"]?["parameters"]?.arrayValue?.first { $0["name"]?.stringValue == "from" })
        let regex = try Regex(try XCTUnwrap(from["schema"]?["pattern"]?.stringValue))
        for (text, valid) in [("126.9707123456789,37.5547123456789", true), ("180,90", true), ("-180.000,-90.0", true), ("05,07", true),
                              ("180.0001,0", false), ("0,90.5", false), ("1e1,2", false), ("+1,2", false), (" 1,2", false), ("1.,2", false),
                              ("099,1", false), ("181,0", false), ("1,2,3", false), ("1;2", false), ("", false)] {
            XCTAssertEqual(text.contains(regex), valid, "pattern on '\(text)'")
            XCTAssertEqual(Coordinate.parseDegrees(Substring(text)) != nil, valid, "parser on '\(text)'")
        }
        let pieces = ["-", "0", "1", "7", "8", "9", "18", "180", "90", "89", "100", "179", ".", ".0", ".5", "00", "e1", "+", " ", "123456789"]
        var rng = SplitMix64(seed: 37)
        func number() -> String { (0..<Int(rng.next() % 4) + 1).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }.joined() }
        var accepted = 0
        for _ in 0..<4000 {
            let text = number() + "," + number()
            let parsed = Coordinate.parseDegrees(Substring(text))
            XCTAssertEqual(text.contains(regex), parsed != nil, "'\(text)': pattern and parser disagree")
            if let parsed { accepted += 1; XCTAssertTrue(parsed.isValid, text) }
        }
        XCTAssertGreaterThan(accepted, 100, "the sample reaches valid points")
    }

    /// The bbox of `/v1/clusters` and the point list of `GET /v1/transform` take exactly the
    /// texts their documented patterns describe: one the pattern calls valid is never a 400 (a
    /// box upside down is a 422, a point outside the CRS's range a 422), one it calls invalid is a
    /// 400. Random texts from pieces near the edges (exponents, signs, spaces, bare points, long
    /// decimals), asked of the server itself.
    func testBoxAndPointListPatternsAreWhatTheServerReads() throws {
        let (router, doc, _) = try Self.served.get()
        // ICU's engine (NSRegularExpression), as JSON Schema validators use an ECMA-like one.
        func pattern(_ path: String, _ name: String) throws -> (String) -> Bool {
            let p = try XCTUnwrap(doc["paths"]?[path]?["get"]?["parameters"]?.arrayValue?.first { $0["name"]?.stringValue == name })
            let regex = try NSRegularExpression(pattern: try XCTUnwrap(p["schema"]?["pattern"]?.stringValue))
            return { text in regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil }
        }
        let box = try pattern("/v1/clusters", "bbox"), coords = try pattern("/v1/transform", "coords")
        let pieces = ["-", "0", "1", "7", "9", "37", "127", "180", "90", ".", ".0", ".5", ".1234567890123", "e1", "+", " ", "1234567890"]
        var rng = SplitMix64(seed: 3737)
        func number() -> String { (0..<Int(rng.next() % 3) + 1).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }.joined() }
        var accepted = (box: 0, coords: 0)
        for i in 0..<1200 {
            let four = (0..<4).map { _ in number() }.joined(separator: ",")
            let boxText = i % 3 == 0 ? four : (["126.9", "37.5", "127.1", "37.6"].enumerated().map { k, v in rng.next() % 4 == 0 ? number() : (k == Int(rng.next() % 4) ? v + number() : v) }).joined(separator: ",")
            let r = router.handle(HTTPRequest(method: "GET", path: "/v1/clusters", query: [("bbox", boxText), ("zoom", "12")])).response
            XCTAssertEqual(box(boxText), r.status != 400, "bbox '\(boxText)': pattern says \(box(boxText)), server \(r.status)")
            if r.status != 400 { accepted.box += 1; XCTAssertTrue([200, 422].contains(r.status), "bbox '\(boxText)': \(r.status)") }
            let pairs = (0..<Int(rng.next() % 2) + 1).map { _ in number() + "," + number() }.joined(separator: ";")
            let t = router.handle(HTTPRequest(method: "GET", path: "/v1/transform", query: [("from", "EPSG:4326"), ("to", "EPSG:5186"), ("coords", pairs)])).response
            XCTAssertEqual(coords(pairs), t.status != 400, "coords '\(pairs)': pattern says \(coords(pairs)), server \(t.status)")
            if t.status != 400 { accepted.coords += 1 }
        }
        XCTAssertGreaterThan(accepted.box, 100, "the sample reaches valid boxes")
        XCTAssertGreaterThan(accepted.coords, 30, "the sample reaches valid point lists")
    }
}

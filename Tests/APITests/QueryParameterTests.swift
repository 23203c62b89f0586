import Foundation
@testable import API
import Quoting
import FareEstimation
import HTTPServer
import JSON
import Routing
import TestSupport
import XCTest

/// One declaration per operation drives both the OpenAPI parameter list and the parsing: every
/// handler reads its query through a `QueryReader` over its operation's `ParameterDoc`s, so a
/// parameter cannot be read without being documented, nor documented one way and parsed another.
final class QueryParameterTests: XCTestCase {
    static let router = Result { makeRouter(context: try TestDataset.context()) }

    // MARK: The reader

    func testReaderRefusesNamesTheOperationDoesNotDeclare() throws {
        let declared = [ParameterDoc("limit", type: "integer", "page size", schema: APISchemas.integer(1...50)),
                        ParameterDoc("near", required: true, "a point", schema: APISchemas.pointQuery),
                        ParameterDoc("id", in: "path", required: true, "an id")]
        let q = QueryReader(HTTPRequest(method: "GET", path: "/x", query: [("limit", "7"), ("near", "127,37"), ("id", "a"), ("other", "1")]), declared)
        XCTAssertEqual(try q.integer("limit"), 7)
        XCTAssertEqual(try q.requiredText("near"), "127,37")
        for read in [{ _ = try q.text("other") }, { _ = try q.text("id") }, { _ = try q.integer("offset") }, { _ = try q.requiredText("limit") }] as [() throws -> Void] {
            XCTAssertThrowsError(try read()) { error in
                XCTAssertEqual((error as? HTTPError)?.status, 500, "an undeclared read (or one that disagrees with the declaration) is a server bug")
            }
        }
        // The range is the declaration's: 51 is refused, in the words every whole-number parameter uses.
        let over = QueryReader(HTTPRequest(method: "GET", path: "/x", query: [("limit", "51")]), declared)
        XCTAssertThrowsError(try over.integer("limit")) { error in
            XCTAssertEqual((error as? HTTPError)?.message, "query parameter 'limit' must be a whole number from 1 to 50, got '51'")
        }
    }

    /// No handler reads the query by hand: the only reader of `HTTPRequest.query` in the API is
    /// `QueryReader`, so the walk below sees every read.
    func testNoHandlerParsesItsQueryByHand() throws {
        let dir = TestPaths.packageRoot.appendingPathComponent("Sources/API")
        let pattern = try Regex(#"\.(queryValue|requiredQueryValue|intQuery)\(|\breq(uest)?\.query\b"#)
        var offenders: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) where name.hasSuffix(".swift") && name != "QueryReader.swift" {
            let text = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
            for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where line.contains(pattern) {
                offenders.append("\(name):\(i + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        XCTAssertEqual(offenders, [], "query parameters are read through QueryReader (its operation's declaration)")
    }

    // MARK: Every operation's declaration against its handler

    /// For every operation with query parameters: its required parameters alone are taken; each
    /// declared value (examples, every enum member, the ends of each range) is taken; each value
    /// the declaration refuses (outside the range, not a member, not a number, the wrong shape,
    /// too long, missing when required, given twice) is a 400. No answer is a 500 (an undeclared read).
    func testEveryDeclaredParameterIsParsedAsDeclared() throws {
        let router = try Self.router.get()
        var operations = 0, checks = 0
        for route in router.routes {
            let params = route.doc.parameters.filter { $0.location == "query" }
            guard !params.isEmpty else { continue }
            operations += 1
            var base: [(String, String)] = []
            for p in params where p.required {
                guard let v = Self.validValues(p).first else { XCTFail("\(route.pattern): \(p.name) has no valid value"); continue }
                base.append((p.name, v))
            }
            func send(_ query: [(String, String)]) -> (status: Int, body: String) {
                var path = route.pattern
                for p in route.doc.parameters where p.location == "path" {
                    path = path.replacingOccurrences(of: "{\(p.name)}", with: p.schema?["example"]?.stringValue ?? "x")
                }
                let body = route.doc.requestExample.map(JSONWriter.bytes) ?? []
                let r = router.handle(HTTPRequest(method: route.method, path: path, query: query, body: body)).response
                checks += 1
                return (r.status, String(decoding: r.body, as: UTF8.self))
            }
            let what = "\(route.method) \(route.pattern)"
            let plain = send(base)
            XCTAssertFalse([400, 500].contains(plain.status), "\(what) with its required parameters: \(plain)")
            for p in params {
                let others = base.filter { $0.0 != p.name }
                for v in Self.validValues(p) {
                    let a = send(others + [(p.name, v)])
                    XCTAssertFalse([400, 500].contains(a.status), "\(what): \(p.name)=\(v) fits the declaration: \(a)")
                }
                for v in Self.invalidValues(p) {
                    let a = send(others + [(p.name, v)])
                    XCTAssertEqual(a.status, 400, "\(what): \(p.name)=\(v) does not fit the declaration: \(a)")
                }
                if let v = Self.validValues(p).first {
                    let twice = send(others + [(p.name, v), (p.name, v)])
                    XCTAssertEqual(twice.status, 400, "\(what): \(p.name) given twice")
                }
                if p.required {
                    let missing = send(others)
                    XCTAssertEqual(missing.status, 400, "\(what): \(p.name) is required: \(missing)")
                }
            }
        }
        XCTAssertGreaterThanOrEqual(operations, 14)
        XCTAssertGreaterThan(checks, 300)
    }

    /// Values the declaration calls valid: its example, every enum member, the ends of its range.
    static func validValues(_ p: ParameterDoc) -> [String] {
        let s = p.schema ?? ["type": .string(p.type)]
        var out: [String] = []
        if let example = s["example"]?.stringValue { out.append(example) }
        out += (s["enum"]?.arrayValue ?? []).compactMap(\.stringValue)
        let integer = s["type"]?.stringValue == "integer"
        func text(_ v: Double) -> String { integer ? String(Int(v)) : String(v) }
        if let min = s["minimum"]?.doubleValue { out.append(text(min)) }
        if let min = s["exclusiveMinimum"]?.doubleValue { out.append(text(min + 0.5)) }
        if let max = s["maximum"]?.doubleValue { out.append(text(max)) }
        return out
    }

    /// Values the declaration refuses, for each rule it states.
    static func invalidValues(_ p: ParameterDoc) -> [String] {
        let s = p.schema ?? ["type": .string(p.type)]
        var out: [String] = []
        let type = s["type"]?.stringValue
        if type == "integer" { out += ["x", "1.5"] }
        if type == "number" { out += ["x", "nan"] }
        // Just outside the range: a whole number for an integer, a fraction past the end for a number.
        func text(_ v: Double) -> String { type == "integer" ? String(Int(v)) : String(v) }
        let step = type == "integer" ? 1.0 : 0.5
        if let min = s["minimum"]?.doubleValue { out.append(text(min - step)) }
        if let min = s["exclusiveMinimum"]?.doubleValue { out.append(text(min)) }
        if let max = s["maximum"]?.doubleValue { out.append(text(max + step)) }
        if s["enum"] != nil { out.append("not-a-member") }
        if s["pattern"] != nil { out.append("bad!") }
        if let min = s["minLength"]?.intValue, min > 0 { out.append("") }
        if let max = s["maxLength"]?.intValue { out.append(String(repeating: "가", count: max + 1)) }
        return out
    }

    // MARK: One check, the engine's

    /// The limits the API documents are the engine's constants, and the engine's check is the
    /// one that refuses: the boundary value is taken, the next one refused in the API's words.
    func testEngineLimitsDriveTheDocumentAndTheRefusal() throws {
        let router = try Self.router.get()
        let doc = OpenAPIDocument.build(router: router, dataset: try TestDataset.context().info)
        func parameter(_ path: String, _ name: String) -> JSONValue? {
            doc["paths"]?[path]?["get"]?["parameters"]?.arrayValue?.first { $0["name"]?.stringValue == name }?["schema"]
        }
        for path in ["/v1/route", "/v1/table"] {
            XCTAssertEqual(parameter(path, "max_snap_m")?["maximum"]?.doubleValue, RouteEngine.maxSnapLimitMeters, path)
        }
        XCTAssertTrue(parameter("/v1/route", "via")?["pattern"]?.stringValue?.hasSuffix("{0,\(RouteEngine.maxViaPoints - 1)}$") ?? false)
        XCTAssertEqual(doc["paths"]?["/v1/quote"]?["post"]?["requestBody"]?["content"]?["application/json"]?["schema"]?["$ref"]?.stringValue,
                       "#/components/schemas/QuoteInput")
        XCTAssertEqual(doc["components"]?["schemas"]?["QuoteInput"]?["properties"]?["drop_offs"]?["anyOf"]?.arrayValue?.first?["maxItems"]?.intValue,
                       QuoteRequest.maxDropOffs)

        func get(_ path: String, _ query: [(String, String)]) -> (Int, JSONValue?) {
            let r = router.handle(HTTPRequest(method: "GET", path: path, query: query)).response
            return (r.status, try? JSONParser.parse(r.body))
        }
        let a = "126.9780,37.5665", b = "126.9910,37.5512"
        let limit = Int(RouteEngine.maxSnapLimitMeters)
        XCTAssertEqual(get("/v1/route", [("from", a), ("to", b), ("max_snap_m", "\(limit)")]).0, 200)
        let over = get("/v1/route", [("from", a), ("to", b), ("max_snap_m", "\(limit).5")])
        XCTAssertEqual(over.0, 400)
        XCTAssertEqual(over.1?["error"]?["message"]?.stringValue,
                       "query parameter 'max_snap_m' must be a number of metres above 0 and at most \(limit), got '\(limit).5'")
        XCTAssertEqual(get("/v1/table", [("sources", a + ";" + b), ("max_snap_m", "0")]).1?["error"]?["message"]?.stringValue,
                       "query parameter 'max_snap_m' must be a number of metres above 0 and at most \(limit), got '0'")
        // Two faults: the via count is checked (by the engine's rule) before the points are read.
        let via = Array(repeating: a, count: RouteEngine.maxViaPoints).joined(separator: ";") + ";bad"
        let many = get("/v1/route", [("from", a), ("to", b), ("via", via), ("max_snap_m", "0")])
        XCTAssertEqual(many.1?["error"]?["code"]?.stringValue, "too_many_via_points")
        XCTAssertEqual(many.1?["error"]?["message"]?.stringValue,
                       "query parameter 'via' has \(RouteEngine.maxViaPoints + 1) points; at most \(RouteEngine.maxViaPoints) are allowed")

        // POST /v1/table: the snapping limit is refused before the size of the fare table.
        let points: JSONValue = .array(Array(repeating: [126.978, 37.5665], count: 101))
        let table = router.handle(HTTPRequest(method: "POST", path: "/v1/table", body: JSONWriter.bytes(
            ["sources": points, "destinations": points, "annotations": "fare", "max_snap_m": 0]))).response
        XCTAssertEqual(table.status, 400)
        XCTAssertEqual(try JSONParser.parse(table.body)["error"]?["message"]?.stringValue,
                       "max_snap_m must be a number of metres above 0 and at most \(limit)")

        // POST /v1/quote: the drop-off count before the drop-offs themselves.
        let stops: [JSONValue] = Array(repeating: ["lon": 126.975, "lat": 37.56], count: QuoteRequest.maxDropOffs) + [["lon": "x"]]
        let quote = router.handle(HTTPRequest(method: "POST", path: "/v1/quote", body: JSONWriter.bytes(
            ["origin": ["lon": 126.9829, "lat": 37.57], "destination": ["lon": 126.972, "lat": 37.5547], "drop_offs": .array(stops)]))).response
        XCTAssertEqual(quote.status, 400)
        XCTAssertEqual(try JSONParser.parse(quote.body)["error"]?["message"]?.stringValue,
                       "drop_offs may list at most \(QuoteRequest.maxDropOffs) stops, got \(QuoteRequest.maxDropOffs + 1)")
    }

    /// `riders` left out defaults to 1 + the drop-offs' riders: each value fits the schema, a sum
    /// over the engine's range is refused as a combination (422); the same count given is a 400.
    func testQuoteRidersLeftOutOverTheRangeIs422() throws {
        let router = try Self.router.get()
        func quote(_ riders: JSONValue?) -> (Int, String?) {
            var body: [(String, JSONValue)] = [("origin", ["lon": 126.9829, "lat": 37.57]), ("destination", ["lon": 126.972, "lat": 37.5547]),
                                               ("drop_offs", [["lon": 126.975, "lat": 37.56, "riders": 9], ["lon": 126.976, "lat": 37.561, "riders": 1]])]
            if let riders { body.append(("riders", riders)) }
            let r = router.handle(HTTPRequest(method: "POST", path: "/v1/quote", body: JSONWriter.bytes(.object(body)))).response
            return (r.status, (try? JSONParser.parse(r.body))?["error"]?["message"]?.stringValue)
        }
        let message = "riders must be a whole number from 1 to \(FareRequest.riderRange.upperBound), got 11"
        XCTAssertEqual(quote(nil).0, 422)
        XCTAssertEqual(quote(nil).1, message)
        XCTAssertEqual(quote(.null).0, 422, "null reads as left out")
        XCTAssertEqual(quote(11).0, 400)
        XCTAssertEqual(quote(11).1, message)
    }
}

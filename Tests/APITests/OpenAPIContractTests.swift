import Foundation
import TaxiPotServer
import TestSupport
import XCTest

/// The OpenAPI document as a contract: the API's own version, the bearer scheme on writes, and a
/// JSON Schema with an example for every error answer of every operation.
final class OpenAPIContractTests: XCTestCase {
    func testDocumentTypesEveryAnswer() throws {
        let context = try TestDataset.context()
        let router = makeRouter(context: context)
        let doc = OpenAPIDocument.build(router: router, dataset: context.info)
        XCTAssertEqual(doc["info"]?["version"]?.stringValue, APIVersion.api)
        XCTAssertEqual(doc["x-dataset"]?["version"]?.stringValue, context.info.version)
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
                    if code < 300, media.hasSuffix("json"), media != "application/x-ndjson" {
                        XCTAssertNotNil(content["schema"]?["properties"], "\(method) \(path) \(status): success body without members")
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
        XCTAssertEqual(body["schema"]?["properties"]?["seats_total"]?["maximum"]?.intValue, 16)
        XCTAssertEqual(body["schema"]?["anyOf"]?.arrayValue?.count, 16, "seats_taken ≤ seats_total spelt out per total")
        XCTAssertEqual(put["responses"]?["200"]?["content"]?["application/json"]?["schema"]?["required"]?.arrayValue?.count, 7)
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
}

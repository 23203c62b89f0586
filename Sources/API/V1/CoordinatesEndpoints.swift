import Coordinates
import Geo
import HTTPServer
import JSON

/// Point limits of `/v1/transform`.
enum TransformLimits {
    /// Points in one `GET` (also bounded by the 8 KiB URL limit: about 350 six-decimal WGS84 pairs).
    static let getPoints = 1_000
    /// Points in one `POST`. The server caps bodies at 1 MiB, so the real bound is the body size:
    /// about 45,000 six-decimal WGS84 pairs (`[126.978546,37.566554],` is 23 bytes) or 100,000
    /// compact ones (`[1.5,2.5],`).
    static let postPoints = 100_000
}

/// `GET` and `POST /v1/transform`: coordinates from one CRS to another through PROJ.
func registerCoordinatesEndpoints(_ router: Router, _ context: ServiceContext) {
    let crsHelp = "CRS name: EPSG:<code> (any code PROJ knows) or an alias, case-insensitive: "
        + CRSCatalog.aliasNames.joined(separator: ", ")
        + ". WCONGNAMUL is EPSG:5181 metres × 2.5; KATEC/TM128 is the Bessel TM128 grid with the 7-parameter datum shift."
    let answerDoc = "{\"from\",\"to\" (canonical names), \"coords\":[[x,y],…] (x = longitude/easting, y = latitude/northing), "
        + "\"outside_area_of_use\":[indices of inputs outside the target CRS's area of use]}"

    router.operation("GET", "/v1/transform", OperationDoc(
        "Transform up to \(TransformLimits.getPoints) points between coordinate systems",
        parameters: [
            ParameterDoc("from", required: true, "Source " + crsHelp, schema: APISchemas.crsName),
            ParameterDoc("to", required: true, "Target " + crsHelp, schema: APISchemas.crsName),
            ParameterDoc("coords", required: true, "Points as x,y;x,y;… (x = longitude/easting, y = latitude/northing), at most \(TransformLimits.getPoints); the 8 KiB URL limit allows about 350 six-decimal WGS84 pairs", schema: APISchemas.xyListQuery(TransformLimits.getPoints)),
        ],
        responses: [(200, answerDoc), (400, "unknown_crs, unsupported_crs, invalid_coordinate (naming the point's index) or too_many_points"),
                     (422, "no_transformation between the CRSs, transform_failed for a point outside the projection's domain, or invalid_coordinate: a point outside the source CRS's range")],
        responseSchema: ResponseSchemas.transform, responseExample: ResponseSchemas.transformExample
    ), cost: .light) { _, query in
        // The CRS names and the point list are checked by the transformer and the list reader below.
        let from = try query.requiredText("from")
        let to = try query.requiredText("to")
        let text = try query.requiredText("coords")
        let transformer = try cachedTransformer(context, from: from, to: to)
        var points = try parsePointList(text)
        // Numbers the documented pattern allows, out of the source CRS's range: 422; others 400.
        return try transformAnswer(transformer, &points, fitsSchema: { APISchemas.fits(text, APISchemas.xyListQuery(TransformLimits.getPoints)) })
    }

    router.add("POST", "/v1/transform", OperationDoc(
        "Transform up to \(TransformLimits.postPoints) points between coordinate systems (JSON body)",
        requestBody: [
            "type": "object",
            "required": ["from", "to", "coords"],
            "properties": [
                "from": APISchemas.crsName.adding(("description", .string("Source " + crsHelp))),
                "to": APISchemas.crsName.adding(("description", .string("Target " + crsHelp))),
                "coords": ["type": "array", "maxItems": .number(Double(TransformLimits.postPoints)),
                           "description": "[[x,y],…], x = longitude/easting, y = latitude/northing. Bodies are capped at 1 MiB: about 45,000 six-decimal WGS84 pairs; 100,000 points only in compact form.",
                           "items": ["type": "array", "minItems": 2, "maxItems": 2, "items": ["type": "number"]]],
            ],
        ],
        responses: [(200, answerDoc), (400, "unknown_crs, unsupported_crs, invalid_coordinate (naming the point's index), invalid_json or missing_field"),
                     (413, "too_many_points (over \(TransformLimits.postPoints)) or a body over 1 MiB"),
                     (422, "no_transformation between the CRSs, transform_failed for a point outside the projection's domain, or invalid_coordinate: a point outside the source CRS's range")],
        responseSchema: ResponseSchemas.transform, responseExample: ResponseSchemas.transformExample
    )) { req in
        let body = try req.jsonBody()
        guard case .object = body else { throw HTTPError.badRequest("invalid_json", "the body must be a JSON object with from, to and coords") }
        let from = try stringField(body, "from")
        let to = try stringField(body, "to")
        guard let items = body["coords"]?.arrayValue else {
            throw HTTPError.badRequest("missing_field", "the body needs \"coords\": an array of [x,y] pairs")
        }
        guard items.count <= TransformLimits.postPoints else {
            throw HTTPError(status: 413, code: "too_many_points",
                            message: "\(items.count) points given; at most \(TransformLimits.postPoints) per request")
        }
        let transformer = try cachedTransformer(context, from: from, to: to)
        var points: [XYPoint] = []
        points.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            guard let pair = item.arrayValue, pair.count == 2, let x = pair[0].doubleValue, let y = pair[1].doubleValue else {
                throw HTTPError.badRequest("invalid_coordinate", "point \(i): must be an [x,y] pair of numbers")
            }
            points.append(XYPoint(x: x, y: y))
        }
        return try transformAnswer(transformer, &points, fitsSchema: { true })
    }
}

private func stringField(_ body: JSONValue, _ name: String) throws(HTTPError) -> String {
    guard let v = body[name]?.stringValue, !v.isEmpty else {
        throw HTTPError.badRequest("missing_field", "the body needs \"\(name)\": a CRS name (EPSG:<code> or an alias)")
    }
    return v
}

/// The shared transformer for two names; CRS errors become 400/422 answers naming the parameter.
private func cachedTransformer(_ context: ServiceContext, from: String, to: String) throws(HTTPError) -> CoordinateTransformer {
    /// Which parameter names the CRS an error is about: `from` unless `from` is fine and differs.
    func side(of name: String) -> String {
        guard let source = try? CRSCatalog.resolve(from) else { return "from" }
        return source.name == name ? "from" : "to"
    }
    do {
        return try context.transformers.transformer(from: from, to: to)
    } catch {
        throw ErrorMapping.http(error, parameter: side(of:))
    }
}

/// Parses `x,y;x,y;…` (GET), counting before parsing so an oversized list fails fast.
private func parsePointList(_ text: String) throws(HTTPError) -> [XYPoint] {
    let count = text.utf8.reduce(1) { $1 == UInt8(ascii: ";") ? $0 + 1 : $0 }
    guard count <= TransformLimits.getPoints else {
        throw HTTPError.badRequest("too_many_points",
                                   "\(count) points given; at most \(TransformLimits.getPoints) per GET (use POST for up to \(TransformLimits.postPoints))")
    }
    var points: [XYPoint] = []
    points.reserveCapacity(count)
    for (i, part) in text.split(separator: ";", omittingEmptySubsequences: false).enumerated() {
        let fields = part.split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count == 2 else {
            throw HTTPError.badRequest("invalid_coordinate", "point \(i): '\(part.prefix(60))' is not an x,y pair")
        }
        // The document's pattern, no wider: plain decimals of at most 9 integer digits.
        guard let x = NumberParsing.plainDecimal(fields[0], integerDigits: 9) else {
            throw HTTPError.badRequest("invalid_coordinate", "point \(i): x '\(fields[0].prefix(30))' is not a decimal number (-?D.D, at most 9 digits before the point)")
        }
        guard let y = NumberParsing.plainDecimal(fields[1], integerDigits: 9) else {
            throw HTTPError.badRequest("invalid_coordinate", "point \(i): y '\(fields[1].prefix(30))' is not a decimal number (-?D.D, at most 9 digits before the point)")
        }
        points.append(XYPoint(x: x, y: y))
    }
    return points
}

/// Transforms, maps the first bad point to its error, and writes the answer straight to bytes.
/// `fitsSchema` tells (only when a point is refused) whether the request fits its documented
/// schema: a point out of the source CRS's range is then a 422, else a 400.
private func transformAnswer(_ transformer: CoordinateTransformer, _ points: inout [XYPoint],
                             fitsSchema: () -> Bool) throws(HTTPError) -> HTTPResponse {
    let report: BatchReport
    do {
        report = try transformer.transform(points: &points, checkAreaOfUse: true)
    } catch {
        throw ErrorMapping.http(error, parameter: { _ in "from" })
    }
    if let issue = report.issues.first {
        throw ErrorMapping.http(issue, source: transformer.source.name, target: transformer.target.name, fitsSchema: fitsSchema)
    }
    var out: [UInt8] = []
    out.reserveCapacity(64 + points.count * 40)
    out.append(contentsOf: "{\"from\":".utf8)
    JSONWriter.writeString(transformer.source.name, into: &out)
    out.append(contentsOf: ",\"to\":".utf8)
    JSONWriter.writeString(transformer.target.name, into: &out)
    out.append(contentsOf: ",\"coords\":[".utf8)
    for (i, p) in points.enumerated() {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        out.append(UInt8(ascii: "["))
        JSONWriter.writeNumber(p.x, into: &out)
        out.append(UInt8(ascii: ","))
        JSONWriter.writeNumber(p.y, into: &out)
        out.append(UInt8(ascii: "]"))
    }
    out.append(contentsOf: "],\"outside_area_of_use\":[".utf8)
    for (k, i) in report.outsideAreaOfUse.enumerated() {
        if k > 0 { out.append(UInt8(ascii: ",")) }
        out.append(contentsOf: String(i).utf8)
    }
    out.append(contentsOf: "]}".utf8)
    return .json(bytes: out)
}

import Geo
import HTTPServer
import JSON
import Parties
import PartyClusters
import PartyModel

/// Limits of the party and cluster endpoints.
enum PartiesLimits {
    /// Grid cells one cluster answer may cover (about a 15,000 × 15,000 px view at radius 60).
    static let maxCells = 65_536
    static let nearbyRadius = 1...50_000
    static let nearbyLimit = 1...100
    static let leavesLimit = 1...1000
}

/// `/v1/parties…` and `/v1/clusters…` over the service's live parties.
func registerPartiesEndpoints(_ router: Router, _ context: ServiceContext) {
    registerPartiesEndpoints(router, parties: context.parties, writeToken: context.configuration.writeToken,
                              dropOffProblem: context.pooling.dropOffProblem, partyProblem: context.pooling.partyProblem,
                              placement: context.pooling.placeJoin)
}

/// Where a join places its rider (`PoolingService.placeJoin`): the live party, the rider and the
/// offer they accept give the party with the rider in it, or a refusal.
public typealias JoinPlacement = @Sendable (Party, PartyRider, JoinOffer?) throws -> Party

/// Adds the party and cluster routes served by `parties`. Writes need `Authorization: Bearer
/// <writeToken>`; with no token (nil or empty) they answer 403. `dropOffProblem` (when given)
/// says why a joining rider's drop-off cannot be served by a party's ride (a 422);
/// `partyProblem` (when given) why a written party's origin, destination or a drop-off cannot (a 422);
/// `placement` (when given) places a joining rider (without it, `Party.joining(_:)` and an offer is ignored).
public func registerPartiesEndpoints(_ router: Router, parties: PartyService, writeToken: String?,
                                     dropOffProblem: (@Sendable (Party, Coordinate) -> String?)? = nil,
                                     partyProblem: (@Sendable (Party) -> String?)? = nil,
                                     placement: JoinPlacement? = nil)
{
    let auth = WriteAuthorization(token: writeToken)
    let idParam = ParameterDoc("id", in: "path", required: true, "party id: 1–64 characters of A–Z, a–z, 0–9, '_' or '-'",
                               schema: APISchemas.partyID)
    let partyDoc = "{\"id\",\"origin\":[lon,lat],\"destination\":[lon,lat],\"depart_at\" (ISO 8601, +09:00),\"seats_total\",\"seats_taken\",\"seats_left\",\"title\"?,\"riders\":[{\"rider_id\",\"seats\",\"drop_off\"?:{\"lon\",\"lat\"}}] (organiser first),\"version\"}; header ETag: \"<version>\""
    let authErrors: [(Int, String)] = [(401, "unauthorized: missing or wrong 'Authorization: Bearer <token>'"),
                                       (403, "writes_disabled: the server has no TAXIPOT_WRITE_TOKEN")]

    let conditions = PartyConditionDocs.parameters
    router.add("PUT", "/v1/parties/{id}", OperationDoc(
        "Create or replace a party (durable when answered). Without riders: a new party's seats_taken seats are held by an implied organiser (rider_id 'organiser'); a live party keeps its riders, the organiser getting seats_taken less the others' seats",
        parameters: [idParam] + conditions,
        requestBody: APISchemas.partyInput,
        responses: [(201, "created: " + partyDoc), (200, "replaced: " + partyDoc),
                    (400, "invalid_id, invalid_json, missing_field, invalid_party (naming the field), unknown_field, id_mismatch"),
                    (409, "seats_conflict: without riders, seats_taken does not cover the riders who joined; party_settled: the party's fare was settled (it can only be deleted); party_quarantined: the party's stored row was refused at load (damaged); writes wait for taxipot parties recover"),
                    (412, "version_mismatch: " + PartyConditionDocs.failure),
                    (422, "party_expired: its departure plus the grace period has passed; id_mismatch; invalid_party: riders whose seats do not add up to seats_taken or exceed seats_total, or a rider listed twice; outside_coverage: the origin, destination or a rider's drop_off (named) is off the served roads or unreachable from the origin"),
                    (503, "storage_unavailable: the party store cannot write")] + authErrors,
        responseSchema: APISchemas.party, responseExample: APISchemas.partyOutExample, requestExample: APISchemas.partyExample
    )) { req in
        try auth.check(req)
        let id = try partyID(req)
        let precondition = try writePrecondition(req)
        let party = try PartiesJSON.party(id: id, body: try req.jsonBody())
        if let problem = partyProblem?(party) { throw HTTPError.unprocessable("outside_coverage", problem) }
        let saved = try storeCall { try parties.save(party, precondition: precondition, keepingRiders: true) }
        return .json(PartiesJSON.party(saved.party), status: saved.outcome == .created ? 201 : 200,
                     headers: [("ETag", PartiesJSON.etag(saved.party))])
    }

    router.add("GET", "/v1/parties/{id}", OperationDoc(
        "One live party, or a settled one for the settled retention after its departure (docs/OPERATIONS.md; 7 days by default)",
        parameters: [idParam],
        responses: [(200, partyDoc), (400, "invalid_id"), (404, "party_not_found (never created, deleted or expired)"), (503, "storage_unavailable")],
        responseSchema: APISchemas.party, responseExample: APISchemas.partyOutExample
    ), cost: .light) { req in
        let id = try partyID(req)
        // Past its listing a settled party is read from the store (its settlement stays replayable).
        guard let p = try parties.party(id: id) ?? storeCall({ try parties.kept(id: id) }).flatMap({ $0.isSettled ? $0 : nil }) else { throw notFound(id) }
        return .json(PartiesJSON.party(p), headers: [("ETag", PartiesJSON.etag(p))])
    }

    router.add("DELETE", "/v1/parties/{id}", OperationDoc(
        "Delete a party (durable when answered)", parameters: [idParam] + conditions,
        responses: [(204, "deleted"), (400, "invalid_id"), (404, "party_not_found"),
                     (409, "party_quarantined: the party's stored row was refused at load (damaged); writes wait for taxipot parties recover"),
                     (412, "version_mismatch: " + PartyConditionDocs.failure), (503, "storage_unavailable")] + authErrors
    )) { req in
        try auth.check(req)
        let id = try partyID(req)
        let precondition = try writePrecondition(req)
        guard try storeCall({ try parties.delete(id: id, precondition: precondition) }) else { throw notFound(id) }
        return .noContent
    }

    registerPartyRidersEndpoints(router, parties: parties, auth: auth, dropOffProblem: dropOffProblem, placement: placement)

    router.operation("GET", "/v1/parties", OperationDoc(
        "Live parties near a point, nearest first, then earliest departure (the app's party list)",
        parameters: [
            ParameterDoc("near", required: true, "the point: lon,lat", schema: APISchemas.pointQuery),
            ParameterDoc("radius_m", type: "integer", "search radius in metres, \(PartiesLimits.nearbyRadius.lowerBound)–\(PartiesLimits.nearbyRadius.upperBound) (default 2000)",
                         schema: APISchemas.integer(PartiesLimits.nearbyRadius)),
            ParameterDoc("limit", type: "integer", "parties per page, \(PartiesLimits.nearbyLimit.lowerBound)–\(PartiesLimits.nearbyLimit.upperBound) (default 20)",
                         schema: APISchemas.integer(PartiesLimits.nearbyLimit)),
            ParameterDoc("cursor", "next_cursor of the previous page (one from another search answers 422)", schema: APISchemas.partiesCursor),
            ParameterDoc("depart_after", "only parties departing at or after this instant (ISO 8601 or Unix seconds)", schema: APISchemas.instantQuery),
            ParameterDoc("depart_before", "only parties departing at or before this instant", schema: APISchemas.instantQuery),
            ParameterDoc("min_seats", type: "integer", "only parties with at least this many seats left", schema: APISchemas.integer(0...Party.maxSeats)),
        ],
        responses: [(200, "{\"parties\":[party + \"distance_m\"],\"next_cursor\": string or null}"),
                    (400, "missing_parameter, invalid_parameter (naming it)")],
        responseSchema: APISchemas.partyPage,
        responseExample: ["parties": [APISchemas.partyOutExample.adding(("distance_m", 412.7))], "next_cursor": .null]
    ), cost: .light) { _, query in
        let center = try query.requiredPoint("near") { text in
            .badRequest("invalid_parameter", "query parameter 'near' must be lon,lat within ±180/±90, got '\(text.prefix(60))'")
        }
        let radius = try query.integer("radius_m") ?? 2000
        let limit = try query.integer("limit") ?? 20
        let cursor = try query.value("cursor", { NearbyCursor($0) }) { _ in
            .badRequest("invalid_parameter", "query parameter 'cursor' is not a next_cursor this endpoint gave")
        }
        let page = parties.nearby(center, radiusMeters: Double(radius), filter: try PartiesJSON.filter(query), limit: limit, after: cursor)
        return .json([
            "parties": .array(page.parties.map { PartiesJSON.party($0.party, distance: $0.distance) }),
            "next_cursor": page.next.map { .string($0.description) } ?? .null,
        ])
    }

    let filterParams = [
        ParameterDoc("depart_after", "count only parties departing at or after this instant (ISO 8601 or Unix seconds)", schema: APISchemas.instantQuery),
        ParameterDoc("depart_before", "count only parties departing at or before this instant", schema: APISchemas.instantQuery),
        ParameterDoc("min_seats", type: "integer", "count only parties with at least this many seats left", schema: APISchemas.integer(0...Party.maxSeats)),
    ]
    // GeoJSON's own media type (RFC 7946), as supercluster-fed map code and /v1/coverage have it.
    let geoJSON = HTTPResponse.geoJSONType
    let clusterParam = ParameterDoc("cluster_id", in: "path", required: true,
                                    "a cluster_id from a /v1/clusters or /children answer, or the cluster's numeric feature_id (its GeoJSON id, as supercluster's getChildren takes it: it names the cluster's zoom and least cell, and the cluster is found as an answer around that cell forms it)",
                                    schema: APISchemas.clusterID)

    router.operation("GET", "/v1/clusters", OperationDoc(
        "Clusters and lone parties in a box at a zoom, as GeoJSON (cells of the radius in 256-px-tile pixels; no two features closer than the radius)",
        parameters: [
            ParameterDoc("bbox", required: true, "west,south,east,north in degrees (west > east crosses the antimeridian)",
                         schema: APISchemas.bboxQuery),
            ParameterDoc("zoom", required: true, type: "number", "map zoom 0–20 (fractions are floored)",
                         schema: ["type": "number", "minimum": 0, "maximum": .number(Double(PartyIndex.maxZoom))]),
        ] + filterParams,
        responses: [(200, "FeatureCollection: clusters {\"cluster\":true,\"cluster_id\",\"point_count\",\"expansion_zoom\"} at their parties' centroid, lone parties {\"party_id\",\"depart_at\",\"seats_left\"}; every matching party in the grid cells the box touches is counted once; a cluster reaching into the box is shown whole (it may count parties of its cells just outside)"),
                    (400, "missing_parameter, invalid_parameter (naming it)"),
                    (422, "box_too_large: the box covers more than \(PartiesLimits.maxCells) grid cells at that zoom; invalid_parameter: south > north")],
        responseSchema: APISchemas.clusterCollection, responseExample: APISchemas.clusterExample,
        responseContentType: geoJSON
    ), cost: .light) { _, query in
        let box = try bboxQuery(query)
        let zoom = try zoomQuery(query)
        let filter = try PartiesJSON.filter(query)
        let cells = cellCount(box, zoom: zoom, radius: parties.radius)
        guard cells <= Double(PartiesLimits.maxCells) else {
            throw HTTPError.unprocessable("box_too_large", "the box covers about \(Int(cells)) grid cells at zoom \(zoom); at most \(PartiesLimits.maxCells): zoom out or ask for a smaller box")
        }
        return .geoJSON(PartiesJSON.writeFeatureCollection(parties.clusters(in: box, zoom: zoom, filter: filter)))
    }

    // The refusals of a cluster's leaves and children (the id is read by `clusterID`).
    let clusterErrors: [(Int, String)] = [(400, "invalid_cluster_id or invalid_parameter"),
                                          (404, "cluster_not_found: its cells hold no matching party now, or the number is no cluster's feature_id")]

    router.operation("GET", "/v1/clusters/{cluster_id}/leaves", OperationDoc(
        "The parties of a cluster, by departure then id, as GeoJSON",
        parameters: [clusterParam,
                     ParameterDoc("limit", type: "integer", "parties per page, \(PartiesLimits.leavesLimit.lowerBound)–\(PartiesLimits.leavesLimit.upperBound) (default 10)",
                                  schema: APISchemas.integer(PartiesLimits.leavesLimit)),
                     ParameterDoc("offset", type: "integer", "parties to skip (default 0)", schema: APISchemas.integer(0...Int(Int32.max)))] + filterParams,
        responses: [(200, "FeatureCollection of party points (party_id, depart_at, seats_left, seats_total, destination, title) with \"total\": the cluster's matching parties")] + clusterErrors,
        responseSchema: APISchemas.clusterCollection, responseExample: APISchemas.clusterExample,
        responseContentType: geoJSON
    ), cost: .light) { req, query in
        let filter = try PartiesJSON.filter(query)
        let id = try clusterID(req, parties, filter)
        let limit = try query.integer("limit") ?? 10
        let offset = try query.integer("offset") ?? 0
        guard let page = parties.leaves(of: id, filter: filter, limit: limit, offset: offset) else {
            throw clusterNotFound(id)
        }
        return .geoJSON(JSONWriter.bytes(.object([("type", "FeatureCollection"),
                                                  ("features", .array(page.parties.map { PartiesJSON.partyFeature($0, detailed: true) })),
                                                  ("total", .number(Double(page.total)))])))
    }

    router.operation("GET", "/v1/clusters/{cluster_id}/children", OperationDoc(
        "The features one zoom deeper that a cluster's parties form, as GeoJSON",
        parameters: [clusterParam] + filterParams,
        responses: [(200, "FeatureCollection like /v1/clusters at the next zoom; the counts add up to the cluster's")] + clusterErrors,
        responseSchema: APISchemas.clusterCollection, responseExample: APISchemas.clusterExample,
        responseContentType: geoJSON
    ), cost: .light) { req, query in
        let filter = try PartiesJSON.filter(query)
        let id = try clusterID(req, parties, filter)
        guard let kids = parties.children(of: id, filter: filter) else { throw clusterNotFound(id) }
        return .geoJSON(PartiesJSON.writeFeatureCollection(kids, extra: [("zoom", .number(Double(min(id.zoom + 1, PartyIndex.maxZoom))))]))
    }
}

// MARK: - Helpers

/// What the OpenAPI document says of the conditional headers of party writes.
enum PartyConditionDocs {
    static let parameters = [
        ParameterDoc("If-Match", in: "header", "optional: * or the ETags (\"<version>\", comma-separated) the write was based on; compared strongly (a weak W/ tag never matches); none current answers 412 and changes nothing",
                     schema: APISchemas.entityTagList),
        ParameterDoc("If-None-Match", in: "header", "optional: * (the party must not exist: create only) or ETags the party must not be at; compared weakly; a match answers 412 and changes nothing",
                     schema: APISchemas.entityTagList),
    ]
    static let failure = "If-Match names no current version (or there is no live party), or If-None-Match names the current one (* : the party exists); nothing changed"
}

/// Checks `Authorization: Bearer <token>` on writes, comparing in constant time.
struct WriteAuthorization: Sendable {
    let token: [UInt8]?

    init(token: String?) {
        self.token = token.flatMap { $0.isEmpty ? nil : Array($0.utf8) }
    }

    func check(_ req: HTTPRequest) throws(HTTPError) {
        guard let token else {
            throw HTTPError(status: 403, code: "writes_disabled",
                            message: "writes are disabled on this server: start it with the environment variable TAXIPOT_WRITE_TOKEN set to a secret, then send 'Authorization: Bearer <that secret>'")
        }
        let challenge = [("WWW-Authenticate", "Bearer realm=\"taxipot\"")]
        guard let header = req.header("authorization") else {
            throw HTTPError(status: 401, code: "unauthorized", message: "writes need the header 'Authorization: Bearer <token>'", headers: challenge)
        }
        let prefix = "bearer "
        let given = Array(header.utf8)
        guard given.count > prefix.utf8.count, String(decoding: given.prefix(prefix.utf8.count), as: UTF8.self).lowercased() == prefix,
              WriteAuthorization.constantTimeEquals(Array(given.dropFirst(prefix.utf8.count)), token)
        else {
            throw HTTPError(status: 401, code: "unauthorized", message: "the bearer token is wrong", headers: challenge)
        }
    }

    /// True when `a` equals `b`; the time taken depends only on the lengths, not on where they differ.
    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var diff: UInt8 = a.count == b.count ? 0 : 1
        for i in 0..<b.count {
            diff |= (i < a.count ? a[i] : 0) ^ b[i]
        }
        return diff == 0
    }
}

func partyID(_ req: HTTPRequest) throws(HTTPError) -> String {
    let id = req.pathParameters["id"] ?? ""
    guard Party.isValidID(id) else {
        throw HTTPError.badRequest("invalid_id", "a party id is 1–64 characters of A–Z, a–z, 0–9, '_' or '-', got '\(id.prefix(80))'")
    }
    return id
}

/// The path's cluster: a `cluster_id`, or a cluster's numeric `feature_id`, found among the
/// parties passing `filter` (404 when no cluster starts at the cell it names now).
private func clusterID(_ req: HTTPRequest, _ parties: PartyService, _ filter: PartyFilter) throws(HTTPError) -> ClusterID {
    let text = req.pathParameters["cluster_id"] ?? ""
    if let id = ClusterID(text) { return id }
    if !text.isEmpty, text.utf8.count <= 16, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let number = Int64(text) {
        // A number of the documented form that no cluster can have (a lone party's feature_id, or
        // none a /v1/clusters answer gives) names no cluster: 404, as the schema admits it.
        guard let head = FeatureNumber.cluster(number) else {
            throw HTTPError.notFound("cluster_not_found", "\(number) is not the feature_id of a cluster (a lone party's, or none a /v1/clusters answer gives)")
        }
        guard let c = parties.cluster(zoom: head.zoom, leastCell: head.cell, filter: filter) else {
            throw HTTPError.notFound("cluster_not_found", "no cluster of the matching parties starts at the cell feature_id \(number) names (zoom \(head.zoom)) now")
        }
        return c.id
    }
    // Of the documented form (`APISchemas.clusterID`) but no cluster's (cells out of order,
    // repeated or off the grid): it names no cluster, 404 as for a number.
    if hasClusterIDForm(text) {
        throw HTTPError.notFound("cluster_not_found", "'\(text.prefix(80))' names no cluster: its cells are not a cluster's (the least first, each once, on the grid)")
    }
    throw HTTPError.badRequest("invalid_cluster_id", "'\(text.prefix(80))' is not a cluster_id (zoom.x.y[.dx.dy…]) or a cluster's numeric feature_id from a /v1/clusters answer")
}

func notFound(_ id: String) -> HTTPError {
    HTTPError.notFound("party_not_found", "no live party '\(id)' (never created, deleted, or expired)")
}

private func clusterNotFound(_ id: ClusterID) -> HTTPError {
    HTTPError.notFound("cluster_not_found", "the cells of cluster '\(id)' hold no matching party now")
}

/// The write's precondition from `If-Match` and `If-None-Match` (RFC 9110 §13.1.1–2): each
/// `*` or a list of the party's ETags (`"3"`; a bare `3` is read as `"3"`). If-Match compares
/// strongly, so a weak tag (`W/"3"`) never matches it; If-None-Match compares weakly. A tag that
/// is not one of a party's versions matches none. A value that is not such a list answers 400.
func writePrecondition(_ req: HTTPRequest) throws(HTTPError) -> PartyPrecondition {
    func versions(_ name: String, strong: Bool) throws(HTTPError) -> PartyVersions? {
        guard let raw = req.header(name) else { return nil }
        guard let list = EntityTagList(raw) else {
            throw HTTPError.badRequest(name == "if-match" ? "invalid_if_match" : "invalid_if_none_match",
                                       "\(name == "if-match" ? "If-Match" : "If-None-Match") must be * or a comma-separated list of ETags (\"<version>\", as GET answers them), got '\(raw.prefix(60))'")
        }
        switch list {
        case .any: return .any
        case .tags(let tags):
            return .listed(tags.compactMap { tag in
                guard !(strong && tag.isWeak), let v = Int(tag.opaque), v >= 1, String(v) == tag.opaque else { return nil }
                return v
            })
        }
    }
    return PartyPrecondition(ifMatch: try versions("if-match", strong: true), ifNoneMatch: try versions("if-none-match", strong: false))
}

/// Runs a store write, turning its errors into HTTP answers.
func storeCall<T>(_ body: () throws -> T) throws(HTTPError) -> T {
    do {
        return try body()
    } catch {
        throw ErrorMapping.http(party: error)
    }
}

private func bboxQuery(_ query: QueryReader) throws(HTTPError) -> BoundingBox {
    let box = try query.requiredBox("bbox") { text in
        .badRequest("invalid_parameter", "query parameter 'bbox' must be west,south,east,north in decimal degrees (longitudes within ±180, latitudes within ±90), got '\(text.prefix(80))'")
    }
    guard box.south <= box.north else {
        // Numbers in range in the wrong order fit the documented pattern: 422, as the schema cannot say it.
        throw HTTPError(status: 422, code: "invalid_parameter", message: "query parameter 'bbox' needs south ≤ north, got '\(box.west),\(box.south),\(box.east),\(box.north)'")
    }
    return box
}

private func zoomQuery(_ query: QueryReader) throws(HTTPError) -> Int {
    let z = try query.requiredNumber("zoom") { text in
        .badRequest("invalid_parameter", "query parameter 'zoom' must be a number from 0 to \(PartyIndex.maxZoom), got '\(text.prefix(40))'")
    }
    return Int(z.rounded(.down))
}

/// About how many grid cells `box` covers at `zoom`.
private func cellCount(_ box: BoundingBox, zoom: Int, radius: Double) -> Double {
    let nw = WebMercator.normalized(Coordinate(lon: box.west, lat: box.north))
    let se = WebMercator.normalized(Coordinate(lon: box.east, lat: box.south))
    var width = se.x - nw.x
    if box.west > box.east { width += 1 }
    let scale = WebMercator.tileSize * Double(1 << zoom) / radius
    return (width * scale + 1) * ((se.y - nw.y) * scale + 1)
}

/// True when `text` has the text form `APISchemas.clusterID` documents: a zoom of 0–20, x and y
/// of 1–9 digits, then pairs of a signed and an unsigned offset of 1–3 digits.
func hasClusterIDForm(_ text: String) -> Bool {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count >= 3, parts.count % 2 == 1 else { return false }
    func digits(_ p: Substring, _ most: Int, signed: Bool = false) -> Bool {
        let d = signed && p.first == "-" ? p.dropFirst() : p
        return (1...most).contains(d.utf8.count) && d.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
    }
    guard digits(parts[0], 2), let zoom = Int(parts[0]), (0...20).contains(zoom), parts[0] == String(zoom),
          digits(parts[1], 9), digits(parts[2], 9) else { return false }
    var k = 3
    while k < parts.count {
        guard digits(parts[k], 3, signed: true), digits(parts[k + 1], 3) else { return false }
        k += 2
    }
    return true
}

import HTTPServer
import JSON

/// The named schemas of the OpenAPI document (`components/schemas`), so a generated client gets
/// one type per concept (`Party`, `Route`, `Quote` …) instead of one per operation and status.
///
/// The endpoints keep declaring their schemas as values (the request readers check bodies
/// against them); the document replaces every subschema equal to a named one by a `$ref` to it
/// (`referencing`), so a schema cannot be named here and written differently at its use.
struct ComponentSchemas {
    typealias S = ResponseSchemas

    /// Name → schema: `fixed`, then the request bodies of `bodyNames` as the router declares them.
    let named: [(String, JSONValue)]

    init(router: Router) {
        var named = Self.fixed
        for (pattern, name) in Self.bodyNames {
            if let body = router.routes.first(where: { $0.pattern == pattern && $0.doc.requestBody != nil })?.doc.requestBody,
               !named.contains(where: { $0.1 == body }) {
                named.append((name, body))
            }
        }
        self.named = named
    }

    /// Request bodies built with the served data (the fare book's regions and classes), named by
    /// the operation's path.
    static let bodyNames: [(String, String)] = [
        ("/v1/quote", "QuoteInput"), ("/v1/fare", "FareInput"), ("/v1/table", "TableInput"),
        ("/v1/transform", "TransformInput"), ("/v1/parties/{id}/settle", "SettleInput"),
    ]

    /// Name → schema of the schemas every server has. A named schema's own parts are referenced
    /// inside its definition.
    static let fixed: [(String, JSONValue)] = [
        ("Error", OpenAPIDocument.errorSchema),
        // Points
        ("LonLat", APISchemas.lonLat),
        ("PointInput", APISchemas.pointInput),
        // GeoJSON
        ("PointGeometry", S.pointGeometry),
        ("LineStringGeometry", S.lineString),
        ("MultiPolygonGeometry", S.multiPolygon),
        ("ClusterFeatureCollection", APISchemas.clusterCollection),
        ("ClusterFeature", items(APISchemas.clusterCollection)),
        ("RoadFeatureCollection", S.roads),
        ("RoadFeature", items(S.roads)),
        ("BoundaryFeatureCollection", S.boundaries),
        ("BoundaryFeature", items(S.boundaries)),
        ("CoverageFeatureCollection", S.coverage),
        ("CoverageFeature", items(S.coverage)),
        // Parties and pooling
        ("PartyInput", APISchemas.partyInput),
        ("RiderInput", APISchemas.riderInput),
        ("Party", APISchemas.party),
        ("Rider", APISchemas.rider),
        ("PartyPage", APISchemas.partyPage),
        ("NearbyParty", items(APISchemas.partyPage, "parties")),
        ("PartyQuote", S.partyQuote),
        ("Match", S.partyOffer),
        ("Matches", S.partyOffers),
        // Fares, quotes and routes
        ("Fare", S.fare),
        ("FareShare", S.share),
        ("FareEstimate", S.fareAnswer),
        ("Quote", S.quoteAnswer),
        ("QuoteDropOff", APISchemas.dropOffInput),
        ("StraightLineEstimate", S.estimated),
        ("Leg", S.leg),
        ("Route", S.route),
        ("SnappedPoint", S.snappedPoint),
        ("Table", S.table),
        ("Transform", S.transform),
        // Places
        ("Place", S.place),
        ("Places", S.places),
        ("ReverseGeocode", S.reverse),
        ("Division", S.divisionObject),
        ("RoadAddress", S.reverseAddressObject),
        // System
        ("Network", S.network),
        ("Health", S.health),
        // The OSRM and Kakao Local faces
        ("OSRMRoute", OSRMSchemas.route),
        ("OSRMTable", OSRMSchemas.table),
        ("OSRMNearest", OSRMSchemas.nearest),
        ("OSRMMatch", OSRMSchemas.match),
        ("OSRMWaypoint", OSRMSchemas.waypoint),
        ("OSRMLeg", OSRMSchemas.leg),
        ("OSRMError", OSRMSchemas.error),
        ("OSRMMatchError", OSRMSchemas.matchError),
        ("KakaoKeywordSearch", KakaoSchemas.keyword),
        ("KakaoAddressSearch", KakaoSchemas.address),
        ("KakaoCoordToAddress", KakaoSchemas.coord2address),
        ("KakaoMeta", KakaoSchemas.meta),
        ("KakaoAddress", KakaoSchemas.addressMember),
        ("KakaoError", KakaoSchemas.error),
    ]

    /// The schema of the items of `collection`'s array member `member`.
    static func items(_ collection: JSONValue, _ member: String = "features") -> JSONValue {
        collection["properties"]?[member]?["items"] ?? .null
    }

    /// The `components/schemas` object: each named schema with its parts referenced.
    var definitions: JSONValue {
        .object(named.map { name, schema in (name, referencing(schema, except: name)) })
    }

    /// `value` (a schema, or a tree holding schemas) with every subschema equal to a named one
    /// replaced by `{"$ref": "#/components/schemas/<name>"}`; `except` keeps that name's own
    /// definition whole at the top. Examples are data, not schemas: they are left as they are.
    func referencing(_ value: JSONValue, except: String? = nil) -> JSONValue {
        if case .object = value, let name = named.first(where: { $0.0 != except && $0.1 == value })?.0 {
            return ["$ref": .string("#/components/schemas/" + name)]
        }
        switch value {
        case .array(let items):
            return .array(items.map { referencing($0) })
        case .object(let members):
            return .object(members.map { key, member in
                key == "example" || key == "examples" ? (key, member) : (key, referencing(member))
            })
        default:
            return value
        }
    }
}

import Coordinates
import JSON
import PartyModel
import Places

/// JSON Schemas of the API's bodies for the OpenAPI document: what the server enforces on
/// requests, and the shape of its answers.
enum APISchemas {
    static let lon: JSONValue = ["type": "number", "minimum": -180, "maximum": 180]
    static let lat: JSONValue = ["type": "number", "minimum": -90, "maximum": 90]
    /// A GeoJSON position `[lon, lat]` as the server writes it.
    static let position: JSONValue = ["type": "array", "items": ["type": "number", "minimum": -180, "maximum": 180],
                                      "minItems": 2, "maxItems": 2, "description": "[lon, lat] (latitude within ±90)"]
    /// A position as requests give it: longitude then latitude, each in its range.
    static let positionInput: JSONValue = [
        "type": "array", "minItems": 2, "maxItems": 2,
        "prefixItems": [["type": "number", "minimum": -180, "maximum": 180], ["type": "number", "minimum": -90, "maximum": 90]],
        "description": "[lon, lat]: longitude within ±180, latitude within ±90",
    ]
    /// Decimal degrees as text: longitude within ±180, latitude within ±90, any number of
    /// decimals: the language `Coordinate.parseDegrees` reads, no more and no less.
    static let lonText = #"-?(180(\.0+)?|(1[0-7][0-9]|[0-9]{1,2})(\.[0-9]+)?)"#
    static let latText = #"-?(90(\.0+)?|[0-8]?[0-9](\.[0-9]+)?)"#
    /// An ISO 8601 date-time the server reads (years from 1900, offsets within ±18 h); days up to 28 keep every match a real date.
    static let dateTimeText = #"(19|2[0-9])[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,6})?(Z|[+-](0[0-9]|1[0-8]):[0-5][0-9])"#
    /// A date-time a party may depart at (2000–2099).
    static let partyDateTimeText = "20" + dateTimeText.dropFirst(#"(19|2[0-9])"#.count)
    static let instantQuery: JSONValue = ["type": "string", "pattern": .string("^" + dateTimeText + "$"),
                                          "description": "ISO 8601 date-time (no offset means Asia/Seoul) or Unix seconds",
                                          "example": "2026-12-24T22:30:00+09:00"]

    /// An instant a party or a rider may depart at (2000–2099).
    static let partyInstantQuery: JSONValue = ["type": "string", "pattern": .string("^" + partyDateTimeText + "$"),
                                               "description": "ISO 8601 date-time (no offset means Asia/Seoul) or Unix seconds, 2000–2099",
                                               "example": "2026-12-24T22:30:00+09:00"]

    /// A point as requests may give it: `[lon,lat]`, `"lon,lat"` or `{"lon","lat"}`.
    static let pointInput: JSONValue = [
        "description": "[lon,lat], \"lon,lat\" or {\"lon\",\"lat\"} (WGS84 degrees)",
        "oneOf": [
            positionInput,
            ["type": "string", "pattern": .string("^" + lonText + "," + latText + "$")],
            lonLat,
        ],
    ]

    /// A stop of a quoted ride (`POST /v1/quote`'s `drop_offs`): where, and how many get off.
    static let dropOffInput: JSONValue = [
        "type": "object", "required": ["lon", "lat"], "additionalProperties": false,
        "properties": ["lon": lon, "lat": lat,
                       "riders": ["anyOf": [["type": "integer", "minimum": 1, "maximum": 9], ["type": "null"]], "description": "persons getting off here (default 1)"]],
    ]

    /// A point as an object `{"lon","lat"}` (WGS84 degrees); other members are refused.
    static let lonLat: JSONValue = ["type": "object", "required": ["lon", "lat"], "additionalProperties": false, "properties": ["lon": lon, "lat": lat]]

    /// A "lon,lat" query value.
    static let pointQuery: JSONValue = ["type": "string", "pattern": .string("^" + lonText + "," + latText + "$"), "example": "126.9780,37.5665"]

    static let partyID: JSONValue = ["type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$", "example": "gangnam-1"]

    /// The body of `PUT /v1/parties/{id}`.
    static let partyInput: JSONValue = optionalsNullable([
        "type": "object",
        "required": ["origin", "destination", "depart_at", "seats_total"],
        "additionalProperties": false,
        "properties": [
            "id": ["type": "string", "description": "optional: the path's id (another answers 422 id_mismatch)", "pattern": "^[A-Za-z0-9_-]{1,64}$"],
            "origin": pointInput, "destination": pointInput,
            "depart_at": ["description": "ISO 8601 (no offset means Asia/Seoul) or Unix seconds; past departures plus the grace period answer 422",
                          "oneOf": [["type": "string", "pattern": .string("^" + partyDateTimeText + "$")],
                                    ["type": "number", "minimum": .number(Party.departRange.lowerBound), "maximum": .number(Party.departRange.upperBound)]]],
            "seats_total": ["type": "integer", "minimum": 1, "maximum": .number(Double(Party.maxSeats))],
            "seats_taken": ["type": "integer", "minimum": 0, "maximum": .number(Double(Party.maxSeats)),
                            "description": "at most seats_total (the server answers 422 invalid_party beyond it); default 0, or the riders' seats"],
            "title": ["type": "string", "maxLength": .number(Double(Party.maxTitleLength)), "pattern": "^[^\\u0000-\\u001F\\u007F]*$",
                      "description": .string("at most \(Party.maxTitleLength) Unicode code points, as maxLength counts them "
                          + "(a character with combining marks counts each mark); no control characters")],
            "riders": ["type": "array", "minItems": 0, "maxItems": .number(Double(Party.maxRiders)),
                       "description": "optional: the riders, organiser first; seats_taken defaults to their sum and must equal it. Empty (as a GET prints a party listing no rider) is the same as absent",
                       "items": riderInput],
            "seats_left": ["type": "integer", "readOnly": true, "description": "read-only: accepted and ignored (a GET's party can be PUT back as it is)"],
            "version": ["type": "integer", "readOnly": true, "description": "read-only: accepted and ignored; send If-Match: \"<version>\" to write only over that version"],
            "settled": ["type": "boolean", "readOnly": true, "description": "read-only: accepted and ignored"],
            "distance_m": ["type": "number", "readOnly": true, "description": "read-only (a GET /v1/parties item's): accepted and ignored"],
        ],
        "description": "A party to create or replace. Rules between fields, which the server enforces (422 invalid_party): seats_taken ≤ seats_total; with riders, seats_taken (default: their sum) equals the riders' seats and no rider_id is listed twice. Every object a GET of a party prints is accepted back as it is. The origin, the destination and every rider's drop_off must lie on the served roads, the destination and drop-offs reachable from the origin (422 outside_coverage, naming the field), as a join requires of a drop-off.",
    ], except: ["id"])

    /// A rider as `POST /v1/parties/{id}/riders` and a party's `riders` give it.
    static let riderInput: JSONValue = [
        "type": "object", "required": ["rider_id"], "additionalProperties": false,
        "properties": [
            "rider_id": ["type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$", "description": "1–64 characters of A–Z, a–z, 0–9, '_' or '-', unique in the party"],
            "seats": ["type": ["integer", "null"], "minimum": 1, "maximum": .number(Double(Party.maxSeats)), "description": "default 1"],
            "drop_off": ["description": "optional: where this rider gets off ([lon,lat], \"lon,lat\" or {\"lon\",\"lat\"}); absent or null: the destination",
                         "oneOf": [pointInput, ["type": "null"]]],
        ],
    ]

    /// A join (`POST /v1/parties/{id}/riders`): the rider, and the offer accepted (optional).
    static let joinInput: JSONValue = {
        guard case .object(var members) = riderInput, let i = members.firstIndex(where: { $0.0 == "properties" }),
              case .object(var properties) = members[i].1 else { return riderInput }
        properties.append(("offer", ["description": "optional: the offer of the match accepted (its \"offer\" member, as it was): the join places the rider as the offer did, or answers 409 offer_changed with the live party's offer; absent or null: the rider's stop goes where it lengthens the ride least within 25% for the ride and every rider aboard (else 409 detour_too_long)",
                                     "oneOf": [ResponseSchemas.joinOffer, ["type": "null"]]]))
        members[i].1 = .object(properties)
        return .object(members)
    }()

    /// `schema` with null allowed for each optional member: the JSON readers take null as absent.
    static func optionalsNullable(_ schema: JSONValue, except: Set<String> = []) -> JSONValue {
        guard case .object(var members) = schema, let i = members.firstIndex(where: { $0.0 == "properties" }),
              case .object(let properties) = members[i].1 else { return schema }
        let required = Set((schema["required"]?.arrayValue ?? []).compactMap(\.stringValue))
        members[i].1 = .object(properties.map { name, s in
            required.contains(name) || except.contains(name) ? (name, s) : (name, ["anyOf": [s, ["type": "null"]]])
        })
        return .object(members)
    }

    /// True when `text` matches the `pattern` of `schema` (true when it has none): a value the
    /// document calls valid, so a refusal of it is a 422, not a 400.
    static func fits(_ text: String, _ schema: JSONValue) -> Bool {
        guard let pattern = schema["pattern"]?.stringValue else { return true }
        guard let regex = try? Regex(pattern) else { return false }
        return text.contains(regex)
    }

    /// The member names an object schema declares: the fields a body may carry.
    static func fieldNames(_ schema: JSONValue) -> [String] { schema["properties"]?.objectValue?.map(\.0) ?? [] }

    /// A whole-number query parameter within `range`.
    static func integer(_ range: ClosedRange<Int>) -> JSONValue {
        ["type": "integer", "minimum": .number(Double(range.lowerBound)), "maximum": .number(Double(range.upperBound))]
    }

    static let partyExample: JSONValue = [
        "origin": [127.0276, 37.4979], "destination": "127.1,37.6", "depart_at": "2026-12-24T22:30:00+09:00",
        "seats_total": 4, "seats_taken": 1, "title": "강남역 → 판교",
    ]

    static let partyProperties: [(String, JSONValue)] = [
        ("id", partyID), ("origin", position), ("destination", position),
        ("depart_at", ["type": "string", "format": "date-time"]),
        ("seats_total", ["type": "integer", "minimum": 1]), ("seats_taken", ["type": "integer", "minimum": 0]),
        ("seats_left", ["type": "integer", "minimum": 0]), ("title", ["type": "string"]),
        ("riders", ["type": "array", "items": rider, "description": "organiser first"]),
        ("version", ["type": "integer", "minimum": 1]),
        ("settled", ["type": "boolean", "description": "true once the party's fare was settled (POST /v1/parties/{id}/settle): it takes no more riders and is left out of matching"]),
    ]

    /// A rider as answers give it; `drop_off` absent: the party's destination.
    static let rider: JSONValue = [
        "type": "object", "required": ["rider_id", "seats"], "additionalProperties": false,
        "properties": ["rider_id": riderID, "seats": ["type": "integer", "minimum": 1], "drop_off": lonLat],
    ]

    /// A party as answers give it.
    static let party: JSONValue = [
        "type": "object",
        "required": ["id", "origin", "destination", "depart_at", "seats_total", "seats_taken", "seats_left"],
        "additionalProperties": false,
        "properties": .object(partyProperties),
    ]

    static let partyOutExample: JSONValue = [
        "id": "gangnam-1", "origin": [127.0276, 37.4979], "destination": [127.1, 37.6], "depart_at": "2026-12-24T22:30:00+09:00",
        "seats_total": 4, "seats_taken": 1, "seats_left": 3, "title": "강남역 → 판교", "settled": false,
    ]

    static let partyPage: JSONValue = [
        "type": "object", "required": ["parties", "next_cursor"],
        "properties": [
            "parties": ["type": "array", "items": [
                "type": "object", "required": ["id", "origin", "destination", "depart_at", "seats_total", "seats_taken", "seats_left", "distance_m"],
                "additionalProperties": false,
                "properties": .object(partyProperties + [("distance_m", ["type": "number", "minimum": 0])]),
            ]],
            "next_cursor": ["type": ["string", "null"]],
        ],
    ]

    /// A GeoJSON FeatureCollection of clusters and lone parties.
    static let clusterCollection: JSONValue = [
        "type": "object", "required": ["type", "features"],
        "properties": [
            "type": ["type": "string", "const": "FeatureCollection"],
            "zoom": ["type": "integer"],
            "total": ["type": "integer", "minimum": 0],
            "features": ["type": "array", "items": [
                "type": "object", "required": ["type", "geometry", "properties"],
                "properties": [
                    "type": ["type": "string", "const": "Feature"],
                    "id": ["type": "integer", "minimum": 1, "maximum": 9_007_199_254_740_991,
                           "description": "numeric and stable (the same cluster or party, the same id), equal to properties.feature_id: MapLibre's promoteId"],
                    "geometry": ResponseSchemas.pointGeometry,
                    "properties": ["type": "object", "properties": [
                        "cluster": ["type": "boolean"], "cluster_id": ["type": "string"],
                        "point_count": ["type": "integer", "minimum": 1], "expansion_zoom": ["type": "integer"],
                        "point_count_abbreviated": ["type": ["integer", "string"], "pattern": "^[0-9]+(\\.[0-9])?k$", "minimum": 1,
                                                    "description": "supercluster's label: the count below 1000, then 1.2k, 12k"],
                        "feature_id": ["type": "integer", "minimum": 1, "maximum": 9_007_199_254_740_991],
                        "party_id": partyID, "depart_at": ["type": "string", "format": "date-time"],
                        "seats_left": ["type": "integer", "minimum": 0], "seats_total": ["type": "integer"],
                        "destination": position, "title": ["type": "string"],
                    ]],
                ],
            ]],
        ],
    ]

    static let clusterExample: JSONValue = [
        "type": "FeatureCollection",
        "features": [
            ["type": "Feature", "id": 8_426_085_821_991_222, "geometry": ["type": "Point", "coordinates": [126.978, 37.566]],
             "properties": ["cluster": true, "cluster_id": "12.3491.1584.0.0", "point_count": 12, "point_count_abbreviated": 12,
                            "expansion_zoom": 13, "feature_id": 8_426_085_821_991_222]],
            ["type": "Feature", "id": 1_913_962_928_364_569, "geometry": ["type": "Point", "coordinates": [127.0276, 37.4979]],
             "properties": ["party_id": "gangnam-1", "depart_at": "2026-12-24T22:30:00+09:00", "seats_left": 3, "feature_id": 1_913_962_928_364_569]],
        ],
    ]
}

/// Query, path and header values as the server reads them, for the parameters' schemas.
extension APISchemas {
    /// A decimal number as text: at most 9 digits before the point, any number after it (the
    /// language `NumberParsing.plainDecimal(_:integerDigits: 9)` reads).
    static let numberText = #"-?[0-9]{1,9}(\.[0-9]+)?"#
    static let pointText = lonText + "," + latText

    /// `"lon,lat;lon,lat;…"`: from `minimum` to `maximum` points.
    static func pointListQuery(_ minimum: Int = 1, _ maximum: Int) -> JSONValue {
        ["type": "string", "pattern": .string("^" + pointText + "(;" + pointText + "){\(minimum - 1),\(maximum - 1)}$"),
         "example": "126.9780,37.5665;127.0276,37.4979"]
    }

    /// `"x,y;x,y;…"` in any CRS's units: up to `maximum` pairs of decimal numbers.
    static func xyListQuery(_ maximum: Int) -> JSONValue {
        let pair = numberText + "," + numberText
        return ["type": "string", "pattern": .string("^" + pair + "(;" + pair + "){0,\(maximum - 1)}$"), "example": "127.0276,37.4979"]
    }

    /// One of `values`.
    static func oneOf(_ values: [String], example: String? = nil) -> JSONValue {
        var m: [(String, JSONValue)] = [("type", "string"), ("enum", .array(values.map { .string($0) }))]
        if let example { m.append(("example", .string(example))) }
        return .object(m)
    }

    /// A number of metres or minutes within `range`; `exclusiveMinimum` when 0 is refused.
    static func number(_ range: ClosedRange<Double>, exclusiveMinimum: Bool = false) -> JSONValue {
        [exclusiveMinimum ? "exclusiveMinimum" : "minimum": .number(range.lowerBound), "type": "number", "maximum": .number(range.upperBound)]
    }

    /// `"west,south,east,north"` in degrees; the bounds' order is checked by the server (422).
    static let bboxQuery: JSONValue = ["type": "string", "pattern": .string("^" + lonText + "," + latText + "," + lonText + "," + latText + "$"),
                                       "example": "126.9,37.5,127.1,37.6"]

    /// `If-Match` and `If-None-Match`: `*`, or a comma-separated list of ETags (`"3"`, `W/"3"`,
    /// or a bare `3` read as `"3"`).
    static let entityTagList: JSONValue = {
        let tag = #"(W/"[!#-~]*"|"[!#-~]*"|[1-9][0-9]{0,15})"#
        return ["type": "string", "pattern": .string(#"^(\*|"# + tag + #"([ \t]*,[ \t]*"# + tag + ")*)$"), "example": "\"3\""]
    }()

    /// A one-cell cluster id `zoom.x.y` (merged clusters append `.dx.dy` per further cell, as /v1/clusters gives them).
    /// A cluster_id (`zoom.x.y`, then `.dx.dy` per further cell) or a cluster's numeric feature_id.
    static let clusterID: JSONValue = ["type": "string", "pattern": #"^((1?[0-9]|20)\.[0-9]{1,9}\.[0-9]{1,9}(\.-?[0-9]{1,3}\.[0-9]{1,3})*|[1-9][0-9]{0,15})$"#,
                                       "example": "14.13954.6345"]

    /// A hex bit pattern of a finite Double (exponent bits not all ones).
    static let finiteDoubleHex = "([0-9a-f]{1,15}|[0-6][0-9a-f]{15}|7[0-9a-e][0-9a-f]{14}|7f[0-9a-e][0-9a-f]{13}|[89a-e][0-9a-f]{15}|f[0-9a-e][0-9a-f]{14}|ff[0-9a-e][0-9a-f]{13})"
    /// `next_cursor` of `GET /v1/parties`; one from another search answers 422.
    static let partiesCursor: JSONValue = ["type": "string", "pattern": .string("^" + finiteDoubleHex + "-" + finiteDoubleHex + "-[A-Za-z0-9_-]{1,64}$")]
    /// `next_cursor` of `GET /v1/places`; one from another search answers 422.
    static let placesCursor: JSONValue = ["type": "string", "pattern": #"^[1-9][0-9]{0,3}\.[0-9a-f]{8}$"#, "example": "15.2cfcf851"]
    /// A rider id.
    static let riderID: JSONValue = ["type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$", "example": "minji"]
}

extension APISchemas {
    /// A place search text: 1–100 characters (one with no letter or digit answers 422 empty_query).
    static let placeText: JSONValue = ["type": "string", "minLength": 1, "maxLength": .number(Double(PlaceQuery.maximumLength)), "example": "강남역"]

    /// CRS names: the aliases and the EPSG codes of Korea's usual systems (PROJ knows many more; an unknown code answers 400).
    static let crsName: JSONValue = oneOf(CRSCatalog.aliasNames + ["EPSG:4326", "EPSG:4166", "EPSG:5179", "EPSG:5181", "EPSG:5186", "EPSG:3857", "EPSG:32652", "EPSG:2097"],
                                          example: "EPSG:4326")
}

import JSON
import Pooling

/// JSON Schemas (and examples) of the API's success answers, one per operation, for the OpenAPI
/// document. Objects list every member the server writes and forbid others, so a generated
/// client is typed and Schemathesis checks each answer against them.
enum ResponseSchemas {
    // MARK: Building blocks

    /// An object of exactly these members, `required` of them always present.
    static func object(_ required: [String], _ properties: [(String, JSONValue)], description: String? = nil) -> JSONValue {
        var m: [(String, JSONValue)] = [
            ("type", "object"), ("required", .array(required.map { .string($0) })),
            ("additionalProperties", false), ("properties", .object(properties)),
        ]
        if let description { m.append(("description", .string(description))) }
        return .object(m)
    }

    static func array(_ items: JSONValue) -> JSONValue { ["type": "array", "items": items] }
    static func nullable(_ schema: JSONValue) -> JSONValue { ["oneOf": [schema, ["type": "null"]]] }

    static let string: JSONValue = ["type": "string"]
    static let number: JSONValue = ["type": "number"]
    static let metres: JSONValue = ["type": "number", "minimum": 0]
    static let seconds: JSONValue = ["type": "number", "minimum": 0]
    static let integer: JSONValue = ["type": "integer"]
    static let count: JSONValue = ["type": "integer", "minimum": 0]
    static let won: JSONValue = ["type": "integer"]
    static let dateTime: JSONValue = ["type": "string", "format": "date-time"]
    static let position = APISchemas.position
    static let bbox: JSONValue = ["type": "array", "items": number, "minItems": 4, "maxItems": 4,
                                  "description": "[west, south, east, north]"]

    /// A GeoJSON geometry (RFC 7946) of type `name`, its coordinates typed down to the positions.
    static func geometry(_ name: String, _ coordinates: JSONValue) -> JSONValue {
        object(["type", "coordinates"], [("type", ["type": "string", "const": .string(name)]), ("coordinates", coordinates)])
    }

    static let pointGeometry = geometry("Point", position)
    /// A GeoJSON LineString (routes with geometry=geojson, roads).
    static let lineString = geometry("LineString", array(position))
    static let multiPolygon = geometry("MultiPolygon", array(array(array(position))))

    /// A GeoJSON FeatureCollection whose features carry `properties` and a `geometry` of one type.
    static func featureCollection(_ properties: JSONValue, geometry: JSONValue, extra: [(String, JSONValue)] = [],
                                  required: [String] = []) -> JSONValue {
        object(["type", "features"] + required, [
            ("type", ["type": "string", "const": "FeatureCollection"]),
            ("features", array(object(["type", "properties", "geometry"], [
                ("type", ["type": "string", "const": "Feature"]), ("bbox", bbox),
                ("properties", properties), ("geometry", geometry),
            ]))),
        ] + extra)
    }

    // MARK: Fares and routes

    /// A metered fare; the parts add up to `total_krw`.
    static let fare: JSONValue = object(
        ["total_krw", "base_krw", "distance_krw", "time_krw", "night_krw", "out_of_city_krw", "rounding_krw", "toll_krw",
         "schedule", "region", "taxi_class", "distance_units", "time_units"],
        [("total_krw", ["type": "integer", "minimum": 0]), ("base_krw", won), ("distance_krw", won), ("time_krw", won), ("night_krw", won),
         ("out_of_city_krw", won), ("rounding_krw", won), ("toll_krw", won), ("schedule", string), ("region", string), ("taxi_class", string),
         ("distance_units", count), ("time_units", count)])

    static let leg: JSONValue = object(["distance_m", "duration_s"], [("distance_m", metres), ("duration_s", seconds)])

    static let share: JSONValue = object(["rider", "krw"], [("rider", count), ("drop_off", nullable(count)), ("krw", won), ("solo_krw", won)])

    static let fareAnswer: JSONValue = object(["trip", "fare", "split", "per_person_krw"], [
        ("trip", object(["distance_m", "duration_s", "slow_s", "depart_at", "timing"],
                        [("distance_m", metres), ("duration_s", seconds), ("slow_s", seconds), ("depart_at", dateTime), ("timing", string)])),
        ("fare", fare), ("split", array(share)), ("per_person_krw", won),
    ])

    static let fareExample: JSONValue = [
        "trip": ["distance_m": 5000, "duration_s": 652.2, "slow_s": 347, "depart_at": "2026-12-24T22:30:00+09:00", "timing": "profile"],
        "fare": ["total_krw": 9600, "base_krw": 4800, "distance_krw": 2500, "time_krw": 700, "night_krw": 1640, "out_of_city_krw": 0,
                 "rounding_krw": -40, "toll_krw": 0, "schedule": "seoul-mid-2023-02-01", "region": "seoul", "taxi_class": "mid",
                 "distance_units": 25, "time_units": 7],
        "split": [["rider": 0, "krw": 4800], ["rider": 1, "krw": 4800]],
        "per_person_krw": 4800,
    ]

    static let quoteAnswer: JSONValue = object(["route", "fare", "split", "per_person_krw", "region", "depart_at"], [
        ("route", object(["distance_m", "duration_s", "slow_s", "out_of_city_m", "geometry", "legs"],
                         [("distance_m", metres), ("duration_s", seconds), ("slow_s", seconds), ("out_of_city_m", metres),
                          ("geometry", ["type": "string", "description": "encoded polyline, precision 6"]), ("legs", array(leg))])),
        ("fare", fare), ("split", array(share)), ("per_person_krw", won), ("region", string), ("depart_at", dateTime),
        ("estimated", estimated),
    ])

    /// The label of a straight-line estimate (quotes, party offers).
    static let estimated: JSONValue = object(["method", "circuity", "fare_range_krw", "straight_line_m", "reason"], [
        ("method", string), ("circuity", number),
        ("fare_range_krw", ["type": "array", "items": won, "minItems": 2, "maxItems": 2]),
        ("straight_line_m", metres), ("reason", object(["code", "message"], [("code", string), ("message", string)])),
    ], description: "present when a point outside the served roads was estimated (estimate=allow)")

    static let quoteExample: JSONValue = [
        "route": ["distance_m": 2862.4, "duration_s": 361.9, "slow_s": 182.4, "out_of_city_m": 0, "geometry": "wkmsfAyksdqFiAc]uAya@",
                  "legs": [["distance_m": 1515.2, "duration_s": 197.2], ["distance_m": 1347.2, "duration_s": 164.7]]],
        "fare": fareExample["fare"]!,
        "split": [["rider": 0, "drop_off": .null, "krw": 2950], ["rider": 1, "drop_off": 0, "krw": 2950]],
        "per_person_krw": 2950, "region": "seoul", "depart_at": "2026-12-24T22:30:00+09:00",
    ]

    static let snappedPoint: JSONValue = object(["location", "distance_m"], [("location", position), ("distance_m", metres)])

    static let route: JSONValue = object(["distance_m", "duration_s", "depart_at", "metric", "legs", "snapped", "street_names", "measured_share"], [
        ("distance_m", metres), ("duration_s", seconds), ("depart_at", dateTime),
        ("metric", ["type": "string", "enum": ["time", "distance"]]),
        ("geometry", ["description": "absent with geometry=none", "oneOf": [["type": "string", "description": "encoded polyline, precision 6"], lineString]]),
        ("legs", array(leg)), ("snapped", array(snappedPoint)), ("street_names", array(string)),
        ("measured_share", ["type": "number", "minimum": 0, "maximum": 1,
                            "description": "share of the route's length driven on measured (TOPIS) speeds at the departure hour; 0 on OSM roads"]),
    ])

    static let routeExample: JSONValue = [
        "distance_m": 2874.6, "duration_s": 358.4, "depart_at": "2026-12-24T22:30:00+09:00", "metric": "time",
        "geometry": "wkmsfAyksdqFiAc]uAya@", "legs": [["distance_m": 2874.6, "duration_s": 358.4]],
        "snapped": [["location": [126.970061, 37.5595], "distance_m": 55.8], ["location": [126.990014, 37.569911], "distance_m": 10]],
        "street_names": ["세종대로", "을지로"], "measured_share": 0,
    ]

    static let table: JSONValue = object(["sources", "destinations", "depart_at"], [
        ("durations", array(array(nullable(seconds)))), ("distances", array(array(nullable(metres)))),
        ("fares_krw", array(array(nullable(won)))),
        ("sources", array(snappedPoint)), ("destinations", array(snappedPoint)), ("depart_at", dateTime),
    ])

    static let tableExample: JSONValue = [
        "durations": [[358.4], [110.2]], "distances": [[2874.6], [945.1]], "fares_krw": [[5900], [4800]],
        "sources": [["location": [126.970061, 37.5595], "distance_m": 55.8], ["location": [126.9799, 37.570002], "distance_m": 8.8]],
        "destinations": [["location": [126.990014, 37.569911], "distance_m": 10]],
        "depart_at": "2026-12-24T22:30:00+09:00",
    ]

    // MARK: Coordinates

    static let transform: JSONValue = object(["from", "to", "coords", "outside_area_of_use"], [
        ("from", string), ("to", string),
        ("coords", array(["type": "array", "items": number, "minItems": 2, "maxItems": 2])),
        ("outside_area_of_use", array(count)),
    ])

    static let transformExample: JSONValue = [
        "from": "EPSG:4326", "to": "EPSG:5179", "coords": [[955804.8163413828, 1944643.7157885316]], "outside_area_of_use": [],
    ]

    // MARK: Places

    static let place: JSONValue = object(["id", "name", "category", "address", "lon", "lat"], [
        ("id", string), ("name", string), ("category", string), ("address", string),
        ("lon", APISchemas.lon), ("lat", APISchemas.lat), ("distance_m", metres),
        ("precision", ["type": "string", "enum": ["interpolated", "road", "dong"],
                       "description": "address answers only (category address): interpolated along the road, the road only, or the 동 only"]),
    ])

    static let reverseAddress: JSONValue = nullable(reverseAddressObject)

    static let reverseAddressObject: JSONValue = object(["text", "road", "number", "lon", "lat", "distance_m", "precision"], [
        ("text", string), ("road", string), ("number", ["type": "integer", "minimum": 1]),
        ("lon", APISchemas.lon), ("lat", APISchemas.lat), ("distance_m", metres),
        ("precision", ["type": "string", "enum": ["interpolated", "road", "dong"]]),
    ], description: "the nearest road-name address estimate (road and basic number at the point's projection), null when no named road is within 100 m")

    static let places: JSONValue = object(["places", "next_cursor"], [("places", array(place)), ("next_cursor", ["type": ["string", "null"]])])

    static let placesExample: JSONValue = [
        "places": [["id": "station:0222", "name": "강남역", "category": "station", "address": "서울특별시 강남구 강남대로 지하 396 (역삼동)",
                     "lon": 127.0280789, "lat": 37.4970197, "distance_m": 2499]],
        "next_cursor": "1.2cfcf851",
    ]

    static let division: JSONValue = nullable(divisionObject)
    /// An administrative division: its code and name.
    static let divisionObject: JSONValue = object(["code", "name"], [("code", string), ("name", string)])

    static let reverse: JSONValue = object(["region", "places", "address"], [
        ("region", nullable(object(["sido", "sigungu", "dong", "full_name", "code", "approximate"], [
            ("sido", division), ("sigungu", division), ("dong", division), ("full_name", string), ("code", string),
            ("approximate", ["type": "boolean"]),
        ]))),
        ("places", array(place)),
        ("address", reverseAddress),
    ])

    static let reverseExample: JSONValue = [
        "region": ["sido": ["code": "11", "name": "서울특별시"], "sigungu": ["code": "11140", "name": "중구"],
                   "dong": ["code": "11140103", "name": "태평로1가"], "full_name": "서울특별시 중구 태평로1가", "code": "11140103",
                   "approximate": false],
        "places": [["id": "bus:SEB101000227", "name": "시청.덕수궁", "category": "bus_stop", "address": "서울특별시 중구 정동",
                    "lon": 126.976921, "lat": 37.566254, "distance_m": 99]],
        "address": ["text": "서울특별시 중구 세종대로 119", "road": "세종대로", "number": 119, "lon": 126.9770263, "lat": 37.5664613,
                    "distance_m": 12, "precision": "interpolated"],
    ]

    // MARK: Map layers and system

    static let roads: JSONValue = featureCollection(
        object(["class"], [("class", string), ("name", string)]), geometry: lineString,
        extra: [("zoom", integer), ("classes", array(string)), ("truncated", ["type": "boolean"])])

    static let roadsExample: JSONValue = [
        "type": "FeatureCollection", "zoom": 16, "classes": ["secondary"], "truncated": false,
        "features": [["type": "Feature", "properties": ["class": "secondary", "name": "서소문로"],
                      "geometry": ["type": "LineString", "coordinates": [[126.976007, 37.563806], [126.974915, 37.563351]]]]],
    ]

    static let boundaries: JSONValue = featureCollection(
        object(["code", "level", "name"], [("code", string), ("level", string), ("name", string)]), geometry: multiPolygon,
        extra: [("zoom", integer)])

    static let boundariesExample: JSONValue = [
        "type": "FeatureCollection",
        "features": [["type": "Feature", "properties": ["code": "11140", "level": "sigungu", "name": "중구"],
                      "geometry": ["type": "MultiPolygon", "coordinates": [[[[126.98992, 37.56813], [127.00226, 37.56962], [126.98992, 37.56813]]]]]]],
    ]

    static let coverage: JSONValue = featureCollection(
        object(["area", "name", "nodes", "bbox"], [("area", count), ("name", string), ("nodes", count), ("bbox", bbox), ("area_km2", metres)]),
        geometry: multiPolygon, extra: [("network", network)])

    /// The road network served: `nodelink` (Korean standard node-link) or `osm`.
    static let network: JSONValue = object(["name", "description"], [("name", ["enum": ["nodelink", "osm"]]), ("description", string)])

    static let coverageExample: JSONValue = [
        "type": "FeatureCollection",
        "features": [["type": "Feature", "bbox": [126.949918, 37.52913, 127.006702, 37.589145],
                      "properties": ["area": 0, "name": "area 0 (37.559, 126.978)", "nodes": 4624,
                                     "bbox": [126.949918, 37.52913, 127.006702, 37.589145], "area_km2": 36.14],
                      "geometry": ["type": "MultiPolygon", "coordinates": [[[[126.95, 37.525], [126.95625, 37.525], [126.95625, 37.53], [126.95, 37.525]]]]]]],
    ]

    static let health: JSONValue = object(["status", "party_store", "dataset", "uptime_s"], [
        ("status", ["enum": ["ok", "degraded"], "description": "degraded: the party store cannot be reached (party endpoints may answer 503); the rest is served"]),
        ("party_store", object(["status", "kind"], [
            ("status", ["enum": ["ok", "degraded"]]), ("kind", ["enum": ["sqlite", "postgresql"]]),
            ("reason", ["type": "string", "description": "why it is degraded"]),
        ])),
        ("dataset", object(["name", "version"], [("name", string), ("version", string)])),
        ("uptime_s", seconds),
        ("network", network),
        ("coverage", ["type": ["object", "null"], "description": "the served road areas (see /v1/coverage)"]),
        ("circuity", ["type": ["object", "null"], "description": "route length / straight-line length by distance band"]),
    ])

    static let healthExample: JSONValue = [
        "status": "ok", "party_store": ["status": "ok", "kind": "sqlite"], "dataset": ["name": "seoul-central", "version": "2026-11-30"], "uptime_s": 18.036,
        "network": ["name": "osm", "description": "OpenStreetMap roads"],
        "coverage": ["areas": 1, "nodes": 4624, "by_area": [["area": 0, "nodes": 4624, "bbox": [126.949932, 37.52913, 127.006645, 37.589145]]],
                     "geojson": "/v1/coverage"],
        "circuity": ["method": "route length / straight-line length on the served graph, measured at import", "bands": []],
    ]

    static let openAPI: JSONValue = [
        "type": "object", "required": ["openapi", "info", "paths"],
        "properties": ["openapi": ["const": "3.1.0"], "info": ["type": "object"], "paths": ["type": "object"]],
    ]

    // MARK: Pooling

    static let partyQuote: JSONValue = object(
        ["party_id", "version", "route", "stops", "drop_off_order", "fare", "split", "shares", "region", "depart_at"], [
            ("party_id", APISchemas.partyID), ("version", ["type": "integer", "minimum": 1]),
            ("route", object(["distance_m", "duration_s", "geometry", "legs"],
                             [("distance_m", metres), ("duration_s", seconds), ("geometry", string), ("legs", array(leg))])),
            ("stops", array(object(["location", "riders"], [("location", position), ("riders", array(string))]))),
            ("drop_off_order", array(string)), ("fare", fare),
            ("split", ["type": "string", "enum": ["equal", "by_leg", "proportional"]]),
            ("shares", array(object(["rider_id", "seats", "krw"], [("rider_id", string), ("seats", ["type": "integer", "minimum": 1]),
                                                                   ("krw", won), ("solo_krw", won)]))),
            ("region", string), ("depart_at", dateTime),
        ])

    /// A real answer of `GET /v1/parties/jongno-7/quote?split=by_leg` (the geometry cut short).
    static let partyQuoteExample: JSONValue = [
        "party_id": "jongno-7", "version": 1,
        "route": ["distance_m": 2990.5, "duration_s": 480.4, "geometry": "y{atfAopleqFrDXhN~AfGh@tS~A",
                  "legs": [["distance_m": 794.3, "duration_s": 137.2], ["distance_m": 2196.3, "duration_s": 343.2]]],
        "stops": [["location": [126.978, 37.5665], "riders": ["minji"]], ["location": [126.972, 37.5547], "riders": ["host"]]],
        "drop_off_order": ["minji", "host"],
        "fare": ["total_krw": 7500, "base_krw": 4800, "distance_krw": 1000, "time_krw": 400, "night_krw": 1280,
                 "out_of_city_krw": 0, "rounding_krw": 20, "toll_krw": 0, "schedule": "seoul-mid-2023-02-01", "region": "seoul",
                 "taxi_class": "mid", "distance_units": 10, "time_units": 4],
        "split": "by_leg",
        "shares": [["rider_id": "host", "seats": 1, "krw": 4600], ["rider_id": "minji", "seats": 1, "krw": 2900]],
        "region": "seoul", "depart_at": "2026-12-24T22:30:00+09:00",
    ]

    static let partyOffer: JSONValue = object(["party", "walk_m", "drop_off_order", "detour", "price"], [
        ("party", APISchemas.party), ("walk_m", metres), ("drop_off_order", array(string)),
        ("detour", object(["added_s", "added_m", "pct", "riders"], [
            ("added_s", number), ("added_m", number), ("pct", number),
            ("riders", array(object(["rider_id", "added_s", "pct"], [("rider_id", string), ("added_s", number), ("pct", number)]))),
        ])),
        ("price", object(["solo_krw", "pooled_krw", "saving_krw"], [("solo_krw", won), ("pooled_krw", won), ("saving_krw", won)])),
        ("estimated", estimated),
        ("offer", joinOffer),
    ])

    /// What an offer of `GET /v1/match` gives and a join accepts (`POST /v1/parties/{id}/riders`, member `offer`).
    static let joinOffer: JSONValue = object(["drop_off_order", "pooled_krw"], [
        ("drop_off_order", array(APISchemas.riderID)), ("pooled_krw", won),
        ("max_detour_pct", ["type": ["number", "null"], "minimum": .number(OfferRequest.detourRange.lowerBound),
                            "maximum": .number(OfferRequest.detourRange.upperBound), "description": "default 25"]),
    ], description: "the offer of a match, as GET /v1/match answers it: the join places the rider where it did (drop_off_order: every rider, the joining one by its rider_id, in the order they get off) at pooled_krw (the joining rider's by_leg share), found within max_detour_pct (of the ride time and of each aboard rider's own arrival)")

    static let partyOffers: JSONValue = [
        "type": "object", "required": ["matches"],
        "properties": ["matches": array(partyOffer)],
    ]
}

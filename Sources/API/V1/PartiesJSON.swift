import Geo
import HTTPServer
import JSON
import PartyClusters
import PartyModel
import Pooling

/// The JSON of parties and clusters: request bodies in, party objects and GeoJSON out.
public enum PartiesJSON {
    // MARK: - Out

    /// A coordinate as a GeoJSON position `[lon, lat]`.
    static func position(_ c: Coordinate) -> JSONValue { .array([.number(c.lon), .number(c.lat)]) }

    /// `{"id","origin":[lon,lat],"destination":[lon,lat],"depart_at","seats_total","seats_taken","seats_left","title"?,
    /// "riders":[{"rider_id","seats","drop_off"?:{"lon","lat"}}],"version","settled"}`; the riders are
    /// `Party.seatedRiders` (the implied organiser of a party stored without a rider list).
    public static func party(_ p: Party, distance: Double? = nil) -> JSONValue {
        var m: [(String, JSONValue)] = [
            ("id", .string(p.id)),
            ("origin", position(p.origin)),
            ("destination", position(p.destination)),
            ("depart_at", .string(SeoulTime.format(p.departAt))),
            ("seats_total", .number(Double(p.seatsTotal))),
            ("seats_taken", .number(Double(p.seatsTaken))),
            ("seats_left", .number(Double(p.seatsLeft))),
        ]
        if let t = p.title { m.append(("title", .string(t))) }
        m.append(("riders", .array(p.seatedRiders.map(rider))))
        m.append(("version", .number(Double(p.version))))
        m.append(("settled", .bool(p.isSettled)))
        if let distance { m.append(("distance_m", .number((distance * 10).rounded() / 10))) }
        return .object(m)
    }

    /// `{"rider_id","seats","drop_off"?:{"lon","lat"}}`.
    public static func rider(_ r: PartyRider) -> JSONValue {
        var m: [(String, JSONValue)] = [("rider_id", .string(r.id)), ("seats", .number(Double(r.seats)))]
        if let d = r.dropOff { m.append(("drop_off", .object([("lon", .number(d.lon)), ("lat", .number(d.lat))]))) }
        return .object(m)
    }

    /// The `ETag` of a party version: `"<version>"`.
    public static func etag(_ p: Party) -> String { "\"\(p.version)\"" }

    /// A GeoJSON Point feature for a party shown alone: `{"party_id","depart_at","seats_left"}`,
    /// and with `detailed` also its seats, destination and title (for cluster leaves).
    public static func partyFeature(_ p: Party, detailed: Bool = false) -> JSONValue {
        var props: [(String, JSONValue)] = [
            ("party_id", .string(p.id)),
            ("depart_at", .string(SeoulTime.format(p.departAt))),
            ("seats_left", .number(Double(p.seatsLeft))),
            ("feature_id", .number(Double(FeatureNumber.of(party: p.id)))),
        ]
        if detailed {
            props.append(("seats_total", .number(Double(p.seatsTotal))))
            props.append(("destination", position(p.destination)))
            if let t = p.title { props.append(("title", .string(t))) }
        }
        return .object([
            ("type", "Feature"),
            ("id", .number(Double(FeatureNumber.of(party: p.id)))),
            ("geometry", .object([("type", "Point"), ("coordinates", position(p.origin))])),
            ("properties", .object(props)),
        ])
    }

    /// A GeoJSON FeatureCollection (RFC 7946) of cluster-answer features, with foreign members
    /// `extra`: clusters as points at their parties' centroid with
    /// `{"cluster":true,"cluster_id","point_count","point_count_abbreviated","expansion_zoom","feature_id"}`,
    /// lone parties as points with `{"party_id","depart_at","seats_left","feature_id"}`; each
    /// feature's `id` is its `feature_id` (`FeatureNumber`), as supercluster's output has them. Written straight into bytes (no JSON tree: these
    /// are the answers of `/v1/clusters` and `/children`, asked for at every map move).
    public static func writeFeatureCollection(_ features: [ClusterFeature], extra: [(String, JSONValue)] = []) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(64 + 200 * features.count)
        out.append(contentsOf: #"{"type":"FeatureCollection","features":["#.utf8)
        for (k, f) in features.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            switch f {
            case .cluster(let c):
                let number = FeatureNumber.of(cluster: c.id)
                out.append(contentsOf: #"{"type":"Feature","id":"#.utf8)
                JSONWriter.writeInteger(number, into: &out)
                out.append(contentsOf: #","geometry":"#.utf8)
                writePoint(c.coordinate, into: &out)
                out.append(contentsOf: #","properties":{"cluster":true,"cluster_id":""#.utf8)
                c.id.appendText(to: &out)
                out.append(contentsOf: #"","point_count":"#.utf8)
                JSONWriter.writeInteger(Int64(c.count), into: &out)
                out.append(contentsOf: #","point_count_abbreviated":"#.utf8)
                FeatureNumber.writeAbbreviated(c.count, into: &out)
                out.append(contentsOf: #","expansion_zoom":"#.utf8)
                JSONWriter.writeInteger(Int64(c.expansionZoom), into: &out)
                out.append(contentsOf: #","feature_id":"#.utf8)
                JSONWriter.writeInteger(number, into: &out)
                out.append(contentsOf: "}}".utf8)
            case .party(let p):
                let number = FeatureNumber.of(party: p.id)
                out.append(contentsOf: #"{"type":"Feature","id":"#.utf8)
                JSONWriter.writeInteger(number, into: &out)
                out.append(contentsOf: #","geometry":"#.utf8)
                writePoint(p.origin, into: &out)
                out.append(contentsOf: #","properties":{"party_id":"#.utf8)
                JSONWriter.writeString(p.id, into: &out)
                out.append(contentsOf: #","depart_at":""#.utf8)
                SeoulTime.write(p.departAt, into: &out)
                out.append(contentsOf: #"","seats_left":"#.utf8)
                JSONWriter.writeInteger(Int64(p.seatsLeft), into: &out)
                out.append(contentsOf: #","feature_id":"#.utf8)
                JSONWriter.writeInteger(number, into: &out)
                out.append(contentsOf: "}}".utf8)
            }
        }
        out.append(UInt8(ascii: "]"))
        for (key, value) in extra {
            out.append(UInt8(ascii: ","))
            JSONWriter.writeString(key, into: &out)
            out.append(UInt8(ascii: ":"))
            JSONWriter.write(value, into: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `{"type":"Point","coordinates":[lon,lat]}`.
    private static func writePoint(_ c: Coordinate, into out: inout [UInt8]) {
        out.append(contentsOf: #"{"type":"Point","coordinates":["#.utf8)
        JSONWriter.writeNumber(c.lon, into: &out)
        out.append(UInt8(ascii: ","))
        JSONWriter.writeNumber(c.lat, into: &out)
        out.append(contentsOf: "]}".utf8)
    }

    // MARK: - In

    /// The party a `PUT /v1/parties/{id}` body describes. Fields: `origin`, `destination`
    /// (`[lon,lat]`, `"lon,lat"` or `{"lon","lat"}`), `depart_at` (ISO 8601, no offset meaning
    /// Asia/Seoul, or Unix seconds), `seats_total`, `seats_taken` (default 0), `title`
    /// (optional), `id` (optional; must match the path).
    public static func party(id: String, body: JSONValue) throws(HTTPError) -> Party {
        guard case .object(let members) = body else {
            throw HTTPError.badRequest("invalid_json", "the body must be a JSON object describing the party")
        }
        let known = Set(APISchemas.fieldNames(APISchemas.partyInput))
        if let unknown = members.first(where: { !known.contains($0.0) }) {
            throw HTTPError.badRequest("unknown_field", "unknown field '\(unknown.0.prefix(60))' (known: \(known.sorted().joined(separator: ", ")))")
        }
        if let given = body["id"], given != .string(id) {
            throw HTTPError.unprocessable("id_mismatch", "the body's id must equal the id in the path ('\(id)')")
        }
        let origin = try coordinate(body["origin"], field: "origin")
        let destination = try coordinate(body["destination"], field: "destination")
        guard let dv = body["depart_at"] else { throw missing("depart_at") }
        let departAt = try instant(dv, field: "depart_at")
        guard let total = body["seats_total"] else { throw missing("seats_total") }
        guard let seatsTotal = total.intValue else { throw invalid("seats_total", "must be a whole number") }
        try readOnlyMembers(body)
        var riders: [PartyRider] = []
        if let list = body["riders"], !list.isNull {
            // Empty: no rider list, as a GET prints a party listing no rider.
            guard let items = list.arrayValue, items.count <= Party.maxRiders else {
                throw invalid("riders", "must be a list of 0–\(Party.maxRiders) riders {\"rider_id\",\"seats\",\"drop_off\"?}, the organiser first")
            }
            for (i, item) in items.enumerated() { riders.append(try rider(item, field: "riders[\(i)]")) }
        }
        var seatsTaken = riders.reduce(0) { $0 + $1.seats }
        if let taken = body["seats_taken"], !taken.isNull {
            guard let v = taken.intValue else { throw invalid("seats_taken", "must be a whole number") }
            seatsTaken = v
        }
        var title: String?
        if let t = body["title"], !t.isNull {
            guard let s = t.stringValue else { throw invalid("title", "must be a string") }
            title = s.isEmpty ? nil : s
        }
        let p = Party(id: id, origin: origin, destination: destination, departAt: departAt,
                      seatsTotal: seatsTotal, seatsTaken: seatsTaken, title: title, riders: riders)
        do { try p.validate() } catch {
            // Rules between fields fit the documented schema (it states them in prose, not as
            // branches): seats_taken over seats_total (each in its own range), riders whose seats
            // do not add up to seats_taken, a rider listed twice: 422, like every refusal the
            // schema cannot state. seats_taken left out takes the riders' sum, which may then
            // exceed seats_total.
            let takenGiven = body["seats_taken"].map { !$0.isNull } ?? false
            if error.betweenFields || error.field == "seats_taken" && (!takenGiven || (0...Party.maxSeats).contains(seatsTaken)) {
                throw HTTPError.unprocessable("invalid_party", "\(error.field) \(error.message)")
            }
            throw invalid(error.field, error.message)
        }
        return p
    }

    /// The members a party's GET prints that a PUT does not write (`seats_left`, `version`,
    /// `settled`, a listing's `distance_m`): accepted, so the object a GET prints can be PUT back
    /// as it is, when of the printed type; their values are ignored.
    static func readOnlyMembers(_ body: JSONValue) throws(HTTPError) {
        for name in ["seats_left", "version"] {
            if let v = body[name], !v.isNull, v.intValue == nil { throw invalid(name, "must be a whole number (read-only: ignored)") }
        }
        if let v = body["settled"], !v.isNull, v.boolValue == nil { throw invalid("settled", "must be true or false (read-only: ignored)") }
        if let v = body["distance_m"], !v.isNull, v.doubleValue == nil { throw invalid("distance_m", "must be a number (read-only: ignored)") }
    }

    /// A rider as a join body or a `riders` item gives it: `{"rider_id","seats"?,"drop_off"?}`
    /// (`seats` default 1; `drop_off` any position form, null or absent: the destination).
    public static func rider(_ v: JSONValue, field: String) throws(HTTPError) -> PartyRider {
        guard case .object(let members) = v else { throw invalid(field, "must be an object {\"rider_id\",\"seats\",\"drop_off\"?}") }
        let known = Set(APISchemas.fieldNames(APISchemas.riderInput))
        if let unknown = members.first(where: { !known.contains($0.0) }) {
            throw HTTPError.badRequest("unknown_field", "unknown field '\(field).\(unknown.0.prefix(60))' (known: drop_off, rider_id, seats)")
        }
        guard let idValue = v["rider_id"] else { throw missing("\(field).rider_id") }
        guard let id = idValue.stringValue else { throw invalid("\(field).rider_id", "must be a string") }
        var seats = 1
        if let n = v["seats"], !n.isNull {
            guard let s = n.intValue else { throw invalid("\(field).seats", "must be a whole number") }
            seats = s
        }
        var drop: Coordinate?
        if let d = v["drop_off"], !d.isNull { drop = try coordinate(d, field: "\(field).drop_off") }
        let r = PartyRider(id: id, seats: seats, dropOff: drop)
        do { try r.validate(field: field) } catch { throw invalid(error.field, error.message) }
        return r
    }

    /// A join body: the rider (`rider`) and the offer it accepts, if any (`offer`:
    /// `{"drop_off_order","pooled_krw","max_detour_pct"?}`, as a match's `offer` member has it).
    public static func join(_ body: JSONValue) throws(HTTPError) -> (rider: PartyRider, offer: JoinOffer?) {
        guard case .object(var members) = body else { throw invalid("rider", "must be an object {\"rider_id\",\"seats\",\"drop_off\"?,\"offer\"?}") }
        let known = Set(APISchemas.fieldNames(APISchemas.joinInput))
        if let unknown = members.first(where: { !known.contains($0.0) }) {
            throw HTTPError.badRequest("unknown_field", "unknown field 'rider.\(unknown.0.prefix(60))' (known: \(known.sorted().joined(separator: ", ")))")
        }
        let given = body["offer"]
        members.removeAll { $0.0 == "offer" }
        let rider = try rider(.object(members), field: "rider")
        guard let given, !given.isNull else { return (rider, nil) }
        guard case .object(let fields) = given else { throw invalid("offer", "must be the offer object of a match {\"drop_off_order\",\"pooled_krw\",\"max_detour_pct\"?}") }
        let names = Set(APISchemas.fieldNames(ResponseSchemas.joinOffer))
        if let unknown = fields.first(where: { !names.contains($0.0) }) {
            throw HTTPError.badRequest("unknown_field", "unknown field 'offer.\(unknown.0.prefix(60))' (known: \(names.sorted().joined(separator: ", ")))")
        }
        guard let order = given["drop_off_order"]?.arrayValue?.compactMap(\.stringValue), order.count == given["drop_off_order"]?.arrayValue?.count,
              order.allSatisfy(Party.isValidID) else {
            throw given["drop_off_order"] == nil ? missing("offer.drop_off_order") : invalid("offer.drop_off_order", "must be a list of rider ids")
        }
        guard let pooled = given["pooled_krw"] else { throw missing("offer.pooled_krw") }
        guard let krw = pooled.intValue else { throw invalid("offer.pooled_krw", "must be a whole number of won") }
        var limit = JoinOffer.defaultMaxDetourPercent
        if let v = given["max_detour_pct"], !v.isNull {
            guard let pct = v.doubleValue, pct.isFinite, OfferRequest.detourRange.contains(pct) else {
                throw invalid("offer.max_detour_pct", "must be a number from 0 to 1000")
            }
            limit = pct
        }
        return (rider, JoinOffer(dropOffOrder: order, pooledKrw: krw, maxDetourPercent: limit))
    }

    /// The `offer` member of a match, and of a 409 `offer_changed`.
    public static func offer(_ o: JoinOffer) -> JSONValue {
        ["drop_off_order": .array(o.dropOffOrder.map { .string($0) }), "pooled_krw": JSONValue(o.pooledKrw), "max_detour_pct": .number(o.maxDetourPercent)]
    }

    /// A position as `[lon,lat]`, `"lon,lat"` or `{"lon":…,"lat":…}`.
    static func coordinate(_ v: JSONValue?, field: String) throws(HTTPError) -> Coordinate {
        guard let v else { throw missing(field) }
        var c: Coordinate?
        switch v {
        case .array(let a) where a.count == 2:
            if let lon = a[0].doubleValue, let lat = a[1].doubleValue { c = Coordinate(lon: lon, lat: lat) }
        case .string(let s):
            c = Coordinate.parseDegrees(Substring(s))
        case .object(let members):
            // Only lon and lat: the document's point object refuses other members.
            if let extra = members.first(where: { $0.0 != "lon" && $0.0 != "lat" }) {
                throw HTTPError.badRequest("unknown_field", "unknown field '\(field).\(extra.0.prefix(60))' (known: lon, lat)")
            }
            if let lon = v["lon"]?.doubleValue, let lat = v["lat"]?.doubleValue { c = Coordinate(lon: lon, lat: lat) }
        default:
            break
        }
        guard let c, c.isValid else {
            throw invalid(field, "must be [lon,lat], \"lon,lat\" or {\"lon\":…,\"lat\":…} with longitude within ±180 and latitude within ±90")
        }
        return c
    }

    /// An instant as ISO 8601 text (no offset means Asia/Seoul) or Unix seconds.
    static func instant(_ v: JSONValue, field: String) throws(HTTPError) -> Double {
        if let n = v.doubleValue, n.isFinite { return n }
        if let s = v.stringValue, let t = SeoulTime.parse(s) { return t }
        throw invalid(field, "must be an ISO 8601 date-time (e.g. 2024-05-08T22:30:00+09:00; no offset means Asia/Seoul) or Unix seconds")
    }

    /// The query-time filter: `depart_after`, `depart_before`, `min_seats`.
    static func filter(_ query: QueryReader) throws(HTTPError) -> PartyFilter {
        PartyFilter(departAfter: try query.instant("depart_after"), departBefore: try query.instant("depart_before"),
                    minSeats: try query.integer("min_seats"))
    }

    static func missing(_ field: String) -> HTTPError {
        HTTPError.badRequest("missing_field", "the party needs '\(field)'")
    }

    static func invalid(_ field: String, _ message: String) -> HTTPError {
        HTTPError.badRequest("invalid_party", "\(field) \(message)")
    }
}

import HTTPServer
import JSON
import Geo
import Parties
import PartyModel

/// `POST /v1/parties/{id}/riders` (join) and `DELETE /v1/parties/{id}/riders/{rider_id}` (leave):
/// the same token and durability as `PUT /v1/parties/{id}`; checked and written atomically.
func registerPartyRidersEndpoints(_ router: Router, parties: PartyService, auth: WriteAuthorization,
                                  dropOffProblem: (@Sendable (Party, Coordinate) -> String?)?, placement: JoinPlacement?)
{
    let idParam = ParameterDoc("id", in: "path", required: true, "party id", schema: APISchemas.partyID)
    let authErrors: [(Int, String)] = [(401, "unauthorized: missing or wrong 'Authorization: Bearer <token>'"),
                                       (403, "writes_disabled: the server has no TAXIPOT_WRITE_TOKEN")]

    router.add("POST", "/v1/parties/{id}/riders", OperationDoc(
        "Join a party: adds a rider (durable when answered; however many joins race, the party is never oversold). The join keeps the offer (docs/FARES.md): the rider's stop goes where GET /v1/match placed it (the same computation, on the live party), the party's drop-off order is then fixed for its quotes and matches, and no rider aboard is delayed past the limit by the join. With offer (a match's \"offer\" member): the live party must give the same drop_off_order and pooled_krw within its max_detour_pct, else 409 offer_changed, whose error carries the live party's offer (\"offer\", absent when it has none: the party can no longer take the rider within the limit). Without: the stop goes where it lengthens the ride least within 25% for the ride and every rider aboard (a drop-off at one of the party's stops, or none, joins that stop), else 409 detour_too_long",
        parameters: [idParam] + PartyConditionDocs.parameters,
        requestBody: APISchemas.joinInput,
        responses: [(200, "the party with the rider in it (ETag header: its new version)"),
                    (400, "invalid_id, invalid_json, missing_field, invalid_party (naming the field), unknown_field"),
                    (404, "party_not_found"), (409, "party_full (not enough seats left), already_joined, party_settled (the party's fare was settled: closed), offer_changed (the offer no longer holds: error.offer is the live one, if any) or detour_too_long (no place for the drop-off within 25%), party_quarantined: the party's stored row was refused at load (damaged), writes wait for taxipot parties recover"),
                    (410, "departed: the party has left"), (412, "version_mismatch: " + PartyConditionDocs.failure),
                    (422, "outside_coverage: the party's ride cannot take the rider to drop_off (off the served roads, or no road from the party's origin)"),
                    (503, "storage_unavailable")] + authErrors,
        responseSchema: APISchemas.party, responseExample: APISchemas.partyOutExample,
        requestExample: ["rider_id": "minji", "seats": 1, "drop_off": [126.978, 37.5665],
                         "offer": ["drop_off_order": ["minji", "host"], "pooled_krw": 2900, "max_detour_pct": 25]]
    )) { req in
        try auth.check(req)
        let id = try partyID(req)
        let precondition = try writePrecondition(req)
        let (rider, offer) = try PartiesJSON.join(try req.jsonBody())
        var place: ((Party, PartyRider) throws -> Party)?
        if let placement { place = { try placement($0, $1, offer) } }
        do {
            let party = try parties.join(partyID: id, rider: rider, precondition: precondition, dropOffProblem: dropOffProblem, placement: place)
            return .json(PartiesJSON.party(party), headers: [("ETag", PartiesJSON.etag(party))])
        } catch let e as PartyWriteError {
            guard case .offerChanged(_, _, _, let now?) = e else { throw ErrorMapping.http(party: e) }
            let error = ErrorMapping.http(party: e)
            return .json(["error": ["code": .string(error.code), "message": .string(error.message), "offer": PartiesJSON.offer(now)]], status: error.status)
        } catch {
            throw ErrorMapping.http(party: error)
        }
    }

    router.add("DELETE", "/v1/parties/{id}/riders/{rider_id}", OperationDoc(
        "Leave a party: removes a rider (durable when answered); the organiser leaving hands the party to the next rider",
        parameters: [idParam, ParameterDoc("rider_id", in: "path", required: true, "the rider to remove", schema: APISchemas.riderID)]
            + PartyConditionDocs.parameters,
        responses: [(204, "left (ETag header: the party's new version)"), (400, "invalid_id, invalid_rider_id, invalid_if_match, invalid_if_none_match"),
                    (404, "party_not_found or rider_not_found"), (409, "party_settled: the party's fare was settled (its riders are fixed); party_quarantined: the party's stored row was refused at load (damaged); writes wait for taxipot parties recover"), (410, "departed"),
                    (412, "version_mismatch: " + PartyConditionDocs.failure), (503, "storage_unavailable")] + authErrors
    )) { req in
        try auth.check(req)
        let id = try partyID(req)
        let riderID = req.pathParameters["rider_id"] ?? ""
        guard Party.isValidID(riderID) else {
            throw HTTPError.badRequest("invalid_rider_id", "a rider id is 1–64 characters of A–Z, a–z, 0–9, '_' or '-', got '\(riderID.prefix(80))'")
        }
        let precondition = try writePrecondition(req)
        let party = try storeCall { try parties.leave(partyID: id, riderID: riderID, precondition: precondition) }
        return HTTPResponse(status: 204, headers: [("ETag", PartiesJSON.etag(party))])
    }
}

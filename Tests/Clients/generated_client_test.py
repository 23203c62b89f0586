"""A client generated from the live /openapi.json with openapi-python-client (issue 37 part 3):
generation with no warning at all (--fail-on-warning, and no warning line in its output), then a
round trip through the generated code: create a party, join it, match a rider, the party's quote,
places, a route (a point with 13 decimals), a quote, the coverage, roads and boundaries as typed
GeoJSON; a rule between fields (seats_taken over seats_total) refused as 422. Then every object
the document closes (additionalProperties false) in a request body refuses a member it does not
list. The generated code goes to a temporary folder, never into the repository.
Usage: generated_client_test.py TAXIPOT_BINARY DATA_DIR"""
import datetime
import importlib
import json
import os
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from taxipot_server import Server, check, finish  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CONFIG = os.path.join(ROOT, "tools", "clients", "openapi-python-client.yaml")
TOKEN = "generated-client-token"
ORIGIN = (126.9707, 37.5547)       # 서울역 side
DESTINATION = (126.9769, 37.5759)  # 광화문 side
DROP_OFF = (126.9780, 37.5665)     # 시청


def generate(doc_path, out_dir):
    """Runs the generator (its ruff post-hooks from the same venv); returns (exit code, output)."""
    bin_dir = os.path.dirname(sys.executable)
    env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))
    run = subprocess.run([os.path.join(bin_dir, "openapi-python-client"), "generate", "--path", doc_path, "--meta", "none",
                          "--output-path", out_dir, "--config", CONFIG, "--fail-on-warning"],
                         capture_output=True, text=True, env=env)
    return run.returncode, run.stdout + run.stderr


def round_trip(api, base):
    """The calls a service makes first, each answer parsed into the generated models."""
    m = api.models

    class Operations:
        def __getattr__(self, name):
            return importlib.import_module(f"{api.__name__}.api.default.{name}")
    d = Operations()
    client = api.AuthenticatedClient(base_url=base, token=TOKEN, raise_on_unexpected_status=True)
    depart = (datetime.datetime.now(datetime.timezone(datetime.timedelta(hours=9))) + datetime.timedelta(hours=1)).replace(microsecond=0)

    r = d.put_v1_parties_by_id.sync_detailed("gen-1", client=client, body=m.PartyInput(
        origin=m.LonLat(lon=ORIGIN[0], lat=ORIGIN[1]), destination=list(DESTINATION), depart_at=depart.isoformat(),
        seats_total=4, seats_taken=1, title="서울역 → 광화문"))
    check(r.status_code == 201 and isinstance(r.parsed, m.Party) and r.parsed.seats_left == 3,
          f"create a party: 201, a Party with 3 seats left ({r.status_code} {type(r.parsed).__name__})")

    r = d.put_v1_parties_by_id.sync_detailed("gen-2", client=client, body=m.PartyInput(
        origin=list(ORIGIN), destination=list(DESTINATION), depart_at=depart.isoformat(), seats_total=4, seats_taken=5))
    check(r.status_code == 422 and isinstance(r.parsed, m.Error) and r.parsed.error.code == "invalid_party",
          f"seats_taken over seats_total: 422 invalid_party, an Error ({r.status_code} {r.content[:120]!r})")

    r = d.post_v1_parties_by_id_riders.sync_detailed("gen-1", client=client, body=m.RiderInput(
        rider_id="minji", seats=1, drop_off=m.LonLat(lon=DROP_OFF[0], lat=DROP_OFF[1])))
    riders = r.parsed.riders if isinstance(r.parsed, m.Party) else []
    check(r.status_code == 200 and [x.rider_id for x in riders] == ["organiser", "minji"]
          and isinstance(riders[1].drop_off, m.LonLat) and riders[1].drop_off.lon == DROP_OFF[0],
          f"join: the party lists the organiser and minji with a LonLat drop-off ({r.status_code})")

    r = d.get_v1_match.sync_detailed(client=client, origin=f"{ORIGIN[0] + 0.001},{ORIGIN[1]}",
                                     destination=f"{DESTINATION[0]},{DESTINATION[1]}", depart_at=depart.isoformat())
    found = [x.party.id for x in r.parsed.matches] if isinstance(r.parsed, m.Matches) else []
    check(r.status_code == 200 and "gen-1" in found and all(isinstance(x, m.Match) for x in r.parsed.matches),
          f"match: the party is offered, as Match models ({r.status_code} {found})")

    r = d.get_v1_parties_by_id_quote.sync_detailed("gen-1", client=client)
    q = r.parsed
    check(r.status_code == 200 and isinstance(q, m.PartyQuote) and [s.rider_id for s in q.shares] == ["organiser", "minji"]
          and sum(s.krw for s in q.shares) >= q.fare.total_krw > 0,
          f"party quote: a PartyQuote whose shares cover the fare ({r.status_code})")

    r = d.get_v1_places.sync_detailed(client=client, q="서울역", limit=3)
    check(r.status_code == 200 and isinstance(r.parsed, m.Places) and r.parsed.places
          and all(isinstance(p, m.Place) for p in r.parsed.places) and "서울역" in r.parsed.places[0].name,
          f"places: Place models, 서울역 first ({r.status_code})")

    # 13 decimals: the point pattern takes what the server reads.
    r = d.get_v1_route.sync_detailed(client=client, from_="126.9707123456789,37.5547123456789", to=f"{DESTINATION[0]},{DESTINATION[1]}")
    check(r.status_code == 200 and isinstance(r.parsed, m.Route) and r.parsed.distance_m > 0
          and all(isinstance(leg, m.Leg) for leg in r.parsed.legs),
          f"route from a 13-decimal point: a Route with Legs ({r.status_code} {r.content[:120]!r})")

    r = d.post_v1_quote.sync_detailed(client=client, body=m.QuoteInput(
        origin=m.LonLat(lon=ORIGIN[0], lat=ORIGIN[1]), destination=m.LonLat(lon=DESTINATION[0], lat=DESTINATION[1]),
        drop_offs=[m.QuoteDropOff(lon=DROP_OFF[0], lat=DROP_OFF[1])], riders=2))
    check(r.status_code == 200 and isinstance(r.parsed, m.Quote) and isinstance(r.parsed.fare, m.Fare)
          and len(r.parsed.split) == 2 and r.parsed.route.distance_m > 0,
          f"quote: a Quote with a Fare and two shares ({r.status_code})")

    # GeoJSON answers: typed down to the positions (they were dropped when arrays had no items).
    for name, call, collection, geometry in [
        ("coverage", lambda: d.get_v1_coverage.sync_detailed(client=client), m.CoverageFeatureCollection, m.MultiPolygonGeometry),
        ("roads", lambda: d.get_v1_roads.sync_detailed(client=client, bbox="126.97,37.56,126.98,37.57", zoom=15),
         m.RoadFeatureCollection, m.LineStringGeometry),
        ("boundaries", lambda: d.get_v1_boundaries.sync_detailed(client=client, bbox="126.95,37.54,127.0,37.58", zoom=12),
         m.BoundaryFeatureCollection, m.MultiPolygonGeometry),
    ]:
        r = call()
        features = r.parsed.features if isinstance(r.parsed, collection) else []
        first = features[0].geometry.coordinates if features else []
        while first and isinstance(first[0], list):
            first = first[0]
        check(r.status_code == 200 and r.headers.get("content-type") == "application/geo+json" and features
              and all(isinstance(f.geometry, geometry) for f in features) and len(first) == 2 and all(isinstance(v, float) for v in first),
              f"{name}: application/geo+json, a {collection.__name__} of {geometry.__name__} down to [lon, lat] "
              f"({r.status_code} {r.headers.get('content-type')}, {len(features)} features)")


def resolve(doc, schema):
    while isinstance(schema, dict) and "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def fits_type(doc, schema, value):
    """True when `schema` (a branch of a oneOf/anyOf) may describe `value`'s JSON type."""
    schema = resolve(doc, schema)
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds or []
    kind = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(type(value), "number")
    return kind in kinds or (kind == "number" and "integer" in kinds) or (not kinds and any(
        fits_type(doc, b, value) for b in schema.get("oneOf", []) + schema.get("anyOf", [])))


def closed_objects(doc, schema, value, path=()):
    """The paths in `value` of the objects whose schema says additionalProperties false."""
    schema = resolve(doc, schema)
    for branch in schema.get("oneOf", []) + schema.get("anyOf", []):
        if fits_type(doc, branch, value):
            yield from closed_objects(doc, branch, value, path)
            break
    if isinstance(value, dict):
        if schema.get("additionalProperties") is False:
            yield path
        for key, member in value.items():
            sub = schema.get("properties", {}).get(key, schema.get("additionalProperties"))
            if isinstance(sub, dict):
                yield from closed_objects(doc, sub, member, path + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            prefix = schema.get("prefixItems", [])
            sub = prefix[i] if i < len(prefix) else schema.get("items")
            if sub:
                yield from closed_objects(doc, sub, item, path + (i,))


# Bodies besides the document's examples, so every closed object is reached (a rider's drop-off
# as an object, a party's riders, a quote's stops).
MORE_BODIES = {
    ("put", "/v1/parties/{id}"): [{"origin": {"lon": ORIGIN[0], "lat": ORIGIN[1]}, "destination": {"lon": DESTINATION[0], "lat": DESTINATION[1]},
                                  "depart_at": "2099-01-01T09:00:00+09:00", "seats_total": 4,
                                  "riders": [{"rider_id": "host", "seats": 1, "drop_off": {"lon": DROP_OFF[0], "lat": DROP_OFF[1]}}]}],
    ("post", "/v1/parties/{id}/riders"): [{"rider_id": "jun", "drop_off": {"lon": DROP_OFF[0], "lat": DROP_OFF[1]}}],
    ("post", "/v1/quote"): [{"origin": {"lon": ORIGIN[0], "lat": ORIGIN[1]}, "destination": {"lon": DESTINATION[0], "lat": DESTINATION[1]},
                             "drop_offs": [{"lon": DROP_OFF[0], "lat": DROP_OFF[1], "riders": 1}]}],
}


def with_member(value, path, name):
    """`value` with a member `name` added to the object at `path`."""
    value = json.loads(json.dumps(value))
    target = value
    for step in path:
        target = target[step]
    target[name] = 1
    return value


def unknown_members_refused(doc, base):
    cases = 0
    for route, item in doc["paths"].items():
        for method, op in item.items():
            media = op.get("requestBody", {}).get("content", {}).get("application/json")
            if not media:
                continue
            bodies = ([media["example"]] if "example" in media else []) + MORE_BODIES.get((method, route), [])
            url = base + route.replace("{id}", "gen-1").replace("{rider_id}", "minji")
            for body in bodies:
                for path in closed_objects(doc, media["schema"], body):
                    cases += 1
                    sent = with_member(body, path, "zz_not_a_member")
                    req = urllib.request.Request(url, data=json.dumps(sent).encode(), method=method.upper(),
                                                 headers={"Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}"})
                    try:
                        with urllib.request.urlopen(req, timeout=60) as r:
                            status, answer = r.status, r.read()
                    except urllib.error.HTTPError as e:
                        status, answer = e.code, e.read()
                    where = "/".join(str(p) for p in path) or "(top)"
                    check(status == 400 and b"zz_not_a_member" in answer,
                          f"{method.upper()} {route}: a member the document does not list at {where} is refused, naming it ({status} {answer[:100]!r})")
    check(cases >= 10, f"closed objects reached in request bodies: {cases}")


def main():
    binary, data = sys.argv[1], sys.argv[2]
    server = Server(binary, data, token=TOKEN, prefix="taxipot-generated-")
    work = tempfile.mkdtemp(prefix="taxipot-generated-client-")
    try:
        doc_path = os.path.join(work, "openapi.json")
        with urllib.request.urlopen(server.base + "/openapi.json", timeout=60) as r, open(doc_path, "wb") as f:
            f.write(r.read())
        out = os.path.join(work, "taxipot_client")
        code, output = generate(doc_path, out)
        warnings = [line for line in output.splitlines() if "warning" in line.lower() or "unable to" in line.lower()]
        check(code == 0 and not warnings, f"openapi-python-client generates with no warning (exit {code}): {warnings[:3]}")
        if code != 0:
            print(output[-3000:])
            return
        sys.path.insert(0, work)
        api = importlib.import_module("taxipot_client")
        importlib.import_module("taxipot_client.models")
        round_trip(api, server.base)
        with open(doc_path) as f:
            doc = json.load(f)
        unknown_members_refused(doc, server.base)
    finally:
        server.stop()
        subprocess.run(["rm", "-rf", work])
    finish()


if __name__ == "__main__":
    main()

"""Existing OSRM clients against Taxipot's OSRM face (issue 37 part 1).

Starts `taxipot serve` on a free loopback port, then:
- routingpy's OSRM client and osrm-py (PyPI) make route, table and nearest calls through it, as
  they would against osrm-routed; their answers are checked against /v1/route and /v1/table of
  the same server (the same engine, so the same durations);
- every request of tools/clients/osrm_shapes.py is answered with the same status, OSRM code and
  shape (member names and JSON types) as osrm-routed 26.10 gave on the same roads
  (Tests/Clients/osrm_reference_shapes.json, recorded with that tool), less the documented
  differences below.
Usage: osrm_clients_test.py TAXIPOT_BINARY DATA_DIR
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "clients"))
import osrm  # noqa: E402
import routingpy  # noqa: E402
from osrm_shapes import REQUESTS, fetch, shape  # noqa: E402
from taxipot_server import Server, check, finish  # noqa: E402

# Where the face's answers differ from osrm-routed's in shape, on purpose (docs/API.md says why):
# `nodes` of a route annotation (OSM node ids are not kept) is never asked for here.
KNOWN_DIFFERENCES = {}


def main():
    binary, data = sys.argv[1], sys.argv[2]
    here = os.path.dirname(__file__)
    with open(os.path.join(here, "osrm_reference_shapes.json")) as f:
        reference = json.load(f)["answers"]
    server = Server(binary, data)
    try:
        base = server.base
        # Shapes, statuses and codes against osrm-routed's for the same requests.
        for path in REQUESTS:
            status, body = fetch(base, path)
            ref = reference[path]
            check(status == ref["status"] and body.get("code") == ref["code"],
                  f"{path}: {status} {body.get('code')} (osrm-routed: {ref['status']} {ref['code']})")
            check(shape(body) == ref["shape"], f"{path}: the answer's shape is osrm-routed's"
                  + ("" if shape(body) == ref["shape"] else f"\n  ours {json.dumps(shape(body))}\n  osrm {json.dumps(ref['shape'])}"))

        a, b, c = [126.9780, 37.5665], [126.9920, 37.5700], [126.9850, 37.5700]
        _, native = fetch(base, f"/v1/route?from={a[0]},{a[1]}&to={b[0]},{b[1]}&geometry=geojson")
        # routingpy
        client = routingpy.OSRM(base_url=base)
        d = client.directions(locations=[a, b], profile="driving", geometries="geojson", overview="full")
        check(abs(d.duration - native["duration_s"]) <= 1 and abs(d.distance - native["distance_m"]) <= 1,
              f"routingpy directions: {d.duration} s {d.distance} m (/v1/route: {native['duration_s']} s {native['distance_m']} m)")
        check(len(d.geometry) >= 2 and d.geometry[0][0] > 126, "routingpy directions: a geometry of [lon, lat] points")
        m = client.matrix(locations=[a, b, c], profile="driving")
        _, table = fetch(base, f"/v1/table?sources={a[0]},{a[1]};{b[0]},{b[1]};{c[0]},{c[1]}")
        check(len(m.durations) == 3 and all(abs(x - y) <= 1 for r1, r2 in zip(m.durations, table["durations"]) for x, y in zip(r1, r2)),
              "routingpy matrix: the durations of /v1/table")
        check(m.distances is not None and abs(m.distances[0][1] - table["distances"][0][1]) <= 1, "routingpy matrix: the distances of /v1/table")
        # osrm-py
        oc = osrm.Client(host=base)
        r = oc.route(coordinates=[a, b], overview=osrm.overview.full)
        check(r["code"] == "Ok" and abs(r["routes"][0]["duration"] - native["duration_s"]) <= 1, f"osrm-py route: {r['routes'][0]['duration']} s")
        # A waypoint's name is the road the route leaves or reaches it by: /v1/route's first and last street.
        names = [w["name"] for w in r["waypoints"]]
        check(native["street_names"] and names == [native["street_names"][0], native["street_names"][-1]],
              f"osrm-py route: waypoint names {names} are the route's first and last streets {native['street_names']}")
        n = oc.nearest(coordinates=[a], number=3)
        check(n["code"] == "Ok" and len(n["waypoints"]) == 3 and n["waypoints"][0]["distance"] <= n["waypoints"][1]["distance"],
              "osrm-py nearest: three road points, nearest first")
        snapped = native["snapped"][0]
        check(abs(n["waypoints"][0]["distance"] - snapped["distance_m"]) <= 0.1, "nearest's first point is where /v1/route snaps")
        try:
            oc.route(coordinates=[a, [0.0, 0.0]])
            check(False, "osrm-py: a point far from every road raises")
        except osrm.OSRMClientException as e:
            check("NoSegment" in str(e), f"osrm-py: a point far from every road is NoSegment ({e})")
    finally:
        server.stop()
    finish()


if __name__ == "__main__":
    main()

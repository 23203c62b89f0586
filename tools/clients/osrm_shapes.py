"""Shapes (member names and JSON types, recursively) of OSRM v5 answers, and the requests they
are taken for. `python3 tools/clients/osrm_shapes.py record URL` writes the shapes osrm-routed
answers at URL to Tests/Clients/osrm_reference_shapes.json (how it was made: see that file's
"made_with"); Tests/Clients/osrm_clients_test.py compares Taxipot's answers with them."""
import json
import sys
import urllib.request

# Two points in central Seoul (City Hall, Jongno 3-ga) and a third between them.
A, B, C = "126.9780,37.5665", "126.9920,37.5700", "126.9850,37.5700"
REQUESTS = [
    f"/route/v1/driving/{A};{B}",
    f"/route/v1/driving/{A};{C};{B}?overview=full&geometries=polyline6",
    f"/route/v1/driving/{A};{B}?overview=full&geometries=geojson&annotations=duration,distance",
    f"/route/v1/driving/{A};{B}?overview=false&annotations=speed,weight,datasources",
    f"/table/v1/driving/{A};{B};{C}",
    f"/table/v1/driving/{A};{B};{C}?sources=0&destinations=1;2&annotations=duration,distance",
    f"/nearest/v1/driving/{A}?number=3",
    # OSRM's errors
    f"/route/v1/driving/{A}",
    f"/route/v1/driving/{A};{B}?foo=1",
    f"/route/v1/driving/{A};{B}?geometries=bad",
    "/route/v1/driving/200,37;1,2",
    "/route/v1/driving/abc",
    f"/table/v1/driving/{A};{B}?sources=5",
]


def shape(v):
    """The JSON type of v; objects by member, arrays by their first item."""
    if isinstance(v, dict):
        return {k: shape(x) for k, x in sorted(v.items())}
    if isinstance(v, list):
        return [shape(v[0])] if v else []
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if v is None:
        return "null"
    return "string"


def fetch(base, path):
    try:
        with urllib.request.urlopen(base + path, timeout=30) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def main():
    if len(sys.argv) != 3 or sys.argv[1] != "record":
        sys.exit("usage: osrm_shapes.py record BASE_URL")
    out = {"made_with": "osrm-routed 26.10.0 (PyPI osrm-bindings==26.10.0 wheel's osrm/bin, see ../shared/reference/peers.md) "
                        "on data/osm/seoul-central.osm.pbf: osrm-extract -p car.lua, osrm-contract, osrm-routed --algorithm ch; "
                        "then tools/clients/osrm_shapes.py record http://127.0.0.1:PORT",
           "answers": {}}
    for path in REQUESTS:
        status, body = fetch(sys.argv[2], path)
        out["answers"][path] = {"status": status, "code": body.get("code"), "shape": shape(body)}
    with open("Tests/Clients/osrm_reference_shapes.json", "w") as f:
        json.dump(out, f, ensure_ascii=False, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()

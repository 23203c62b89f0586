"""Seoul-wide roads (issue 34): the node-link network, ours against osrm-routed CH on the same roads.

  1. import + prepare: `taxipot import nodelink` of the shapefile set (with the TOPIS speeds),
     timed from outside (one run: a one-off preparation);
  2. `taxipot export osm` of the same folder, then osrm-extract + osrm-contract (car.lua) on it;
  3. route round trips over HTTP on the same random node pairs: osrm-routed CH against a
     `taxipot serve` on the node-link graph (its own data folder: links to data/ with
     build/seoul.graph the node-link graph, so the OSM graph the other steps use is untouched);
  4. the 100 × 100 table over HTTP on both (peer_table.py's client and rounds);
  5. 강남역 → 홍대입구 on ours at 03:00 and 18:00 (distance, durations, their ratio).

Writes bench-out/nodelink/{seoul-nodelink.graph, seoul-nodelink.osm, points.csv, data/} for the
in-process route step (taxipot-bench --only synthetic --graph …) and pooling_http.py --network nodelink.
Usage: nodelink.py --bin .build/release/taxipot [--data data]
"""
import argparse
import os
import random
import re
import subprocess
import urllib.parse

import benchlib
import httpclient
import osrm
import peer_table
from peer_routing import prep_records

WORK = os.path.join(benchlib.OUT, "nodelink")
GRAPH = os.path.join(WORK, "seoul-nodelink.graph")
OSM = os.path.join(WORK, "seoul-nodelink.osm")
POINTS = os.path.join(WORK, "points.csv")
DATA = os.path.join(WORK, "data")
PAIRS = 500
ROUNDS = 5
GANGNAM = (127.0276, 37.4979)  # 강남역
HONGDAE = (126.9245, 37.5572)  # 홍대입구역
HOURS = ("2018-10-23T03:00:00+09:00", "2018-10-23T18:00:00+09:00")  # the Tuesday of the TOPIS speeds


def shapefiles(data):
    """The official shapefile set (as `make`'s $(NODELINK_SHP) rule writes it)."""
    shp = os.path.join(data, "build", "nodelink")
    if not os.path.exists(os.path.join(shp, "TURNINFO.dbf")):
        subprocess.run(["bash", os.path.join(benchlib.ROOT, "tools/nodelink/make-shapefiles"), os.path.join(data, "nodelink"), shp],
                       check=True, stdout=subprocess.DEVNULL)
    return shp


def serve_data(data):
    """A data folder for `taxipot serve` on the node-link graph: every entry of `data` linked,
    build/ holding the node-link graph as seoul.graph and data/build's place DB."""
    os.makedirs(os.path.join(DATA, "build"), exist_ok=True)
    for name in os.listdir(data):
        link = os.path.join(DATA, name)
        if name != "build" and not os.path.lexists(link):
            os.symlink(os.path.abspath(os.path.join(data, name)), link)
    for name, target in (("seoul.graph", GRAPH), ("places.db", os.path.join(data, "build", "places.db"))):
        link = os.path.join(DATA, "build", name)
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(os.path.abspath(target), link)


def export_nodes():
    """(lon, lat) of every node of the export."""
    pattern = re.compile(rb'<node id="\d+" lat="([-\d.]+)" lon="([-\d.]+)"')
    with open(OSM, "rb") as f:
        return [(float(m.group(2)), float(m.group(1))) for m in pattern.finditer(f.read())]


def route_rounds(client, paths, warm, ok):
    p50s, p99s, bodies, failed = httpclient.latency_rounds(client, paths, ROUNDS, warm, ok=ok)
    sizes = sorted(len(b) for st, b in bodies if ok(st, b))
    return p50s, p99s, failed, sizes[len(sizes) // 2] if sizes else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--data", default="data")
    args = ap.parse_args()
    os.makedirs(WORK, exist_ok=True)
    results, notes = [], []
    shp = shapefiles(args.data)
    speeds = ["--speeds", os.path.join(args.data, "nodelink/topis_speed_20181023.csv"),
              "--speed-mapping", os.path.join(args.data, "nodelink/topis_standard_link_mapping_202003.csv")]
    log = os.path.join(WORK, "import.log")
    if os.path.exists(log):
        os.remove(log)
    secs, mb = osrm.timed([args.bin, "import", "nodelink", shp, "-o", GRAPH, "--quiet", "--data", args.data] + speeds, log)
    cond = "Seoul node-link network (shapefiles from data/nodelink, EPSG:5186, CP949) with the TOPIS speeds; wall clock from outside, 1 run"
    results.append(benchlib.record("routing.nodelink.ch.prepare_s", "ours", "taxipot import nodelink", "import + prepare", "s", "lower", [secs], 1,
                                   cond + "; peak memory %.0f MB" % mb))
    secs, _ = osrm.timed([args.bin, "export", "osm", "--nodelink", shp, "-o", OSM], log)
    summary = [l for l in open(log, encoding="utf-8", errors="replace") if l.startswith("wrote ")]
    notes.append("taxipot export osm: %s (%.1f s)" % (summary[-1].strip() if summary else "?", secs))

    # OSRM CH on the export.
    base, steps = osrm.prepare(OSM, os.path.join(benchlib.OUT, "osrm", "nodelink-ch"), "ch")
    results += prep_records("routing.nodelink.ch", "CH", steps, "the node-link export (taxipot export osm), car.lua")
    extract_log = open(os.path.join(os.path.dirname(base), "prepare.log"), errors="replace").read()
    said = [l.split("]")[-1].strip() for l in extract_log.splitlines()
            if re.search(r"Raw input contains|invalid turn restrictions|restriction graph on", l)]
    notes.append("osrm-extract on the node-link export: " + ("; ".join(said[:4]) or "no line about restrictions"))

    # The same random node pairs and table points for both sides: nodes of the export that our
    # server routes from (a node outside the served strongly connected part and over 200 m from
    # it is answered outside_coverage), probed with a route to 서울시청 (never a timed route).
    rng = random.Random(3406)
    nodes = export_nodes()
    candidates = rng.sample(nodes, min(len(nodes), 3000))
    pc = ("%d random node pairs of the node-link export (nodes our server routes from) x %d rounds, full geometry polyline6, "
          "keep-alive raw-socket client, 1 connection; warm-up on 200 other pairs" % (PAIRS, ROUNDS))
    table_text = "node-link export nodes (random, seed 3406)"

    serve_data(args.data)
    port = httpclient.free_port()
    state = os.path.join(WORK, "state")
    subprocess.run(["rm", "-rf", state])
    proc = subprocess.Popen([args.bin, "serve", "--host", "127.0.0.1", "--port", str(port), "--data", DATA, "--state-dir", state,
                             "--web", os.path.join(benchlib.ROOT, "web"), "--no-access-log"],
                            stdout=subprocess.DEVNULL, stderr=open(os.path.join(WORK, "server.log"), "w"))
    try:
        httpclient.wait_for_port("127.0.0.1", port, 120, proc)
        client = httpclient.Client("127.0.0.1", port)
        good = [p for p in candidates
                if client.get("/v1/route?from=%.7f,%.7f&to=126.9780,37.5665&geometry=none&metric=distance" % p)[0] == 200]
        notes.append("node-link points: %d of %d random export nodes are routed from by our server (the rest lie over 200 m "
                     "from its strongly connected part)" % (len(good), len(candidates)))
        pairs = [(rng.choice(good), rng.choice(good)) for _ in range(PAIRS + 200)]
        timed, warm = pairs[:PAIRS], pairs[PAIRS:]
        table_points = [rng.choice(good) for _ in range(200)]
        with open(POINTS, "w") as f:
            f.write("lon,lat\n")
            for p in good:
                f.write("%.7f,%.7f\n" % p)

        def path(a, b):
            return "/v1/route?from=%.7f,%.7f&to=%.7f,%.7f" % (a[0], a[1], b[0], b[1])
        ok = lambda st, _: st == 200
        p50s, p99s, failed, size = route_rounds(client, [path(a, b) for a, b in timed], [path(a, b) for a, b in warm], ok)
        results.append(benchlib.record("routing.nodelink.http.p50", "ours", "taxipot serve", "HTTP round trip p50", "µs", "lower", p50s,
                                       PAIRS, pc + ", GET /v1/route (turn rules, measured speeds)", errors=failed, body_bytes=size))
        results.append(benchlib.record("routing.nodelink.http.p99", "ours", "taxipot serve", "HTTP round trip p99", "µs", "lower", p99s,
                                       PAIRS, pc + ", GET /v1/route", errors=failed))
        r, n = peer_table.measure(client, peer_table.ours_paths(table_points, (100,)), "ours", "taxipot serve GET /v1/table",
                                  "depart_at %s, the node-link graph" % peer_table.DEPART_AT, b'"durations"', "table.nodelink.http", table_text)
        results += r
        notes += n

        # 강남역 → 홍대입구 at 03:00 and 18:00.
        import json
        answers = []
        for hour in HOURS:
            st, body, _ = client.get(path(GANGNAM, HONGDAE) + "&geometry=none&depart_at=" + urllib.parse.quote(hour))
            answers.append(json.loads(body) if st == 200 else None)
            if st != 200:
                notes.append("강남역 → 홍대입구 at %s: answer %d %s" % (hour, st, body[:200]))
        client.close()
        gc = "강남역 (127.0276, 37.4979) → 홍대입구역 (126.9245, 37.5572), GET /v1/route on the node-link graph, Tuesday 2018-10-23 (the TOPIS day)"
        if all(answers):
            night, evening = answers
            share = night.get("measured_share", 0)
            results.append(benchlib.record("nodelink.gangnam_hongdae.km", "ours", "taxipot serve", "route distance", "km", "lower",
                                           [night["distance_m"] / 1000], 1, gc + " at 03:00; %.0f%% of it on measured speeds" % (100 * share)))
            for label, a in (("0300", night), ("1800", evening)):
                results.append(benchlib.record("nodelink.gangnam_hongdae.%s_min" % label, "ours", "taxipot serve", "duration", "min", "lower",
                                               [a["duration_s"] / 60], 1, gc + " at %s:00, %.1f km" % (label[:2], a["distance_m"] / 1000)))
            results.append(benchlib.record("nodelink.gangnam_hongdae.ratio", "ours", "taxipot serve", "18:00 duration / 03:00 duration", "×",
                                           "higher", [evening["duration_s"] / night["duration_s"]], 1, gc))
    finally:
        httpclient.stop(proc)

    proc, port = osrm.start_routed(base, "ch")
    try:
        client = httpclient.Client("127.0.0.1", port)
        ok = lambda st, body: st == 200 and b'"code":"Ok"' in body
        p50s, p99s, failed, size = route_rounds(client, [osrm.route_path(a, b) for a, b in timed],
                                                [osrm.route_path(a, b) for a, b in warm], ok)
        impl = osrm.version() + " osrm-routed CH"
        results.append(benchlib.record("routing.nodelink.http.p50", "peer", impl, "HTTP round trip p50", "µs", "lower", p50s, PAIRS,
                                       pc, errors=failed, body_bytes=size))
        results.append(benchlib.record("routing.nodelink.http.p99", "peer", impl, "HTTP round trip p99", "µs", "lower", p99s, PAIRS,
                                       pc, errors=failed))
        r, n = peer_table.measure(client, peer_table.osrm_paths(table_points, (100,)), "peer", osrm.version() + " osrm-routed CH /table",
                                  "osrm-routed --algorithm ch, car.lua, the node-link export", b'"code":"Ok"', "table.nodelink.http", table_text)
        results += r
        notes += n
        client.close()
    finally:
        httpclient.stop(proc)

    benchlib.emit(results, notes)


if __name__ == "__main__":
    main()

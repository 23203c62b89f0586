"""Peers for routing on central Seoul: osrm-routed (CH, MLD) over HTTP, networkx A* in-process.

Writes bench-out/osrm-distance-routes.csv (pair index, distance_m of OSRM's distance-weight
route, or empty when OSRM found none) for the 1% agreement check of our side.
Usage: peer_routing.py seoul | synth FILE.osm LABEL [CAP_SECONDS]
"""
import csv
import json
import math
import os
import shutil
import sys

import benchlib
import httpclient
import osrm

SEOUL = os.path.join(benchlib.ROOT, "data/osm/seoul-central.osm.pbf")


def read_pairs():
    with open(os.path.join(benchlib.INPUTS, "route_pairs.csv")) as f:
        r = csv.reader(f)
        next(r)
        return [((float(a), float(b)), (float(c), float(d))) for a, b, c, d in r]


def prep_records(key, label, steps, conditions):
    """Records for prepare time and peak memory (one run each: state it)."""
    total_s = sum(s for s, _ in steps.values())
    peak = max(m for _, m in steps.values())
    detail = ", ".join("%s %.1f s / %.0f MB" % (k, s, m) for k, (s, m) in steps.items())
    impl = osrm.version() + " (" + "+".join(steps) + ")"
    return [
        benchlib.record(key + ".prepare_s", "peer", impl, "prepare time", "s", "lower", [total_s], 1,
                        conditions + "; " + detail),
        benchlib.record(key + ".prepare_mb", "peer", impl, "prepare peak memory", "MB", "lower", [peak], 1,
                        conditions + "; max RSS over the steps"),
    ]


def osrm_http(base, algorithm, pairs, rounds):
    """osrm-routed's round trips on `pairs`: (p50s, p99s, good answers of the last round, median
    body size, failed requests over all rounds: the peer's errors, never dropped)."""
    proc, port = osrm.start_routed(base, algorithm)
    try:
        client = httpclient.Client("127.0.0.1", port)
        paths = [osrm.route_path(a, b) for a, b in pairs]
        warm = [osrm.route_path(b, a) for a, b in pairs[:200]]  # other routes than the timed ones
        p50s, p99s, bodies, failed = httpclient.latency_rounds(client, paths, rounds, warm,
                                                          ok=lambda st, body: st == 200 and b'"code":"Ok"' in body)
        ok = sum(1 for st, body in bodies if st == 200 and b'"code":"Ok"' in body)
        sizes = sorted(len(body) for st, body in bodies if st == 200)
        client.close()
    finally:
        httpclient.stop(proc)
    return p50s, p99s, ok, sizes[len(sizes) // 2] if sizes else 0, failed


def osrm_distances(base, pairs):
    proc, port = osrm.start_routed(base, "ch")
    out = []
    try:
        client = httpclient.Client("127.0.0.1", port)
        for a, b in pairs:
            status, body, _ = client.get(osrm.route_path(a, b, overview="false"))
            d = ""
            if status == 200:
                doc = json.loads(body)
                if doc.get("code") == "Ok" and doc.get("routes"):
                    d = "%.1f" % doc["routes"][0]["distance"]
            out.append(d)
        client.close()
    finally:
        httpclient.stop(proc)
    with open(os.path.join(benchlib.OUT, "osrm-distance-routes.csv"), "w") as f:
        f.write("pair,distance_m\n")
        for i, d in enumerate(out):
            f.write("%d,%s\n" % (i, d))
    return sum(1 for d in out if d)


def http_records(base, alg, pairs, rounds):
    """The `routing.http.p50`/`p99` records of osrm-routed `alg` on `pairs`, its failed requests
    counted in their errors (a target requires none)."""
    results = []
    p50s, p99s, ok, size, failed = osrm_http(base, alg, pairs, rounds)
    c = ("%d random node pairs x %d rounds, GET /route overview=full polyline6, keep-alive raw-socket "
         "client, 1 connection (renewed every 500 requests, untimed); %d requests failed (not 200 with code Ok)"
         % (len(pairs), rounds, failed))
    impl = osrm.version() + " osrm-routed " + alg.upper()
    results.append(benchlib.record("routing.http.p50", "peer" if alg == "ch" else "peer-mld", impl,
                                   "HTTP round trip p50", "µs", "lower", p50s, len(pairs), c,
                                   errors=failed, ok=ok, body_bytes=size))
    results.append(benchlib.record("routing.http.p99", "peer" if alg == "ch" else "peer-mld", impl,
                                   "HTTP round trip p99", "µs", "lower", p99s, len(pairs), c, errors=failed))
    benchlib.log("osrm-routed %s: p50 %.0f µs, p99 %.0f µs, %d ok" % (alg, sorted(p50s)[2], sorted(p99s)[2], ok))
    return results


def networkx_astar(pairs, rounds):
    import networkx as nx
    import osmgraph
    g, coords = osmgraph.build(SEOUL)
    by_coord = {("%.7f" % lon, "%.7f" % lat): n for n, (lon, lat) in coords.items()}
    ids = []
    for a, b in pairs:
        s = by_coord.get(("%.7f" % a[0], "%.7f" % a[1]))
        t = by_coord.get(("%.7f" % b[0], "%.7f" % b[1]))
        if s is not None and t is not None:
            ids.append((s, t))

    def h(u, v):
        (ulon, ulat), (vlon, vlat) = coords[u], coords[v]
        return osmgraph.haversine(ulon, ulat, vlon, vlat)

    for t, s in ids[:20]:  # warm-up: other routes (the first pairs the other way round)
        try:
            nx.astar_path_length(g, s, t, heuristic=h, weight="length")
        except nx.NetworkXNoPath:
            pass
    p50s, p99s = [], []
    for _ in range(rounds):
        timed = []
        for s, t in ids:
            t0 = benchlib.now_ns()
            try:
                nx.astar_path(g, s, t, heuristic=h, weight="length")
                ok = True
            except nx.NetworkXNoPath:
                ok = False  # left out of the percentiles (it fails early)
            timed.append(((benchlib.now_ns() - t0) / 1000.0, ok))
        (p50, p99), _ = benchlib.pass_percentiles(timed)
        p50s.append(p50)
        p99s.append(p99)
    return p50s, p99s, len(ids), g


def seoul():
    pairs = read_pairs()
    rounds = 5
    out = os.path.join(benchlib.OUT, "osrm")
    results, notes = [], []
    cond = "central Seoul (%s), car.lua" % os.path.basename(SEOUL)
    base_ch, steps = osrm.prepare(SEOUL, os.path.join(out, "seoul-ch"), "ch")
    results += prep_records("routing.seoul.ch", "CH", steps, cond)
    base_mld, steps = osrm.prepare(SEOUL, os.path.join(out, "seoul-mld"), "mld")
    results += prep_records("routing.seoul.mld", "MLD", steps, cond)
    base_dist, _ = osrm.prepare(SEOUL, os.path.join(out, "seoul-dist"), "ch", osrm.distance_profile())
    found = osrm_distances(base_dist, pairs)
    notes.append("OSRM distance-weight (car.lua with weight_name='distance') found %d of %d routes" % (found, len(pairs)))
    for alg in ("ch", "mld"):
        results += http_records(base_ch if alg == "ch" else base_mld, alg, pairs, rounds)
    npairs = pairs[: (60 if benchlib.QUICK else 200)]
    p50s, p99s, n, g = networkx_astar(npairs, rounds)
    import networkx
    impl = "networkx %s A* (pyosmium graph, %d nodes)" % (networkx.__version__, g.number_of_nodes())
    c = "%d of the same pairs x %d rounds, distance weight, haversine heuristic, path returned" % (n, rounds)
    results.append(benchlib.record("routing.inprocess.p50", "peer", impl, "route p50", "µs", "lower", p50s, n, c))
    results.append(benchlib.record("routing.inprocess.p99", "peer", impl, "route p99", "µs", "lower", p99s, n, c))
    benchlib.log("networkx A*: p50 %.0f µs" % sorted(p50s)[2])
    benchlib.emit(results, notes)


def synth(osm_path, label, cap):
    out = os.path.join(benchlib.OUT, "osrm", "synth-" + label)
    cond = "synthetic city %s (%s), car.lua" % (label, os.path.basename(osm_path))
    try:
        base, steps = osrm.prepare(osm_path, out, "ch", cap=cap)
        results = prep_records("routing.synth.%s" % label, "CH", steps, cond)
    except osrm.Capped as c:
        done = ", ".join("%s %.0f s / %.0f MB" % (k, s, m) for k, (s, m) in c.steps_done.items())
        peak = max([c.mb] + [m for _, m in c.steps_done.values()])
        why = "%s; stopped during %s at the run's time cap of %.0f s (%s); the time is a lower bound" % (
            cond, c.step, cap, done or "no step finished")
        impl = osrm.version() + " (extract+contract)"
        results = [
            benchlib.record("routing.synth.%s.prepare_s" % label, "peer", impl, "prepare time", "s", "lower", [cap], 1,
                            why, lower_bound=True),
            benchlib.record("routing.synth.%s.prepare_mb" % label, "peer", impl, "prepare peak memory", "MB", "lower",
                            [peak], 1, why + "; memory until stopped", lower_bound=True),
        ]
    shutil.rmtree(out, ignore_errors=True)
    benchlib.emit(results)


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "seoul":
        seoul()
    elif len(sys.argv) in (4, 5) and sys.argv[1] == "synth":
        synth(sys.argv[2], sys.argv[3], float(sys.argv[4]) if len(sys.argv) == 5 else None)
    else:
        sys.exit(__doc__)

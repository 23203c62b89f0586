"""Tables over HTTP on central Seoul: osrm-routed's CH /table and our GET /v1/table, on the same
points (bench-out/inputs/table_points.csv: the first N are the sources, the next N the
destinations), durations and distances, N = 10, 25 and 100, with the same keep-alive client.

  peer_table.py osrm              osrm-routed CH on bench-out/osrm/seoul-ch (prepared here when
                                  peer_routing.py has not prepared it)
  peer_table.py ours --url URL    a running `taxipot serve`

Each figure: the median over 5 rounds of the per-round p50 round trip (ms); a round is
REQUESTS[N] requests of the same table, after a warm-up on another table (the same points,
sources and destinations swapped); an answer that is not a table is counted as an error, never
inside a latency.
"""
import argparse
import csv
import os
import sys
import urllib.parse

import benchlib
import httpclient

SIZES = (10, 25, 100)
REQUESTS = {10: 200, 25: 100, 100: 30}
ROUNDS = 5
DEPART_AT = "2025-06-14T10:00:00+09:00"  # the departure of every routing benchmark (taxipot-bench)


def read_points():
    with open(os.path.join(benchlib.INPUTS, "table_points.csv")) as f:
        r = csv.reader(f)
        next(r)
        return [(float(a), float(b)) for a, b in r]


def rounds(client, path, warm_path, count, ok_marker):
    """Per-round p50 (ms) of the good answers of `count` GETs of `path`, after a warm-up on
    `warm_path`; the last answer, and the failed requests over all rounds."""
    for _ in range(min(count, 20)):
        client.get(warm_path)
    p50s = []
    last = None
    failed = 0
    for _ in range(ROUNDS):
        timed = []
        for _ in range(count):
            status, body, ns = client.get(path)
            timed.append((ns / 1e6, status == 200 and ok_marker in body))
            last = (status, body)
        (p50,), f = benchlib.pass_percentiles(timed, (50,))
        p50s.append(p50)
        failed += f
    return p50s, last, failed


def coords(points):
    return ";".join("%.7f,%.7f" % p for p in points)


def osrm_paths(points, sizes=SIZES):
    """n -> (the timed table's path, the warm-up's: sources and destinations swapped)."""
    out = {}
    for n in sizes:
        pts = coords(points[: 2 * n])
        first, second = ";".join(str(i) for i in range(n)), ";".join(str(i) for i in range(n, 2 * n))
        path = "/table/v1/driving/%s?sources=%s&destinations=%s&annotations=duration,distance"
        out[n] = (path % (pts, first, second), path % (pts, second, first))
    return out


def ours_paths(points, sizes=SIZES):
    """n -> (the timed table's path, the warm-up's: sources and destinations swapped)."""
    def path(sources, destinations):
        return "/v1/table?sources=%s&destinations=%s&depart_at=%s&annotations=duration,distance" % (
            coords(sources), coords(destinations), urllib.parse.quote(DEPART_AT))
    return {n: (path(points[:n], points[n:2 * n]), path(points[n:2 * n], points[:n])) for n in sizes}


def measure(client, paths, side, impl, conditions, ok_marker, key="table.http",
            points_text="central-Seoul road points (table_points.csv)"):
    """Records `KEY.N` for each table size N of `paths`."""
    results, notes = [], []
    for n in sorted(paths):
        p50s, (status, body), failed = rounds(client, paths[n][0], paths[n][1], REQUESTS[n], ok_marker)
        ok = status == 200 and ok_marker in body
        if not ok:
            notes.append("%s %dx%d: answer %d %s" % (impl, n, n, status, body[:200]))
        results.append(benchlib.record(
            "%s.%d" % (key, n), side, impl, "%d × %d table over HTTP p50" % (n, n), "ms", "lower", p50s, n * n,
            "%s; %d × %d " % (conditions, n, n) + points_text + ", durations and distances, %d requests x %d rounds "
            "(per-round p50 of the good answers), keep-alive raw-socket client, 1 connection; warm-up on the swapped table; "
            "the timed requests repeat the same table (a server keeping answers would be timed on kept ones); "
            "%d requests failed" % (REQUESTS[n], ROUNDS, failed),
            errors=failed, ok=ok, body_bytes=len(body)))
        benchlib.log("%s %dx%d: p50 %.2f ms" % (impl, n, n, sorted(p50s)[ROUNDS // 2]))
    return results, notes


def osrm_side():
    import osrm
    points = read_points()
    base = os.path.join(benchlib.OUT, "osrm", "seoul-ch", "seoul-central.osrm")
    if not os.path.exists(base + ".hsgr"):
        base, _ = osrm.prepare(os.path.join(benchlib.ROOT, "data/osm/seoul-central.osm.pbf"),
                               os.path.join(benchlib.OUT, "osrm", "seoul-ch"), "ch")
    proc, port = osrm.start_routed(base, "ch")
    try:
        client = httpclient.Client("127.0.0.1", port)
        results, notes = measure(client, osrm_paths(points), "peer", osrm.version() + " osrm-routed CH /table",
                                 "osrm-routed --algorithm ch, car.lua", b'"code":"Ok"')
        client.close()
    finally:
        httpclient.stop(proc)
    benchlib.emit(results, notes)


def ours_side(url):
    u = urllib.parse.urlparse(url)
    points = read_points()
    client = httpclient.Client(u.hostname, u.port)
    results, notes = measure(client, ours_paths(points), "ours", "taxipot serve GET /v1/table",
                             "depart_at %s" % DEPART_AT, b'"durations"')
    client.close()
    benchlib.emit(results, notes)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("side", choices=["osrm", "ours"])
    ap.add_argument("--url")
    args = ap.parse_args()
    if args.side == "osrm":
        osrm_side()
    elif not args.url:
        sys.exit("ours needs --url")
    else:
        ours_side(args.url)


if __name__ == "__main__":
    main()

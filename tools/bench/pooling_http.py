"""Pooling over HTTP: durable joins/s (POST /v1/parties/{id}/riders) and matches/s (GET /v1/match)
against our server holding 10,000 open parties in central Seoul (or Seoul-wide: --network nodelink).

Starts its own `taxipot serve` (with a write token, on a fresh state folder filled by
`taxipot parties import`), then drives it with wrk (64 connections, 2 threads): each join
request names a new rider, so every 200 is one durable write (2xx only after the SQLite commit
reached the disk); matches are the default request (walk 800 m, window ±30 min) from random
road nodes. 3 runs of each (1 in quick mode).
Usage: pooling_http.py --bin .build/release/taxipot [--data data] [--seconds 4] [--parties 10000]
                       [--network nodelink]   (Seoul-wide: nodelink.py's data folder and node points)
"""
import argparse
import csv
import json
import os
import random
import shutil
import subprocess
import tempfile
import time

import benchlib
import httpclient

WRITES_LUA = os.path.join(benchlib.HERE, "wrk", "writes.lua")
READS_LUA = os.path.join(benchlib.HERE, "wrk", "requests.lua")
TOKEN = "pooling-bench-token"


def road_points(data, points=None):
    """Road nodes of central Seoul: both ends of the routing benchmark's pairs (inputs.py); without
    them, the places of the place DB in the middle of the served area (most lie by a road).
    `points`: a lon,lat CSV of road points to use instead (nodelink.py's, spread over Seoul)."""
    if points:
        with open(points) as f:
            r = csv.reader(f)
            next(r)
            return [(float(a), float(b)) for a, b in r]
    path = os.path.join(benchlib.INPUTS, "route_pairs.csv")
    if not os.path.exists(path):
        import sqlite3
        db = sqlite3.connect(os.path.join(data, "build", "places.db"))
        return [(lon, lat) for lon, lat in db.execute(
            "SELECT lon, lat FROM places WHERE lon BETWEEN 126.95 AND 127.01 AND lat BETWEEN 37.55 AND 37.58")]
    with open(path) as f:
        r = csv.reader(f)
        next(r)
        pts = []
        for a, b, c, d in r:
            pts += [(float(a), float(b)), (float(c), float(d))]
    return pts


def make_parties(pts, count, now, rng):
    """`count` parties (id, origin, destination, depart_at): 16 seats, 1 taken, no drop-off."""
    out = []
    for i in range(count):
        o, d = rng.choice(pts), rng.choice(pts)
        out.append(("hp%d" % i, o, d, now + rng.uniform(600, 7200)))
    return out


def make_requests(pts, count, now, rng):
    """`count` default match requests (origin, destination, depart_at) from random road points,
    departing within the next hour."""
    out = []
    for _ in range(count):
        o, d = rng.choice(pts), rng.choice(pts)
        out.append((o, d, now + rng.uniform(0, 3600)))
    return out


def match_path(req):
    o, d, t = req
    return "/v1/match?origin=%.7f,%.7f&destination=%.7f,%.7f&depart_at=%d" % (o[0], o[1], d[0], d[1], t)


SEQUENTIAL = 300  # requests timed one after another from one client (the peer's figure)


def split_requests(requests):
    """(wrk's requests, the one-client pass's): the first SEQUENTIAL (the ones peer_pooling.py
    times too) for the one client, the rest for wrk, so the wrk runs that warm the server never
    send a request the one-client pass times."""
    return requests[SEQUENTIAL:], requests[:SEQUENTIAL]
SEQUENTIAL_ROUNDS = 1 if benchlib.QUICK else 5  # rounds of them (the figure: the median of the per-round percentiles)


def wrk(url, lua, reqfile, seconds, *extra):
    cmd = ["wrk", "-t2", "-c64", "-d%ds" % seconds, "--latency", "--timeout", "5s", "-s", lua, url, "--", reqfile] + list(extra)
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    line = next(l for l in out.splitlines() if l.startswith("WRKJSON"))
    return json.loads(line[len("WRKJSON"):])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--data", default="data")
    ap.add_argument("--seconds", type=int, default=4)
    ap.add_argument("--parties", type=int, default=10000)
    ap.add_argument("--network", choices=["osm", "nodelink"], default="osm")
    args = ap.parse_args()
    key, area, points, serve_extra = "pooling.http", "central Seoul", None, []
    if args.network == "nodelink":
        import nodelink
        key, area, points = "pooling.nodelink.http", "Seoul (node-link roads)", nodelink.POINTS
        args.data = nodelink.DATA
        serve_extra = ["--web", os.path.join(benchlib.ROOT, "web")]
    runs = 1 if benchlib.QUICK else 3
    rng = random.Random(2323)
    pts = road_points(args.data, points)
    now = time.time()
    work = tempfile.mkdtemp(prefix="pooling-http-")
    proc = None
    try:
        # Parties: 16 seats each (1 taken), so joins never run out within the runs.
        csv_path = os.path.join(work, "parties.csv")
        with open(csv_path, "w") as f:
            for pid, o, d, t in make_parties(pts, args.parties, now, rng):
                f.write("%s,%.7f,%.7f,%.7f,%.7f,%d,16,1\n" % (pid, o[0], o[1], d[0], d[1], t))
        state = os.path.join(work, "state")
        subprocess.run([args.bin, "parties", "import", csv_path, "--state-dir", state], check=True, capture_output=True)
        port = httpclient.free_port()
        env = dict(os.environ, TAXIPOT_WRITE_TOKEN=TOKEN)
        proc = subprocess.Popen([args.bin, "serve", "--host", "127.0.0.1", "--port", str(port), "--data", args.data,
                                 "--state-dir", state, "--no-access-log"] + serve_extra, env=env, stderr=subprocess.DEVNULL)
        httpclient.wait_for_port("127.0.0.1", port, 120, proc)
        url = "http://127.0.0.1:%d" % port

        # Joins: a new rider in each request, spread over the parties (15 free seats each).
        join_rps, join_p50, join_p99, join_total, join_bad = [], [], [], 0, 0
        rider = 0
        for run in range(runs + 1):  # the first is a warm-up
            path = os.path.join(work, "joins-%d.tsv" % run)
            lines = min(args.parties * 14 // (runs + 1), 40000)
            with open(path, "w") as f:
                for _ in range(lines):
                    f.write('POST\t/v1/parties/hp%d/riders\t{"rider_id":"j%d"}\n' % (rider % args.parties, rider))
                    rider += 1
            doc = wrk(url, WRITES_LUA, path, 1 if run == 0 else args.seconds, TOKEN)
            if run == 0:
                continue
            secs = doc["duration_us"] / 1e6
            join_rps.append(doc["ok"] / secs)
            join_p50.append(doc["p50_us"] / 1000)
            join_p99.append(doc["p99_us"] / 1000)
            join_total += doc["ok"]
            join_bad += doc["requests"] - doc["ok"] + doc["errors_connect"] + doc["errors_read"] + doc["errors_write"] + doc["errors_timeout"]
        # Matches: default requests from random road nodes, departing within the next hour.
        path = os.path.join(work, "matches.tsv")
        loaded, one_client = split_requests(make_requests(pts, 2000, now, rng))
        with open(path, "w") as f:
            for req in loaded:
                f.write("GET\t%s\n" % match_path(req))
        probe = httpclient.Client("127.0.0.1", port)
        status, body, _ = probe.get("/v1/match?origin=%.7f,%.7f&destination=%.7f,%.7f" % (pts[0] + pts[1]))
        probe.close()
        # Warm-up: the parties' plans are made on first touch (and again after the joins changed
        # them); a few seconds of matching touch nearly every party. Other requests than the timed
        # ones (another seed, as peer_pooling.py's warm-up).
        warm_path = os.path.join(work, "matches-warmup.tsv")
        with open(warm_path, "w") as f:
            for req in make_requests(pts, 2000, now, random.Random(2324)):
                f.write("GET\t%s\n" % match_path(req))
        wrk(url, READS_LUA, warm_path, max(4, args.seconds))
        match_runs = [wrk(url, READS_LUA, path, args.seconds) for _ in range(runs)]
        # One client, one request after another: the round trip the peer is judged on.
        client = httpclient.Client("127.0.0.1", port)
        # (the wrk runs above sent other requests; the parties' plans they made are what a running
        # server keeps, and a match keeps nothing of its rider; each round sends the same requests)
        seq_p50, seq_p99, seq_bodies, seq_failed = httpclient.latency_rounds(
            client, [match_path(r) for r in one_client], SEQUENTIAL_ROUNDS, ok=lambda st, _: st == 200)
        client.close()
        seq_ok = sum(1 for st, _ in seq_bodies if st == 200)
        seq_matches = sum(b.count(b'"walk_m"') for _, b in seq_bodies)
        cond_s = ("%d open parties in %s; the first %d of the match requests (none sent by the wrk runs before), one after "
                  "another from one keep-alive client, the same %d in each round (per-round p50 and p99 of the 200 answers, "
                  "%d rounds); %d answered 200 in the last round, %d failed in all, %.1f matches a request" % (
                      args.parties, area, SEQUENTIAL, SEQUENTIAL, SEQUENTIAL_ROUNDS, seq_ok, seq_failed, seq_matches / float(SEQUENTIAL)))
        cond_j = ("%d open parties (16 seats) in %s, each request a new rider; wrk 64 connections, 2 threads, %d runs x %d s; "
                  "%d joins acknowledged (each after its SQLite commit, synchronous=FULL), %d other answers" % (
                      args.parties, area, runs, args.seconds, join_total, join_bad))
        match_errors = sum(r["errors_connect"] + r["errors_write"] + r["errors_status"] + r["errors_read"] + r["errors_timeout"]
                           for r in match_runs)
        cond_m = ("%d open parties in %s; GET /v1/match from %d random road nodes (walk 800 m, window ±30 min, detour ≤ 25%%); "
                  "wrk 64 connections, 2 threads, %d runs x %d s, after a warm-up run on 2,000 other requests; the timed runs cycle theirs; "
                  "%d requests, %d errors or non-2xx; probe answer %d (%d bytes)" % (
                      args.parties, area, len(loaded), runs, args.seconds, sum(r["requests"] for r in match_runs), match_errors, status, len(body)))
        results = [
            benchlib.record(key + ".joins.rps", "ours", "taxipot serve", "durable joins/s", "joins/s", "higher", join_rps, join_total, cond_j,
                            errors=join_bad),
            benchlib.record(key + ".joins.p99", "ours", "taxipot serve", "join latency p99 under load", "ms", "lower", join_p99, join_total, cond_j,
                            errors=join_bad),
            benchlib.record(key + ".match.rps", "ours", "taxipot serve", "matches/s", "req/s", "higher",
                            [(r["requests"] - r["errors_status"]) / (r["duration_us"] / 1e6) for r in match_runs],
                            sum(r["requests"] for r in match_runs), cond_m, errors=match_errors),
            benchlib.record(key + ".match.p50", "ours", "taxipot serve GET /v1/match", "match round trip p50, one client", "ms",
                            "lower", [v / 1000 for v in seq_p50], SEQUENTIAL, cond_s, errors=seq_failed),
            benchlib.record(key + ".match.p99", "ours", "taxipot serve", "match latency p99 under load", "ms", "lower",
                            [r["p99_us"] / 1000 for r in match_runs], sum(r["requests"] for r in match_runs), cond_m, errors=match_errors),
            benchlib.record(key + ".match.p99_one_client", "ours", "taxipot serve GET /v1/match", "match round trip p99, one client", "ms",
                            "lower", [v / 1000 for v in seq_p99], SEQUENTIAL, cond_s, errors=seq_failed),
        ]
        benchlib.emit(results, [])
    finally:
        httpclient.stop(proc)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

"""Party store over HTTP: durable party writes/s and the cluster-view lag, PostgreSQL (two
replicas on one database) against the embedded SQLite store (one server), in the same run.

For each store:
  writes/s  wrk (64 connections, 2 threads) PUTs new parties on replica A as fast as it answers
            (servers with 16 workers);
            every 2xx is committed (SQLite: synchronous=FULL; PostgreSQL: synchronous_commit=on,
            fsync=on).
  lag       wrk writes paced at up to 1,280 PUTs/s on A (64 connections, 50 ms apart) while a
            probe PUTs a marker party on A every 20 ms and polls /v1/clusters (on replica B for
            PostgreSQL, on the one server for SQLite) every 2 ms until the marker shows: the lag
            is the time from the marker's 2xx to the first answer showing it (p50, p99 over the
            markers of all runs). Each marker has a spot of its own (no earlier marker there: two
            parties on one spot show as a cluster, never alone).
Starts its own PostgreSQL (tools/pg/pglib.py: initdb/pg_ctl in a temporary folder, loopback).
Usage: party_store.py --bin .build/release/taxipot [--data data] [--seconds 4]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import benchlib

sys.path.insert(0, os.path.join(benchlib.ROOT, "tools", "pg"))
from pglib import Replica, TempPostgres, cluster_ids, party_body  # noqa: E402

WRITES_LUA = os.path.join(benchlib.HERE, "wrk", "writes.lua")  # paced by a third argument (ms)
TOKEN = "party-store-bench-token"


def wrk(url, lua, reqfile, seconds, connections, *extra):
    cmd = ["wrk", "-t2", "-c%d" % connections, "-d%ds" % seconds, "--latency", "--timeout", "5s", "-s", lua, url, "--", reqfile, TOKEN] + list(extra)
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    line = next(l for l in out.splitlines() if l.startswith("WRKJSON"))
    return json.loads(line[len("WRKJSON"):])


def put_file(path, prefix, n):
    """n PUTs of new parties spread over central Seoul (never the markers' spot)."""
    with open(path, "w") as f:
        for i in range(n):
            body = party_body(126.95 + (i % 500) * 0.0001, 37.50 + (i // 500 % 100) * 0.0005)
            f.write("PUT\t/v1/parties/%s%d\t%s\n" % (prefix, i, json.dumps(body, separators=(",", ":"))))


MARKER_SPOTS = 1600  # 40 x 40 spots 0.001 degrees apart (about 100 m) in each run's own block


def failed_writes(doc):
    """Writes of one wrk run that were not acknowledged (non-2xx, broken, timed out)."""
    return doc["requests"] - doc["ok"] + doc["errors_connect"] + doc["errors_read"] + doc["errors_write"] + doc["errors_timeout"]


def lag_probe(writer, reader, stop, lags, unseen, tag, run):
    """Markers on spots no other marker (of this run or an earlier one, all still live) or write
    uses: a marker on the spot of an earlier one would be shown inside a cluster with it, never
    alone, and count as never seen (the 5 s of markers 'missed' on replica B in the first full
    bench were exactly that: B held them, as a cluster of two or three at zoom 18).
    A marker whose PUT failed, or that was not seen within 5 s, is a failure (in `unseen`), never
    a lag."""
    i = 0
    while not stop.is_set() and i < MARKER_SPOTS:
        lon, lat = 127.05 + run * 0.05 + (i % 40) * 0.001, 37.60 + (i // 40) * 0.001
        pid = "%s-marker-%d" % (tag, i)
        i += 1
        status = writer.request("PUT", "/v1/parties/" + pid, party_body(lon, lat))[0]
        if status not in (200, 201):
            unseen.append(pid)
            continue
        t0 = time.perf_counter()
        while pid not in cluster_ids(reader, lon, lat, d=0.0002):
            if time.perf_counter() - t0 > 5:
                unseen.append(pid)
                break
            time.sleep(0.002)
        else:
            lags.append((time.perf_counter() - t0) * 1000)
        time.sleep(0.02)


def measure(name, writer, reader, work, seconds, runs):
    url = "http://127.0.0.1:%d" % writer.port
    rates, paced_rates, lags, unseen = [], [], [], []
    total, failed = 0, 0
    for run in range(runs + 1):  # the first is a warm-up
        path = os.path.join(work, "%s-puts-%d.tsv" % (name, run))
        put_file(path, "%s%d-" % (name, run), 40000)
        doc = wrk(url, WRITES_LUA, path, 1 if run == 0 else seconds, 64)
        if run == 0:
            continue
        rates.append(doc["ok"] / (doc["duration_us"] / 1e6))
        total += doc["ok"]
        failed += failed_writes(doc)
    for run in range(runs):
        path = os.path.join(work, "%s-paced-%d.tsv" % (name, run))
        put_file(path, "%s-paced%d-" % (name, run), 40000)
        stop = threading.Event()
        probe = threading.Thread(target=lag_probe, args=(writer, reader, stop, lags, unseen, "%s%d" % (name, run), run))
        probe.start()
        doc = wrk(url, WRITES_LUA, path, seconds, 64, "50")
        stop.set()
        probe.join()
        paced_rates.append(doc["ok"] / (doc["duration_us"] / 1e6))
        failed += failed_writes(doc)
    return rates, total, failed, paced_rates, lags, unseen


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--data", default="data")
    ap.add_argument("--seconds", type=int, default=4)
    args = ap.parse_args()
    runs = 1 if benchlib.QUICK else 3
    binary = os.path.abspath(args.bin)
    work = tempfile.mkdtemp(prefix="party-store-bench-")
    pg = TempPostgres()
    servers = []
    results = []
    try:
        # 16 workers: a PostgreSQL write waits on the network and the database's log flush, and
        # writes waiting together commit together; the same for SQLite (it writes one at a time).
        extra = ["--data", os.path.abspath(args.data), "--workers", "16"]
        lite = Replica(binary, None, TOKEN, work, "sqlite", extra)
        a = Replica(binary, pg.url, TOKEN, work, "pg-a", extra)
        b = Replica(binary, pg.url, TOKEN, work, "pg-b", extra)
        servers = [lite, a, b]
        for s in servers:
            s.start()
        for s in servers:
            s.wait_ready()
        figures = {}
        # One store at a time: the other's servers idle.
        figures["sqlite"] = measure("sqlite", lite, lite, work, args.seconds, runs)
        figures["postgresql"] = measure("postgresql", a, b, work, args.seconds, runs)
        impl = {"sqlite": "taxipot serve, embedded SQLite", "postgresql": "taxipot serve ×2, PostgreSQL %s" % os.path.basename(os.path.dirname(pg.bindir))}
        for store, (rates, total, failed, paced, lags, unseen) in figures.items():
            cond_w = ("PUT of new parties on one server (%s), wrk 64 connections, 2 threads, %d runs x %d s; %d writes acknowledged, each committed; "
                      "%d writes not acknowledged (in these and the paced runs)" % (
                "replica A of two on one PostgreSQL, synchronous_commit=on" if store == "postgresql" else "synchronous=FULL", runs, args.seconds, total, failed))
            where = "replica B's /v1/clusters after a PUT on replica A" if store == "postgresql" else "the server's own /v1/clusters after its PUT"
            cond_l = ("%s, under paced writes of %s PUTs/s (median of %d runs x %d s; wrk 64 connections, 50 ms apart); %d markers, lag from the PUT's 2xx to the first "
                      "/v1/clusters answer showing it (polled every 2 ms; %d markers failed: PUT not acknowledged or not seen within 5 s, left out of the lags)" % (
                          where, "{:,.0f}".format(sorted(paced)[len(paced) // 2]), runs, args.seconds, len(lags), len(unseen)))
            results += [
                benchlib.record("parties.store.%s.writes" % store, "ours", impl[store], "party writes/s", "writes/s", "higher", rates, total, cond_w,
                                errors=failed),
                benchlib.record("parties.store.%s.lag.p50" % store, "ours", impl[store], "cluster-view lag p50", "ms", "lower",
                                [benchlib.percentile(lags, 50) if lags else float("nan")], len(lags), cond_l, errors=len(unseen)),
                benchlib.record("parties.store.%s.lag.p99" % store, "ours", impl[store], "cluster-view lag p99", "ms", "lower",
                                [benchlib.percentile(lags, 99) if lags else float("nan")], len(lags), cond_l, errors=len(unseen)),
                benchlib.record("parties.store.%s.paced" % store, "ours", impl[store], "paced write rate during the lag runs", "writes/s", "higher", paced, len(paced), cond_l,
                                errors=failed),
            ]
        benchlib.emit(results, [])
    finally:
        for s in servers:
            s.stop()
        pg.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

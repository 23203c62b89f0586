"""HTTP throughput with wrk: our server's endpoints, and nginx serving a static JSON of the same
size as each endpoint's median answer (the ceiling of this machine for that body size).

Each endpoint is measured in 5 runs of (duration / 5) seconds at 64 connections, 2 wrk threads (nginx:
half the duration by default);
records give the median over the runs of requests/s, p50 and p99 latency, with min-max.
Usage: http_load.py --url http://127.0.0.1:PORT [--duration 20] [--endpoints route,quote,...]
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import tempfile
import urllib.parse

import benchlib
import httpclient

WRK_LUA = os.path.join(benchlib.HERE, "wrk", "requests.lua")
ROUNDS = 5


def read_csv(name):
    with open(os.path.join(benchlib.INPUTS, name)) as f:
        r = csv.reader(f)
        next(r)
        return list(r)


def route_requests(swapped=False):
    return [("GET", "/v1/route?from=%s,%s&to=%s,%s" % (tuple(row[2:] + row[:2]) if swapped else tuple(row)), "")
            for row in read_csv("route_pairs.csv")]


def quote_requests(swapped=False):
    out = []
    for i, (a, b, c, d) in enumerate(read_csv("route_pairs.csv")):
        if swapped:
            a, b, c, d = c, d, a, b
        body = {"origin": {"lon": float(a), "lat": float(b)}, "destination": {"lon": float(c), "lat": float(d)},
                "riders": 1 + i % 4, "depart_at": "2025-06-%02dT%02d:%02d:00+09:00" % (1 + i % 28, i % 24, i % 60)}
        out.append(("POST", "/v1/quote", json.dumps(body, separators=(",", ":"))))
    return out


def places_requests(shortened=False):
    """The project's query set (kind, query, near, ...), with its location bias where given;
    `shortened`: each query less its last character (the warm-up's, as taxipot-bench's)."""
    path = os.path.join(benchlib.INPUTS, "place_queries.tsv")
    if not os.path.exists(path):
        return []
    out = []
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f):
            c = line.rstrip("\r\n").split("\t")
            if i == 0 or len(c) < 2 or not c[1] or line.startswith("#"):
                continue
            q = c[1][:-1] if shortened else c[1]
            if not q:
                continue
            p = "/v1/places?q=" + urllib.parse.quote(q)
            if len(c) > 2 and c[2]:
                p += "&near=" + urllib.parse.quote(c[2], safe=",")
            out.append(("GET", p, ""))
    return out


def clusters_requests(warmup=False):
    return [("GET", "/v1/clusters?bbox=%s,%s,%s,%s&zoom=%s" % (w, s, e, n, z), "")
            for z, w, s, e, n in read_csv("viewports_warmup.csv" if warmup else "viewports.csv")]


GENERATORS = {"route": route_requests, "quote": quote_requests, "places": places_requests,
              "clusters": clusters_requests}
# The warm-up's requests, none of them timed: the pairs the other way round, each query less its
# last character, the warm-up viewports (inputs.py writes them from another seed).
WARMUP_TEXT = {"route": "the pairs the other way round", "quote": "the pairs the other way round",
               "places": "each query less its last character", "clusters": "the 500 warm-up viewports"}


def warmup_requests(name):
    """Requests for `name`'s warm-up that the timed runs never send."""
    timed = set(GENERATORS[name]())
    return [r for r in GENERATORS[name](True) if r not in timed]


def write_requests(name, reqs):
    d = os.path.join(benchlib.OUT, "requests")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, name + ".tsv")
    with open(path, "w") as f:
        for m, p, b in reqs:
            f.write("%s\t%s\t%s\n" % (m, p, b))
    return path


def wrk_once(url, reqfile, seconds, connections=64, threads=2, gzip=False):
    cmd = ["wrk", "-t%d" % threads, "-c%d" % connections, "-d%ds" % seconds, "--latency", "--timeout", "5s",
           "-s", WRK_LUA, url, "--", reqfile] + (["gzip"] if gzip else [])
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    line = next(l for l in out.splitlines() if l.startswith("WRKJSON"))
    doc = json.loads(line[len("WRKJSON"):])
    # failed answers (non-2xx, timeouts, broken connections) are not served requests: requests/s
    # counts the good ones; the records carry the failures as errors (a target requires none)
    doc["errors"] = doc["errors_connect"] + doc["errors_read"] + doc["errors_write"] + doc["errors_status"] + doc["errors_timeout"]
    doc["rps"] = (doc["requests"] - doc["errors_status"]) / (doc["duration_us"] / 1e6)
    return doc


def wrk_records(key, side, impl, url, reqfile, duration, cond, gzip=False, warm_reqfile=None, distinct=1):
    """wrk's records of `reqfile` (`distinct` requests, cycled); the warm-up sends `warm_reqfile`
    (other requests) when given, else `reqfile` itself (the nginx ceiling: one static file)."""
    per = max(1, int(round(duration / ROUNDS)))
    wrk_once(url, warm_reqfile or reqfile, 1, gzip=gzip)  # warm-up
    runs = [wrk_once(url, reqfile, per, gzip=gzip) for _ in range(ROUNDS)]
    errors = sum(r["errors"] for r in runs)
    total = sum(r["requests"] for r in runs)
    c = ("%s; wrk 64 connections, 2 threads, %d runs x %d s; %d requests, %d errors or non-2xx (requests/s counts 2xx "
         "answers only; wrk's latencies cannot leave a failed answer out, so any error fails the row); the timed runs "
         "cycle the %d distinct requests, each sent about %d times") % (
        cond, ROUNDS, per, total, errors, distinct, total // max(1, distinct))
    return [
        benchlib.record(key + ".rps", side, impl, "requests/s", "req/s", "higher", [r["rps"] for r in runs], total, c,
                        errors=errors),
        benchlib.record(key + ".p50", side, impl, "latency p50 under load", "ms", "lower",
                        [r["p50_us"] / 1000 for r in runs], total, c, errors=errors),
        benchlib.record(key + ".p99", side, impl, "latency p99 under load", "ms", "lower",
                        [r["p99_us"] / 1000 for r in runs], total, c, errors=errors),
    ]


def nginx_version():
    p = subprocess.run(["nginx", "-v"], capture_output=True, text=True)
    return (p.stderr or p.stdout).strip().replace("nginx version: nginx/", "")


def start_nginx(body_bytes):
    d = tempfile.mkdtemp(prefix="bench-nginx-")
    os.chmod(d, 0o755)
    with open(os.path.join(d, "static.json"), "w") as f:
        text = '{"pad":"' + "x" * max(0, body_bytes - 10) + '"}'
        f.write(text)
    os.chmod(os.path.join(d, "static.json"), 0o644)
    port = httpclient.free_port()
    conf = os.path.join(d, "nginx.conf")
    with open(conf, "w") as f:
        f.write("""worker_processes 2;
daemon off;
pid %(d)s/nginx.pid;
error_log %(d)s/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000000;
  types { application/json json; }
  server {
    listen 127.0.0.1:%(port)d;
    root %(d)s;
    location / { try_files $uri =404; }
  }
}
""" % {"d": d, "port": port})
    proc = subprocess.Popen(["nginx", "-c", conf, "-p", d], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    httpclient.wait_for_port("127.0.0.1", port, proc=proc)
    return proc, port, d


def probe(url, reqs):
    """Median body size of the first requests, and how many answered 2xx."""
    u = urllib.parse.urlparse(url)
    client = httpclient.Client(u.hostname, u.port)
    sizes, ok = [], 0
    for m, p, b in reqs[:50]:
        status, body, _ = client.request(m, p, b.encode())
        ok += 200 <= status < 300
        sizes.append(len(body))
    client.close()
    return sorted(sizes)[len(sizes) // 2], ok, min(50, len(reqs))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--impl", default="taxipot serve")
    ap.add_argument("--duration", type=int, default=20)
    ap.add_argument("--ceiling-duration", type=int, default=None,
                    help="seconds for each nginx ceiling (default: half of --duration, at least 5)")
    ap.add_argument("--endpoints", default="route,quote,places,clusters")
    ap.add_argument("--clusters-note", default="")
    ap.add_argument("--gzip", action="store_true",
                    help="also measure each endpoint with Accept-Encoding: gzip (records http.NAME_gzip.*)")
    ap.add_argument("--gzip-endpoints", default="",
                    help="comma-separated endpoints to also measure with Accept-Encoding: gzip (like --gzip, for these only)")
    ap.add_argument("--no-ceiling", action="store_true", help="skip the nginx ceiling runs")
    args = ap.parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("wrk not found: run tools/bench/setup")
    results, notes = [], []
    for name in args.endpoints.split(","):
        reqs = GENERATORS[name]()
        if not reqs:
            notes.append("http %s: no requests (input missing)" % name)
            continue
        size, ok, tried = probe(args.url, reqs)
        if ok < tried:
            notes.append("http %s: only %d of %d probe requests answered 2xx" % (name, ok, tried))
            if ok == 0:
                continue
        reqfile = write_requests(name, reqs)
        warm_reqs = warmup_requests(name)
        warm = write_requests(name + "-warmup", warm_reqs) if warm_reqs else None
        cond = "%d distinct requests cycled, median body %d bytes; warm-up on %s" % (
            len(reqs), size, WARMUP_TEXT[name] if warm else "the timed requests (no others to hand)")
        if name == "clusters" and args.clusters_note:
            cond += ", " + args.clusters_note
        results += wrk_records("http.%s" % name, "ours", args.impl, args.url, reqfile, args.duration, cond,
                               warm_reqfile=warm, distinct=len(reqs))
        benchlib.log("wrk %s: %.0f req/s" % (name, results[-3]["median"]))
        if args.gzip or name in args.gzip_endpoints.split(","):
            results += wrk_records("http.%s_gzip" % name, "ours", args.impl, args.url, reqfile, args.duration,
                                   cond + ", Accept-Encoding: gzip", gzip=True, warm_reqfile=warm, distinct=len(reqs))
            benchlib.log("wrk %s gzip: %.0f req/s" % (name, results[-3]["median"]))
        if args.no_ceiling:
            continue
        proc, port, d = start_nginx(size)
        try:
            nreq = write_requests("nginx-%s" % name, [("GET", "/static.json", "")])
            results += wrk_records("http.%s" % name, "ceiling", "nginx %s static file" % nginx_version(),
                                   "http://127.0.0.1:%d" % port, nreq,
                                   args.ceiling_duration or max(5, args.duration // 2),
                                   "static JSON of %d bytes, 2 workers" % size)
            benchlib.log("wrk nginx %d B: %.0f req/s" % (size, results[-3]["median"]))
        finally:
            httpclient.stop(proc)
            shutil.rmtree(d, ignore_errors=True)
    benchlib.emit(results, notes)


if __name__ == "__main__":
    main()

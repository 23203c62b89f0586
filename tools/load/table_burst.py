#!/usr/bin/env python3
"""Issue 32's table burst against a running `taxipot serve` on loopback.

Fires CONCURRENCY simultaneous POST /v1/table of SIZE x SIZE points (central Seoul, fixed seed),
each client sending its table ROUNDS times, while a prober asks GET /health every 50 ms on a
connection of its own. Reports /health p50/p99/max, the tables' answers by status, and the
server's resident memory before, right after, and IDLE seconds after the burst.

Pass/fail (exit 1 on a failure):
  - no /health answer slower than --health-max seconds (and every probe answered 200);
  - every table answered 200, or 503 with Retry-After and a JSON error body (the admission
    budget); at least one 200;
  - resident memory IDLE seconds after the burst at most --rss-growth-mb above where it started.

Bounded: loopback only, every socket with a timeout, the whole run with a deadline.
Usage: table_burst.py PORT PID [--concurrency N ...] [--size N] [--rounds N] [--idle S]
"""
import argparse
import http.client
import json
import random
import sys
import threading
import time

HOST = "127.0.0.1"


def rss_mb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def table_body(size, seed):
    rng = random.Random(seed)
    # Central Seoul (the served area around City Hall); max_snap_m covers the blocks between roads.
    points = [[round(rng.uniform(126.955, 127.0), 6), round(rng.uniform(37.535, 37.585), 6)] for _ in range(size)]
    return json.dumps({"sources": points, "depart_at": "2025-06-14T10:00:00+09:00", "max_snap_m": 1000}).encode()


def percentile(values, q):
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


class Burst:
    def __init__(self, port, body, timeout):
        self.port, self.body, self.timeout = port, body, timeout
        self.lock = threading.Lock()
        self.statuses = {}
        self.problems = []
        self.seconds = []

    def table(self, rounds):
        for _ in range(rounds):
            t0 = time.monotonic()
            try:
                c = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout)
                c.request("POST", "/v1/table", body=self.body, headers={"Content-Type": "application/json"})
                r = c.getresponse()
                data = r.read()
                retry = r.getheader("Retry-After")
                c.close()
                status = r.status
            except Exception as e:  # noqa: BLE001 - a failed request is a finding, not a crash
                status = "error: %s" % type(e).__name__
                data, retry = b"", None
            with self.lock:
                self.statuses[status] = self.statuses.get(status, 0) + 1
                self.seconds.append(time.monotonic() - t0)
                if status == 503:
                    try:
                        code = json.loads(data)["error"]["code"]
                    except Exception:  # noqa: BLE001
                        code = None
                    if not retry or not code:
                        self.problems.append("a 503 without Retry-After or a JSON error: %r %r" % (retry, data[:120]))
                elif status != 200:
                    self.problems.append("table answered %s: %r" % (status, data[:160]))


def probe_health(port, stop, out, interval=0.05, timeout=10):
    while not stop.is_set():
        t0 = time.monotonic()
        try:
            c = http.client.HTTPConnection(HOST, port, timeout=timeout)
            c.request("GET", "/health")
            r = c.getresponse()
            r.read()
            c.close()
            out.append((time.monotonic() - t0, r.status))
        except Exception:  # noqa: BLE001
            out.append((time.monotonic() - t0, None))
        stop.wait(interval)


def run_round(args, concurrency, body):
    before = rss_mb(args.pid)
    burst = Burst(args.port, body, args.timeout)
    stop = threading.Event()
    probes = []
    prober = threading.Thread(target=probe_health, args=(args.port, stop, probes), daemon=True)
    prober.start()
    time.sleep(0.2)
    t0 = time.monotonic()
    clients = [threading.Thread(target=burst.table, args=(args.rounds,), daemon=True) for _ in range(concurrency)]
    for c in clients:
        c.start()
    peak = before
    deadline = t0 + args.deadline
    while any(c.is_alive() for c in clients) and time.monotonic() < deadline:
        peak = max(peak, rss_mb(args.pid))
        time.sleep(0.1)
    timed_out = any(c.is_alive() for c in clients)
    elapsed = time.monotonic() - t0
    time.sleep(0.2)
    stop.set()
    prober.join(15)
    after = rss_mb(args.pid)
    time.sleep(args.idle)
    idle = rss_mb(args.pid)
    lat = [s for s, st in probes if st == 200]
    failed_probes = [st for s, st in probes if st != 200]
    health_max = max((s for s, _ in probes), default=float("nan"))
    print("table burst: %d concurrent x %d rounds of %dx%d POST /v1/table in %.1f s: answers %s"
          % (concurrency, args.rounds, args.size, args.size, elapsed,
             ", ".join("%s: %d" % (k, v) for k, v in sorted(burst.statuses.items(), key=lambda kv: str(kv[0])))))
    print("  /health during the burst: %d probes, p50 %.1f ms, p99 %.1f ms, max %.1f ms%s"
          % (len(probes), percentile(lat, 0.5) * 1000, percentile(lat, 0.99) * 1000, health_max * 1000,
             ", %d not answered 200" % len(failed_probes) if failed_probes else ""))
    print("  RSS: %.0f MB before, %.0f MB peak, %.0f MB after, %.0f MB after %.0f s idle"
          % (before, peak, after, idle, args.idle))
    problems = list(burst.problems)
    if timed_out:
        problems.append("the burst was not over within %.0f s" % args.deadline)
    if failed_probes:
        problems.append("%d /health probes not answered 200" % len(failed_probes))
    if not probes or health_max > args.health_max:
        problems.append("/health took %.2f s at worst (limit %.2f s)" % (health_max, args.health_max))
    if burst.statuses.get(200, 0) == 0:
        problems.append("no table answered 200")
    if idle > before + args.rss_growth_mb:
        problems.append("RSS %.0f MB after %.0f s idle, more than %.0f MB above the %.0f MB before"
                        % (idle, args.idle, args.rss_growth_mb, before))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("port", type=int)
    ap.add_argument("pid", type=int, help="the server's process id (its RSS is read from /proc)")
    ap.add_argument("--concurrency", type=int, nargs="+", default=[4], help="one round per value, one after another")
    ap.add_argument("--size", type=int, default=1000, help="points per table (sources = destinations)")
    ap.add_argument("--rounds", type=int, default=1, help="tables per client")
    ap.add_argument("--idle", type=float, default=5, help="seconds to wait before the after-idle RSS")
    ap.add_argument("--health-max", type=float, default=1.0)
    ap.add_argument("--rss-growth-mb", type=float, default=300)
    ap.add_argument("--timeout", type=float, default=120, help="seconds a table request may take")
    ap.add_argument("--deadline", type=float, default=300, help="seconds a round may take")
    args = ap.parse_args()
    body = table_body(args.size, 32)
    problems = []
    for n in args.concurrency:
        problems += run_round(args, n, body)
    for p in problems:
        print("table-burst: FAIL: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

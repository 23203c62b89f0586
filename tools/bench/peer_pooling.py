"""Pooling peer: GET /v1/match's matching done the way a team would write it today, with
osrm-routed's CH /table and a Python script, on the same 10,000 open parties and the same
requests as pooling_http.py (its make_parties / make_requests, same seed and clock).

Per request (timed): the candidate parties from a grid index (meeting point within 800 m of the
rider's origin, departing within ±30 min, a seat free); two /table calls (every candidate's
origin and the rider's origin to the rider's destination; the rider's destination to every
candidate's destination); the cheapest insertion of the rider's drop-off, the 25% detour limit;
a Seoul mid-size meter on the table's distances (base 4,800 won for 1.6 km, 100 won per 131 m)
for the solo fare and the pooled ride, split by leg; the 10 best by saving. Each party's own
ride (origin to destination) is asked of OSRM once before the timing, as our server keeps its
party plans. Figure: per-round p50 of the round trips (ms), one request after another.

Usage: peer_pooling.py [--parties 10000] [--network nodelink]
  --network nodelink: Seoul-wide, on nodelink.py's points and OSRM CH of the node-link export
"""
import argparse
import json
import math
import os
import random
import time
import urllib.parse

import benchlib
import httpclient
import pooling_http

WALK_M, WINDOW_S, DETOUR_PCT, LIMIT = 800.0, 1800.0, 25.0, 10
BASE_KRW, BASE_M, UNIT_KRW, UNIT_M = 4800, 1600.0, 100, 131.0
CELL = 0.01  # grid cell, degrees


def meters(a, b):
    dy = (a[1] - b[1]) * 111195.0
    dx = (a[0] - b[0]) * 111195.0 * math.cos(math.radians((a[1] + b[1]) / 2))
    return math.hypot(dx, dy)


def meter_legs(distances):
    """Per-leg amounts of a Seoul meter over legs of these lengths (m); leg 0 holds the base fare."""
    legs, travelled, carry = [], 0.0, 0.0
    for i, d in enumerate(distances):
        amount = BASE_KRW if i == 0 else 0
        charged = max(0.0, travelled + d - max(travelled, BASE_M))
        travelled += d
        carry += charged
        units = int(carry // UNIT_M)
        carry -= units * UNIT_M
        legs.append(amount + units * UNIT_KRW)
    return legs


def by_leg_share(legs, aboard, rider_last_leg):
    return sum(legs[k] / aboard[k] for k in range(rider_last_leg + 1))


class Matcher:
    def __init__(self, client, parties, base):
        self.client, self.parties, self.base = client, parties, base
        self.grid = {}
        for i, (_, o, _, _) in enumerate(parties):
            self.grid.setdefault((int(o[0] // CELL), int(o[1] // CELL)), []).append(i)

    def table(self, sources, destinations):
        pts = sources + destinations
        path = "/table/v1/driving/%s?sources=%s&destinations=%s&annotations=duration,distance" % (
            ";".join("%.7f,%.7f" % p for p in pts), ";".join(str(i) for i in range(len(sources))),
            ";".join(str(i) for i in range(len(sources), len(pts))))
        status, body, _ = self.client.get(path)
        if status != 200:
            raise RuntimeError("osrm /table answered %d: %s" % (status, body[:200]))
        doc = json.loads(body)
        return doc["durations"], doc["distances"]

    def match(self, req, now):
        origin, dest, depart = req
        cx, cy = int(origin[0] // CELL), int(origin[1] // CELL)
        cands = []
        for gx in range(cx - 1, cx + 2):
            for gy in range(cy - 1, cy + 2):
                for i in self.grid.get((gx, gy), ()):
                    _, o, _, t = self.parties[i]
                    if t > now and abs(t - depart) <= WINDOW_S and meters(origin, o) <= WALK_M:
                        cands.append(i)
        # Two tables: candidates' origins (and the rider's origin, for the solo fare) to the
        # rider's destination; the rider's destination to the candidates' destinations.
        dur_to, dist_to = self.table([self.parties[i][1] for i in cands] + [origin], [dest])
        if dist_to[-1][0] is None:
            return []
        solo = sum(meter_legs([dist_to[-1][0]]))
        out = []
        if cands:
            dur_from, dist_from = self.table([dest], [self.parties[i][2] for i in cands])
            for k, i in enumerate(cands):
                a, b = dur_to[k][0], dur_from[0][k]
                base_dur, base_dist = self.base[i]
                if a is None or b is None or base_dur is None:
                    continue
                added = a + b - base_dur
                pct = added / base_dur * 100 if base_dur > 0 else (math.inf if added > 0 else 0)
                if pct > DETOUR_PCT:
                    continue
                legs = meter_legs([dist_to[k][0], dist_from[0][k]])
                pooled = int(by_leg_share(legs, [2, 1], 0) // 10 * 10)
                out.append((solo - pooled, added, self.parties[i][0]))
        out.sort(key=lambda m: (-m[0], m[1], m[2]))
        return out[:LIMIT]


def base_rides(client, parties):
    """Each party's own ride (duration s, distance m), from 100 × 100 tables (the diagonal)."""
    out = []
    for start in range(0, len(parties), 100):
        chunk = parties[start:start + 100]
        pts = [p[1] for p in chunk] + [p[2] for p in chunk]
        n = len(chunk)
        path = "/table/v1/driving/%s?sources=%s&destinations=%s&annotations=duration,distance" % (
            ";".join("%.7f,%.7f" % p for p in pts), ";".join(str(i) for i in range(n)), ";".join(str(i) for i in range(n, 2 * n)))
        status, body, _ = client.get(path)
        if status != 200:
            raise RuntimeError("osrm /table answered %d: %s" % (status, body[:200]))
        doc = json.loads(body)
        out += [(doc["durations"][i][i], doc["distances"][i][i]) for i in range(n)]
    return out


def main():
    import osrm
    ap = argparse.ArgumentParser()
    ap.add_argument("--parties", type=int, default=10000)
    ap.add_argument("--network", choices=["osm", "nodelink"], default="osm")
    args = ap.parse_args()
    runs = pooling_http.SEQUENTIAL_ROUNDS
    rng = random.Random(2323)
    key, area, points = "pooling.http", "central Seoul", None
    if args.network == "nodelink":
        import nodelink
        key, area, points = "pooling.nodelink.http", "Seoul (node-link roads)", nodelink.POINTS
    pts = pooling_http.road_points(os.path.join(benchlib.ROOT, "data"), points)
    now = time.time()
    parties = pooling_http.make_parties(pts, args.parties, now, rng)
    requests = pooling_http.make_requests(pts, 2000, now, rng)[:pooling_http.SEQUENTIAL]
    base = os.path.join(benchlib.OUT, "osrm", "seoul-ch", "seoul-central.osrm")
    if args.network == "nodelink":
        base = os.path.join(benchlib.OUT, "osrm", "nodelink-ch", "seoul-nodelink.osrm")  # nodelink.py prepared it
    elif not os.path.exists(base + ".hsgr"):
        base, _ = osrm.prepare(os.path.join(benchlib.ROOT, "data/osm/seoul-central.osm.pbf"),
                               os.path.join(benchlib.OUT, "osrm", "seoul-ch"), "ch")
    proc, port = osrm.start_routed(base, "ch", extra=["--max-table-size", "10000"])
    try:
        client = httpclient.Client("127.0.0.1", port)
        matcher = Matcher(client, parties, base_rides(client, parties))
        # warm-up: 50 other requests of the same generator (the timed ones are the first 300)
        for r in pooling_http.make_requests(pts, 2000, now, random.Random(2324))[:50]:
            matcher.match(r, now)
        p50s, total = [], 0
        for _ in range(runs):
            lat = []
            for r in requests:
                t0 = benchlib.now_ns()
                total += len(matcher.match(r, now))
                lat.append((benchlib.now_ns() - t0) / 1e6)
            p50s.append(benchlib.percentile(lat, 50))
        client.close()
        benchlib.log("peer pooling: p50 %.2f ms" % sorted(p50s)[len(p50s) // 2])
        cond = ("%s osrm-routed CH (--max-table-size 10000) + a Python script: %d open parties in %s, the first %d "
                "match requests of pooling_http.py one after another (per-round p50, %d rounds); two /table calls a request, "
                "candidates from a grid index, insertion, 25%% detour limit, a distance-only Seoul meter, by-leg split; "
                "%.1f matches a request" % (osrm.version(), args.parties, area, len(requests), runs, total / float(runs * len(requests))))
        benchlib.emit([benchlib.record(key + ".match.p50", "peer", osrm.version() + " /table + Python",
                                       "match round trip p50, one client", "ms", "lower", p50s, len(requests), cond)])
    finally:
        httpclient.stop(proc)


if __name__ == "__main__":
    main()

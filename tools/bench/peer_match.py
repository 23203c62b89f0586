"""Map matching through osrm-routed's /match (issue 38), the peer of taxipot-bench's `matching`
section, on the same roads: OSRM CH prepared from the OSM file our bench graph was imported from
(--osm, default data/osm/seoul-central.osm.pbf; tools/bench/run passes its MATCH_OSM).

1. The same synthetic traces as ours (bench-out/inputs/match_traces.csv: trace id, driven length,
   sampling, σ, fixes), each with its timestamps, its σ as the radius and tidy=true: the share whose matched
   length (the matchings' distances, plus OSRM's own route between consecutive matchings, as ours
   bridges them) is within 2% of the driven length (`match.accuracy.within2pct`). OSRM's lengths
   are summed from the coordinates of its geometry; ours along our graph's edges; the driven length
   is our route's.
2. One 30-minute 1 Hz trace (match_trace_30min.csv) timed over HTTP, GET with timestamps,
   radiuses of 10 m and tidy=true (`match.http.30min1hz`); ours_match_http.py times our /match/v1 with the same
   client and request.

  peer_match.py [--osm FILE]

Each timing: the median of 5 requests after one warm-up. Skipped with a note when osrm-routed is
not installed (see peers.md) or the traces are missing (taxipot-bench writes them).
"""
import argparse
import csv
import json
import os
import re

import benchlib
import httpclient

RUNS = 5
DEFAULT_OSM = os.path.join(benchlib.ROOT, "data/osm/seoul-central.osm.pbf")


def read_trace():
    """The 30-minute trace: [(lon, lat, time)]."""
    with open(os.path.join(benchlib.INPUTS, "match_trace_30min.csv")) as f:
        r = csv.reader(f)
        next(r)
        return [(float(a), float(b), int(t)) for a, b, t in r]


def read_traces():
    """The accuracy traces in file order: [(id, driven length m, σ m, [(lon, lat, time)])]."""
    out = {}
    with open(os.path.join(benchlib.INPUTS, "match_traces.csv")) as f:
        r = csv.reader(f)
        next(r)
        for tid, length, _interval, sigma, lon, lat, t in r:
            if tid not in out:
                out[tid] = (tid, float(length), float(sigma), [])
            out[tid][3].append((float(lon), float(lat), int(t)))
    return list(out.values())


def path(trace, radius=10):
    """The same GET /match/v1 request for osrm-routed and for our OSRM face. `tidy=true`, as
    OSRM's documentation advises for noisy high-rate traces: without it osrm-routed matched the
    1 Hz traces into tens of matchings going back and forth (several times the driven length, and
    7.6 s for the 30-minute trace in a trial run)."""
    coords = ";".join("%.6f,%.6f" % (lon, lat) for lon, lat, _ in trace)
    times = ";".join(str(t) for _, _, t in trace)
    radii = ";".join(("%g" % radius) for _ in trace)
    return "/match/v1/driving/%s?timestamps=%s&radiuses=%s&overview=false&gaps=split&tidy=true" % (coords, times, radii)


def timed_gets(client, p):
    """One warm-up, then RUNS timed GETs of `p`: the round trips (ms) answered 200 with code Ok,
    the count of the others, and the last body."""
    client.get(p)
    samples, errors, body = [], 0, b""
    for _ in range(RUNS):
        status, body, ns = client.get(p)
        if status == 200 and b'"code":"Ok"' in body:
            samples.append(ns / 1e6)
        else:
            errors += 1
            benchlib.log("match %d: %s" % (status, body[:200]))
    return samples, errors, body


def matched_length(client, body):
    """The matchings' distances plus the route between consecutive matchings (from the last
    matched fix of one to the first of the next); None when it cannot be had."""
    answer = json.loads(body)
    if answer.get("code") != "Ok":
        return None
    matchings = answer["matchings"]
    total = sum(m["distance"] for m in matchings)
    ends = {}
    for tp in answer["tracepoints"]:
        if tp is None:
            continue
        k = tp["matchings_index"]
        first, _ = ends.get(k, (tp["location"], None))
        ends[k] = (first, tp["location"])
    for k in range(1, len(matchings)):
        if k - 1 not in ends or k not in ends:
            return None
        a, b = ends[k - 1][1], ends[k][0]
        status, rb, _ = client.get("/route/v1/driving/%.6f,%.6f;%.6f,%.6f?overview=false" % (a[0], a[1], b[0], b[1]))
        if status != 200:
            return None
        total += json.loads(rb)["routes"][0]["distance"]
    return total


def osrm_base(osm):
    """OSRM CH files of `osm` in bench-out/osrm/match-<name> (prepared when absent or older)."""
    import osrm
    name = re.sub(r"\.osm(\.pbf|\.gz|\.bz2)?$", "", os.path.basename(osm))
    work = os.path.join(benchlib.OUT, "osrm", "match-" + name)
    base = os.path.join(work, name + ".osrm")
    if not os.path.exists(base + ".hsgr") or os.path.getmtime(base + ".hsgr") < os.path.getmtime(osm):
        base, _ = osrm.prepare(osm, work, "ch")
    return base


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--osm", default=os.environ.get("MATCH_OSM") or DEFAULT_OSM)
    args = ap.parse_args()
    try:
        import osrm
        trace = read_trace()
        traces = read_traces()
        base = osrm_base(args.osm)
        longest = max([len(trace)] + [len(t[3]) for t in traces])
        proc, port = osrm.start_routed(base, "ch", extra=("--max-matching-size", str(longest + 1)))
    except Exception as e:  # not installed, or no traces yet: a note, not a failure of the run
        benchlib.emit([], ["peer_match skipped: %s" % e])
        return
    network = os.path.basename(args.osm)
    impl = osrm.version() + " osrm-routed CH /match"
    try:
        client = httpclient.Client("127.0.0.1", port)
        # 1. Accuracy on the same traces.
        within, failed = 0, 0
        for tid, driven, sigma, fixes in traces:
            status, body, _ = client.get(path(fixes, sigma))
            length = matched_length(client, body) if status == 200 else None
            if length is None:
                failed += 1
            elif abs(length - driven) <= 0.02 * driven:
                within += 1
        share = 100.0 * within / max(1, len(traces))
        benchlib.log("peer /match accuracy: %.1f%% within 2%% (%d traces, %d failed)" % (share, len(traces), failed))
        # 2. The 30-minute trace, timed.
        samples, errors, body = timed_gets(client, path(trace))
        client.close()
    finally:
        httpclient.stop(proc)
    results = [
        benchlib.record(
            "match.accuracy.within2pct", "peer", impl, "traces whose matched length is within 2% of the driven length", "%", "higher",
            [share], len(traces), "the same %d traces as ours (bench-out/inputs/match_traces.csv) on %s; timestamps, radiuses = each "
            "trace's σ, gaps=split, tidy=true; OSRM's lengths summed from its geometry's coordinates, matchings bridged by its own /route; "
            "%d traces without an answer counted as outside 2%%" % (len(traces), network, failed), errors=failed),
        benchlib.record(
            "match.http.30min1hz", "peer", impl, "match one 30-minute 1 Hz trace over HTTP", "ms", "lower", samples, len(trace),
            "%d fixes, GET with timestamps, radiuses 10 m, overview=false, gaps=split, tidy=true; osrm-routed --algorithm ch, car.lua, on %s; "
            "loopback, one keep-alive connection; median of %d after a warm-up; %d failed" % (len(trace), network, RUNS, errors),
            errors=errors, body_bytes=len(body)),
    ]
    benchlib.emit(results)


if __name__ == "__main__":
    main()

"""Map matching through osrm-routed's /match (issue 38), the peer of taxipot-bench's `matching`
section, on the same roads: OSRM CH prepared from the OSM file our bench graph was imported from
(--osm, default data/osm/seoul-central.osm.pbf; tools/bench/run passes its MATCH_OSM).

1. The same synthetic traces as ours (bench-out/inputs/match_traces.csv: trace id, driven length,
   sampling, σ, fixes), each with its timestamps, its σ as the radius and tidy=true: the share whose matched
   length (the matchings' distances, plus OSRM's own route between consecutive matchings, as ours
   bridges them) is within 2% of the driven length (`match.accuracy.within2pct`). OSRM's length
   is the sum of its answer's `matchings[].distance` (plus the bridging routes' `distance`); ours
   along our graph's edges; the driven length is our route's. Each trace's result is written to
   bench-out/match/peer_per_trace_seedN.csv beside ours (ours_per_trace_seedN.csv).
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


def accuracy(client, traces, out_csv):
    """Matches every trace with its σ as radius: (traces within 2%, traces without an answer);
    writes each trace's result to `out_csv` (trace id, driven and matched length, matchings, error %,
    the answer's status)."""
    within, failed = 0, 0
    with open(out_csv, "w") as f:
        f.write("trace_id,true_length_m,matched_length_m,matchings,error_pct,status\n")
        for tid, driven, sigma, fixes in traces:
            status, body, _ = client.get(path(fixes, sigma))
            length = matched_length(client, body) if status == 200 else None
            matchings = ""
            if status == 200:
                try:
                    matchings = len(json.loads(body).get("matchings", []))
                except ValueError:
                    pass
            if length is None:
                failed += 1
                f.write("%s,%.1f,,%s,,%d\n" % (tid, driven, matchings, status))
                continue
            within += abs(length - driven) <= 0.02 * driven
            f.write("%s,%.1f,%.1f,%s,%.2f,%d\n" % (tid, driven, length, matchings, 100 * (length - driven) / driven, status))
    return within, failed


def traces_seed():
    """The seed of the traces (ours_per_trace_seedN.csv written beside them by taxipot-bench), or ""."""
    import glob
    found = sorted(glob.glob(os.path.join(benchlib.OUT, "match", "ours_per_trace_seed*.csv")), key=os.path.getmtime)
    return re.sub(r"\D", "", os.path.basename(found[-1])) if found else ""


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
        per_trace = os.path.join(benchlib.OUT, "match", "peer_per_trace_seed%s.csv" % traces_seed())
        os.makedirs(os.path.dirname(per_trace), exist_ok=True)
        within, failed = accuracy(client, traces, per_trace)
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
            "trace's σ, gaps=split, tidy=true; OSRM's length the sum of its matchings[].distance, matchings bridged by its own /route's "
            "distance; %d traces without an answer counted as outside 2%%; per trace in %s" % (
                len(traces), network, failed, os.path.relpath(per_trace, benchlib.ROOT)), errors=failed),
        benchlib.record(
            "match.http.30min1hz", "peer", impl, "match one 30-minute 1 Hz trace over HTTP", "ms", "lower", samples, len(trace),
            "%d fixes, GET with timestamps, radiuses 10 m, overview=false, gaps=split, tidy=true; osrm-routed --algorithm ch, car.lua, on %s; "
            "loopback, one keep-alive connection; median of %d after a warm-up; %d failed" % (len(trace), network, RUNS, errors),
            errors=errors, body_bytes=len(body)),
    ]
    benchlib.emit(results)


if __name__ == "__main__":
    main()

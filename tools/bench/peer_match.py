"""Map matching of one 30-minute 1 Hz trace (bench-out/inputs/match_trace_30min.csv, written by
taxipot-bench's `matching` section) through osrm-routed's /match on the same exported roads
(CH on central Seoul, as peer_table.py), with timestamps and radiuses of 10 m: the peer of
`match.inprocess.30min1hz` (target: ours ≤ 0.5× osrm-routed's time).

  peer_match.py            osrm-routed CH on bench-out/osrm/seoul-ch (prepared when absent)

Each figure: the median of 5 timed requests after one warm-up; the matched length is reported
beside it. Skipped with a note when osrm-routed is not installed (see peers.md).
"""
import csv
import os

import benchlib
import httpclient

RUNS = 5


def read_trace():
    with open(os.path.join(benchlib.INPUTS, "match_trace_30min.csv")) as f:
        r = csv.reader(f)
        next(r)
        return [(float(a), float(b), int(t)) for a, b, t in r]


def path(trace):
    coords = ";".join("%.6f,%.6f" % (lon, lat) for lon, lat, _ in trace)
    times = ";".join(str(t) for _, _, t in trace)
    radii = ";".join("10" for _ in trace)
    return "/match/v1/driving/%s?timestamps=%s&radiuses=%s&overview=false&gaps=split" % (coords, times, radii)


def main():
    try:
        import osrm
        trace = read_trace()
        base = os.path.join(benchlib.OUT, "osrm", "seoul-ch", "seoul-central.osrm")
        if not os.path.exists(base + ".hsgr"):
            base, _ = osrm.prepare(os.path.join(benchlib.ROOT, "data/osm/seoul-central.osm.pbf"),
                                   os.path.join(benchlib.OUT, "osrm", "seoul-ch"), "ch")
        proc, port = osrm.start_routed(base, "ch", extra=("--max-matching-size", str(len(trace) + 1)))
    except Exception as e:  # not installed, or no trace yet: a note, not a failure of the run
        benchlib.emit([], ["peer_match skipped: %s" % e])
        return
    try:
        client = httpclient.Client("127.0.0.1", port)
        p = path(trace)
        client.get(p)
        samples, failed, body = [], 0, b""
        for _ in range(RUNS):
            status, body, ns = client.get(p)
            if status == 200 and b'"code":"Ok"' in body:
                samples.append(ns / 1e6)
            else:
                failed += 1
        client.close()
    finally:
        httpclient.stop(proc)
    benchlib.emit([benchlib.record(
        "match.inprocess.30min1hz", "peer", osrm.version() + " osrm-routed CH /match", "match one 30-minute 1 Hz trace", "ms", "lower",
        samples, len(trace), "%d fixes, timestamps, radiuses 10 m, overview=false; osrm-routed --algorithm ch, car.lua, "
        "over HTTP (loopback, one keep-alive connection); median of %d after a warm-up; %d failed" % (len(trace), RUNS, failed),
        errors=failed, ok=failed == 0, body_bytes=len(body))])


if __name__ == "__main__":
    main()

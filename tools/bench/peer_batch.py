"""Peer: the analyst's loop, one osrm-routed request per CSV row (requests.Session, keep-alive),
the Seoul mid-size day fare computed in Python from the route distance, a CSV row written out.

It is timed on the first N rows of the same batch file our batch reads, and its rate is
extrapolated to the whole file (stated as such in the record). Uses the CH dataset that
peer_routing.py prepared (bench-out/osrm/seoul-ch).
Usage: peer_batch.py BATCH.csv SAMPLE_ROWS
"""
import csv
import io
import os
import sys

import requests

import benchlib
import httpclient
import osrm


def fare_krw(distance_m):
    """Seoul mid-size day meter from distance alone: 4,800 won for 1.6 km, 100 won per 131 m."""
    if distance_m <= 1600:
        return 4800
    return 4800 + 100 * int((distance_m - 1600) // 131 + 1)


def run_sample(url, rows):
    session = requests.Session()
    out = io.StringIO()
    w = csv.writer(out)
    failed = 0
    for row in rows:
        trip, olon, olat, dlon, dlat, depart = row
        try:
            r = session.get("%s/route/v1/driving/%s,%s;%s,%s?overview=false" % (url, olon, olat, dlon, dlat),
                            timeout=10)
            doc = r.json()
            route = doc["routes"][0]
            d, t = route["distance"], route["duration"]
            w.writerow(row + [round(d, 1), round(t, 1), fare_krw(d), ""])
        except Exception as e:  # the analyst's loop keeps going
            failed += 1
            w.writerow(row + ["", "", "", str(e)])
    return failed


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    path, sample = sys.argv[1], int(sys.argv[2])
    with open(path) as f:
        total = sum(1 for _ in f) - 1
    with open(path) as f:
        r = csv.reader(f)
        next(r)
        rows = [row for _, row in zip(range(sample + 200), r)]
    # the warm-up gets the 200 rows after the timed ones (rows the timed runs never see)
    rows, warm = rows[:sample], rows[sample:]
    base = os.path.join(benchlib.OUT, "osrm", "seoul-ch", "seoul-central.osrm")
    if not os.path.exists(base + ".hsgr"):
        base, _ = osrm.prepare(os.path.join(benchlib.ROOT, "data/osm/seoul-central.osm.pbf"),
                               os.path.join(benchlib.OUT, "osrm", "seoul-ch"), "ch")
    proc, port = osrm.start_routed(base, "ch")
    try:
        url = "http://127.0.0.1:%d" % port
        run_sample(url, warm)
        runs = 5
        chunk = max(1, len(rows) // runs)
        rates, failed = [], 0
        for i in range(runs):
            part = rows[i * chunk:(i + 1) * chunk]
            t0 = benchlib.now_ns()
            failed += run_sample(url, part)
            rates.append(len(part) / ((benchlib.now_ns() - t0) / 1e9))
    finally:
        httpclient.stop(proc)
    import statistics
    med = statistics.median(rates)
    cond = ("per-row GET osrm-routed CH (requests.Session keep-alive) + Python fare + csv.writer, 1 process; "
            "timed on %d of %d rows in %d runs, %d failed; %d-row time extrapolated from the rate" % (
                chunk * runs, total, runs, failed, total))
    impl = "Python loop over osrm-routed (%s)" % osrm.version()
    results = [
        benchlib.record("batch.rows_per_s", "peer", impl, "rows/s", "rows/s", "higher", rates, chunk, cond, errors=failed),
        benchlib.record("batch.total_s", "peer", impl, "time for the whole file (extrapolated)", "s", "lower",
                        [total / r for r in rates], total, cond, errors=failed, extrapolated=True),
    ]
    benchlib.log("batch peer: %.0f rows/s -> %.0f s for %d rows (extrapolated)" % (med, total / med, total))
    benchlib.emit(results)


if __name__ == "__main__":
    main()

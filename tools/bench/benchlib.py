"""Shared helpers of the peer runners: paths, timing, statistics and the result format.

Every runner prints one JSON document on stdout: {"results": [record, ...], "notes": [...]}.
A record is one measured figure of one side:

    {"key": "coordinates.5179", "side": "peer", "impl": "pyproj 3.7.2",
     "metric": "throughput", "unit": "Mpts/s", "better": "higher",
     "median": 7.1, "min": 6.8, "max": 7.3, "runs": 5, "n": 1000000,
     "conditions": "1M points, WGS84 -> EPSG:5179, vectorised"}

`key` pairs ours with the peer in the report; `runs` is the number of timed repetitions (warm-up
excluded) over which median/min/max are taken; `n` the items per run.
"""
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
PEERS = os.path.join(HERE, ".peers")
OSRM_DIR = os.path.join(PEERS, "osrm")
OUT = os.environ.get("BENCH_OUT", os.path.join(ROOT, "bench-out"))
INPUTS = os.path.join(OUT, "inputs")
QUICK = os.environ.get("BENCH_QUICK") == "1"


def log(*args):
    print("[bench]", *args, file=sys.stderr, flush=True)


def now_ns():
    return time.perf_counter_ns()


def percentile(values, p):
    """Nearest-rank percentile (p in 0..100) of a non-empty list."""
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(round(p / 100.0 * (len(s) - 1)))))
    return s[k]


def pass_percentiles(timed, ps=(50, 99)):
    """Percentiles of one pass of (latency, ok) pairs over the successful calls only, and the
    count of failed ones: a failed request is never inside a latency (it fails early and would
    pull the percentile down). NaN for every percentile when none succeeded."""
    good = [t for t, ok in timed if ok]
    failed = len(timed) - len(good)
    return [percentile(good, p) if good else float("nan") for p in ps], failed


def record(key, side, impl, metric, unit, better, samples, n, conditions, errors=0, **extra):
    """A result record from per-run samples (warm-ups already excluded). `errors`: failed items
    over the timed runs (errors, non-2xx answers, a non-zero exit, non-finite outputs); a target
    requires none (report.py judges a record with errors as missed)."""
    finite = [x for x in samples if x == x]
    r = {
        "key": key, "side": side, "impl": impl, "metric": metric, "unit": unit,
        "better": better, "median": statistics.median(finite) if finite else None,
        "min": min(finite) if finite else None, "max": max(finite) if finite else None,
        "runs": len(finite), "n": n, "errors": errors, "conditions": conditions,
    }
    r.update(extra)
    return r


def timed_runs(fn, runs, warmups=1):
    """Calls fn() warmups+runs times; returns the wall seconds of the timed runs and the last value."""
    value = None
    for _ in range(warmups):
        value = fn()
    secs = []
    for _ in range(runs):
        t0 = now_ns()
        value = fn()
        secs.append((now_ns() - t0) / 1e9)
    return secs, value


def emit(results, notes=()):
    json.dump({"results": results, "notes": list(notes)}, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


def read_f64_pairs(path):
    """An (n, 2) float64 array of lon,lat from a raw little-endian file."""
    import numpy as np
    a = np.fromfile(path, dtype="<f8")
    return a.reshape(-1, 2)


def stamp(path, commit, started_at):
    """Gives every record of the result file `path` the commit and start (epoch seconds) of the
    step that wrote it (tools/bench/run's `step`), unless it already carries its own: a file
    copied in from another run keeps saying where it came from (report.py shows it in the row)."""
    with open(path) as f:
        doc = json.load(f)
    for r in doc.get("results", []):
        r.setdefault("commit", commit)
        r.setdefault("started_at", started_at)
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1)
    os.replace(path + ".tmp", path)


def runs_count(full=5, quick=5):
    return quick if QUICK else full

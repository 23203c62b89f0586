"""Peer: pyproj's vectorised transform of the same 1M points (WGS84 -> 5179, KATEC, 3857).

Also writes pyproj's answers to bench-out/coords-peer-<target>.f64 so that our side can
report its largest difference from PROJ's answer.
"""
import os

import numpy as np
import pyproj

import benchlib

KATEC = ("+proj=tmerc +lat_0=38 +lon_0=128 +k=0.9999 +x_0=400000 +y_0=600000 +ellps=bessel "
         "+towgs84=-115.80,474.99,674.11,1.16,-2.31,-1.63,6.43 +units=m +no_defs")
TARGETS = [("5179", "EPSG:5179"), ("katec", KATEC), ("3857", "EPSG:3857")]


def main():
    pts = benchlib.read_f64_pairs(os.path.join(benchlib.INPUTS, "coords_1m.f64"))
    x = np.ascontiguousarray(pts[:, 0])
    y = np.ascontiguousarray(pts[:, 1])
    n = len(x)
    runs = benchlib.runs_count(5, 5)
    impl = "pyproj %s (PROJ %s)" % (pyproj.__version__, pyproj.proj_version_str)
    results = []
    for key, target in TARGETS:
        t = pyproj.Transformer.from_crs("EPSG:4326", target, always_xy=True)
        t.transform(x + 0.01, y + 0.01)  # warm-up on other points (the same moved 0.01° north-east)
        secs, (ox, oy) = benchlib.timed_runs(lambda: t.transform(x, y), runs, warmups=0)
        failed = int(n - np.count_nonzero(np.isfinite(ox) & np.isfinite(oy)))
        np.stack([ox, oy], axis=1).astype("<f8").tofile(os.path.join(benchlib.OUT, "coords-peer-%s.f64" % key))
        rates = [n / s / 1e6 for s in secs]
        results.append(benchlib.record(
            "coordinates." + key, "peer", impl, "throughput", "M points/s", "higher", rates, n,
            "1M points WGS84 -> %s, Transformer.transform on numpy arrays, 1 thread (as pyproj runs); "
            "%d outputs not finite" % (key.upper(), failed), errors=failed, cores=1))
        benchlib.log("pyproj ->%s: %.2f M points/s" % (key, results[-1]["median"]))
    benchlib.emit(results)


if __name__ == "__main__":
    main()

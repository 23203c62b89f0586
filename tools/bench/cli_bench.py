"""Our side through the `taxipot` CLI, timed from outside (wall clock around the child, peak RSS from wait4).

  cli_bench.py coords BIN            taxipot transform WGS84 -> UTMK over the 1M points as x,y lines
  cli_bench.py batch BIN FILE RUNS   taxipot batch FILE -o bench-out/batch-out.csv
  cli_bench.py import-seoul BIN      taxipot import osm of central Seoul, 5 runs
  cli_bench.py synth BIN NODES LABEL taxipot synth-osm + taxipot import osm (then prints the graph path
                                     in the record "graph" field for the route figures)
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

import benchlib


def time_v(cmd, stdout=subprocess.DEVNULL, stdin=None):
    """Runs cmd; returns (exit code, wall seconds, peak RSS in MB, stderr text).

    Wall time is taken with a monotonic clock around the child alone (GNU time's elapsed
    figure has 10 ms steps, too coarse for runs of 50-100 ms); the peak RSS is the child's
    own, from wait4."""
    with tempfile.TemporaryFile() as errf:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=stdout, stdin=stdin, stderr=errf)
        _, status, usage = os.wait4(p.pid, 0)
        secs = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        errf.seek(0)
        err = errf.read().decode(errors="replace")
    return p.returncode, secs, usage.ru_maxrss / 1024.0, err


def coords(binary):
    src = benchlib.read_f64_pairs(os.path.join(benchlib.INPUTS, "coords_1m.f64"))
    path = os.path.join(benchlib.INPUTS, "coords_1m.csv")
    if not os.path.exists(path):
        import numpy as np
        np.savetxt(path + ".tmp", src, fmt="%.8f", delimiter=",")
        os.replace(path + ".tmp", path)
    n = len(src)
    records = []
    cond = "1M x,y lines (8 decimals) from the same points -> CSV on /dev/null, all cores, whole process"
    for key, target in (("5179", "UTMK"), ("katec", "KATEC"), ("3857", "WEBMERCATOR")):
        cmd = [binary, "transform", "--from", "WGS84", "--to", target, path]
        rc, _, _, err = time_v(cmd)  # warm-up
        if rc != 0:
            raise SystemExit("taxipot transform failed (%d): %s" % (rc, err[-500:]))
        rates, mbs, failed = [], [], 0
        for _ in range(5):
            rc, secs, mb, _ = time_v(cmd)
            failed += rc != 0  # a run that exits non-zero is a failure (a target requires none)
            rates.append(n / secs / 1e6)
            mbs.append(mb)
        records.append(benchlib.record("coordinates.cli." + key, "ours", "taxipot transform", "throughput",
                                       "M points/s", "higher", rates, n, cond + "; %d timed runs exited non-zero" % failed,
                                       errors=failed, peak_mb=max(mbs), cores=os.cpu_count()))
    # The peers doing the same whole job (text in, text out), for each target: PROJ's own
    # command-line tool, and pyproj in a plain CSV script. The CLI's target is 10x the faster.
    katec = ("+proj=tmerc +lat_0=38 +lon_0=128 +k=0.9999 +x_0=400000 +y_0=600000 +ellps=bessel "
             "+towgs84=-115.80,474.99,674.11,1.16,-2.31,-1.63,6.43 +units=m +no_defs")
    targets = (("5179", "EPSG:5179"), ("katec", katec), ("3857", "EPSG:3857"))
    cs2cs = shutil.which("cs2cs")
    if cs2cs:
        spaced = os.path.join(benchlib.INPUTS, "coords_1m.txt")
        if not os.path.exists(spaced):
            with open(path) as f, open(spaced + ".tmp", "w") as g:
                for line in f:
                    g.write(line.replace(",", " "))
            os.replace(spaced + ".tmp", spaced)
        version = subprocess.run([cs2cs], capture_output=True, text=True).stderr.split("\n")[0].strip()
        for key, crs in targets:
            cmd = [cs2cs, "-f", "%.3f", "+proj=longlat", "+datum=WGS84", "+no_defs", "+to"] + crs.split()
            rates = []
            for i in range(4):
                with open(spaced) as f:
                    rc, secs, _, err = time_v(cmd, stdin=f)
                if rc != 0:  # a peer that fails has no figure
                    raise SystemExit("cs2cs failed (%d): %s" % (rc, err[-500:]))
                if i > 0:  # the first run warms the page cache and PROJ's database
                    rates.append(n / secs / 1e6)
            records.append(benchlib.record("coordinates.cli." + key, "peer-cs2cs", "cs2cs (%s)" % version, "throughput",
                                           "M points/s", "higher", rates, n,
                                           "1M 'x y' lines (8 decimals) from the same points -> %s, -f %%.3f, "
                                           "text on /dev/null, whole process, 1 thread (as cs2cs runs)" % key, cores=1))
    # pyproj doing the same job in a plain script (numpy reads and writes the text).
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pyproj_csv.py")
    import pyproj
    for key, crs in targets:
        cmd = [sys.executable, script, path, crs]
        rates = []
        for i in range(4):
            rc, secs, _, err = time_v(cmd)
            if rc != 0:
                raise SystemExit("pyproj_csv.py failed (%d): %s" % (rc, err[-500:]))
            if i > 0:  # the first run warms the page cache and PROJ's database
                rates.append(n / secs / 1e6)
        records.append(benchlib.record("coordinates.cli." + key, "peer-pyproj-csv",
                                       "pyproj %s in a script (numpy loadtxt/savetxt)" % pyproj.__version__, "throughput",
                                       "M points/s", "higher", rates, n,
                                       "1M x,y lines (8 decimals) from the same points -> %s, numpy.loadtxt, "
                                       "Transformer.transform, numpy.savetxt %%.3f, text on /dev/null, whole process, 1 thread" % key,
                                       cores=1))
    benchlib.emit(records)


def batch(binary, path, runs):
    with open(path) as f:
        rows = sum(1 for _ in f) - 1
    out = os.path.join(benchlib.OUT, "batch-out.csv")
    secs_list, mbs = [], []
    rc, bad_exits = 0, 0
    for _ in range(runs):
        rc, secs, mb, err = time_v([binary, "batch", path, "-o", out])
        if rc not in (0, 2):
            raise SystemExit("taxipot batch failed (%d): %s" % (rc, err[-800:]))
        bad_exits += rc != 0  # 2: some rows failed; every target requires none
        secs_list.append(secs)
        mbs.append(mb)
    failed = 0
    with open(out) as f:
        header = f.readline().rstrip("\n").split(",")
        if "error" in header and header[-1] == "error":
            for line in f:
                if not line.endswith(",\n") and not line.endswith(",\r\n"):
                    failed += 1
    cond = "%d central-Seoul rows (coordinates + depart_at), all cores, whole process incl. graph load; " \
           "%d run(s), %d exited non-zero (last exit %d), %d rows with an error in the last" % (rows, runs, bad_exits, rc, failed)
    impl = "taxipot batch"
    errors = failed + bad_exits
    benchlib.emit([
        benchlib.record("batch.total_s", "ours", impl, "time for the whole file", "s", "lower", secs_list, rows, cond,
                        errors=errors),
        benchlib.record("batch.rows_per_s", "ours", impl, "rows/s", "rows/s", "higher", [rows / s for s in secs_list],
                        rows, cond, errors=errors),
        benchlib.record("batch.peak_mb", "ours", impl, "peak memory", "MB", "lower", mbs, rows, cond, errors=errors),
    ])


def import_seoul(binary):
    src = os.path.join(benchlib.ROOT, "data/osm/seoul-central.osm.pbf")
    graph = os.path.join(benchlib.OUT, "seoul-import-check.graph")
    cmd = [binary, "import", "osm", src, "-o", graph]
    rc, _, _, err = time_v(cmd)  # warm-up (file cache)
    if rc != 0:
        raise SystemExit("import osm failed (%d): %s" % (rc, err[-800:]))
    secs, mbs, failed = [], [], 0
    for _ in range(5):
        rc, s, mb, _ = time_v(cmd)
        failed += rc != 0
        secs.append(s)
        mbs.append(mb)
    cond = "central Seoul (seoul-central.osm.pbf), taxipot import osm: read, car profile, SCC, 16 landmarks, " \
           "write; whole process; %d timed runs exited non-zero" % failed
    impl = "taxipot import osm"
    benchlib.emit([
        benchlib.record("routing.seoul.ch.prepare_s", "ours", impl, "prepare time", "s", "lower", secs, 1, cond, errors=failed),
        benchlib.record("routing.seoul.ch.prepare_mb", "ours", impl, "prepare peak memory", "MB", "lower", mbs, 1, cond,
                        errors=failed),
    ])


def import_nodelink(binary):
    """Issue 34's target: import and prepare of the Seoul node-link network (the Makefile's graph rule)."""
    src = os.path.join(benchlib.ROOT, "data/build/nodelink")
    data = os.path.join(benchlib.ROOT, "data/nodelink")
    if not os.path.exists(os.path.join(src, "MOCT_LINK.shp")):
        # its summary line goes to our stderr: stdout is this step's JSON
        subprocess.run(["bash", os.path.join(benchlib.ROOT, "tools/nodelink/make-shapefiles")], check=True, stdout=sys.stderr)
    os.makedirs(benchlib.OUT, exist_ok=True)
    graph = os.path.join(benchlib.OUT, "seoul-nodelink-import-check.graph")
    cmd = [binary, "import", "nodelink", src, "-o", graph, "--quiet",
           "--speeds", os.path.join(data, "topis_speed_20181023.csv"),
           "--speed-mapping", os.path.join(data, "topis_standard_link_mapping_202003.csv")]
    rc, _, _, err = time_v(cmd)  # warm-up (file cache)
    if rc != 0:
        raise SystemExit("import nodelink failed (%d): %s" % (rc, err[-800:]))
    secs, cpus, failed = [], [], 0
    for _ in range(5):
        before = os.times()
        rc, s, _, _ = time_v(cmd)
        after = os.times()
        failed += rc != 0
        secs.append(s)
        cpus.append(after.children_user - before.children_user + after.children_system - before.children_system)
    cond = "Seoul node-link network (data/build/nodelink shapefiles + TOPIS measured speeds), taxipot import nodelink: " \
           "read, turn rules, SCC, 16 landmarks, contraction hierarchy, write; whole process; load average %.1f; " \
           "%d timed runs exited non-zero" % (os.getloadavg()[0], failed)
    impl = "taxipot import nodelink"
    benchlib.emit([
        benchlib.record("routing.nodelink.prepare_s", "ours", impl, "import + prepare time", "s", "lower", secs, 1, cond,
                        errors=failed),
        benchlib.record("routing.nodelink.prepare_cpu_s", "ours", impl, "import + prepare CPU time (user + system)", "s",
                        "lower", cpus, 1, cond, errors=failed),
    ])


def synth(binary, nodes, label):
    d = os.path.join(benchlib.OUT, "synth")
    os.makedirs(d, exist_ok=True)
    osm = os.path.join(d, "city-%s.osm" % label)
    graph = os.path.join(d, "city-%s.graph" % label)
    if not os.path.exists(osm):
        p = subprocess.run([binary, "synth-osm", "--nodes", str(nodes), "--seed", "7", "-o", osm[:-4] + ".tmp.osm"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if p.returncode != 0:
            raise SystemExit("synth-osm failed: " + p.stderr.decode(errors="replace")[-500:])
        os.replace(osm[:-4] + ".tmp.osm", osm)
    rc, secs, mb, err = time_v([binary, "import", "osm", osm, "-o", graph])
    if rc != 0:
        raise SystemExit("import osm failed (%d): %s" % (rc, err[-800:]))
    size_mb = os.path.getsize(osm) / 1e6
    cond = "synthetic city %s (taxipot synth-osm --nodes %d --seed 7, %.0f MB .osm), import + prepare " \
           "(landmarks) to the graph file" % (label, nodes, size_mb)
    impl = "taxipot import osm"
    benchlib.emit([
        benchlib.record("routing.synth.%s.prepare_s" % label, "ours", impl, "prepare time", "s", "lower", [secs], 1,
                        cond, graph=graph, osm=osm),
        benchlib.record("routing.synth.%s.prepare_mb" % label, "ours", impl, "prepare peak memory", "MB", "lower",
                        [mb], 1, cond),
    ])


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "coords":
        coords(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == "batch":
        batch(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif len(sys.argv) == 3 and sys.argv[1] == "import-seoul":
        import_seoul(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "import-nodelink":
        import_nodelink(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == "synth":
        synth(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    else:
        sys.exit(__doc__)

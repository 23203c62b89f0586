"""OSRM peer plumbing: prepare a dataset (CH or MLD) with time and peak memory, run osrm-routed."""
import os
import re
import shutil
import subprocess

import benchlib
import httpclient

BIN = os.path.join(benchlib.OSRM_DIR, "bin")
CAR = os.path.join(benchlib.OSRM_DIR, "car.lua")
CAR_DISTANCE = os.path.join(benchlib.OSRM_DIR, "car-distance.lua")


def version():
    out = subprocess.run([os.path.join(BIN, "osrm-routed"), "--version"], capture_output=True, text=True)
    return "OSRM " + out.stdout.strip().lstrip("v")


def distance_profile():
    """car.lua with weight_name = 'distance' (OSRM's own option), beside car.lua for its lib/."""
    if not os.path.exists(CAR_DISTANCE):
        text = open(CAR).read()
        new = re.sub(r"weight_name\s*=\s*'routability'", "weight_name = 'distance'", text, count=1)
        if new == text:
            raise RuntimeError("car.lua: weight_name = 'routability' not found")
        open(CAR_DISTANCE, "w").write(new)
    return CAR_DISTANCE


def timed(cmd, log_path):
    """Runs cmd under /usr/bin/time -v: (wall seconds, peak RSS MB). Raises on failure."""
    with open(log_path, "ab") as logf:
        p = subprocess.run(["/usr/bin/time", "-v"] + cmd, stdout=logf, stderr=subprocess.PIPE)
    err = p.stderr.decode(errors="replace")
    open(log_path, "a").write(err)
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d); see %s" % (os.path.basename(cmd[0]), p.returncode, log_path))
    return parse_time_v(err)


def parse_time_v(text):
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text).group(1)
    parts = [float(x) for x in wall.split(":")]
    secs = parts[-1] + 60 * parts[-2] + (3600 * parts[-3] if len(parts) == 3 else 0)
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
    return secs, rss_kb / 1024.0


def prepare(osm_path, workdir, algorithm, profile=CAR):
    """Extract + contract (ch) or extract + partition + customize (mld) into workdir.

    Returns (base path, {"extract": (s, MB), "contract"|"partition"+"customize": (s, MB)}).
    """
    if os.path.isdir(workdir):
        shutil.rmtree(workdir)
    os.makedirs(workdir)
    name = os.path.basename(osm_path)
    local = os.path.join(workdir, name)
    os.symlink(os.path.abspath(osm_path), local)
    base = re.sub(r"\.osm(\.pbf|\.bz2)?$", "", local) + ".osrm"
    logp = os.path.join(workdir, "prepare.log")
    steps = {"extract": timed([os.path.join(BIN, "osrm-extract"), "-p", profile, local], logp)}
    if algorithm == "ch":
        steps["contract"] = timed([os.path.join(BIN, "osrm-contract"), base], logp)
    else:
        steps["partition"] = timed([os.path.join(BIN, "osrm-partition"), base], logp)
        steps["customize"] = timed([os.path.join(BIN, "osrm-customize"), base], logp)
    return base, steps


def start_routed(base, algorithm, port=None):
    port = port or httpclient.free_port()
    logf = open(base + ".routed.log", "w")
    proc = subprocess.Popen([os.path.join(BIN, "osrm-routed"), "--algorithm", algorithm,
                             "--ip", "127.0.0.1", "--port", str(port), base],
                            stdout=logf, stderr=subprocess.STDOUT)
    httpclient.wait_for_port("127.0.0.1", port, proc=proc)
    return proc, port


def route_path(a, b, overview="full"):
    q = "overview=false" if overview == "false" else "overview=full&geometries=polyline6"
    return "/route/v1/driving/%.7f,%.7f;%.7f,%.7f?%s" % (a[0], a[1], b[0], b[1], q)

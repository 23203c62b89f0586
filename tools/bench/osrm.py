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


class Capped(Exception):
    """A step stopped at its time cap: `seconds` is the cap, `mb` the peak memory until then."""

    def __init__(self, step, seconds, mb):
        super().__init__("%s stopped after %.0f s" % (step, seconds))
        self.step, self.seconds, self.mb = step, seconds, mb


def timed(cmd, log_path, cap=None):
    """Runs cmd under /usr/bin/time -v: (wall seconds, peak RSS MB). Raises on failure; raises
    Capped when it runs past `cap` seconds (the step is stopped by its pid)."""
    with open(log_path, "ab") as logf:
        p = subprocess.Popen(["/usr/bin/time", "-v"] + cmd, stdout=logf, stderr=subprocess.PIPE)
        try:
            _, err = p.communicate(timeout=cap)
            capped = False
        except subprocess.TimeoutExpired:
            # stop the OSRM step itself (the child of /usr/bin/time), so time still reports its peak memory
            kids = subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True, text=True).stdout.split()
            for k in kids:
                try:
                    os.kill(int(k), 15)
                except OSError:
                    pass
            _, err = p.communicate()
            capped = True
    err = err.decode(errors="replace")
    open(log_path, "a").write(err)
    if capped:
        secs, mb = parse_time_v(err)
        raise Capped(os.path.basename(cmd[0]), cap, mb)
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d); see %s" % (os.path.basename(cmd[0]), p.returncode, log_path))
    return parse_time_v(err)


def parse_time_v(text):
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text).group(1)
    parts = [float(x) for x in wall.split(":")]
    secs = parts[-1] + 60 * parts[-2] + (3600 * parts[-3] if len(parts) == 3 else 0)
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
    return secs, rss_kb / 1024.0


def prepare(osm_path, workdir, algorithm, profile=CAR, cap=None):
    """Extract + contract (ch) or extract + partition + customize (mld) into workdir.

    Returns (base path, {"extract": (s, MB), "contract"|"partition"+"customize": (s, MB)}).
    With `cap` (seconds for all steps), raises Capped(step, cap, MB) with `steps_done` set.
    """
    import time as _time
    t0 = _time.time()

    def left():
        return None if cap is None else max(1.0, cap - (_time.time() - t0))

    if os.path.isdir(workdir):
        shutil.rmtree(workdir)
    os.makedirs(workdir)
    name = os.path.basename(osm_path)
    local = os.path.join(workdir, name)
    os.symlink(os.path.abspath(osm_path), local)
    base = re.sub(r"\.osm(\.pbf|\.bz2)?$", "", local) + ".osrm"
    logp = os.path.join(workdir, "prepare.log")
    steps = {}
    plan = [("extract", [os.path.join(BIN, "osrm-extract"), "-p", profile, local])]
    if algorithm == "ch":
        plan.append(("contract", [os.path.join(BIN, "osrm-contract"), base]))
    else:
        plan += [("partition", [os.path.join(BIN, "osrm-partition"), base]),
                 ("customize", [os.path.join(BIN, "osrm-customize"), base])]
    for name, cmd in plan:
        try:
            steps[name] = timed(cmd, logp, left())
        except Capped as c:
            c.steps_done = steps
            c.step = name
            raise
    return base, steps


def start_routed(base, algorithm, port=None, extra=()):
    port = port or httpclient.free_port()
    logf = open(base + ".routed.log", "w")
    proc = subprocess.Popen([os.path.join(BIN, "osrm-routed"), "--algorithm", algorithm,
                             "--ip", "127.0.0.1", "--port", str(port)] + list(extra) + [base],
                            stdout=logf, stderr=subprocess.STDOUT)
    httpclient.wait_for_port("127.0.0.1", port, proc=proc)
    return proc, port


def route_path(a, b, overview="full"):
    q = "overview=false" if overview == "false" else "overview=full&geometries=polyline6"
    return "/route/v1/driving/%.7f,%.7f;%.7f,%.7f?%s" % (a[0], a[1], b[0], b[1], q)

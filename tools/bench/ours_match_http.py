"""Our /match/v1 over HTTP (issue 38): the 30-minute 1 Hz trace (bench-out/inputs/match_trace_30min.csv)
with the same client and the same GET request as osrm-routed in peer_match.py
(`match.http.30min1hz`, target: ours ≤ 0.5× osrm-routed's time).

Starts its own `taxipot serve` on the matching network: with --graph, a data folder in
bench-out/match-data whose build/seoul.graph is that graph (the other files linked from --data),
so the server matches on the same roads as taxipot-bench's `matching` section and OSRM.
`--max-url-kb 256`: the trace is a GET URL of about 60 KiB, as OSRM clients send it.

  ours_match_http.py --bin BIN [--data DIR] [--graph FILE] [--network TEXT]
"""
import argparse
import os
import shutil
import subprocess
import tempfile

import benchlib
import httpclient
from peer_match import RUNS, path, read_trace, timed_gets


def data_dir(data, graph):
    """`data`, or a folder linking its files with build/seoul.graph replaced by `graph`."""
    if not graph:
        return data
    out = os.path.join(benchlib.OUT, "match-data")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "build"))
    for name in os.listdir(data):
        if name != "build":
            os.symlink(os.path.abspath(os.path.join(data, name)), os.path.join(out, name))
    for name in os.listdir(os.path.join(data, "build")):
        if name != "seoul.graph":
            os.symlink(os.path.abspath(os.path.join(data, "build", name)), os.path.join(out, "build", name))
    os.symlink(os.path.abspath(graph), os.path.join(out, "build", "seoul.graph"))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--data", default="data")
    ap.add_argument("--graph")
    ap.add_argument("--network")
    args = ap.parse_args()
    try:
        trace = read_trace()
    except OSError as e:
        benchlib.emit([], ["ours_match_http skipped: %s" % e])
        return
    state = tempfile.mkdtemp(prefix="match-state-")
    port = httpclient.free_port()
    log = open(os.path.join(benchlib.OUT, "match-server.log"), "w")
    proc = subprocess.Popen([args.bin, "serve", "--host", "127.0.0.1", "--port", str(port), "--data", data_dir(args.data, args.graph),
                             "--state-dir", state, "--no-access-log", "--max-url-kb", "256"], stdout=log, stderr=subprocess.STDOUT)
    try:
        httpclient.wait_for_port("127.0.0.1", port, timeout=300, proc=proc)
        client = httpclient.Client("127.0.0.1", port)
        samples, errors, body = timed_gets(client, path(trace))
        client.close()
    finally:
        httpclient.stop(proc)
        shutil.rmtree(state, ignore_errors=True)
    network = args.network or (os.path.basename(args.graph) if args.graph else "the served graph")
    benchlib.emit([benchlib.record(
        "match.http.30min1hz", "ours", "taxipot serve /match/v1", "match one 30-minute 1 Hz trace over HTTP", "ms", "lower",
        samples, len(trace), "%d fixes, the same GET as osrm-routed's (timestamps, radiuses 10 m, overview=false, gaps=split, tidy=true), "
        "on %s; loopback, one keep-alive connection, the same client; median of %d after a warm-up; %d failed"
        % (len(trace), network, RUNS, errors), errors=errors, body_bytes=len(body))])


if __name__ == "__main__":
    main()

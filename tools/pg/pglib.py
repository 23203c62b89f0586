"""A throw-away PostgreSQL server and `taxipot serve` replicas on it, for tools/pg and the bench.

`TempPostgres` runs Debian's initdb and pg_ctl in a temporary folder on a free loopback port
(as the unprivileged user `nobody` when run as root, which PostgreSQL refuses), trust auth for
local connections, and removes everything on stop. Missing binaries raise an error: the caller
fails loudly, it never skips.
"""
import glob
import http.client
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time

HOST = "127.0.0.1"


def free_port():
    s = socket.socket()
    s.bind((HOST, 0))
    port = s.getsockname()[1]
    s.close()
    return port


def postgres_bin():
    """The newest PostgreSQL server binaries Debian installed, or an error saying what is missing."""
    for d in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]) if p.split("/")[-2].isdigit() else 0, reverse=True):
        if os.path.exists(os.path.join(d, "initdb")) and os.path.exists(os.path.join(d, "pg_ctl")):
            return d
    raise RuntimeError("PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql/*/bin: "
                       "install Debian's 'postgresql' (tools/install-deps does)")


class TempPostgres:
    def __init__(self):
        self.bindir = postgres_bin()
        self.dir = tempfile.mkdtemp(prefix="taxipot-pg-")
        self.data = os.path.join(self.dir, "data")
        self.port = free_port()
        self.as_root = os.geteuid() == 0
        if self.as_root:
            os.chmod(self.dir, 0o777)
        self._run("initdb", "-D", self.data, "-U", "taxipot", "--auth=trust", "-E", "UTF8", "--no-instructions")
        with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
            f.write(f"\nlisten_addresses = '{HOST}'\nport = {self.port}\nunix_socket_directories = '{self.dir}'\n"
                    "max_connections = 50\nshared_buffers = 32MB\nfsync = on\nsynchronous_commit = on\n")
        self.start()

    @property
    def url(self):
        return f"postgresql://taxipot@{HOST}:{self.port}/postgres"

    def _run(self, tool, *args):
        cmd = [os.path.join(self.bindir, tool), *args]
        if self.as_root:
            cmd = ["runuser", "-u", "nobody", "--", *cmd]
        # In the temporary folder: the caller's folder may be closed to `nobody`.
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=self.dir)
        if r.returncode != 0:
            raise RuntimeError(f"{tool} failed ({r.returncode}): {r.stdout[-2000:]}")
        return r.stdout

    def start(self):
        self._run("pg_ctl", "-D", self.data, "-l", os.path.join(self.dir, "log"), "-w", "-t", "30", "start")

    def stop(self, mode="fast"):
        self._run("pg_ctl", "-D", self.data, "-m", mode, "-w", "stop")

    def psql(self, sql):
        """Runs `sql` with psql; returns its unaligned output rows."""
        psql = os.path.join(self.bindir, "psql")
        r = subprocess.run([psql, self.url, "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"psql: {r.stderr}")
        return [line for line in r.stdout.splitlines() if line]

    def close(self):
        try:
            self.stop("immediate")
        except Exception:  # noqa: BLE001 - already stopped
            pass
        shutil.rmtree(self.dir, ignore_errors=True)


class Replica:
    """`taxipot serve` on a free port with its own state folder, on `store` (a URL, or None for SQLite)."""

    def __init__(self, binary, store, token, workdir, name, extra=()):
        self.binary, self.store, self.token, self.name, self.extra = binary, store, token, name, list(extra)
        self.state = os.path.join(workdir, name)
        os.makedirs(self.state, exist_ok=True)
        self.port = free_port()
        self.proc = None
        self.log = open(os.path.join(workdir, name + ".log"), "ab")

    def start(self):
        args = [self.binary, "serve", "--port", str(self.port), "--state-dir", self.state, "--no-access-log", *self.extra]
        if self.store:
            args += ["--party-store", self.store]
        env = dict(os.environ, TAXIPOT_WRITE_TOKEN=self.token)
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=self.log, env=env)

    def wait_ready(self, timeout=180):
        end = time.time() + timeout
        while time.time() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"replica {self.name} exited with {self.proc.returncode}: see {self.log.name}")
            try:
                if self.request("GET", "/health")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"replica {self.name} did not answer /health within {timeout} s")

    def request(self, method, path, body=None, headers=None, timeout=10):
        c = http.client.HTTPConnection(HOST, self.port, timeout=timeout)
        try:
            h = {"Authorization": f"Bearer {self.token}"} if method != "GET" else {}
            h.update(headers or {})
            data = json.dumps(body).encode() if body is not None else None
            if data is not None:
                h["Content-Type"] = "application/json"
            c.request(method, path, body=data, headers=h)
            r = c.getresponse()
            raw = r.read()
            return r.status, (json.loads(raw) if raw else None), {k.lower(): v for k, v in r.getheaders()}
        finally:
            c.close()

    def kill9(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def seoul_time(unix):
    return time.strftime("%Y-%m-%dT%H:%M:%S+09:00", time.gmtime(unix + 9 * 3600))


def party_body(lon, lat, depart_in=3600, seats=4, taken=1, title=None):
    b = {"origin": [lon, lat], "destination": [126.9882, 37.5701], "depart_at": seoul_time(time.time() + depart_in),
         "seats_total": seats, "seats_taken": taken}
    if title:
        b["title"] = title
    return b


def cluster_ids(replica, lon, lat, d=0.0005, zoom=18):
    """The party ids shown alone in /v1/clusters over a small box around (lon, lat)."""
    status, js, _ = replica.request("GET", f"/v1/clusters?bbox={lon - d},{lat - d},{lon + d},{lat + d}&zoom={zoom}")
    if status != 200:
        raise RuntimeError(f"/v1/clusters answered {status}: {js}")
    return {f["properties"].get("party_id") for f in js["features"] if not f["properties"].get("cluster")}

"""A minimal keep-alive HTTP/1.1 client over a raw socket, for round-trip latency.

The same client times our server and osrm-routed, so its own overhead (a few tens of µs of
Python) is in both figures. A connection is renewed every `per_connection` requests outside the
timed region (osrm-routed closes a keep-alive connection after 512 requests), and whenever the
server says `Connection: close`.
"""
import socket
import subprocess
import time

import benchlib


class Client:
    def __init__(self, host, port, per_connection=500):
        self.host, self.port, self.per_connection = host, port, per_connection
        self.sock = None
        self.used = 0

    def _connect(self):
        if self.sock:
            self.sock.close()
        self.sock = socket.create_connection((self.host, self.port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.used = 0

    def close(self):
        if self.sock:
            self.sock.close()
            self.sock = None

    def _read_until(self, marker):
        while marker not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("server closed the connection")
            self.buf += chunk
        i = self.buf.index(marker) + len(marker)
        head, self.buf = self.buf[:i], self.buf[i:]
        return head

    def _read_n(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(max(65536, n - len(self.buf)))
            if not chunk:
                raise ConnectionError("server closed the connection")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def request(self, method, path, body=b"", content_type="application/json"):
        """(status, body bytes, round-trip ns). Connection renewal is not timed."""
        if self.sock is None or self.used >= self.per_connection:
            self._connect()
        req = "%s %s HTTP/1.1\r\nHost: %s:%d\r\n" % (method, path, self.host, self.port)
        if body:
            req += "Content-Type: %s\r\nContent-Length: %d\r\n" % (content_type, len(body))
        data = req.encode() + b"\r\n" + body
        t0 = time.perf_counter_ns()
        self.sock.sendall(data)
        head = self._read_until(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                k, v = line.split(":", 1)
                headers[k.strip().lower()] = v.strip()
        if "content-length" in headers:
            payload = self._read_n(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            parts = []
            while True:
                size = int(self._read_until(b"\r\n").strip(), 16)
                parts.append(self._read_n(size + 2)[:size])
                if size == 0:
                    break
            payload = b"".join(parts)
        else:
            payload = b""
        elapsed = time.perf_counter_ns() - t0
        self.used += 1
        if headers.get("connection", "").lower() == "close":
            self.close()
        return status, payload, elapsed

    def get(self, path):
        try:
            return self.request("GET", path)
        except (ConnectionError, BrokenPipeError, ConnectionResetError):
            self._connect()  # a server that closed an idle connection: retry once, untimed setup
            return self.request("GET", path)


def wait_for_port(host, port, timeout=60.0, proc=None):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError("server exited with code %s before listening" % proc.returncode)
        try:
            socket.create_connection((host, port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError("nothing listens on %s:%d after %.0f s" % (host, port, timeout))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def latency_rounds(client, paths, rounds, warmup_paths=(), ok=lambda status, body: 200 <= status < 300):
    """Per-round p50/p99 (µs) of GET round trips over `paths`, of the answers that `ok` accepts
    only (a failed request is counted, never inside a latency), after an untimed warm-up over
    `warmup_paths` (give other paths than the timed ones). Returns (p50s, p99s, last round's
    (status, body) pairs, failed requests over all rounds)."""
    for p in warmup_paths:
        client.get(p)
    p50s, p99s, bodies, failed = [], [], [], 0
    for _ in range(rounds):
        timed = []
        bodies = []
        for p in paths:
            status, body, ns = client.get(p)
            timed.append((ns / 1000.0, ok(status, body)))
            bodies.append((status, body))
        (p50, p99), f = benchlib.pass_percentiles(timed)
        p50s.append(p50)
        p99s.append(p99)
        failed += f
    return p50s, p99s, bodies, failed


def stop(proc):
    """Stops a server this harness started (by its own pid)."""
    if proc and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

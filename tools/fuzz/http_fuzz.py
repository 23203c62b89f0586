#!/usr/bin/env python3
"""HTTP fuzzer for the Taxipot service.

Reads /openapi.json from a running server, then sends malformed requests to every
endpoint it lists: bad paths and methods, junk query strings, invalid UTF-8 and
percent-encoding, JSON of wrong types, huge and non-finite numbers, deep nesting,
oversized bodies and URLs, repeated parameters. It fails (exit 1) on any answer with
status 500, any request that gets no answer within the timeout (a hang), or a server
that stops answering /health (a crash). Prints a JSON summary.

Usage: http_fuzz.py --port P [--requests N] [--seed S] [--workers W] [--pid PID] [--token T]
"""
import argparse
import json
import os
import random
import socket
import sys
import threading
import time

JUNK_NUMBERS = ["", " ", "-", "+", ".", "1e309", "-1e309", "NaN", "nan", "Infinity", "-inf", "0x10", "1_000",
                "99999999999999999999999999", "-0", "1e-400", "١٢٣", "１２３", "0,0,0", ",", ";", "1;2", "1,,2",
                "181,91", "-181,-91", "126.97,37.56,1", "126.97;37.56", "%00", "abc", "🚕", "\u3131", "1" * 500]
JUNK_STRINGS = ["", " ", "\u0000", "'", '"', "\\", "%", "%%", "*", "NEAR(", "OR", "-", ":", "()", "\"*\"", "ㄱ", "가" * 101,
                "../../../../etc/passwd", "/etc/passwd", "file:///etc/passwd", "<script>", "SELECT * FROM places",
                "x" * 5000, "\ud7a3", "null", "[]", "{}"]
JSON_JUNK = [None, True, False, 0, -1, 1e308, -1e308, 2 ** 64, "", "x", [], {}, [1, 2], {"a": 1}, "NaN", 3.5, -0.0]


def rand_text(rng, n):
    alphabet = "abc가나다ㄱㄴ,;=&%?/#+. 0123456789-_{}[]\"'\\"
    return "".join(rng.choice(alphabet) for _ in range(n))


def pct_junk(rng):
    choices = ["%", "%G1", "%C3%28", "%FF%FE", "%00", "%E2%82", "%ED%A0%80", "%F4%90%80%80", "%2", "%%32"]
    return rng.choice(choices)


def deep_json(depth, kind):
    return ("[" * depth + "]" * depth) if kind else ('{"a":' * depth + "1" + "}" * depth)


class Fuzzer:
    def __init__(self, port, seed, timeout, token):
        self.port = port
        self.seed = seed
        self.timeout = timeout
        self.token = token
        self.lock = threading.Lock()
        self.stats = {"requests": 0, "status": {}, "status_500": [], "hangs": [], "connection_errors": 0}

    def endpoints(self):
        doc = self.raw("GET", "/openapi.json")[2]
        spec = json.loads(doc)
        eps = []
        for path, ops in spec["paths"].items():
            for method, op in ops.items():
                eps.append((method.upper(), path, op.get("parameters", []), "requestBody" in op))
        return eps

    def raw(self, method, target, headers=None, body=b"", sock=None, raw_request=None):
        """Sends one request on a fresh connection; returns (status, headers, body) or raises."""
        s = socket.create_connection(("127.0.0.1", self.port), timeout=self.timeout)
        try:
            if raw_request is not None:
                s.sendall(raw_request)
            else:
                h = {"Host": "127.0.0.1", "Connection": "close"}
                if body or method in ("POST", "PUT", "PATCH"):
                    h["Content-Length"] = str(len(body))
                h.update(headers or {})
                head = f"{method} {target} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in h.items()) + "\r\n"
                s.sendall(head.encode("utf-8", "surrogateescape") + body)
            data = b""
            while True:
                try:
                    chunk = s.recv(65536)
                except ConnectionResetError:
                    break
                if not chunk:
                    break
                data += chunk
        finally:
            s.close()
        if not data:
            return (0, {}, b"")
        head, _, rest = data.partition(b"\r\n\r\n")
        line = head.split(b"\r\n")[0].split(b" ")
        status = int(line[1]) if len(line) > 1 and line[1].isdigit() else -1
        return (status, {}, rest)

    def record(self, desc, status):
        with self.lock:
            self.stats["requests"] += 1
            self.stats["status"][str(status)] = self.stats["status"].get(str(status), 0) + 1
            if status == 500 and len(self.stats["status_500"]) < 20:
                self.stats["status_500"].append(desc)

    def fill_path(self, rng, path):
        out = []
        for seg in path.split("/"):
            if seg.startswith("{"):
                out.append(rng.choice(["abc", "x" * rng.randint(1, 200), pct_junk(rng), "..", "%2e%2e", "a-b_C9",
                                       str(rng.randint(-10, 10 ** 12)), "가나", "%2F", "*"]))
            else:
                out.append(seg)
        return "/".join(out)

    def query(self, rng, params):
        parts = []
        for p in params:
            if p.get("in") != "query" or rng.random() < 0.3:
                continue
            name = p["name"]
            v = rng.choice([rng.choice(JUNK_NUMBERS), rng.choice(JUNK_STRINGS), rand_text(rng, rng.randint(0, 40)), pct_junk(rng)])
            enc = "".join(c if c.isalnum() or c in "-_.,;%" else "%%%02X" % ord(c) if ord(c) < 128 else
                          "".join("%%%02X" % b for b in c.encode("utf-8", "surrogatepass")) for c in v)
            parts.append(f"{name}={enc}")
            if rng.random() < 0.1:
                parts.append(f"{name}={enc}")  # repeated parameter
        if rng.random() < 0.2:
            parts.append(rand_text(rng, 8).replace(" ", "+"))
        return "&".join(parts)

    def json_body(self, rng):
        r = rng.random()
        if r < 0.1:
            return deep_json(rng.choice([100, 1000, 100000]), rng.random() < 0.5).encode()
        if r < 0.2:
            return bytes(rng.randint(0, 255) for _ in range(rng.randint(1, 200)))
        if r < 0.25:
            return b'{"a":' + b'"' + b"\xff\xfe" + b'"}'
        if r < 0.3:
            return b'{"from":"WGS84","to":"UTMK","coords":[' + b",".join(b"[127,37]" for _ in range(rng.choice([10, 100001]))) + b"]}"
        keys = ["origin", "destination", "from", "to", "coords", "riders", "depart_at", "distance_m", "duration_s", "slow_s",
                "region", "taxi_class", "split", "rounding", "toll_krw", "drop_offs", "lon", "lat", "seats_total",
                "seats_taken", "title", "id"]
        obj = {}
        for k in rng.sample(keys, rng.randint(0, len(keys))):
            v = rng.choice(JSON_JUNK + [{"lon": rng.choice(JSON_JUNK), "lat": rng.choice(JSON_JUNK)},
                                        [{"lon": 126.97, "lat": 37.56, "riders": rng.choice(JSON_JUNK)}],
                                        [[rng.choice(JSON_JUNK), rng.choice(JSON_JUNK)]]])
            obj[k] = v
        text = json.dumps(obj)
        if rng.random() < 0.1:
            text = text[: rng.randint(0, len(text))]
        if rng.random() < 0.05:
            text = text.replace("1e+308", "1e999")
        return text.encode()

    def one(self, rng, eps):
        method, path, params, has_body = rng.choice(eps)
        kind = rng.random()
        headers = {}
        body = b""
        if self.token and rng.random() < 0.5:
            headers["Authorization"] = "Bearer " + (self.token if rng.random() < 0.7 else rand_text(rng, 10))
        elif rng.random() < 0.1:
            headers["Authorization"] = rng.choice(["Bearer", "Basic abc", "Bearer " + "x" * 3000, ""])
        if kind < 0.08:
            method = rng.choice(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "FOO"])
        target = self.fill_path(rng, path)
        if kind > 0.92:
            target = rng.choice(["/", "//", "/v1", "/v1/", "/v1/../health", "/%2e%2e/etc/passwd", "/v1/" + pct_junk(rng),
                                 path + "/" + rand_text(rng, 5).replace(" ", ""), "/" + "a" * rng.choice([100, 9000, 20000])])
        q = self.query(rng, params)
        if q:
            target += "?" + q
        if method in ("POST", "PUT", "PATCH"):
            body = self.json_body(rng)
            if rng.random() < 0.02:
                body = b"x" * (1 << 20 | 1)
            headers["Content-Type"] = rng.choice(["application/json", "text/plain", "application/json; charset=utf-8"])
        desc = f"{method} {target[:300]} body={body[:200]!r}"
        try:
            status, _, _ = self.raw(method, target, headers, body)
        except socket.timeout:
            with self.lock:
                self.stats["hangs"].append(desc)
            return
        except (ConnectionError, OSError):
            with self.lock:
                self.stats["connection_errors"] += 1
            status = 0
        self.record(desc, status)

    def raw_protocol(self, rng):
        """Broken HTTP at the protocol level: the server must answer or close, never hang or die."""
        reqs = [b"GARBAGE\r\n\r\n", b"GET /health HTTP/9.9\r\n\r\n", b"GET /health\r\n\r\n",
                b"GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
                b"POST /v1/fare HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{}",
                b"POST /v1/fare HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n",
                b"GET /health HTTP/1.1\r\nHost: x\r\n" + b"X-Big: " + b"a" * 200000 + b"\r\n\r\n",
                b"GET /health HTTP/1.1\r\n" + b"".join(b"H%d: v\r\n" % i for i in range(2000)) + b"\r\n",
                b"\x00\x01\x02\xff" * 100]
        r = rng.choice(reqs)
        try:
            s = socket.create_connection(("127.0.0.1", self.port), timeout=self.timeout)
            s.sendall(r)
            # A client that stops sending: the server must answer or close, not wait forever.
            s.shutdown(socket.SHUT_WR)
            data = b""
            while True:
                c = s.recv(65536)
                if not c:
                    break
                data += c
            s.close()
            status = int(data.split(b" ")[1]) if data.startswith(b"HTTP/") else 0
        except socket.timeout:
            with self.lock:
                self.stats["hangs"].append(f"raw {r[:80]!r}")
            return
        except (ConnectionError, OSError, ValueError, IndexError):
            status = 0
        self.record(f"raw {r[:80]!r}", status)

    def health(self):
        try:
            return self.raw("GET", "/health")[0] == 200
        except OSError:
            return False


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--requests", type=int, default=100000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--pid", type=int, help="server pid: checked alive at the end")
    ap.add_argument("--token", default=os.environ.get("TAXIPOT_WRITE_TOKEN"))
    args = ap.parse_args()

    f = Fuzzer(args.port, args.seed, args.timeout, args.token)
    eps = f.endpoints()
    started = time.time()
    per = args.requests // args.workers
    crashed = threading.Event()

    def work(w):
        rng = random.Random(args.seed * 1000 + w)
        for i in range(per):
            if crashed.is_set():
                return
            if i % 50 == 49:
                f.raw_protocol(rng)
            else:
                f.one(rng, eps)
            if i % 2000 == 1999 and not f.health():
                crashed.set()

    threads = [threading.Thread(target=work, args=(w,)) for w in range(args.workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    alive = f.health()
    if args.pid:
        try:
            os.kill(args.pid, 0)
        except OSError:
            alive = False
    summary = dict(f.stats)
    summary.update({"endpoints": len(eps), "elapsed_s": round(time.time() - started, 1), "server_alive": alive,
                    "status_500_count": summary["status"].get("500", 0), "hang_count": len(summary["hangs"])})
    print(json.dumps(summary, ensure_ascii=False, indent=1))
    ok = alive and summary["status_500_count"] == 0 and not summary["hangs"]
    print(f"fuzz: {summary['requests']} requests to {len(eps)} endpoints, {summary['status_500_count']} answers 500, "
          f"{len(summary['hangs'])} hangs, server {'alive' if alive else 'DEAD'}", file=sys.stderr)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

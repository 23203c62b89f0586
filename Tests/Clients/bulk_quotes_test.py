"""POST /v1/quotes (issue 37 part 6) against `taxipot batch` on the same trips: the same engine,
so the same answers; a broken row answers its own error and the rest go on; NDJSON in gives the
same prices as CSV in; an over-long body is refused (413). Usage: bulk_quotes_test.py TAXIPOT_BINARY DATA_DIR"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from taxipot_server import Server, check, finish  # noqa: E402


def post(base, body, content_type, headers=None):
    """Status, Content-Type and body; `headers`, when given, receives the answer's headers."""
    req = urllib.request.Request(base + "/v1/quotes", data=body, method="POST", headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            if headers is not None:
                headers.update({k.lower(): v for k, v in r.headers.items()})
            return r.status, r.headers.get("Content-Type"), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type"), e.read()


def post_over_limit(base, body, content_type):
    """The status of a POST whose body the server may refuse before reading it (a 413 answered
    at once, the socket then closed): sent by hand, so a refusal mid-body is read, not lost."""
    host, port = base.split("//")[1].split(":")
    with socket.create_connection((host, int(port)), timeout=120) as sock:
        head = f"POST /v1/quotes HTTP/1.1\r\nHost: {host}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        sock.sendall(head.encode())
        try:
            sock.sendall(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before the whole body was read: the answer is already waiting
        answer = b""
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except ConnectionResetError:
            pass
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0


TRIPS = [  # origin lon, lat, destination lon, lat, riders, depart_at (pandas and Korean Excel forms too)
    ("126.9707", "37.5547", "126.9769", "37.5759", "2.0", "2026-12-03 오후 11:30:00"),
    ("126.9832", "37.5702", "126.9850", "37.5637", "3", "2026. 12. 3. 08:15"),
    ("x", "37.5547", "126.9769", "37.5759", "1", "2026-12-03T10:00"),
    ("126.9707", "37.5547", "126.9769", "37.5759", "11", "2026-12-03T10:00"),
    ("126.9780", "37.5665", "126.9920", "37.5700", "4", "1796274000"),
    ("126.9780", "37.5665", "126.9920", "37.5700", "1", "not a date"),
]


def main():
    binary, data = sys.argv[1], sys.argv[2]
    csv = "origin_lon,origin_lat,dest_lon,dest_lat,riders,depart_at\n" + "".join(",".join(t) + "\n" for t in TRIPS)
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        f.write(csv)
        path = f.name
    batch = subprocess.run([binary, "batch", path, "--data", data, "--format", "jsonl", "--progress", "none"], capture_output=True)
    os.unlink(path)
    check(batch.returncode == 2, f"taxipot batch: exit 2 (some rows failed), got {batch.returncode}: {batch.stderr.decode()[:200]}")
    server = Server(binary, data)
    try:
        head = {}
        status, ctype, body = post(server.base, csv.encode(), "text/csv", head)
        check(status == 200 and ctype == "application/x-ndjson", f"CSV in: 200 application/x-ndjson ({status} {ctype})")
        check(head.get("transfer-encoding") == "chunked" and "content-length" not in head,
              f"the answer streams (chunked, rows sent as they are priced): {head}")
        check(body == batch.stdout, "CSV in: the same bytes as taxipot batch --format jsonl on the same file")
        rows = [json.loads(line) for line in body.decode().splitlines()]
        check(len(rows) == len(TRIPS), f"one answer per trip, in order ({len(rows)})")
        codes = [r["error_code"] for r in rows]
        check(codes == [None, None, "not_a_number", "bad_riders", None, "bad_date"], f"per-row errors: {codes}")
        check(rows[2]["error_message"] == "origin_lon 'x' is not a number" and rows[2]["error"].startswith("not_a_number: "),
              f"error_code and error_message apart, error as before: {rows[2]}")
        check(rows[0]["per_person_krw"] == (rows[0]["fare_krw"] + 1) // 2 and rows[0]["night_krw"] > 0,
              "riders 2.0 is 2, 오후 11:30 is a night fare")

        # NDJSON in: the same prices; a line that is not JSON answers bad_json in its place.
        keys = ["origin_lon", "origin_lat", "dest_lon", "dest_lat", "riders", "depart_at"]
        lines = [json.dumps(dict(zip(keys, t)), ensure_ascii=False) for t in TRIPS]
        lines.insert(1, "{not json")
        status, ctype, body = post(server.base, "\n".join(lines).encode(), "application/x-ndjson")
        nd = [json.loads(line) for line in body.decode().splitlines()]
        check(status == 200 and len(nd) == len(TRIPS) + 1, f"NDJSON in: one answer per line ({status}, {len(nd)})")
        check(nd[1]["error_code"] == "bad_json" and nd[1]["fare_krw"] is None, f"the broken line answers bad_json: {nd[1]}")
        rest = nd[:1] + nd[2:]
        check([r["fare_krw"] for r in rest] == [r["fare_krw"] for r in rows] and [r["error_code"] for r in rest] == codes,
              "NDJSON rows are priced as the CSV rows")

        # Over batch's chunks of 256 rows: broken lines first, at a chunk's start and last stay in their places.
        many = [json.dumps(dict(zip(keys, TRIPS[i % 2])), ensure_ascii=False) for i in range(520)]
        for i in (0, 256, 519):
            many[i] = "[1, 2]"
        status, _, body = post(server.base, "\n".join(many).encode(), "application/x-ndjson")
        got = [json.loads(line)["error_code"] for line in body.decode().splitlines()]
        want = ["bad_json" if i in (0, 256, 519) else None for i in range(520)]
        check(status == 200 and got == want, f"520 NDJSON lines: each answer in its line's place ({status}, {len(got)} answers, "
                                              f"errors at {[i for i, c in enumerate(got) if c]})")

        # Bad bodies: the header without the needed columns, another media type, over 1 MiB.
        status, _, body = post(server.base, b"a,b\n1,2\n", "text/csv")
        check(status == 422 and json.loads(body)["error"]["code"] == "invalid_body", f"a header without the columns: 422 invalid_body ({body[:120]})")
        status, _, body = post(server.base, b"{}", "application/json")
        check(status == 415, f"application/json: 415 ({status})")
        big = (csv.splitlines()[0] + "\n" + (",".join(TRIPS[0]) + "\n") * 20000).encode()
        status = post_over_limit(server.base, big, "text/csv")
        check(status == 413, f"a body over 1 MiB ({len(big)} bytes) is refused as today: 413 ({status})")
    finally:
        server.stop()
    finish()


if __name__ == "__main__":
    main()

"""Bulk quotes over HTTP (issue 37): POST /v1/quotes on the batch step's own CSV file, in bodies
under the 1 MiB limit (each with the header line), one keep-alive connection, one request after
another, the streamed JSON Lines read whole. rows/s over the timed rows, against `taxipot batch`'s
rows/s on the same file (the report's target: ≥ 0.8×); and the first row's arrival per request
(the answer streams). The warm-up posts the file's last rows, which the timed runs never send.
Usage: bulk_quotes_http.py --url http://127.0.0.1:PORT --file BATCH.csv [--rows N] [--runs R]
"""
import argparse
import http.client
import time
import urllib.parse

import benchlib

BODY_LIMIT = 1_000_000  # bytes per body, under the server's 1 MiB
WARM_ROWS = 5_000


def bodies(header, rows):
    """The rows as CSV bodies of at most BODY_LIMIT bytes, each starting with the header."""
    out, part, size = [], [], len(header)
    for row in rows:
        if part and size + len(row) > BODY_LIMIT:
            out.append((len(part), header + b"".join(part)))
            part, size = [], len(header)
        part.append(row)
        size += len(row)
    if part:
        out.append((len(part), header + b"".join(part)))
    return out


def post_all(conn, parts):
    """Posts every body; returns (seconds, rows answered, rows with an error or not answered 200,
    first-row latencies in ms)."""
    answered, errors, first = 0, 0, []
    t0 = time.perf_counter()
    for rows, body in parts:
        t = time.perf_counter()
        conn.request("POST", "/v1/quotes", body=body, headers={"Content-Type": "text/csv"})
        r = conn.getresponse()
        line = r.readline()
        first.append((time.perf_counter() - t) * 1000)
        rest = line + r.read()
        if r.status != 200:
            errors += rows
            continue
        n = rest.count(b"\n")
        answered += n
        errors += (rows - n) + (n - rest.count(b'"error_code":null'))
    return time.perf_counter() - t0, answered, errors, first


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--file", required=True)
    ap.add_argument("--rows", type=int, default=100_000 if benchlib.QUICK else 200_000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    u = urllib.parse.urlparse(args.url)
    with open(args.file, "rb") as f:
        header = f.readline()
        rows = f.readlines()
    timed_rows = rows[:min(args.rows, len(rows) - WARM_ROWS)]
    parts = bodies(header, timed_rows)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=600)
    _, _, warm_errors, _ = post_all(conn, bodies(header, rows[-WARM_ROWS:]))
    secs, errors, firsts = [], 0, []
    for _ in range(args.runs):
        s, answered, e, first = post_all(conn, parts)
        secs.append(s)
        errors += e
        firsts += first
    conn.close()
    n = len(timed_rows)
    cond = ("the first %d rows of the batch step's file (%s) in %d CSV bodies under 1 MiB, POST /v1/quotes, one keep-alive "
            "connection, one request after another, the streamed JSON Lines read whole; %d runs; warm-up on the file's last "
            "%d rows (%d of them with an error); %d rows with an error or not answered over the runs"
            % (n, args.file.rsplit("/", 1)[-1], len(parts), args.runs, WARM_ROWS, warm_errors, errors))
    impl = "taxipot serve (POST /v1/quotes)"
    benchlib.emit([
        benchlib.record("batch.http.rows_per_s", "ours", impl, "rows/s", "rows/s", "higher", [n / s for s in secs], n, cond,
                        errors=errors),
        benchlib.record("batch.http.first_row_ms", "ours", impl, "first row of a body's answer, p50", "ms", "lower",
                        [benchlib.percentile(firsts, 50)], len(firsts), cond + "; from the request's start to its first answer line",
                        errors=errors),
    ])
    benchlib.log("ours bulk quotes over HTTP: %.0f rows/s (median of %d), first row p50 %.1f ms, %d errors"
                 % (sorted(n / s for s in secs)[len(secs) // 2], len(secs), benchlib.percentile(firsts, 50), errors))


if __name__ == "__main__":
    main()

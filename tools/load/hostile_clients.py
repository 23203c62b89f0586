#!/usr/bin/env python3
"""Hostile-client load checks against a running `taxipot serve` (loopback only), issue 21.

  flood PORT N SOURCES    N keep-alive connections, opened in waves of 200 and all held open,
                          spread over SOURCES loopback source addresses (127.0.0.2 ...), each
                          sending GET /health;
                          then a fresh client from 127.0.0.1. Passes when every connection, the
                          fresh one too, got a complete answer within 1 s of its request: 200, or
                          503 with Retry-After and Connection: close (and then a close).
  slow PORT N SOURCES EVERY DEADLINE
                          N sockets that send a request line, then one header byte every EVERY
                          seconds; meanwhile a normal client from 127.0.0.1 makes 10 requests.
                          Passes when the normal client got 10 of 10 answers, each within 1 s,
                          and every slow socket was refused (503) or closed by the server
                          within DEADLINE seconds of its request line.
Counts and times are printed; the exit status says pass (0) or fail (1).
"""
import asyncio
import resource
import sys
import time

HOST = "127.0.0.1"


def raise_fd_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def source(i, sources):
    return "127.0.0.%d" % (2 + i % sources)


async def read_response(reader):
    """One response: (status, headers dict, body); raises on a close before it is complete."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    return status, headers, body


def percentile(values, p):
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, int(p * len(s)))]


async def flood(port, n, sources):
    results = []
    held = []

    async def one(i):
        try:
            reader, writer = await asyncio.open_connection(HOST, port, local_addr=(source(i, sources), 0))
        except OSError as e:
            results.append(("connect-error", 0.0, str(e)))
            return
        held.append(writer)
        t0 = time.monotonic()
        try:
            writer.write(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            await writer.drain()
            status, headers, _ = await asyncio.wait_for(read_response(reader), 5)
            took = time.monotonic() - t0
            if status == 503:
                ok = headers.get("retry-after") == "1" and headers.get("connection", "").lower() == "close"
                closed = (await asyncio.wait_for(reader.read(1), 5)) == b""
                results.append(("503" if ok and closed else "bad-503", took, ""))
            else:
                results.append((str(status), took, ""))
        except (asyncio.TimeoutError, asyncio.IncompleteReadError, ConnectionError) as e:
            results.append(("no-answer", time.monotonic() - t0, type(e).__name__))

    # In waves of 200 (each answered before the next opens; all stay open), so what is timed is
    # the server's answer, not this client's own backlog of thousands of simultaneous sockets.
    start = time.monotonic()
    for first in range(0, n, 200):
        await asyncio.gather(*(one(i) for i in range(first, min(n, first + 200))))
    wall = time.monotonic() - start
    # A fresh client while all of them are still open.
    t0 = time.monotonic()
    try:
        reader, writer = await asyncio.open_connection(HOST, port, local_addr=("127.0.0.1", 0))
        writer.write(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        status, _, _ = await asyncio.wait_for(read_response(reader), 5)
        writer.close()
    except Exception as e:  # noqa: BLE001 - reported as a failure below
        status = "error %s" % type(e).__name__
    fresh = time.monotonic() - t0
    for w in held:
        w.close()

    counts = {}
    for kind, _, _ in results:
        counts[kind] = counts.get(kind, 0) + 1
    times = [t for _, t, _ in results]
    slow = sum(1 for t in times if t > 1.0)
    print("flood: %d connections from %d addresses in %.2f s: %s; answer time p50 %.1f ms, p99 %.1f ms, max %.1f ms; "
          "%d over 1 s; fresh client: %s in %.1f ms"
          % (n, sources, wall, ", ".join("%s %d" % kv for kv in sorted(counts.items())), 1e3 * percentile(times, 0.5),
             1e3 * percentile(times, 0.99), 1e3 * max(times or [0]), slow, status, 1e3 * fresh))
    good = counts.get("200", 0) + counts.get("503", 0)
    return good == n and slow == 0 and status in (200, 503) and fresh <= 1.0


async def slow_clients(port, n, sources, every, deadline):
    outcomes = []
    stop = asyncio.Event()

    async def trickler(i):
        try:
            reader, writer = await asyncio.open_connection(HOST, port, local_addr=(source(i, sources), 0))
        except OSError as e:
            outcomes.append(("connect-error", 0.0))
            return
        t0 = time.monotonic()
        writer.write(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        header = b"X-Trickle: " + b"a" * 10000
        pos = 0
        read = asyncio.ensure_future(reader.read(4096))
        try:
            while not stop.is_set():
                done, _ = await asyncio.wait([read], timeout=every)
                if done:
                    data = read.result()
                    took = time.monotonic() - t0
                    if data.startswith(b"HTTP/1.1 503 "):
                        outcomes.append(("503", took))
                    elif data.startswith(b"HTTP/1.1 408 ") or data == b"":
                        outcomes.append(("closed", took))
                    else:
                        outcomes.append(("other", took))
                    return
                writer.write(header[pos:pos + 1])
                pos += 1
                await writer.drain()
            outcomes.append(("still-open", time.monotonic() - t0))
        except ConnectionError:
            outcomes.append(("closed", time.monotonic() - t0))
        finally:
            read.cancel()
            writer.close()

    async def normal():
        answers = []
        await asyncio.sleep(min(2.0, every))
        for _ in range(10):
            t0 = time.monotonic()
            try:
                reader, writer = await asyncio.open_connection(HOST, port, local_addr=("127.0.0.1", 0))
                writer.write(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                status, _, _ = await asyncio.wait_for(read_response(reader), 5)
                writer.close()
            except Exception:  # noqa: BLE001 - an unanswered request is what is measured
                status = 0
            answers.append((status, time.monotonic() - t0))
            await asyncio.sleep(deadline / 10)
        return answers

    tasks = [asyncio.ensure_future(trickler(i)) for i in range(n)]
    answers = await normal()
    await asyncio.wait(tasks, timeout=deadline + 3)
    stop.set()
    await asyncio.gather(*tasks)

    counts = {}
    for kind, _ in outcomes:
        counts[kind] = counts.get(kind, 0) + 1
    closed_times = [t for kind, t in outcomes if kind == "closed"]
    served = sum(1 for s, t in answers if s == 200 and t <= 1.0)
    print("slow: %d sockets from %d addresses, a byte every %.1f s: %s; closed after p50 %.1f s, max %.1f s (limit %.1f); "
          "normal client: %d of 10 answered within 1 s (slowest %.1f ms)"
          % (n, sources, every, ", ".join("%s %d" % kv for kv in sorted(counts.items())), percentile(closed_times, 0.5),
             max(closed_times or [0]), deadline, served, 1e3 * max(t for _, t in answers)))
    refused_or_closed = counts.get("503", 0) + sum(1 for t in closed_times if t <= deadline)
    return served == 10 and refused_or_closed == n


def main():
    raise_fd_limit()
    mode = sys.argv[1]
    if mode == "flood":
        ok = asyncio.run(flood(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])))
    elif mode == "slow":
        ok = asyncio.run(slow_clients(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])))
    else:
        raise SystemExit(__doc__)
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

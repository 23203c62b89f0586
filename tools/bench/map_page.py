#!/usr/bin/env python3
"""The map page's speed in Debian's headless Chromium (Playwright from .venv-test).

Usage: map_page.py TAXIPOT_BINARY [DATA_DIR] [--quick]
Prints {"results": [...], "notes": [...]} like the other runners:
- map.first_paint_ms: first contentful paint of GET / from loopback (fresh page each run);
- map.ready_ms: until the road, boundary and cluster layers of the first view are drawn;
- map.cluster_update_ms: from a pan or zoom to the next frame showing the view's clusters
  (2,000 open parties over central Seoul), p50 and p99;
- map.roads_max_bytes: the largest /v1/roads answer over views of a 1280x800 page (padded by a
  quarter, as the page asks) and of the largest view the endpoint accepts, zooms 8-19.
"""
import json
import os
import random
import statistics
import sys
import time
import urllib.request
from datetime import datetime, timedelta, timezone

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(root, "Tests", "Browser"))
from map_page_test import CHROMIUM, Server  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

SEOUL = timezone(timedelta(hours=9))


def record(key, unit, values, conditions, better="lower"):
    values = sorted(values)
    return {"key": key, "side": "ours", "impl": "taxipot map page", "unit": unit, "better": better,
            "median": statistics.median(values), "min": values[0], "max": values[-1], "runs": len(values),
            "n": len(values), "conditions": conditions}


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def view_bbox(lon, lat, zoom, width, height, pad):
    import math
    scale = 256 * 2 ** zoom
    x = (lon + 180) / 360 * scale
    s = math.sin(math.radians(lat))
    y = (0.5 - math.log((1 + s) / (1 - s)) / (4 * math.pi)) * scale
    w, h = width * (1 + 2 * pad) / 2, height * (1 + 2 * pad) / 2

    def unproject(px, py):
        lo = px / scale * 360 - 180
        la = math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * py / scale))))
        return lo, la
    west, north = unproject(x - w, y - h)
    east, south = unproject(x + w, y + h)
    return f"{west:.6f},{south:.6f},{east:.6f},{north:.6f}"


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    quick = "--quick" in sys.argv
    binary, data = args[0], (args[1] if len(args) > 1 else "data")
    server = Server(binary, data)
    results, notes = [], []
    try:
        # Road layer sizes.
        sizes, largest = [], (0, "")
        centers = [(126.978, 37.566), (126.99, 37.55), (126.96, 37.58), (127.0, 37.57), (126.97, 37.535)]
        for zoom in range(8, 20):
            for lon, lat in centers:
                for w, h, pad in [(1280, 800, 0.25), (4094, 4094, 0)]:
                    bbox = view_bbox(lon, lat, zoom, w, h, pad)
                    with urllib.request.urlopen(f"{server.base}/v1/roads?bbox={bbox}&zoom={zoom}") as r:
                        n = len(r.read())
                    sizes.append(n)
                    if n > largest[0]:
                        largest = (n, f"zoom {zoom}, {w}x{h} px around {lon},{lat}")
        results.append(record("map.roads_max_bytes", "bytes", [max(sizes)],
                              f"largest of {len(sizes)} /v1/roads answers ({largest[1]})"))

        # Parties for the clusters.
        rng = random.Random(5)
        now = datetime.now(SEOUL)
        count = 500 if quick else 2000
        for i in range(count):
            status, body = server.request("PUT", f"/v1/parties/b{i}", {
                "origin": [126.978 + rng.gauss(0, 0.02), 37.565 + rng.gauss(0, 0.015)], "destination": [126.97, 37.55],
                "depart_at": (now + timedelta(minutes=20 + rng.randrange(120))).isoformat(timespec="seconds"),
                "seats_total": 4}, auth=True)
            assert status in (200, 201), body

        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
            paints, ready = [], []
            for _ in range(3 if quick else 7):
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                started = time.time()
                page.goto(server.base + "/", wait_until="load")
                page.wait_for_function("() => window.taxipot && window.taxipot.base.roads && window.taxipot.base.boundaries"
                                       " && window.taxipot.clusters.shown && window.taxipot.clusters.shown.painted", timeout=30_000)
                ready.append((time.time() - started) * 1000)
                paints.append(page.evaluate("performance.getEntriesByName('first-contentful-paint')[0].startTime"))
                page.close()
            results.append(record("map.first_paint_ms", "ms", paints, "GET / over loopback, 1280x800, fresh page each run"))
            results.append(record("map.ready_ms", "ms", ready, "until roads, boundaries and clusters of the first view are drawn"))

            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(server.base + "/", wait_until="load")
            page.wait_for_function("() => window.taxipot && window.taxipot.clusters.shown && window.taxipot.clusters.shown.painted")
            moves = [("panBy([300, 0], {animate: false})", None), ("panBy([0, -250], {animate: false})", None),
                     ("setZoom(m.getZoom() + 1, {animate: false})", None), ("panBy([-400, 200], {animate: false})", None),
                     ("setZoom(m.getZoom() - 1, {animate: false})", None)]
            latencies = []
            rounds = 20 if quick else 60
            for k in range(rounds):
                move = moves[k % len(moves)][0]
                t0 = page.evaluate(f"""() => {{ const m = window.taxipot.map; const t = performance.now(); m.{move}; return t; }}""")
                page.wait_for_function("""() => { const s = window.taxipot.clusters.shown, m = window.taxipot.map, b = m.getBounds();
                    const bbox = [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()].map(v => v.toFixed(6)).join(',');
                    return s && s.bbox === bbox && s.painted; }""", timeout=10_000)
                latencies.append(page.evaluate("window.taxipot.clusters.shown.painted") - t0)
            r = record("map.cluster_update_ms", "ms", latencies,
                       f"pan or zoom to the next frame with the view's clusters drawn, {count} open parties, {rounds} moves; p99 {pct(latencies, 99):.1f} ms")
            r["p99"] = pct(latencies, 99)
            results.append(r)
            browser.close()
    finally:
        server.stop()
    notes.append(f"load average at the end: {open('/proc/loadavg').read().split()[0]}")
    print(json.dumps({"results": results, "notes": notes}, indent=1))


if __name__ == "__main__":
    main()

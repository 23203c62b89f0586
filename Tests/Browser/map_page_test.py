#!/usr/bin/env python3
"""The map page in a real headless Chromium (Debian's), driven by Playwright for Python.

Usage: map_page_test.py TAXIPOT_BINARY DATA_DIR SCREENSHOT_DIR

Starts `taxipot serve` on a free loopback port with its own state folder and write token, then
checks what a person would: the page loads with no console error and no request leaving the
server; typing 강남 suggests 강남역; a chosen trip draws its route and the fare panel shows
exactly what /v1/quote answers; parties PUT through the API appear as clusters whose counts are
those /v1/clusters gives for the view; a cluster click zooms to its expansion zoom; a party
click shows it; the fixed pin shows the 동 under it. Screenshots go to SCREENSHOT_DIR.
Prints one line per check and ends with 'browser: N passed, N failed'.
"""
import json
import os
import random
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request
from datetime import datetime, timedelta, timezone

from playwright.sync_api import sync_playwright

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Clients"))
import taxipot_server  # noqa: E402

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SEOUL = timezone(timedelta(hours=9))


class Server(taxipot_server.Server):
    """The shared test server (Tests/Clients/taxipot_server.py) with a write token of its own."""

    def __init__(self, binary, data):
        super().__init__(binary, data, token=secrets.token_hex(16), prefix="taxipot-browser-")

    def request(self, method, path, body=None, auth=False):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if auth:
            req.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def run(self, name, fn):
        started = time.time()
        try:
            fn()
            self.passed += 1
            print(f"PASS {name} ({time.time() - started:.1f} s)", flush=True)
        except Exception:  # noqa: BLE001 - report every failure and go on
            self.failed += 1
            print(f"FAIL {name}\n{traceback.format_exc()}", flush=True)


def digits(text):
    """The whole number in a displayed amount such as '12,300원' or '-30 KRW'."""
    m = re.search(r"-?[\d,]+", text)
    assert m, f"no number in {text!r}"
    return int(m.group(0).replace(",", ""))


def main():
    binary, data, shots = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(shots, exist_ok=True)
    server = Server(binary, data)
    checks = Checks()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
            page = browser.new_page(viewport={"width": 1280, "height": 800}, locale="ko-KR")
            run_checks(page, server, checks, shots)
            run_supercluster_checks(browser, server, checks, shots)
            for width, height in PHONES:
                run_phone_checks(browser, server, checks, shots, width, height)
            browser.close()
    finally:
        server.stop()
    print(f"browser: {checks.passed} passed, {checks.failed} failed", flush=True)
    return 0 if checks.failed == 0 else 1


def run_checks(page, server, checks, shots):
    base = server.base
    console = []  # (phase, type, text)
    phase = ["load"]
    outside = []
    page_errors = []
    page.on("console", lambda m: console.append((phase[0], m.type, m.text)))
    page.on("pageerror", lambda e: page_errors.append(str(e)))
    page.on("request", lambda r: None if r.url.startswith(base + "/") or r.url.startswith("data:") else outside.append(r.url))

    def shot(name):
        page.wait_for_load_state("networkidle")  # the base map follows the clusters
        page.screenshot(path=os.path.join(shots, name))

    def wait_clusters_settled():
        page.wait_for_function("""() => {
            const s = window.taxipot.clusters.shown;
            if (!s || s.error) return false;
            const b = window.taxipot.map.getBounds();
            const bbox = [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()].map(v => v.toFixed(6)).join(',');
            return s.bbox === bbox && s.zoom === Math.floor(window.taxipot.map.getZoom());
        }""", timeout=10_000)

    # --- Load -------------------------------------------------------------------------------
    def load():
        page.goto(base + "/", wait_until="load")
        page.wait_for_selector("body[data-ready=true]", timeout=20_000)
        page.wait_for_function("() => window.taxipot.base.roads && window.taxipot.base.boundaries", timeout=20_000)
        wait_clusters_settled()
        errors = [c for c in console if c[1] == "error"]
        assert not errors, f"console errors while loading: {errors}"
        assert not page_errors, f"script errors while loading: {page_errors}"
        assert not outside, f"requests leaving the server: {outside}"
        assert page.locator("h1").inner_text() == "택시팟 엔진", "Korean first"
        assert page.evaluate("window.taxipot.base.roads.features") > 0, "the road layer has lines"
        # The page reads what the server offers from its OpenAPI document (named schemas by $ref).
        assert page.evaluate("window.taxipot.features") == {"match": True, "coverage": True, "estimate": True, "matchEstimate": True}, \
            f"features read from /openapi.json: {page.evaluate('window.taxipot.features')}"
        fcp = page.evaluate("(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime")
        print(f"  first contentful paint {fcp:.0f} ms", flush=True)
        shot("01-load.png")
    checks.run("page loads with no console error and no outside request", load)
    phase[0] = "use"

    # --- Parties (before the trip, so matching, where the server has it, can list them) -----
    rng = random.Random(26)
    now = datetime.now(SEOUL)
    parties = []
    for i in range(120):
        lon = 126.975 + rng.gauss(0, 0.012)
        lat = 37.565 + rng.gauss(0, 0.008)
        depart = (now + timedelta(minutes=30 + rng.randrange(90))).isoformat(timespec="seconds")
        parties.append((f"p{i:03d}", lon, lat, depart))
    # One party alone by 낙산 (far from the others at zoom 16, on a served road), to click as a lone party.
    parties.append(("lone", 127.0030, 37.5790, (now + timedelta(hours=1)).isoformat(timespec="seconds")))

    def put_parties():
        # The server refuses a party it cannot serve (422 outside_coverage: no road near the
        # point); a random point in a park or on the river is drawn again, so every party is
        # one the server took (the lone party must be taken as placed).
        for k, (pid, lon, lat, depart) in enumerate(parties):
            for attempt in range(50):
                status, body = server.request("PUT", f"/v1/parties/{pid}", {
                    "origin": [lon, lat], "destination": [126.9707, 37.5547], "depart_at": depart,
                    "seats_total": 4, "seats_taken": 1, "title": f"팟 {pid}"}, auth=True)
                if status == 422 and pid != "lone" and body.get("error", {}).get("code") == "outside_coverage":
                    lon, lat = 126.975 + rng.gauss(0, 0.012), 37.565 + rng.gauss(0, 0.008)
                    continue
                break
            assert status in (200, 201), (status, body)
            parties[k] = (pid, lon, lat, depart)
    checks.run("parties PUT through the API", put_parties)

    # --- Search and trip ----------------------------------------------------------------------
    depart = (now + timedelta(days=1)).replace(hour=23, minute=30, second=0, microsecond=0)
    depart_text = depart.strftime("%Y-%m-%dT%H:%M")

    def choose(which, query, name, category):
        box = page.locator(f"#{which}-input")
        box.fill("")
        box.type(query, delay=40)
        item = page.locator(f"#{which}-suggestions li", has=page.locator(".name", has_text=re.compile(f"^{re.escape(name)}$")))
        item = item.filter(has_text=category).first
        item.wait_for(timeout=10_000)
        item.dispatch_event("mousedown")
        status, found = server.request("GET", f"/v1/places?q={urllib.request.quote(name)}&category={category}&limit=1")
        assert status == 200 and found["places"], found
        chosen = page.locator(f"#{which}-chosen")
        lon, lat = float(chosen.get_attribute("data-lon")), float(chosen.get_attribute("data-lat"))
        assert (lon, lat) == (found["places"][0]["lon"], found["places"][0]["lat"]), "the chosen place is the one searched"
        return {"lon": lon, "lat": lat}

    def suggestions():
        box = page.locator("#origin-input")
        box.click()
        box.type("강남", delay=60)
        page.wait_for_selector("#origin-suggestions li", timeout=10_000)
        names = page.locator("#origin-suggestions li .name").all_inner_texts()
        assert names and all("강남" in n or "강남" in n.replace(" ", "") for n in names[:3]), names
        assert "강남역" in names, names
        shot("02-suggestions.png")
    checks.run("typing 강남 shows suggestions", suggestions)

    def fare_matches(expected):
        """The fare panel shows exactly the numbers of a /v1/quote answer."""
        page.wait_for_selector("#result:not([hidden])", timeout=10_000)
        fare = expected["fare"]
        for key, field in [("base", "base_krw"), ("distance", "distance_krw"), ("time", "time_krw"), ("night", "night_krw"),
                           ("out-of-city", "out_of_city_krw"), ("rounding", "rounding_krw"), ("total", "total_krw")]:
            shown = digits(page.locator(f"#fare-{key}").inner_text())
            assert shown == fare[field], f"{key}: page {shown}, /v1/quote {fare[field]}"
        shares = [digits(t) for t in page.locator("#shares li .krw").all_inner_texts()]
        assert shares == [s["krw"] for s in expected["split"]], f"shares: page {shares}, /v1/quote {expected['split']}"
        route = expected["route"]
        assert float(page.locator("#route-distance").get_attribute("data-m")) == route["distance_m"]
        assert float(page.locator("#route-duration").get_attribute("data-s")) == route["duration_s"]
        assert page.locator("#route-distance").inner_text() == f"{route['distance_m'] / 1000:.1f} km"
        assert page.locator("path.route-line").count() == 1, "the route is drawn"
        assert page.locator("#estimate-badge").is_hidden() == ("estimated" not in expected), "an estimate is labelled as such"

    def quote_settled():
        page.wait_for_function("() => window.taxipot.quote.last && window.taxipot.quote.seq > 0", timeout=15_000)
        time.sleep(0.3)
        page.wait_for_load_state("networkidle")

    def trip_from_gangnam():
        page.fill("#depart-at", depart_text)
        page.fill("#riders", "3")
        page.select_option("#split", "equal")
        origin = choose("origin", "강남", "강남역", "station")
        destination = choose("destination", "서울역", "서울역", "station")
        quote_settled()
        body = {"origin": origin, "destination": destination, "riders": 3, "split": "equal", "depart_at": depart_text + ":00"}
        status, expected = server.request("POST", "/v1/quote", body)
        if status != 200 and page.evaluate("window.taxipot.features.estimate"):
            status, expected = server.request("POST", "/v1/quote", dict(body, estimate="allow"))
        if status == 200:
            fare_matches(expected)
        else:
            # Outside the served road graph and no estimate offered: the page shows the engine's answer.
            assert page.locator("#result").is_hidden()
            assert page.locator("#message").get_attribute("data-code") == expected["error"]["code"]
            assert expected["error"]["message"] in page.locator("#message").inner_text()
        shot("03-trip-gangnam.png")
    checks.run("강남역 → 서울역: the page shows what /v1/quote answers", trip_from_gangnam)

    def trip_in_graph():
        page.fill("#riders", "2")
        page.select_option("#split", "by_leg")
        origin = choose("origin", "서울역", "서울역", "station")
        destination = choose("destination", "광화문", "광화문역", "station")
        quote_settled()
        body = {"origin": origin, "destination": destination, "riders": 2, "split": "by_leg", "depart_at": depart_text + ":00"}
        status, expected = server.request("POST", "/v1/quote", body)
        assert status == 200, expected
        assert expected["fare"]["night_krw"] > 0, "23:30 is a night fare"
        fare_matches(expected)
        page.wait_for_load_state("networkidle")
        if page.evaluate("window.taxipot.features.match"):
            page.wait_for_selector("#matches-panel:not([hidden])", timeout=10_000)
        else:
            assert page.locator("#matches-panel").is_hidden(), "no /v1/match: the panel is hidden"
        shot("04-trip-seoul-station.png")
    checks.run("서울역 → 광화문역: route drawn, fare panel equals /v1/quote", trip_in_graph)

    # --- Clusters -------------------------------------------------------------------------------
    def view_counts():
        """Counts on screen and those /v1/clusters gives for the map's view."""
        wait_clusters_settled()
        view = page.evaluate("""() => { const m = window.taxipot.map, b = m.getBounds();
            return {bbox: [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()].map(v => v.toFixed(6)).join(','),
                    zoom: Math.floor(m.getZoom())}; }""")
        status, fc = server.request("GET", f"/v1/clusters?bbox={view['bbox']}&zoom={view['zoom']}")
        assert status == 200, fc
        api = sorted(f["properties"]["point_count"] for f in fc["features"] if f["properties"].get("cluster"))
        api_lone = sorted(f["properties"]["party_id"] for f in fc["features"] if not f["properties"].get("cluster"))
        shown = sorted(int(x) for x in page.locator(".cluster-marker").evaluate_all("els => els.map(e => e.dataset.count)"))
        texts = sorted(int(x) for x in page.locator(".cluster-marker").all_inner_texts())
        lone = sorted(page.locator(".leaflet-marker-pane .party-marker:not(.match)").evaluate_all("els => els.map(e => e.dataset.partyId)"))
        assert shown == api and texts == api, f"cluster counts: page {texts}, /v1/clusters {api}"
        assert lone == api_lone, f"lone parties: page {lone}, /v1/clusters {api_lone}; page state {page.evaluate('JSON.stringify(window.taxipot.clusters.shown)')}, all party markers {page.locator('.party-marker').count()}"
        return view, fc

    def clusters_equal_api():
        page.evaluate("void window.taxipot.map.setView([37.565, 126.978], 13, {animate: false})")
        view, fc = view_counts()
        assert any(f["properties"].get("cluster") for f in fc["features"]), "some clusters at zoom 13"
        total = sum(f["properties"].get("point_count", 1) for f in fc["features"])
        assert total >= 60, f"most parties in view: {total}"
        shot("05-clusters.png")
        page.evaluate("void window.taxipot.map.panBy([200, 120], {animate: false})")
        view_counts()
    checks.run("cluster counts on screen equal /v1/clusters for the view (after a pan too)", clusters_equal_api)

    def cluster_click_zooms():
        view, fc = view_counts()
        clusters = [f for f in fc["features"] if f["properties"].get("cluster")]
        biggest = max(clusters, key=lambda f: f["properties"]["point_count"])
        target = biggest["properties"]["expansion_zoom"]
        before = page.evaluate("window.taxipot.map.getZoom()")
        page.locator(f".cluster-marker[data-count='{biggest['properties']['point_count']}']").first.click()
        page.wait_for_function(f"() => window.taxipot.map.getZoom() === {min(target, 19)}", timeout=10_000)
        assert target > before
        view_counts()
        shot("06-cluster-click.png")
    checks.run("a cluster click zooms to its expansion_zoom", cluster_click_zooms)

    def party_click():
        page.evaluate("void window.taxipot.map.setView([37.5790, 127.0030], 16, {animate: false})")
        view_counts()
        marker = page.locator(".leaflet-marker-pane .party-marker[data-party-id='lone']")
        marker.click()
        page.wait_for_selector("#party-panel:not([hidden]) [data-party-id='lone']", timeout=10_000)
        assert "팟 lone" in page.locator("#party-detail").inner_text()
        shot("07-party.png")
    checks.run("a party click shows the party", party_click)

    def fixed_pin():
        page.locator(".pin-button[data-target='origin']").click()
        page.evaluate("void window.taxipot.map.setView([37.5759, 126.9769], 16, {animate: false})")
        status, rev = server.request("GET", "/v1/reverse?at=126.9769000,37.5759000&limit=0")
        assert status == 200 and rev["region"], rev
        page.wait_for_function("(name) => document.getElementById('center-pin-label').textContent === name",
                               arg=rev["region"]["full_name"], timeout=10_000)
        assert "세종로" in rev["region"]["full_name"], rev
        shot("08-fixed-pin.png")
        page.locator("#center-pin-confirm").click()
        page.wait_for_function("() => document.getElementById('center-pin').hidden")
        chosen = page.locator("#origin-chosen")
        page.wait_for_function("() => Math.abs(parseFloat(document.getElementById('origin-chosen').dataset.lon) - 126.9769) < 1e-6")
        assert abs(float(chosen.get_attribute("data-lat")) - 37.5759) < 1e-6
    checks.run("the fixed pin shows the 동 under it and sets the origin", fixed_pin)

    def english():
        page.locator("#lang").click()
        assert page.locator("h1").inner_text() == "Taxipot engine"
        assert page.locator("html").get_attribute("lang") == "en"
        shot("09-english.png")
        page.locator("#lang").click()
        assert page.locator("h1").inner_text() == "택시팟 엔진"
    checks.run("the English toggle", english)

    def no_errors_at_all():
        assert not page_errors, f"script errors: {page_errors}"
        assert not outside, f"requests leaving the server: {outside}"
        # After loading, the only console errors allowed are the browser's notes of API error
        # answers the page handled (a trip outside the road graph answers 422).
        bad = [c for c in console if c[1] == "error" and not re.search(r"status of 4\d\d", c[2])]
        assert not bad, f"console errors: {bad}"
    checks.run("no script error and no outside request during the whole run", no_errors_at_all)


# Phone viewports (issue 37 part 5): a common iPhone and a common Android size.
PHONES = [(390, 844), (360, 800)]


def run_phone_checks(browser, server, checks, shots, width, height):
    """The map page on a phone: the map takes most of the screen with the panel folded, the
    panel unfolds, every control is a touch target of 44 px or more, no horizontal scroll."""
    ctx = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=2, is_mobile=True,
                              has_touch=True, locale="ko-KR")
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    name = f"{width}x{height}"

    def no_horizontal_scroll():
        sw = page.evaluate("Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")
        assert sw <= width, f"the page is {sw} px wide on a {width} px screen"

    def folded_map_fills():
        page.goto(server.base + "/", wait_until="load")
        page.wait_for_selector("body[data-ready=true]", timeout=20_000)
        assert page.locator("#panel").evaluate("el => el.classList.contains('folded')"), "the panel starts folded on a phone"
        panel = page.locator("#panel").bounding_box()
        m = page.locator("#map").bounding_box()
        visible = min(m["y"] + m["height"], panel["y"]) - max(0, m["y"])
        assert m["width"] >= width - 1, f"the map is {m['width']} px wide"
        assert visible >= 0.85 * height, f"{visible:.0f} px of map visible above the folded panel on a {height} px screen"
        assert page.locator("#panel-toggle").is_visible() and page.locator("h1").is_visible(), "the folded panel shows its header"
        no_horizontal_scroll()
        page.wait_for_load_state("networkidle")
        page.screenshot(path=os.path.join(shots, f"phone-{name}-folded.png"))
    checks.run(f"{name}: the map takes the screen with the panel folded, no horizontal scroll", folded_map_fills)

    def unfolded_touch_targets():
        page.locator("#panel-toggle").tap()
        page.wait_for_function("() => !document.getElementById('panel').classList.contains('folded')")
        assert page.locator("#panel-toggle").get_attribute("aria-expanded") == "true"
        panel = page.locator("#panel").bounding_box()
        assert panel["height"] <= 0.65 * height, f"the unfolded panel is {panel['height']:.0f} px: the map keeps a part of the screen"
        # Every visible control: buttons, text inputs, selects, the map's zoom buttons; checkboxes by their label.
        small = page.evaluate("""() => {
            const out = [];
            const els = document.querySelectorAll('#panel button, #panel input:not([type=checkbox]), #panel select, #panel footer label, .leaflet-control-zoom a');
            for (const el of els) {
                const r = el.getBoundingClientRect();
                if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
                if (r.height < 44 || r.width < 44) out.push(`${el.tagName}#${el.id || el.className || el.textContent.trim().slice(0, 12)} ${Math.round(r.width)}x${Math.round(r.height)}`);
            }
            return out;
        }""")
        assert not small, f"touch targets under 44 px: {small}"
        no_horizontal_scroll()
        page.screenshot(path=os.path.join(shots, f"phone-{name}-unfolded.png"))
        # Search from the unfolded panel, as a rider does.
        page.locator("#origin-input").tap()
        page.locator("#origin-input").type("강남역", delay=30)
        page.locator("#origin-suggestions li").first.wait_for(timeout=10_000)
        no_horizontal_scroll()
        page.screenshot(path=os.path.join(shots, f"phone-{name}-search.png"))
        page.locator("#panel-toggle").tap()
        page.wait_for_function("() => document.getElementById('panel').classList.contains('folded')")
        assert not errors, f"script errors: {errors}"
    checks.run(f"{name}: the panel unfolds; every control is 44 px or more; search works", unfolded_touch_targets)
    ctx.close()


def run_supercluster_checks(browser, server, checks, shots):
    """web/clusters.html, map code written against supercluster's output (issue 37 part 4), draws
    /v1/clusters: labels from point_count_abbreviated, markers kept by numeric feature id, a
    cluster click zooms to its expansion_zoom."""
    page = browser.new_page(viewport={"width": 1024, "height": 700}, locale="ko-KR")
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))

    def settled():
        page.wait_for_function("""() => {
            const p = window.superclusterPage; if (!p || p.state.error) return true;
            const b = p.map.getBounds();
            const bbox = [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()].map(v => v.toFixed(6)).join(',');
            return p.state.shown && p.state.shown.bbox === bbox && p.state.shown.zoom === Math.floor(p.map.getZoom());
        }""", timeout=10_000)
        state = page.evaluate("window.superclusterPage.state")
        assert not state.get("error"), state
        return state

    def draws_clusters():
        page.goto(server.base + "/web/clusters.html", wait_until="load")
        state = settled()
        assert state["shown"]["contentType"].startswith("application/geo+json"), state["shown"]
        status, fc = server.request("GET", f"/v1/clusters?bbox={state['shown']['bbox']}&zoom={state['shown']['zoom']}")
        assert status == 200
        assert sorted(state["shown"]["ids"]) == sorted(f["id"] for f in fc["features"]), "markers by the answer's numeric ids"
        labels = sorted(page.locator(".sc-cluster").all_inner_texts())
        expected = sorted(str(f["properties"]["point_count_abbreviated"]) for f in fc["features"] if f["properties"].get("cluster"))
        assert labels and labels == expected, f"labels {labels}, point_count_abbreviated {expected}"
        page.screenshot(path=os.path.join(shots, "10-supercluster-page.png"))
        # A pan keeps the markers still in view (same ids): stable ids.
        page.evaluate("void window.superclusterPage.map.panBy([60, 40], {animate: false})")
        after = settled()
        assert after["reused"] > 0, f"no marker kept across a pan: {after}"
        biggest = max((f for f in fc["features"] if f["properties"].get("cluster")), key=lambda f: f["properties"]["point_count"])
        page.locator(f".sc-cluster[data-feature-id='{biggest['id']}']").click()
        page.wait_for_function(f"() => window.superclusterPage.map.getZoom() === {min(biggest['properties']['expansion_zoom'], 18)}",
                               timeout=10_000)
        settled()
        assert not errors, errors
    checks.run("a Leaflet page written for supercluster draws /v1/clusters", draws_clusters)
    page.close()


if __name__ == "__main__":
    sys.exit(main())

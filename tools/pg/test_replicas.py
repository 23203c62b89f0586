"""Issue 27's replica checks: two `taxipot serve` replicas on one PostgreSQL party store.

  visibility  a PUT on one replica is in the other's /v1/clusters within 200 ms (each of 10);
  joins       200 concurrent joins spread over both replicas on one party with 3 free seats:
              exactly 3 succeed, 197 answer 409, both replicas show the same 4 riders;
  settle      a party settled through one replica (issue 38) is closed on the other at once: a
              join there answers 409 party_settled, it shows "settled": true, the same key
              answers the same settlement; the settling replica killed -9 and restarted still
              has it settled;
  kill -9     a replica killed during writes: every acknowledged write is in the database, on
              the other replica, and on the killed one once restarted;
  outage      PostgreSQL stopped: writes answer 503 with Retry-After on both, reads keep serving;
              started again: both replicas write again by themselves, catch up and agree.

Usage: python3 tools/pg/test_replicas.py BIN   (exit 0 all passed, 1 a check failed)
"""
import concurrent.futures as cf
import os
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pglib import Replica, TempPostgres, cluster_ids, party_body  # noqa: E402

TOKEN = "replica-test-token"
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures.append(what)


def wait_until(pred, timeout, step=0.005):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(step)
    return pred()


def visibility(a, b):
    lags = []
    for i in range(10):
        lon, lat = 126.97 + 0.002 * i, 37.56
        src, dst = (a, b) if i % 2 == 0 else (b, a)
        pid = f"vis-{i}"
        t0 = time.time()
        status, js, _ = src.request("PUT", f"/v1/parties/{pid}", party_body(lon, lat))
        if status not in (200, 201):
            check(False, f"visibility: PUT {pid} answered {status} {js}")
            return
        t1 = time.time()
        seen = wait_until(lambda: pid in cluster_ids(dst, lon, lat), 2.0, step=0.002)
        lags.append((time.time() - t1) if seen else float("inf"))
    worst = max(lags)
    check(worst <= 0.2, f"visibility: a PUT on one replica is in the other's /v1/clusters within 200 ms "
                        f"(10 PUTs, worst {worst * 1000:.1f} ms, median {sorted(lags)[5] * 1000:.1f} ms)")


def joins(a, b):
    status, _, _ = a.request("PUT", "/v1/parties/race", party_body(126.985, 37.565, seats=4, taken=1))
    check(status == 201, f"joins: the party is created (status {status})")
    wait_until(lambda: b.request("GET", "/v1/parties/race")[0] == 200, 2.0)
    barrier = threading.Barrier(200)

    def join(i):
        r = (a, b)[i % 2]
        barrier.wait()
        return r.request("POST", "/v1/parties/race/riders", {"rider_id": f"r{i}", "seats": 1}, timeout=30)[0]

    with cf.ThreadPoolExecutor(200) as pool:
        statuses = list(pool.map(join, range(200)))
    ok, full = statuses.count(200), statuses.count(409)
    check(ok == 3 and full == 197, f"joins: 200 racing joins over both replicas on 3 free seats: {ok} succeed (want 3), {full} answer 409 (want 197); others {sorted(set(statuses) - {200, 409})}")
    views = []
    for r in (a, b):
        wait_until(lambda r=r: (r.request("GET", "/v1/parties/race")[1] or {}).get("seats_taken") == 4, 2.0)
        js = r.request("GET", "/v1/parties/race")[1]
        views.append((js["seats_taken"], js["version"], sorted(x["rider_id"] for x in js["riders"])))
    check(views[0] == views[1] and views[0][0] == 4 and len(views[0][2]) == 4,
          f"joins: both replicas show the same full party: {views[0]} / {views[1]}")
    rows = pg.psql("SELECT seats_taken, version FROM parties WHERE id = 'race'")
    check(rows == [f"4|{views[0][1]}"], f"joins: the database holds seats_taken 4 at the same version: {rows}")


def settle(a, b):
    pid = "settled-1"
    status, _, _ = a.request("PUT", f"/v1/parties/{pid}", party_body(126.978, 37.5665))
    check(status == 201, f"settle: the party is created (status {status})")
    wait_until(lambda: b.request("GET", f"/v1/parties/{pid}")[0] == 200, 2.0)
    # The trace: the road route from the origin, one fix per vertex every 5 s from the departure.
    status, js, _ = a.request("GET", "/route/v1/driving/126.978,37.5665;126.9882,37.5701?overview=full&geometries=geojson")
    coords = js["routes"][0]["geometry"]["coordinates"] if status == 200 else []
    t0 = int(time.time()) + 3600
    body = {"trace": [[lon, lat, t0 + 5 * i] for i, (lon, lat) in enumerate(coords)], "idempotency_key": "ride-settled-1"}
    status, first, _ = a.request("POST", f"/v1/parties/{pid}/settle", body, timeout=30)
    check(status == 200, f"settle: settled through replica a (status {status}: {str(first)[:200]})")
    # At once on b: its follower may not have applied the settlement yet; the store refuses the join anyway.
    status, js, _ = b.request("POST", f"/v1/parties/{pid}/riders", {"rider_id": "late", "seats": 1})
    check(status == 409 and (js or {}).get("error", {}).get("code") == "party_settled",
          f"settle: a join on replica b answers 409 party_settled (got {status} {js})")
    check(wait_until(lambda: (b.request("GET", f"/v1/parties/{pid}")[1] or {}).get("settled") is True, 2.0, step=0.01),
          "settle: replica b shows the party settled")
    status, again, _ = b.request("POST", f"/v1/parties/{pid}/settle", body, timeout=30)
    check(status == 200 and again == first, f"settle: the same key on replica b answers the same settlement (status {status})")
    a.kill9()
    a.start()
    a.wait_ready()
    status, js, _ = a.request("GET", f"/v1/parties/{pid}")
    check(status == 200 and js.get("settled") is True, f"settle: replica a killed -9 and restarted shows it settled ({status})")


def kill9(a, b):
    acked, lock, stop = [], threading.Lock(), threading.Event()

    def writer(w):
        n = 0
        while not stop.is_set():
            pid = f"k{w}-{n}"
            n += 1
            try:
                status, _, _ = a.request("PUT", f"/v1/parties/{pid}", party_body(126.99 + 0.0001 * (n % 50), 37.57), timeout=5)
            except OSError:
                continue  # the replica died under this request: not acknowledged
            if status in (200, 201):
                with lock:
                    acked.append(pid)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    wait_until(lambda: len(acked) >= 100, 20, step=0.01)
    a.kill9()
    stop.set()
    for t in threads:
        t.join()
    a.start()  # restarting meanwhile (the checks below do not need it)
    stored = set(pg.psql("SELECT id FROM parties WHERE id LIKE 'k%'"))
    lost = [p for p in acked if p not in stored]
    check(len(acked) >= 100 and not lost, f"kill -9: all {len(acked)} acknowledged writes are in the database ({len(lost)} lost)")
    def on_b():
        return all(b.request("GET", f"/v1/parties/{p}")[0] == 200 for p in acked[-20:] + acked[:20])
    check(wait_until(on_b, 2.0, step=0.05), "kill -9: the other replica shows the acknowledged writes")
    a.wait_ready()
    missing = [p for p in acked if a.request("GET", f"/v1/parties/{p}")[0] != 200]
    check(not missing, f"kill -9: the restarted replica loaded every acknowledged write ({len(missing)} missing)")


def outage(a, b):
    pg.stop("fast")
    answers = [r.request("PUT", "/v1/parties/during-outage", party_body(126.992, 37.566)) for r in (a, b)]
    answers += [r.request("POST", "/v1/parties/race/riders", {"rider_id": "late", "seats": 1}) for r in (a, b)]
    check(all(s == 503 and h.get("retry-after", "").isdigit() and j["error"]["code"] == "storage_unavailable" for s, j, h in answers),
          f"outage: writes answer 503 storage_unavailable with Retry-After: {[(s, h.get('retry-after')) for s, _, h in answers]}")
    reads = [r.request("GET", "/v1/parties/race")[0] for r in (a, b)] + [200 if "vis-0" in cluster_ids(r, 126.97, 37.56) else 0 for r in (a, b)]
    check(reads == [200] * 4, f"outage: reads keep serving the live index: {reads}")
    time.sleep(0.5)
    pg.start()
    t0 = time.time()
    back = {}
    for name, r in (("a", a), ("b", b)):
        def writes(r=r, name=name):
            s = r.request("PUT", f"/v1/parties/after-{name}", party_body(126.994, 37.567))[0]
            return s in (200, 201)
        back[name] = wait_until(writes, 20, step=0.1)
    check(all(back.values()), f"outage: both replicas write again by themselves once PostgreSQL is back ({time.time() - t0:.1f} s)")
    # Writes on each side while the other follows: both must end with the same parties.
    for i in range(20):
        (a, b)[i % 2].request("PUT", f"/v1/parties/post-{i}", party_body(126.995 + 0.0001 * i, 37.568))

    def agree():
        views = []
        for r in (a, b):
            s, js, _ = r.request("GET", "/v1/parties?near=127.0,37.56&radius_m=20000&limit=100")
            if s != 200:
                return False
            views.append(sorted((p["id"], p["version"], p["seats_taken"]) for p in js["parties"]))
        return views[0] == views[1] and {"after-a", "after-b", "post-19"} <= {p[0] for p in views[0]}
    check(wait_until(agree, 5.0, step=0.05), "outage: after the restart both replicas catch up and agree (every party, version and seat)")
    rows = set(pg.psql("SELECT id FROM parties WHERE id LIKE 'post-%' OR id LIKE 'after-%'"))
    check(len(rows) == 22, f"outage: the database holds the 22 writes made after the restart ({len(rows)})")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: test_replicas.py BIN")
    binary = os.path.abspath(sys.argv[1])
    t_start = time.time()
    work = tempfile.mkdtemp(prefix="taxipot-replicas-")
    pg = None
    replicas = []
    try:
        pg = TempPostgres()  # no PostgreSQL binaries: an error, reported as a failure below
        # 8 workers each: writes of different parties commit together (group commit).
        a = Replica(binary, pg.url, TOKEN, work, "a", ["--workers", "8"])
        b = Replica(binary, pg.url, TOKEN, work, "b", ["--workers", "8"])
        replicas = [a, b]
        for r in replicas:
            r.start()
        for r in replicas:
            r.wait_ready()
        print(f"pg-replicas: PostgreSQL on port {pg.port}, replicas on {a.port} and {b.port} ({time.time() - t_start:.1f} s)", flush=True)
        visibility(a, b)
        joins(a, b)
        settle(a, b)
        kill9(a, b)
        outage(a, b)
    except Exception as e:  # noqa: BLE001 - a broken set-up is a failure, never a skip
        check(False, f"set-up or check raised {type(e).__name__}: {e}")
    finally:
        for r in replicas:
            r.stop()
        if pg:
            pg.close()
        if failures:
            for name in ("a", "b"):
                p = os.path.join(work, name + ".log")
                if os.path.exists(p):
                    print(f"--- {p} (tail)\n" + open(p, errors="replace").read()[-3000:])
        shutil.rmtree(work, ignore_errors=True)
    print(f"pg-replicas: {'FAILED: ' + str(len(failures)) if failures else 'all passed'} ({time.time() - t_start:.1f} s)")
    sys.exit(1 if failures else 0)

"""Peers for place search over the same place table (data/build/places.db, table `places`):

- FTS5 trigram: an in-memory FTS5 table (tokenize='trigram') over name and name_en; queries of 3+
  characters go through MATCH as a phrase, shorter ones or those MATCH misses through
  `name LIKE '%q%'`; results ordered by exact name first, then importance, then bm25 rank.
- rapidfuzz: process.extract over every name and English name with fuzz.WRatio; best score,
  ties broken by importance.

Both ignore `near` (they have no location bias). Top-1 is right when the first result has the
expected name and, where the case gives one, an address containing the expected piece (the
rule of the project's query set, data/places/queries.tsv). Copies the query set to
bench-out/inputs/place_queries.tsv for the HTTP load.
Usage: peer_places.py [PLACES_DB] [QUERIES_TSV]
"""
import os
import shutil
import sqlite3
import sys

from rapidfuzz import fuzz, process
import rapidfuzz

import benchlib


def load_queries(path):
    cases = []
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f):
            line = line.rstrip("\r\n")
            if i == 0 or not line.strip() or line.startswith("#"):
                continue
            c = line.split("\t")
            cases.append({"kind": c[0], "query": c[1], "near": c[2], "name": c[3],
                          "address": c[4] if len(c) > 4 and c[4] else None})
    return cases


def load_places(db_path):
    con = sqlite3.connect("file:%s?mode=ro" % db_path, uri=True)
    rows = con.execute("SELECT name, COALESCE(name_en, ''), address, importance FROM places").fetchall()
    con.close()
    return rows


def expected(case, place):
    return place is not None and place[0] == case["name"] and (case["address"] is None or case["address"] in place[2])


class FTS5Trigram:
    def __init__(self, places):
        self.places = places
        self.con = sqlite3.connect(":memory:")
        self.con.execute("CREATE VIRTUAL TABLE f USING fts5(name, name_en, tokenize='trigram')")
        self.con.execute("CREATE TABLE p(id INTEGER PRIMARY KEY, name TEXT, name_en TEXT, importance REAL)")
        self.con.executemany("INSERT INTO f(rowid, name, name_en) VALUES (?, ?, ?)",
                             ((i, p[0], p[1]) for i, p in enumerate(places)))
        self.con.executemany("INSERT INTO p(id, name, name_en, importance) VALUES (?, ?, ?, ?)",
                             ((i, p[0], p[1], p[3]) for i, p in enumerate(places)))
        self.con.commit()

    def search(self, q, limit=10):
        rows = []
        if len(q) >= 3:
            phrase = '"' + q.replace('"', '""') + '"'
            rows = self.con.execute(
                "SELECT f.rowid FROM f JOIN p ON p.id = f.rowid WHERE f MATCH ? "
                "ORDER BY (p.name = ?) DESC, p.importance DESC, f.rank LIMIT ?", (phrase, q, limit)).fetchall()
        if not rows:
            like = "%" + q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            rows = self.con.execute(
                "SELECT id FROM p WHERE name LIKE ? ESCAPE '\\' OR name_en LIKE ? ESCAPE '\\' "
                "ORDER BY (name = ?) DESC, importance DESC LIMIT ?", (like, like, q, limit)).fetchall()
        return [self.places[r[0]] for r in rows]


class RapidFuzz:
    def __init__(self, places):
        self.places = places
        self.choices = []
        self.owner = []
        for i, p in enumerate(places):
            self.choices.append(p[0])
            self.owner.append(i)
            if p[1]:
                self.choices.append(p[1])
                self.owner.append(i)

    def search(self, q, limit=10):
        hits = process.extract(q, self.choices, scorer=fuzz.WRatio, limit=limit)
        if not hits:
            return []
        ranked = sorted(hits, key=lambda h: (-h[1], -self.places[self.owner[h[2]]][3]))
        return [self.places[self.owner[h[2]]] for h in ranked]


def measure(name, engine, cases, rounds, impl, cond, key_side, timed_cases=None):
    """A warm-up over other text (each query less its last character, as ours), `rounds` timed
    passes over `timed_cases` (default: every case), then top-1 accuracy over every case."""
    timed_cases = timed_cases or cases
    for c in timed_cases:
        if len(c["query"]) > 1:
            engine.search(c["query"][:-1])
    p50s, p99s = [], []
    for r in range(rounds):
        lat = []
        for c in timed_cases:
            t0 = benchlib.now_ns()
            engine.search(c["query"])
            lat.append((benchlib.now_ns() - t0) / 1000.0)
        p50s.append(benchlib.percentile(lat, 50))
        p99s.append(benchlib.percentile(lat, 99))
    correct = 0
    by_kind = {}
    for c in cases:
        res = engine.search(c["query"])
        ok = expected(c, res[0] if res else None)
        correct += ok
        k = by_kind.setdefault(c["kind"], [0, 0])
        k[0] += ok
        k[1] += 1
    if len(timed_cases) != len(cases):
        cond += "; latency over %d of the queries (one in %d)" % (len(timed_cases), len(cases) // len(timed_cases))
    acc = 100.0 * correct / len(cases)
    kinds = ", ".join("%s %d/%d" % (k, v[0], v[1]) for k, v in sorted(by_kind.items()))
    benchlib.log("%s: top-1 %.1f%% (%s), p50 %.0f µs" % (name, acc, kinds, sorted(p50s)[len(p50s) // 2]))
    return [
        benchlib.record("places.top1", key_side, impl, "top-1 accuracy", "%", "higher", [acc], len(cases),
                        cond + "; by kind: " + kinds),
        benchlib.record("places.p50", key_side, impl, "search p50", "µs", "lower", p50s, len(timed_cases), cond),
        benchlib.record("places.p99", key_side, impl, "search p99", "µs", "lower", p99s, len(timed_cases), cond),
    ]


def main():
    db = sys.argv[1] if len(sys.argv) > 1 else os.path.join(benchlib.ROOT, "data/build/places.db")
    qpath = sys.argv[2] if len(sys.argv) > 2 else os.path.join(benchlib.ROOT, "data/places/queries.tsv")
    if not os.path.exists(qpath):
        raise SystemExit("no query set at %s" % qpath)
    shutil.copyfile(qpath, os.path.join(benchlib.INPUTS, "place_queries.tsv"))
    cases = load_queries(qpath)
    places = load_places(db)
    rounds = 5
    cond = "%d queries of data/places/queries.tsv x %d rounds over %d places (no location bias)" % (
        len(cases), rounds, len(places))
    results = []
    t0 = benchlib.now_ns()
    fts = FTS5Trigram(places)
    build = (benchlib.now_ns() - t0) / 1e9
    results += measure("FTS5 trigram", fts, cases, rounds, "SQLite %s FTS5 trigram + LIKE (Python sqlite3)" %
                       sqlite3.sqlite_version, cond + "; index built in %.1f s" % build, "peer")
    rf = RapidFuzz(places)
    # rapidfuzz scans every name per query (tens of ms): its latency is timed on half the set (quick: a quarter)
    results += measure("rapidfuzz", rf, cases, rounds, "rapidfuzz %s WRatio" % rapidfuzz.__version__, cond,
                       "peer-rapidfuzz", cases[::4] if benchlib.QUICK else cases[::2])
    benchlib.emit(results)


if __name__ == "__main__":
    main()

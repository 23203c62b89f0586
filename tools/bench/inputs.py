"""Generates the benchmark inputs both sides read, from fixed seeds, into bench-out/inputs/.

  coords_1m.f64        1M lon,lat (float64 LE pairs), uniform over South Korea's bounding box
  route_pairs.csv      random pairs of road nodes of central Seoul (largest SCC of the car graph)
  table_points.csv     2,000 random road nodes of central Seoul (lon,lat): table sources, then destinations
  batch_<N>.csv        N trip rows (origin_lon,origin_lat,dest_lon,dest_lat,depart_at) on the same nodes
  parties_1m.f64       1M lon,lat around 12 Korean cities (the first 100k are the 100k set)
  viewports.csv        zoom,west,south,east,north: phone-sized viewports (412x915 px) at zooms 6-16,
                       the timed set: 5 blocks of 500, one a round (no round repeats a viewport)
  viewports_warmup.csv 500 other viewports (another seed), for the warm-up only

Re-running with the same parameters does nothing.
Usage: inputs.py [--batch-rows N] [--pairs N] [--viewports N]
"""
import argparse
import json
import math
import os

import numpy as np

import benchlib
import osmgraph

SEED = 20240601
KOREA = (124.6, 33.1, 131.0, 38.6)
# (name, lon, lat, share, sigma_km)
CITIES = [
    ("Seoul", 126.978, 37.566, 0.35, 12), ("Busan", 129.075, 35.180, 0.12, 10),
    ("Incheon", 126.705, 37.456, 0.08, 8), ("Daegu", 128.601, 35.871, 0.08, 8),
    ("Daejeon", 127.385, 36.351, 0.06, 7), ("Gwangju", 126.852, 35.160, 0.06, 7),
    ("Ulsan", 129.311, 35.539, 0.04, 6), ("Suwon", 127.029, 37.263, 0.06, 7),
    ("Seongnam", 127.138, 37.420, 0.05, 5), ("Jeju", 126.531, 33.499, 0.03, 6),
    ("Changwon", 128.681, 35.228, 0.04, 6), ("Cheongju", 127.489, 36.642, 0.03, 5),
]
VIEW_W, VIEW_H = 412, 915  # CSS pixels of a phone screen, 256-px tiles


def write_coords(path):
    rng = np.random.default_rng(SEED)
    n = 1_000_000
    pts = np.empty((n, 2))
    pts[:, 0] = rng.uniform(KOREA[0], KOREA[2], n)
    pts[:, 1] = rng.uniform(KOREA[1], KOREA[3], n)
    pts.astype("<f8").tofile(path)


def road_nodes():
    g, coords = osmgraph.build(os.path.join(benchlib.ROOT, "data/osm/seoul-central.osm.pbf"))
    scc = sorted(osmgraph.largest_scc(g))
    return np.array([coords[i] for i in scc])


def write_pairs(path, nodes, count):
    rng = np.random.default_rng(SEED + 1)
    a = rng.integers(0, len(nodes), count)
    b = rng.integers(0, len(nodes), count)
    with open(path, "w") as f:
        f.write("from_lon,from_lat,to_lon,to_lat\n")
        for i, j in zip(a, b):
            f.write("%.7f,%.7f,%.7f,%.7f\n" % (nodes[i][0], nodes[i][1], nodes[j][0], nodes[j][1]))


def write_table_points(path, nodes, count):
    rng = np.random.default_rng(SEED + 3)
    with open(path, "w") as f:
        f.write("lon,lat\n")
        for i in rng.integers(0, len(nodes), count):
            f.write("%.7f,%.7f\n" % (nodes[i][0], nodes[i][1]))


def write_batch(path, nodes, rows):
    rng = np.random.default_rng(SEED + 2)
    a = rng.integers(0, len(nodes), rows)
    b = rng.integers(0, len(nodes), rows)
    day = rng.integers(1, 29, rows)
    minute = rng.integers(0, 24 * 60, rows)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("trip_id,origin_lon,origin_lat,dest_lon,dest_lat,depart_at\n")
        chunk = 100_000
        for s in range(0, rows, chunk):
            lines = []
            for k in range(s, min(rows, s + chunk)):
                o, d = nodes[a[k]], nodes[b[k]]
                lines.append("%d,%.7f,%.7f,%.7f,%.7f,2025-06-%02dT%02d:%02d:00+09:00\n" % (
                    k + 1, o[0], o[1], d[0], d[1], day[k], minute[k] // 60, minute[k] % 60))
            f.write("".join(lines))
    os.replace(tmp, path)


def write_parties(path):
    rng = np.random.default_rng(SEED + 3)
    n = 1_000_000
    shares = np.array([c[3] for c in CITIES])
    which = rng.choice(len(CITIES), n, p=shares / shares.sum())
    lon0 = np.array([c[1] for c in CITIES])[which]
    lat0 = np.array([c[2] for c in CITIES])[which]
    sig = np.array([c[4] for c in CITIES])[which] * 1000.0
    dy = rng.normal(0, 1, n) * sig
    dx = rng.normal(0, 1, n) * sig
    lat = lat0 + dy / 111_195.0
    lon = lon0 + dx / (111_195.0 * np.cos(np.radians(lat0)))
    np.stack([lon, lat], axis=1).astype("<f8").tofile(path)


def mercator_px(lon, lat, z):
    scale = 256 * 2 ** z
    x = (lon + 180) / 360 * scale
    s = math.sin(math.radians(lat))
    y = (0.5 - math.log((1 + s) / (1 - s)) / (4 * math.pi)) * scale
    return x, y


def px_lonlat(x, y, z):
    scale = 256 * 2 ** z
    lon = x / scale * 360 - 180
    n = math.pi - 2 * math.pi * y / scale
    lat = math.degrees(math.atan(math.sinh(n)))
    return lon, lat


def write_viewports(path, parties_path, count, seed=SEED + 4):
    rng = np.random.default_rng(seed)
    pts = benchlib.read_f64_pairs(parties_path)
    centres = pts[rng.integers(0, len(pts), count)]
    zooms = rng.integers(6, 17, count)
    with open(path, "w") as f:
        f.write("zoom,west,south,east,north\n")
        for (lon, lat), z in zip(centres, zooms):
            x, y = mercator_px(lon, lat, int(z))
            w, n = px_lonlat(x - VIEW_W / 2, y - VIEW_H / 2, int(z))
            e, s = px_lonlat(x + VIEW_W / 2, y + VIEW_H / 2, int(z))
            f.write("%d,%.7f,%.7f,%.7f,%.7f\n" % (z, w, s, e, n))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch-rows", type=int, default=1_000_000)
    ap.add_argument("--pairs", type=int, default=1000)
    # 5 rounds of 500: each timed round queries viewports no earlier round saw (a kept tile
    # would otherwise answer it); the warm-up gets 500 others (viewports_warmup.csv).
    ap.add_argument("--viewports", type=int, default=2500)
    args = ap.parse_args()
    os.makedirs(benchlib.INPUTS, exist_ok=True)
    p = lambda name: os.path.join(benchlib.INPUTS, name)
    manifest_path = p("manifest.json")
    manifest = json.load(open(manifest_path)) if os.path.exists(manifest_path) else {}
    want = {"seed": SEED, "version": 1}
    if {k: manifest.get(k) for k in want} != want:
        manifest = dict(want)

    def need(name, params):
        key = "file:" + name
        if os.path.exists(p(name)) and manifest.get(key) == params:
            return False
        manifest[key] = params
        benchlib.log("inputs: writing", name, params)
        return True

    if need("coords_1m.f64", 1_000_000):
        write_coords(p("coords_1m.f64"))
    nodes = None
    if need("route_pairs.csv", args.pairs):
        nodes = road_nodes()
        write_pairs(p("route_pairs.csv"), nodes, args.pairs)
    if need("table_points.csv", 2000):
        nodes = nodes if nodes is not None else road_nodes()
        write_table_points(p("table_points.csv"), nodes, 2000)
    batch = "batch_%d.csv" % args.batch_rows
    if need(batch, args.batch_rows):
        nodes = nodes if nodes is not None else road_nodes()
        write_batch(p(batch), nodes, args.batch_rows)
    if need("parties_1m.f64", 1_000_000):
        write_parties(p("parties_1m.f64"))
    if need("viewports.csv", args.viewports):
        write_viewports(p("viewports.csv"), p("parties_1m.f64"), args.viewports)
    if need("viewports_warmup.csv", 500):
        write_viewports(p("viewports_warmup.csv"), p("parties_1m.f64"), 500, seed=SEED + 5)
    json.dump(manifest, open(manifest_path, "w"), indent=1)


if __name__ == "__main__":
    main()

"""Writes a deterministic trips CSV for the Spark batch test: N rows in central Seoul.

    python3 tools/spark/make_trips.py N OUT.csv

Columns: id, origin_lon, origin_lat, dest_lon, dest_lat, depart_at, riders, note. Trip ends are
drawn (seeded) in the served centre; every 997th row has a malformed latitude and every 1,009th
a note with a quoted comma, so error rows and quoting are compared too.
"""

import random
import sys


def main(n, path):
    rng = random.Random(27)
    with open(path, "w", encoding="utf-8", newline="") as out:
        out.write("id,origin_lon,origin_lat,dest_lon,dest_lat,depart_at,riders,note\n")
        for i in range(1, n + 1):
            olon, olat = rng.uniform(126.960, 127.010), rng.uniform(37.550, 37.580)
            dlon, dlat = rng.uniform(126.960, 127.010), rng.uniform(37.550, 37.580)
            hour = rng.randrange(24)
            riders = rng.randrange(1, 5)
            olat_text = "north" if i % 997 == 0 else f"{olat:.5f}"
            note = '"pick up, gate 2"' if i % 1009 == 0 else ""
            out.write(f"t{i},{olon:.5f},{olat_text},{dlon:.5f},{dlat:.5f},"
                      f"2024-05-08T{hour:02d}:15:00+09:00,{riders},{note}\n")


if __name__ == "__main__":
    if len(sys.argv) != 3 or not sys.argv[1].isdigit():
        sys.exit("usage: make_trips.py N OUT.csv")
    main(int(sys.argv[1]), sys.argv[2])

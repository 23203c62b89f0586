"""Peer for the CLI figure: pyproj doing the CLI's whole job in a plain script.

  pyproj_csv.py FILE TARGET   reads x,y lines with numpy.loadtxt, transforms them from WGS84
                              with Transformer.transform (always_xy), writes x,y lines with
                              numpy.savetxt (3 decimals) to stdout

Timed from outside by cli_bench.py, like `taxipot transform` and cs2cs.
"""
import sys

import numpy as np
import pyproj


def main():
    path, target = sys.argv[1], sys.argv[2]
    t = pyproj.Transformer.from_crs("EPSG:4326", target, always_xy=True)
    pts = np.loadtxt(path, delimiter=",", ndmin=2)
    x, y = t.transform(pts[:, 0], pts[:, 1])
    np.savetxt(sys.stdout, np.column_stack([x, y]), fmt="%.3f", delimiter=",")


if __name__ == "__main__":
    main()

"""Writes the staged node-link CSV subset (data/nodelink) in the form MOLIT distributes it:
MOCT_NODE.shp (points), MOCT_LINK.shp (polylines) and TURNINFO.dbf, coordinates in EPSG:5186,
DBF text in CP949, with .prj and .cpg files. Run by tools/nodelink/make-shapefiles.

The CSV has no link shapes: a link's polyline is the straight line between its two nodes (a
null shape when a node lies outside the subset), while its LENGTH field is the real length
(SHAPE_STLe). TURNINFO keeps only the rows at nodes of the subset.
"""
import ast
import csv
import os
import sys

import pyproj
import shapefile

PRJ_5186 = (
    'PROJCS["Korea_2000_Korea_Central_Belt_2010",GEOGCS["GCS_Korea_2000",'
    'DATUM["D_Korea_2000",SPHEROID["GRS_1980",6378137.0,298.257222101]],'
    'PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],'
    'PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",200000.0],'
    'PARAMETER["False_Northing",600000.0],PARAMETER["Central_Meridian",127.0],'
    'PARAMETER["Scale_Factor",1.0],PARAMETER["Latitude_Of_Origin",38.0],UNIT["Meter",1.0]]'
)


def text(value):
    """A CSV cell as text: `b'...'` cells are Python literals of CP949 bytes."""
    if value.startswith("b'") or value.startswith('b"'):
        return ast.literal_eval(value).decode("cp949")
    return value


def code(value, width):
    """A code column ('000', '5', '1.0') as the DBF's fixed-width character code."""
    if value == "":
        return ""
    try:
        return str(int(float(value))).zfill(width)
    except ValueError:
        return value


def number(value):
    return float(value) if value not in ("", "-") else 0.0


def side_files(out, stem):
    with open(os.path.join(out, stem + ".prj"), "w") as f:
        f.write(PRJ_5186)
    with open(os.path.join(out, stem + ".cpg"), "w") as f:
        f.write("CP949")


def main(src, out):
    os.makedirs(out, exist_ok=True)
    to5186 = pyproj.Transformer.from_crs(4326, 5186, always_xy=True)
    position = {}
    with shapefile.Writer(os.path.join(out, "MOCT_NODE"), shapeType=shapefile.POINT, encoding="cp949",
                          encodingErrors="replace") as w:
        w.field("NODE_ID", "C", 10)
        w.field("NODE_TYPE", "C", 3)
        w.field("NODE_NAME", "C", 30)
        w.field("TURN_P", "C", 1)
        w.field("REMARK", "C", 30)
        with open(os.path.join(src, "Seoul_node.csv"), newline="", encoding="utf-8") as f:
            for r in csv.DictReader(f):
                x, y = to5186.transform(float(r["longitude"]), float(r["latitude"]))
                position[r["Id"]] = (x, y)
                w.point(x, y)
                w.record(r["Id"], code(r["NODE_TYPE"], 3), r["NODE_NAME"], code(r["TURN_P"], 1), text(r["REMARK"]))
    side_files(out, "MOCT_NODE")

    links = 0
    with shapefile.Writer(os.path.join(out, "MOCT_LINK"), shapeType=shapefile.POLYLINE, encoding="cp949",
                          encodingErrors="replace") as w:
        for name, kind, size, decimals in [
            ("LINK_ID", "C", 10, 0), ("F_NODE", "C", 10, 0), ("T_NODE", "C", 10, 0), ("LANES", "N", 4, 0),
            ("ROAD_RANK", "C", 3, 0), ("ROAD_TYPE", "C", 3, 0), ("ROAD_NO", "C", 5, 0), ("ROAD_NAME", "C", 30, 0),
            ("ROAD_USE", "C", 1, 0), ("MULTI_LINK", "C", 1, 0), ("CONNECT", "C", 3, 0), ("MAX_SPD", "N", 4, 0),
            ("REST_VEH", "C", 3, 0), ("REST_W", "N", 4, 0), ("REST_H", "N", 4, 0), ("LENGTH", "N", 18, 12),
            ("REMARK", "C", 30, 0),
        ]:
            w.field(name, kind, size, decimals)
        with open(os.path.join(src, "Seoul_link.csv"), newline="", encoding="utf-8") as f:
            for r in csv.DictReader(f):
                a, b = position.get(r["Source"]), position.get(r["Target"])
                if a and b:
                    w.line([[a, b]])
                else:
                    w.null()
                w.record(r["LINK_ID"], r["Source"], r["Target"], int(number(r["LANES"])), code(r["ROAD_RANK"], 3),
                         code(r["ROAD_TYPE"], 3), r["ROAD_NO"], text(r["ROAD_NAME"]), code(r["ROAD_USE"], 1),
                         code(r["MULTI_LINK"], 1), code(r["CONNECT"], 3), int(number(r["MAX_SPD"])),
                         code(r["REST_VEH"], 1), int(number(r["REST_W"])), int(number(r["REST_H"])),
                         number(r["SHAPE_STLe"]), text(r["REMARK"]))
                links += 1
    side_files(out, "MOCT_LINK")

    turns = 0
    with open(os.path.join(out, "TURNINFO.dbf"), "wb") as dbf:
        w = shapefile.Writer(dbf=dbf, encoding="cp949", encodingErrors="replace")
        w.field("NODE_ID", "C", 10)
        w.field("TURN_ID", "C", 5)
        w.field("ST_LINK", "C", 10)
        w.field("ED_LINK", "C", 10)
        w.field("TURN_TYPE", "C", 3)
        w.field("TURN_OPER", "C", 1)
        w.field("REMARK", "C", 30)
        with open(os.path.join(src, "TURNINFO.csv"), newline="", encoding="utf-8-sig") as f:
            for r in csv.DictReader(f):
                if r["NODE_ID"] not in position:
                    continue
                w.record(r["NODE_ID"], r["TURN_ID"], r["ST_LINK"], r["ED_LINK"], code(r["TURN_TYPE"], 3),
                         code(r["TURN_OPER"], 1), r["REMARK"])
                turns += 1
        w.close()
    with open(os.path.join(out, "TURNINFO.cpg"), "w") as f:
        f.write("CP949")
    print(f"make-shapefiles: {len(position)} nodes, {links} links, {turns} turn rows (Seoul nodes) -> {out}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

"""A networkx car graph built from an OSM file with pyosmium (the Python peers' road graph).

Nodes are OSM node ids with (lon, lat); a directed edge per consecutive node pair of a drivable
way (both directions unless one-way), weighted by its great-circle length in metres.
"""
import math

import networkx as nx
import osmium

DRIVABLE = {
    "motorway", "motorway_link", "trunk", "trunk_link", "primary", "primary_link",
    "secondary", "secondary_link", "tertiary", "tertiary_link", "unclassified",
    "residential", "living_street", "service", "road",
}
R = 6371008.8


def haversine(lon1, lat1, lon2, lat2):
    p = math.pi / 180
    dlat = (lat2 - lat1) * p
    dlon = (lon2 - lon1) * p
    a = math.sin(dlat / 2) ** 2 + math.cos(lat1 * p) * math.cos(lat2 * p) * math.sin(dlon / 2) ** 2
    return 2 * R * math.asin(min(1.0, math.sqrt(a)))


def build(path):
    """(graph, coords) where coords maps node id -> (lon, lat); graph is a DiGraph."""
    g = nx.DiGraph()
    coords = {}
    fp = osmium.FileProcessor(path).with_locations().with_filter(osmium.filter.KeyFilter("highway"))
    for obj in fp:
        if not obj.is_way():
            continue
        tags = obj.tags
        if tags.get("highway") not in DRIVABLE:
            continue
        if tags.get("access") in ("no", "private") or tags.get("motor_vehicle") == "no":
            continue
        oneway = tags.get("oneway", "no")
        forward = oneway != "-1"
        backward = oneway in ("no", "false", "0") and tags.get("junction") != "roundabout" \
            and tags.get("highway") not in ("motorway",)
        if oneway == "-1":
            backward = True
        nodes = [(n.ref, n.location.lon, n.location.lat) for n in obj.nodes if n.location.valid()]
        for (a, alon, alat), (b, blon, blat) in zip(nodes, nodes[1:]):
            coords[a] = (alon, alat)
            coords[b] = (blon, blat)
            d = haversine(alon, alat, blon, blat)
            if forward and (not g.has_edge(a, b) or g[a][b]["length"] > d):
                g.add_edge(a, b, length=d)
            if backward and (not g.has_edge(b, a) or g[b][a]["length"] > d):
                g.add_edge(b, a, length=d)
    return g, coords


def largest_scc(g):
    """The node set of the largest strongly connected component."""
    return max(nx.strongly_connected_components(g), key=len)

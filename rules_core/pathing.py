"""Shortest way from a model's start to its end around what it may not cross.

The camera sees only where a model started and stopped, so a move "passes through" another
model only when no way around is short enough. The way around is the shortest path in the
visibility graph of the obstacles grown by the mover's radius (configuration space): nodes are
the obstacle corners plus start and end, edges the segments that stay out of every obstacle's
interior, lengths their Euclidean length, solved with scipy's Dijkstra.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra

# Circles become 12-gons drawn *around* the circle, so a path that clears the polygon clears
# the circle too; the detour is over-estimated by at most 3.5 % of the radius.
QUAD_SEGS = 3
CIRCUMSCRIBE = 1.0 / math.cos(math.pi / (4 * QUAD_SEGS))
SLACK_CM = 1e-4


def grown(core: np.ndarray, radius: np.ndarray) -> np.ndarray:
    """Obstacle footprints grown by the mover's clearance, as polygons that contain the true shape."""
    rounded = radius > 0
    out = np.empty(len(core), dtype=object)
    if rounded.any():
        out[rounded] = shapely.buffer(core[rounded], radius[rounded] * CIRCUMSCRIBE, quad_segs=QUAD_SEGS)
    if (~rounded).any():
        out[~rounded] = core[~rounded]
    return out


def shortest_path(start: tuple[float, float], end: tuple[float, float], obstacles: list) -> float:
    """Length (cm) of the shortest start-end path outside every obstacle interior; inf if none exists."""
    direct = math.dist(start, end)
    start_point, end_point = shapely.Point(start), shapely.Point(end)
    kept = [o for o in obstacles if not (o.contains(start_point) or o.contains(end_point))]
    if not kept:
        return direct
    blocking = shapely.unary_union(kept)
    inner = shapely.buffer(blocking, -SLACK_CM, quad_segs=1)
    shapely.prepare(inner)
    if not inner.intersects(shapely.LineString([start, end])):
        return direct
    nodes = np.vstack(
        [np.array([start, end]), _corners(shapely.buffer(blocking, SLACK_CM, join_style="mitre"))]
    )
    i, j = np.triu_indices(len(nodes), k=1)
    lines = shapely.linestrings(np.stack([nodes[i], nodes[j]], axis=1))
    free = ~shapely.intersects(lines, inner)
    i, j = i[free], j[free]
    lengths = np.hypot(*(nodes[i] - nodes[j]).T)
    graph = coo_matrix((lengths, (i, j)), shape=(len(nodes), len(nodes))).tocsr()
    return float(dijkstra(graph, directed=False, indices=0)[1])


def _corners(geometry: shapely.Geometry) -> np.ndarray:
    rings = shapely.get_rings(shapely.get_parts(geometry))
    coords = [shapely.get_coordinates(ring)[:-1] for ring in rings]
    return np.vstack(coords) if coords else np.empty((0, 2))

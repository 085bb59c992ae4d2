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

# Circles become polygons drawn *around* the circle, so a path that clears the polygon clears
# the circle too: 12-gons first, over-estimating the detour by up to 3.5 % of the radius (0.2 cm
# round a 2 cm buffer), then, for a way round that comes within NEAR_BUDGET of what the model may
# move, 32-gons (0.5 %): the finer graph costs about twice the time, so only the close calls
# pay it. 12-gons alone refused ways round of a true 14.9 cm against 15 and passed 15.1 cm arcs.
COARSE_SEGS = 3
FINE_SEGS = 8
NEAR_BUDGET = 0.05
SLACK_CM = 1e-4
# How deep inside a drawn-around polygon a point in true contact may lie (3.5 % of the grown radius).
CONTACT_SLACK_CM = 0.5


def circumscribe(quad_segs: int) -> float:
    """How far past a circle the polygon drawn around it with `quad_segs` sides a quarter reaches."""
    return 1.0 / math.cos(math.pi / (4 * quad_segs))


def grown(core: np.ndarray, radius: np.ndarray, quad_segs: int = COARSE_SEGS) -> np.ndarray:
    """Obstacle footprints grown by the mover's clearance, as polygons that contain the true shape."""
    rounded = radius > 0
    out = np.empty(len(core), dtype=object)
    if rounded.any():
        out[rounded] = shapely.buffer(
            core[rounded], radius[rounded] * circumscribe(quad_segs), quad_segs=quad_segs
        )
    if (~rounded).any():
        out[~rounded] = core[~rounded]
    return out


def table_room(
    width_cm: float, depth_cm: float, clearance: float, start: tuple[float, float], end: tuple[float, float]
) -> tuple[float, float, float, float] | None:
    """Where on the table the mover's centre may pass (low x, low y, high x, high y): the table
    shrunk by its clearance, since a base that leaves the table has left the game («не могут
    проходить» holds on the table only) and a way round off its edge made a blocked move legal.
    The box holds both ends even where a base hangs over the edge (camera noise, a base set down
    on the edge, a deserter running off), or the rule would drop the move. None where the table
    is too small for the mover and the ends coincide."""
    (sx, sy), (ex, ey) = start, end
    low_x, low_y = min(clearance, sx, ex), min(clearance, sy, ey)
    high_x, high_y = max(width_cm - clearance, sx, ex), max(depth_cm - clearance, sy, ey)
    if high_x <= low_x or high_y <= low_y:
        return None
    return low_x, low_y, high_x, high_y


def shortest_path(
    start: tuple[float, float],
    end: tuple[float, float],
    obstacles: list,
    room: tuple[float, float, float, float] | None = None,
) -> float:
    """Length (cm) of the shortest start-end path outside every obstacle interior and inside the
    `room` box (`table_room`); inf if none exists. The room is convex and holds both ends, so a
    path keeps inside it when its corners do: obstacle corners outside it are no way round.

    A model that starts or ends in contact with an obstacle sits on its true outline, which
    the drawn-around polygon swallows: such an obstacle is shrunk just enough to free the
    point (ignored only when the model really overlaps it, which the end checks report).
    """
    direct = math.dist(start, end)
    ends = shapely.multipoints([start, end])
    kept = [_freed(o, ends) for o in obstacles]
    kept = [o for o in kept if o is not None]
    if not kept:
        return direct
    blocking = shapely.unary_union(kept)
    inner = shapely.buffer(blocking, -SLACK_CM, quad_segs=1)
    shapely.prepare(inner)
    if not inner.intersects(shapely.LineString([start, end])):
        return direct
    corners = _corners(shapely.buffer(blocking, SLACK_CM, join_style="mitre"))
    if room is not None:
        low_x, low_y, high_x, high_y = room
        inside = (
            (corners[:, 0] >= low_x - SLACK_CM) & (corners[:, 0] <= high_x + SLACK_CM)
            & (corners[:, 1] >= low_y - SLACK_CM) & (corners[:, 1] <= high_y + SLACK_CM)
        )
        corners = corners[inside]
    nodes = np.vstack([np.array([start, end]), corners])
    i, j = np.triu_indices(len(nodes), k=1)
    lines = shapely.linestrings(np.stack([nodes[i], nodes[j]], axis=1))
    free = ~shapely.intersects(lines, inner)
    i, j = i[free], j[free]
    lengths = np.hypot(*(nodes[i] - nodes[j]).T)
    graph = coo_matrix((lengths, (i, j)), shape=(len(nodes), len(nodes))).tocsr()
    return float(dijkstra(graph, directed=False, indices=0)[1])


def _freed(obstacle: shapely.Geometry, ends: shapely.Geometry) -> shapely.Geometry | None:
    if not obstacle.intersects(ends):
        return obstacle
    depth = float(shapely.distance(obstacle.boundary, ends))
    shrink = 2 * SLACK_CM + max(depth, 0.0) if depth < CONTACT_SLACK_CM else None
    if shrink is None:
        return None
    freed = shapely.buffer(obstacle, -shrink, join_style="mitre")
    return None if freed.is_empty or freed.intersects(ends) else freed


def _corners(geometry: shapely.Geometry) -> np.ndarray:
    rings = shapely.get_rings(shapely.get_parts(geometry))
    coords = [shapely.get_coordinates(ring)[:-1] for ring in rings]
    return np.vstack(coords) if coords else np.empty((0, 2))

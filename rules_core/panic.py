"""A panicked model (Bronepehota) runs its full speed straight towards the nearest table edge.

The camera sees start and end: the run must point at the nearest edge (within the ruleset's
`panic_heading_tolerance_deg`, unless impassable terrain stands in that straight way; of two
edges equally near, either) and cover the model's whole speed, measured along the way round
impassable pieces («воин обходит непреодолимые преграды»), unless it left the table (a
deserter, gone for good).
"""

from __future__ import annotations

import math

import shapely

from rules_core.reasons import TOLERANCE_CM, angle_between, fmt, names_model, reason
from rules_core.scene import Scene

EDGE_DIRECTIONS = {"left": 180.0, "right": 0.0, "top": 270.0, "bottom": 90.0}
# A run round an impassable piece is measured along a way the camera does not see, which hugs
# the piece grown by the model's radius: a run within a millimetre of the speed is a full one.
ROUND_SLACK_CM = 0.1


def nearest_edges(scene: Scene, x: float, y: float) -> tuple[list[str], float]:
    """The edges nearest the point (two where it stands as near one as the other) and how near."""
    distances = {"left": x, "right": scene.table.width_cm - x, "top": y, "bottom": scene.table.depth_cm - y}
    nearest = min(distances.values())
    return [edge for edge, d in distances.items() if d <= nearest + TOLERANCE_CM], nearest


def panic_reasons(
    before: Scene, after: Scene, a: int, b: int, allowance: float | None, path_cm: float | None = None
) -> list[dict[str, str]]:
    """What a panicked model's run breaks; `path_cm` is the way round what it may not cross, where
    its straight line met such a thing (the move's own path)."""
    tolerance = after.ruleset.panic_heading_tolerance_deg
    model, old = after.models[a], before.models[b]
    if tolerance is None or not model.has("panicked"):
        return []
    edges, to_edge = nearest_edges(before, old.x_cm, old.y_cm)
    moved = math.hypot(model.x_cm - old.x_cm, model.y_cm - old.y_cm)
    reasons = []
    travel = math.degrees(math.atan2(model.y_cm - old.y_cm, model.x_cm - old.x_cm)) % 360.0
    if moved > after.ruleset.moved_threshold_cm and all(
        angle_between(travel, EDGE_DIRECTIONS[edge]) > tolerance and not _blocked(after, model, old, edge)
        for edge in edges
    ):
        reasons.append(
            reason(
                "panic_not_to_nearest_edge",
                f"{model.id} panicked: it must run to the nearest ({' or '.join(edges)}) edge, "
                f"ran {fmt(travel)} deg",
            )
        )
    left_table = not after.table.holds(model.x_cm, model.y_cm)
    ran = moved if path_cm is None else max(moved, path_cm)
    slack = 0.01 if path_cm is None else ROUND_SLACK_CM
    if allowance is not None and not left_table and ran < min(allowance, to_edge) - TOLERANCE_CM - slack:
        reasons.append(
            reason(
                "panic_too_short",
                f"{model.id} panicked: it must run its full {fmt(allowance)} cm, ran {fmt(ran)} cm",
            )
        )
    return reasons


def _blocked(scene: Scene, model, old, edge: str) -> bool:
    """Impassable terrain stands in the straight way to that edge, so the run goes round it."""
    straight = shapely.LineString([(old.x_cm, old.y_cm), _edge_point(scene, edge, old.x_cm, old.y_cm)])
    return any(
        names_model(scene.ruleset.terrain[t.kind].impassable_for, model)
        and straight.intersects(shapely.Polygon(t.polygon_cm))
        for t in scene.spec.terrain
    )


def _edge_point(scene: Scene, edge: str, x: float, y: float) -> tuple[float, float]:
    return {
        "left": (0.0, y),
        "right": (scene.table.width_cm, y),
        "top": (x, 0.0),
        "bottom": (x, scene.table.depth_cm),
    }[edge]

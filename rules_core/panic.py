"""A panicked model (Bronepehota) runs its full speed straight towards the nearest table edge.

The camera sees start and end: the run must point at the nearest edge (within the ruleset's
`panic_heading_tolerance_deg`, unless impassable terrain stands in that straight way) and
cover the model's whole speed, unless it left the table (a deserter, gone for good).
"""

from __future__ import annotations

import math

import shapely

from rules_core.reasons import TOLERANCE_CM, angle_between, fmt, names_model, reason
from rules_core.scene import Scene

EDGE_DIRECTIONS = {"left": 180.0, "right": 0.0, "top": 270.0, "bottom": 90.0}


def nearest_edge(scene: Scene, x: float, y: float) -> tuple[str, float]:
    distances = {"left": x, "right": scene.table.width_cm - x, "top": y, "bottom": scene.table.depth_cm - y}
    edge = min(distances, key=distances.get)
    return edge, distances[edge]


def panic_reasons(
    before: Scene, after: Scene, a: int, b: int, allowance: float | None
) -> list[dict[str, str]]:
    tolerance = after.ruleset.panic_heading_tolerance_deg
    model, old = after.models[a], before.models[b]
    if tolerance is None or not model.has("panicked"):
        return []
    edge, to_edge = nearest_edge(before, old.x_cm, old.y_cm)
    moved = math.hypot(model.x_cm - old.x_cm, model.y_cm - old.y_cm)
    reasons = []
    travel = math.degrees(math.atan2(model.y_cm - old.y_cm, model.x_cm - old.x_cm)) % 360.0
    if moved > after.ruleset.moved_threshold_cm and angle_between(travel, EDGE_DIRECTIONS[edge]) > tolerance:
        straight = shapely.LineString([(old.x_cm, old.y_cm), _edge_point(after, edge, old.x_cm, old.y_cm)])
        blocked = any(
            names_model(after.ruleset.terrain[t.kind].impassable_for, model)
            and straight.intersects(shapely.Polygon(t.polygon_cm))
            for t in after.spec.terrain
        )
        if not blocked:
            reasons.append(
                reason(
                    "panic_not_to_nearest_edge",
                    f"{model.id} panicked: it must run to the nearest ({edge}) edge, ran {fmt(travel)} deg",
                )
            )
    left_table = not (0 <= model.x_cm <= after.table.width_cm and 0 <= model.y_cm <= after.table.depth_cm)
    if allowance is not None and not left_table and moved < min(allowance, to_edge) - TOLERANCE_CM - 0.01:
        reasons.append(
            reason(
                "panic_too_short",
                f"{model.id} panicked: it must run its full {fmt(allowance)} cm, ran {fmt(moved)} cm",
            )
        )
    return reasons


def _edge_point(scene: Scene, edge: str, x: float, y: float) -> tuple[float, float]:
    return {
        "left": (0.0, y),
        "right": (scene.table.width_cm, y),
        "top": (x, 0.0),
        "bottom": (x, scene.table.depth_cm),
    }[edge]

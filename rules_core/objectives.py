"""Objective control: who holds each scenario objective marker.

World at Fire: a side holds an objective when one of its (non-Unique) infantry models is in
range and no enemy model of any kind is; with `whole_unit`, only a model whose unit is all of
controller types counts (an infantry unit, not a squadron a dismounted rider walks with); riders
who left their mounts behind are an infantry unit of their own («наездники становятся обычным
отрядом пехоты, а ездовые животные – другим отрядом»), and a heavy weapon team leaves its squad
an infantry unit (coherency.unit_parts, squad_teams). The
reference points and the inclusiveness are the ruleset's `objectives.radius` (edge of the marker
to edge of the base by default).
"""

from __future__ import annotations

import numpy as np
import shapely

from rules_core.coherency import squad_teams, unit_parts
from rules_core.scene import Scene


def objective_distances(scene: Scene, x: float, y: float, marker_radius_cm: float, how: str) -> np.ndarray:
    fp = scene.footprints
    centre = shapely.Point(x, y)
    if how == "centre":
        return shapely.distance(shapely.centroid(fp.core), centre)
    return np.maximum(shapely.distance(fp.core, centre) - fp.radius - marker_radius_cm, 0.0)


def objectives_report(scene: Scene) -> dict[str, dict]:
    rules = scene.ruleset.objectives
    report: dict[str, dict] = {}
    if rules is None:
        for objective in scene.spec.objectives:
            report[objective.id] = {"controlled_by": None, "contested": False, "sides_in_range": {}}
        return report
    can_control = np.array(
        [
            m.type in rules.controller_types and not any(m.has(flag) for flag in rules.excluded_flags)
            for m in scene.models
        ],
        dtype=bool,
    )
    if rules.whole_unit:
        # The unit as coherency sees it: mounts left behind are another unit, and a heavy weapon
        # team keeps its squad an infantry unit («действуют в составе пехотных отрядов»).
        parts = unit_parts(scene)
        of_type = np.isin([m.type for m in scene.models], rules.controller_types) | squad_teams(scene, parts)
        can_control &= ~np.isin(parts, parts[~of_type])
    for objective in scene.spec.objectives:
        marker_radius = (objective.diameter_mm or rules.marker_mm) / 20.0
        distance = objective_distances(
            scene, objective.x_cm, objective.y_cm, marker_radius, rules.radius.measured
        )
        in_range = rules.radius.holds(distance, scene.cm_per_unit)
        sides_in_range: dict[str, list[str]] = {}
        for k in np.flatnonzero(in_range):
            sides_in_range.setdefault(scene.models[k].side, []).append(scene.models[k].id)
        controllers = {scene.models[k].side for k in np.flatnonzero(in_range & can_control)}
        holder = None
        for side in sorted(controllers):
            rivals = set(sides_in_range) - {side} if rules.blocked_by_any_enemy else controllers - {side}
            if not rivals:
                holder = side
        report[objective.id] = {
            "controlled_by": holder,
            "contested": len(sides_in_range) > 1,
            "sides_in_range": sides_in_range,
        }
    return report

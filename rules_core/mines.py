"""Hidden mines and charges: which ones an enemy sapper has come close enough to be told of, and
which mines an enemy has set off.

Combined Arms hides mine positions from the opponent until one of his sappers stands within 5"
of a mine or charge; then its owner must reveal it. The camera cannot see a hidden mine, so
the owner enters them in the scene (`mines`), and the check says which must now be shown. A
mine goes off once an enemy stands within 3" of it («Мины срабатывают, если противник находится
в радиусе 3 дюймов от метки мины»); what it does to him (infantry or vehicles by its kind) is dice.
"""

from __future__ import annotations

import numpy as np
import shapely

from rules_core.scene import Scene


def mines_report(scene: Scene) -> dict[str, dict]:
    """mine id -> whether it must be revealed, and the enemy detectors (sappers) within distance;
    with the rule's `trigger`, the enemy ground models a mine's radius reaches (`triggered_by`,
    None for a charge).

    Distances run from a model's base or hull edge to the mine's point (a mine is a marker, not
    a model with a footprint)."""
    rule = scene.ruleset.mine_detection
    mines = scene.spec.mines
    roles = np.array([m.role for m in scene.models], dtype=object)
    detectors = np.flatnonzero(np.isin(roles, rule.detector_roles))
    report: dict[str, dict] = {}
    if not mines:
        return report
    points = shapely.points([[mine.x_cm, mine.y_cm] for mine in mines])
    fp = scene.footprints
    gap = np.maximum(shapely.distance(fp.core[:, None], points[None, :]) - fp.radius[:, None], 0.0)
    close = rule.distance.holds(gap[detectors], scene.cm_per_unit)
    if rule.trigger is not None:
        ground = np.array([not scene.unit_type(k).flies for k in range(len(scene.models))], dtype=bool)
        reached = rule.trigger.holds(gap, scene.cm_per_unit) & ground[:, None]
    for column, mine in enumerate(mines):
        sappers = [
            scene.models[k].id
            for row, k in enumerate(detectors)
            if close[row, column] and scene.models[k].side != mine.side
        ]
        report[mine.id] = {
            "kind": mine.kind,
            "side": mine.side,
            "revealed": bool(sappers),
            "sappers": sappers,
        }
        if rule.trigger is not None:
            report[mine.id]["triggered_by"] = (
                [
                    model.id
                    for k, model in enumerate(scene.models)
                    if reached[k, column] and model.side != mine.side
                ]
                if mine.kind == "mine"
                else None
            )
    return report

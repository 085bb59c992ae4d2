"""Hidden mines and charges: which ones an enemy sapper has come close enough to be told of, and
which mines an enemy has set off.

Combined Arms hides mine positions from the opponent until one of his sappers stands within 5"
of a mine or charge; then its owner must reveal it. The camera cannot see a hidden mine, so
the owner enters them in the scene (`mines`), and the check says which must now be shown. A
mine goes off once an enemy stands within 3" of it («Мины срабатывают, если противник находится
в радиусе 3 дюймов от метки мины»), and so once his move passes within 3" of it («Если противник
пересёк радиус 3Д от метки мины и продолжил движение, то после окончания фазы движения он
считается подорванным»); what it does to him (infantry or vehicles by its kind) is dice.
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


def set_off_on_the_way(scene: Scene, a: int, swept: shapely.Geometry) -> list[str] | None:
    """Ids of the enemy mines whose trigger radius the model's move reached anywhere along the
    way (`swept`: the core shape its straight move swept), ending beyond it included; None where
    the ruleset has no trigger or the scene no mine. A charge is blown by its sapper, not walked
    into, and a flying model sets off nothing, as in `mines_report`."""
    detection = scene.ruleset.mine_detection
    rule = None if detection is None else detection.trigger
    if rule is None or not scene.spec.mines:
        return None
    model = scene.models[a]
    mines = [mine for mine in scene.spec.mines if mine.kind == "mine" and mine.side != model.side]
    if not mines or scene.unit_type(a).flies:
        return []
    radius = float(scene.footprints.radius[a])
    gaps = shapely.distance(swept, shapely.points([[mine.x_cm, mine.y_cm] for mine in mines])) - radius
    return [
        mine.id
        for mine, gap in zip(mines, gaps, strict=True)
        if rule.holds(max(float(gap), 0.0), scene.cm_per_unit)
    ]

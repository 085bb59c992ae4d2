"""Hidden mines and charges: which ones an enemy sapper has come close enough to be told of.

Combined Arms hides mine positions from the opponent until one of his sappers stands within 5"
of a mine or charge; then its owner must reveal it. The camera cannot see a hidden mine, so
the owner enters them in the scene (`mines`), and the check says which must now be shown.
"""

from __future__ import annotations

import numpy as np
import shapely

from rules_core.scene import Scene


def mines_report(scene: Scene) -> dict[str, dict]:
    """mine id -> whether it must be revealed, and the enemy detectors (sappers) within distance.

    The distance runs from the sapper's base edge to the mine's point (a mine is a marker, not
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
    gap = shapely.distance(fp.core[detectors][:, None], points[None, :]) - fp.radius[detectors][:, None]
    close = rule.distance.holds(np.maximum(gap, 0.0), scene.cm_per_unit)
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
    return report

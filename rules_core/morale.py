"""Leader's line of sight: Mobile Infantry troopers the squad leader sees save panic more easily.

«для бойцов, которые находятся в зоне прямой видимости командира отделения «+1»»: the bonus is
a dice modifier, but whether a trooper stands in the leader's direct sight is a question of
where the models and the sight-blocking terrain are, so the check answers it per model.
"""

from __future__ import annotations

import numpy as np

from rules_core.reach import height_level
from rules_core.scene import Scene
from rules_core.sight import sight_between


def leader_sight_report(scene: Scene) -> dict[str, dict]:
    """Every model of a unit that has a leader: the leaders that see it (centre to centre, no
    sight-blocking piece between, and on his height level where the ruleset asks it) and whether
    any does. Units without a leader are left out."""
    rule = scene.ruleset.leader_sight
    roles = np.array([m.role for m in scene.models], dtype=object)
    report: dict[str, dict] = {}
    for unit in dict.fromkeys(scene.units.tolist()):
        members = np.flatnonzero(scene.units == unit)
        leaders = members[np.isin(roles[members], rule.leader_roles)]
        troopers = members[~np.isin(roles[members], rule.leader_roles)]
        if not len(leaders) or not len(troopers):
            continue
        seen = sight_between(scene, scene.xy[leaders], scene.xy[troopers])
        if rule.same_level:
            seen &= _levels(scene, leaders)[:, None] == _levels(scene, troopers)[None, :]
        for column, k in enumerate(troopers):
            seen_by = [scene.models[leaders[row]].id for row in np.flatnonzero(seen[:, column])]
            report[scene.models[k].id] = {"in_leader_sight": bool(seen_by), "seen_by": seen_by}
    return report


def _levels(scene: Scene, models: np.ndarray) -> np.ndarray:
    """Each model's height level: sight is only «при условии нахождения на одинаковом уровне по
    высоте»."""
    return np.array([height_level(scene, scene.models[k]) for k in models], dtype=int)

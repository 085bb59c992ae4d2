"""Coherency: a unit is together when its models form one chain under the ruleset's distance.

Both seeds with a coherency rule (World at Fire, Tankomaster) measure a model against its
neighbours, so the groups are connected components of the "within distance" graph, found
for all units at once with one STRtree query and one scipy pass.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from rules_core.footprints import measured
from rules_core.scene import Scene

# World at Fire: mounts their riders dismounted from and left behind («ездовые животные в этом случае
# также остаются на месте») are «другим отрядом», another unit, though the scene keeps one unit id.
LEFT_BEHIND_FLAG = "abandoned"


def unit_parts(scene: Scene) -> np.ndarray:
    """The unit each model is judged with: its `unit`, but mounts left behind (flag abandoned) apart
    from the riders who dismounted from them («наездники становятся обычным отрядом пехоты, а
    ездовые животные – другим отрядом»)."""
    return np.array(
        [f"{m.unit}\x1f{LEFT_BEHIND_FLAG}" if m.has(LEFT_BEHIND_FLAG) else m.unit for m in scene.models],
        dtype=str,
    )


def squad_teams(scene: Scene, parts: np.ndarray) -> np.ndarray:
    """Heavy weapon teams inside an infantry unit: models of the crew rule's gun types and crews
    (`crew_of`) in a unit that has other models keeping coherency. They keep the squad's spacing and
    the squad stays an infantry unit (World at Fire: «расчеты тяжелого оружия действуют в составе
    пехотных отрядов и подчиняются правилам для пехотных отрядов – ... соблюдать дистанцию в составе
    отряда»); a gun unit of its own is bound by the crew rule instead. Rulesets without a crew rule
    have no such team."""
    crew = scene.ruleset.crew
    n = len(scene.models)
    if crew is None or not n:
        return np.zeros(n, dtype=bool)
    in_team = np.array(
        [m.crew_of is not None or m.type in crew.gun_types for m in scene.models], dtype=bool
    )
    keeps = np.array([scene.unit_type(i).coherency for i in range(n)], dtype=bool) & ~in_team
    return in_team & np.isin(parts, parts[keeps])


def coherency_groups(scene: Scene) -> dict[str, dict]:
    """units.{unit}: coherent, groups (lists of model ids), applies (whether the rule binds it).

    Only models whose type keeps coherency form the groups; guns, vehicles and gun crews (bound
    to their gun by the crew rule instead) are left out of a unit that has such models, except a
    heavy weapon team inside an infantry unit (`squad_teams`), which keeps the squad's spacing. A
    unit no coherency rule binds (vehicles, or a ruleset without one) is one group. Mounts left
    behind (`unit_parts`) are another unit under the same id: each part must be one group, and
    `groups` lists them all.
    """
    n = len(scene.models)
    threshold = scene.ruleset.coherency
    parts = unit_parts(scene)
    teams = squad_teams(scene, parts)
    applies_model = np.array(
        [
            threshold is not None
            and ((scene.unit_type(i).coherency and scene.models[i].crew_of is None) or bool(teams[i]))
            for i in range(n)
        ],
        dtype=bool,
    )
    links_i = links_j = np.empty(0, dtype=int)
    if threshold is not None and n > 1:
        fp = scene.footprints
        limit = scene.cm(threshold.value)
        i, j, _ = fp.pairs_within(
            limit if threshold.measured == "edge" else limit + 2 * float(fp.radius.max())
        )
        same_unit = (parts[i] == parts[j]) & (applies_model[i] == applies_model[j])
        i, j = i[same_unit], j[same_unit]
        distance = measured(fp, i, j, threshold.measured)
        linked = threshold.holds(distance, scene.cm_per_unit)
        links_i, links_j = i[linked], j[linked]
    graph = coo_matrix((np.ones(len(links_i)), (links_i, links_j)), shape=(n, n))
    _, labels = connected_components(graph, directed=False)
    report: dict[str, dict] = {}
    for unit in dict.fromkeys(scene.units.tolist()):
        members = np.flatnonzero(scene.units == unit)
        applies = bool(applies_model[members].any())
        if not applies:
            report[unit] = {
                "coherent": True,
                "groups": [[scene.models[k].id for k in members]],
                "applies": False,
            }
            continue
        groups: dict[int, list[str]] = {}
        for k in members[applies_model[members]]:
            groups.setdefault(int(labels[k]), []).append(scene.models[k].id)
        held = {parts[k] for k in members[applies_model[members]]}
        coherent = len(groups) == len(held)
        report[unit] = {"coherent": coherent, "groups": list(groups.values()), "applies": True}
        left = [scene.models[k].id for k in members if parts[k] != unit]
        if left and len(left) < len(members):
            report[unit]["note"] = (
                f"{', '.join(left)} (flag {LEFT_BEHIND_FLAG}): mounts the riders left behind, another unit "
                "under the same id («ездовые животные – другим отрядом»); each part keeps together on its own"
            )
    return report

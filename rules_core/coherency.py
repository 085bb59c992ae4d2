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


def coherency_groups(scene: Scene) -> dict[str, dict]:
    """units.{unit}: coherent, groups (lists of model ids), applies (whether the rule binds it).

    Only models whose type keeps coherency form the groups; guns, vehicles and gun crews (bound
    to their gun by the crew rule instead) are left out of a unit that has such models. A unit
    no coherency rule binds (vehicles, or a ruleset without one) is one group.
    """
    n = len(scene.models)
    threshold = scene.ruleset.coherency
    applies_model = np.array(
        [
            threshold is not None and scene.unit_type(i).coherency and scene.models[i].crew_of is None
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
        same_unit = (scene.units[i] == scene.units[j]) & (applies_model[i] == applies_model[j])
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
        report[unit] = {"coherent": len(groups) == 1, "groups": list(groups.values()), "applies": True}
    return report

"""The state report of one scene: coherency, objectives, deployment, plus crews, command and contacts.

The contract fields (units, objectives, models in deployment) never change name; everything
else is added beside them only when the ruleset defines the rule, so a report stays short.
"""

from __future__ import annotations

import numpy as np

from rules_core.coherency import coherency_groups
from rules_core.crew import crew_report
from rules_core.deployment import deployment_report, edge_warnings
from rules_core.footprints import measured
from rules_core.mines import mines_report
from rules_core.morale import leader_sight_report
from rules_core.objectives import objectives_report
from rules_core.orders import interception_report
from rules_core.placement import placement_report
from rules_core.proximity import can_attack, proximity_check, within
from rules_core.ruleset import Threshold
from rules_core.scene import Scene
from rules_core.transport import transport_report

TOLERANCE_CM = 1e-6


def check_report(scene: Scene) -> dict:
    """What `rules check` prints: the contract fields first, then the ruleset's own checks."""
    report: dict = {
        "ruleset": scene.ruleset.id,
        "phase": scene.phase,
        "units": coherency_groups(scene),
        "objectives": objectives_report(scene),
    }
    if scene.phase == "deployment":
        report["models"] = deployment_report(scene)
    if scene.spec.deployment is not None:
        report["deployment"] = {"kind": scene.spec.deployment.kind, "warnings": edge_warnings(scene)}
    if scene.ruleset.deployment_order is not None and (
        scene.phase == "deployment" or any(m.placed_order is not None for m in scene.models)
    ):
        report["deployment_order"] = placement_report(scene)
    for rule, key, report_of in _RULESET_REPORTS:
        if getattr(scene.ruleset, rule):
            report[key] = report_of(scene)
    return report


def table_report(scene: Scene) -> dict:
    """Whether the table is one of the seed's sizes (either orientation, within 1 cm)."""
    width, depth = scene.table.width_cm, scene.table.depth_cm
    sizes = scene.ruleset.table_sizes_cm
    standard = any(
        (abs(width - w) <= 1 and abs(depth - d) <= 1) or (abs(width - d) <= 1 and abs(depth - w) <= 1)
        for w, d in sizes
    )
    return {
        "width_cm": width,
        "depth_cm": depth,
        "standard": standard,
        "standard_sizes_cm": [list(s) for s in sizes],
    }


def bases_report(scene: Scene) -> dict[str, dict]:
    """Models (and objective markers) whose base does not match the ruleset's base rules."""
    tolerance = scene.ruleset.base_tolerance_mm
    wrong: dict[str, dict] = {}
    for i, model in enumerate(scene.models):
        unit_type = scene.unit_type(i)
        base = model.base
        if unit_type.hull and base.shape != "rect":
            wrong[model.id] = {"base": "round", "expected": "hull footprint (rect): this type has no base"}
        elif base.shape == "rect" and unit_type.bases_mm is not None:
            # The seed's bases for the type are round («круглые подставки диаметром 32 миллиметров»).
            wrong[model.id] = {"base": "rect", "expected_mm": unit_type.bases_mm}
        elif (
            base.shape == "round"
            and unit_type.bases_mm is not None
            and not any(abs(base.diameter_mm - d) <= tolerance for d in unit_type.bases_mm)
        ):
            wrong[model.id] = {"diameter_mm": base.diameter_mm, "expected_mm": unit_type.bases_mm}
    objectives = scene.ruleset.objectives
    for objective in scene.spec.objectives:
        size = objective.diameter_mm
        if objectives is not None and size is not None and abs(size - objectives.marker_mm) > tolerance:
            wrong[objective.id] = {"diameter_mm": size, "expected_mm": [objectives.marker_mm]}
    return wrong


def command_report(scene: Scene) -> dict[str, dict]:
    """Every model the rule binds: in command range of a leader, directly or through the side's radio net.

    A side's radio operators share what they hear at once, so with two or more of them and one
    in range of a leader, any model within the relay distance of a radio operator is in command.
    """
    rules = scene.ruleset.command
    roles = np.array([m.role for m in scene.models], dtype=object)
    report: dict[str, dict] = {}
    for side in dict.fromkeys(scene.sides.tolist()):
        members = np.flatnonzero(scene.sides == side)
        leaders = members[np.isin(roles[members], rules.leader_roles)]
        radios = members[np.isin(roles[members], rules.relay_roles)]
        via = _nearest_source(scene, members, leaders, rules.distance)
        linked = via[np.isin(members, radios)] >= 0
        if rules.relay_distance is not None and len(radios) >= 2 and linked.any():
            relay = _nearest_source(scene, members, radios, rules.relay_distance)
            via = np.where(via >= 0, via, relay)
        for row, k in enumerate(members):
            if rules.subject_types is not None and scene.models[k].type not in rules.subject_types:
                continue
            exempt = roles[k] in rules.exempt_roles
            report[scene.models[k].id] = {
                "in_command": bool(exempt or via[row] >= 0),
                "via": None if via[row] < 0 else scene.models[via[row]].id,
                "exempt": bool(exempt),
            }
    return report


def _nearest_source(
    scene: Scene, members: np.ndarray, sources: np.ndarray, threshold: Threshold
) -> np.ndarray:
    """For each member, the index of the nearest source within the threshold (itself counts, first by
    id among equally near ones), else -1: the first listed would change with the tracker's listing."""
    if not len(sources):
        return np.full(len(members), -1)
    sources = sources[np.argsort([scene.models[k].id for k in sources], kind="stable")]
    distance = measured(scene.footprints, members[:, None], sources[None, :], threshold.measured)
    itself = members[:, None] == sources[None, :]
    close = threshold.holds(distance, scene.cm_per_unit) | itself
    nearest = np.argmin(np.where(itself, -1.0, np.where(close, distance, np.inf)), axis=1)
    return np.where(close.any(axis=1), sources[nearest], -1)


def contacts_report(scene: Scene) -> list[dict]:
    """Opposing pairs close enough for melee; a touching rule (0) uses the camera's contact tolerance."""
    rule = scene.ruleset.melee
    fp = scene.footprints
    limit = scene.cm(rule.value)
    tolerance = scene.ruleset.contact_tolerance_cm if rule.value == 0 else TOLERANCE_CM
    i, j, _ = fp.pairs_within(
        limit + tolerance + (2 * float(fp.radius.max()) if rule.measured == "centre" else 0)
    )
    opposed = scene.sides[i] != scene.sides[j]
    i, j = i[opposed], j[opposed]
    distance = measured(fp, i, j, rule.measured)
    models = scene.models
    either_attacks = [
        can_attack(scene, models[a], models[b]) or can_attack(scene, models[b], models[a])
        for a, b in zip(i, j, strict=True)
    ]
    close = within(scene, rule, distance) & np.array(either_attacks, dtype=bool)
    return [
        {"a": scene.models[a].id, "b": scene.models[b].id, "edge_cm": round(float(d), 4)}
        for a, b, d in zip(i[close], j[close], distance[close], strict=True)
    ]


# (ruleset field that enables the rule, report key, report): each only when the ruleset has it.
_RULESET_REPORTS = (
    ("crew", "guns", crew_report),
    ("command", "command", command_report),
    ("melee", "contacts", contacts_report),
    ("proximity", "proximity", proximity_check),
    ("mine_detection", "mines", mines_report),
    ("leader_sight", "leader_sight", leader_sight_report),
    ("transport", "transport", transport_report),
    ("interception", "interception", interception_report),
    ("table_sizes_cm", "table", table_report),
    ("check_bases", "bases", bases_report),
)

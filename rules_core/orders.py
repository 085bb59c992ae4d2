"""Interception orders (Mobile Infantry): which enemies have walked into a waiting trooper's fire.

«фигура остается на своем месте до тех пор, пока в зоне ее эффективного огня по фронту не
появляется фигура противника (фронт отмечается на карточке фигуры)», and «В непосредственном
соприкосновении с противником ... перехват не может назначается». The front is the model's
`heading_deg`; its width is not in the seed, so it is the ruleset's `front_arc_deg`.
"""

from __future__ import annotations

import math

import numpy as np

from rules_core.footprints import measured
from rules_core.proximity import within
from rules_core.reach import reaches, weapons_of
from rules_core.reasons import angle_between
from rules_core.scene import Scene
from rules_core.sight import sight_between


def interception_report(scene: Scene) -> dict[str, dict]:
    """Every model under the interception order: whether the order may stand (no enemy in
    contact), and the enemies inside its front arc that one of its weapons reaches (null without
    a `heading_deg`: the front is unknown)."""
    rule = scene.ruleset.interception
    report: dict[str, dict] = {}
    for i, model in enumerate(scene.models):
        if model.order != rule.order:
            continue
        enemies = np.flatnonzero(scene.sides != model.side)
        edge = measured(scene.footprints, np.full(len(enemies), i), enemies, "edge")
        in_contact = enemies[within(scene, rule.contact, edge)] if len(enemies) else enemies
        sight = sight_between(scene, scene.xy[[i]], scene.xy[enemies])[0] if len(enemies) else []
        triggered: list[str] | None = None if model.heading_deg is None else []
        for column, k in enumerate(enemies if triggered is not None else []):
            enemy = scene.models[k]
            bearing = math.degrees(math.atan2(enemy.y_cm - model.y_cm, enemy.x_cm - model.x_cm))
            if angle_between(bearing, model.heading_deg) > rule.front_arc_deg / 2 + 1e-6:
                continue
            seen = bool(sight[column])
            if any(
                reaches(scene, scene.ruleset.weapon(name), float(edge[column]), model, enemy, seen)
                for name in weapons_of(scene, i)
            ):
                triggered.append(enemy.id)
        report[model.id] = {
            "allowed": not len(in_contact),
            "in_contact_with": [scene.models[k].id for k in in_contact],
            "triggered_by": triggered,
        }
    return report

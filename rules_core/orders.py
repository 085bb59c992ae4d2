"""Interception orders (Mobile Infantry): which enemies have walked into a waiting trooper's fire.

«фигура остается на своем месте до тех пор, пока в зоне ее эффективного огня по фронту не
появляется фигура противника (фронт отмечается на карточке фигуры)», and «В непосредственном
соприкосновении с противником ... перехват не может назначается». The front is the model's
`heading_deg`; its width is not in the seed, so it is the ruleset's `front_arc_deg`.
"""

from __future__ import annotations

import math

import numpy as np

from rules_core.footprints import Footprints, measured
from rules_core.proximity import within
from rules_core.reach import reaches, weapons_of
from rules_core.reasons import angle_between
from rules_core.scene import ModelSpec, Scene
from rules_core.sight import sight_between

# How far apart the way of a move is read for an interceptor's fire zone: a third of a 32 mm base's
# radius, half Mobile Infantry's 1 cm eye tolerance; the range is read exactly where the way comes
# nearest, so only sight or height that change for less than this on the way can be missed.
WAY_STEP_CM = 0.5


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
        triggered: list[str] | None = None
        if model.heading_deg is not None:
            seen = in_front_fire(scene, i, [scene.models[k] for k in enemies])
            triggered = [scene.models[k].id for k in enemies[seen]]
        report[model.id] = {
            "allowed": not len(in_contact),
            "in_contact_with": [scene.models[k].id for k in in_contact],
            "triggered_by": triggered,
        }
    return report


def in_front_fire(scene: Scene, i: int, targets: list[ModelSpec]) -> np.ndarray:
    """Which of `targets` (models where they stand, or where one stood on its way) are in model i's
    front fire zone: the centre inside the front arc, and reached by one of its weapons (range,
    tolerance, height, sight). The model needs a `heading_deg`."""
    model = scene.models[i]
    front = np.zeros(len(targets), dtype=bool)
    if not targets:
        return front
    footprints = Footprints.of_models([model, *targets])
    edge = footprints.edge(0, np.arange(1, len(targets) + 1))
    xy = np.array([[target.x_cm, target.y_cm] for target in targets], dtype=float)
    sight = sight_between(scene, scene.xy[[i]], xy)[0]
    weapons = [scene.ruleset.weapon(name) for name in weapons_of(scene, i)]
    half_arc = scene.ruleset.interception.front_arc_deg / 2
    for column, target in enumerate(targets):
        bearing = math.degrees(math.atan2(target.y_cm - model.y_cm, target.x_cm - model.x_cm))
        if angle_between(bearing, model.heading_deg) > half_arc + 1e-6:
            continue
        seen = bool(sight[column])
        front[column] = any(
            reaches(scene, weapon, float(edge[column]), model, target, seen) for weapon in weapons
        )
    return front


def intercepted_on_the_way(
    scene: Scene, mover: ModelSpec, start: tuple[float, float], waiting: list[int]
) -> list[str]:
    """Ids of the enemy interceptors (`waiting`: indices of those whose order still stood) whose
    front fire zone the mover entered anywhere on its straight move from `start` to where it ends.

    The camera sees no path, so the way is read at stops every `WAY_STEP_CM` and where it comes
    nearest each interceptor (there the range is read exactly)."""
    hostile = [k for k in waiting if scene.models[k].side != mover.side]
    if not hostile:
        return []
    end = np.array([mover.x_cm, mover.y_cm])
    way = end - np.asarray(start, dtype=float)
    length = float(np.hypot(*way))
    share = np.linspace(0.0, 1.0, max(math.ceil(length / WAY_STEP_CM), 1) + 1)
    if length > 0:
        nearest = (scene.xy[hostile] - start) @ way / length**2
        share = np.union1d(share, np.clip(nearest, 0.0, 1.0))
    stops = np.asarray(start, dtype=float) + share[:, None] * way
    targets = [mover.model_copy(update={"x_cm": float(x), "y_cm": float(y)}) for x, y in stops]
    return [scene.models[k].id for k in hostile if in_front_fire(scene, k, targets).any()]
